/** Version migration (POST /v0/subscriptions/{id}/versionMigration) and PATCH versionPolicy floating. */
import type { FaultContext, ProxyRequest, ProxyResponse } from '../proxy.ts';
import { bodyOf, expectAll, fault, got, is2xx, isObj, json, on, R, req, stateMap, T0, type Json } from './helpers.ts';
import type { CatalogFault, DemoStep } from './types.ts';

const SUITES = ['version-migration'];
const CONFLICTS = [
  'MIGRATION.409.NOT_LIVE',
  'MIGRATION.409.ENDS_BEFORE_BOUNDARY',
  'MIGRATION.409.OVERRIDE_RATE',
  'MIGRATION.409.FEATURE_CHANGE',
  'MIGRATION.409.INTERVAL_COVERED',
];
const DAY_MS = 86_400_000;

const sub = (over: Json = {}): Json => ({
  object: 'subscription',
  id: 'sub_demo1',
  versionPolicy: 'floating',
  versionNumber: 1,
  planVersionId: 'pv_demo1',
  ...over,
});
const answer = (from: number, to: number, over: Json = {}): Json => ({
  subscription: sub({ versionPolicy: 'pinned', versionNumber: from }),
  migration: { fromVersionNumber: from, toVersionNumber: to, effectiveAt: T0, changed: from !== to },
  lineItems: { syncFailed: false },
  ...over,
});
const migrateReq = (to: unknown) =>
  req('POST', '/v0/subscriptions/sub_demo1/versionMigration', { targetVersionNumber: to });
const migrated = (from: number, to: number): DemoStep => ({ req: migrateReq(to), res: json(200, answer(from, to)) });
const readSub = (over: Json = {}): DemoStep => ({
  req: req('GET', '/v0/subscriptions/sub_demo1'),
  res: json(200, sub(over)),
});

/** The migration answer of a successful POST, or undefined. */
function migration(r: ProxyRequest, res: ProxyResponse): { id: string; body: Json; m: Json } | undefined {
  const hit = on(r, 'POST', R.migrate);
  const body = bodyOf(res);
  if (!hit || !is2xx(res) || !body || !isObj(body.migration)) return undefined;
  return { id: decodeURIComponent(hit[1]), body, m: body.migration };
}

/** An accepted-looking answer built from the subscription as it reads now. */
async function fakeAccepted(r: ProxyRequest, ctx: FaultContext, id: string): Promise<ProxyResponse> {
  const read = await ctx.upstream({
    method: 'GET',
    path: `/v0/subscriptions/${encodeURIComponent(id)}`,
    headers: { authorization: r.headers.authorization ?? '' },
    body: Buffer.alloc(0),
  });
  const s = bodyOf(read) ?? { object: 'subscription', id };
  const to = bodyOf(r)?.targetVersionNumber;
  const from = typeof s.versionNumber === 'number' ? s.versionNumber : 1;
  return json(200, {
    subscription: { ...s, versionPolicy: 'pinned' },
    migration: {
      fromVersionNumber: from,
      toVersionNumber: to,
      effectiveAt: s.currentPeriodEnd ?? new Date().toISOString(),
      changed: to !== from,
    },
    lineItems: { syncFailed: false },
  });
}

export const migrationFaults: CatalogFault[] = [
  fault({
    name: 'migration-same-version-touches',
    family: 'version-migration',
    description: 'every same-version migration bumps updatedAt, also a repeat that changes nothing',
    rules: ['MIGRATION.SAME_VERSION.REPEATABLE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const mig = migration(r, res);
      if (!mig || mig.m.changed !== false || !isObj(mig.body.subscription)) return;
      const n = stateMap<string, number>(ctx, 'touches');
      n.set(mig.id, (n.get(mig.id) ?? 0) + 1);
      mig.body.subscription.updatedAt = new Date(Date.parse(T0) + n.get(mig.id)! * 1000).toISOString();
      ctx.applied();
    },
    demo: {
      steps: [migrated(2, 2), migrated(2, 2)],
      verify: (o, all) =>
        expectAll([
          got(all[0])?.subscription?.updatedAt !== got(o)?.subscription?.updatedAt,
          'the repeat kept updatedAt',
        ]),
    },
  }),
  fault({
    name: 'migration-does-not-pin',
    family: 'version-migration',
    description: 'a migrated subscription stays (and reads) floating',
    rules: ['MIGRATION.EFFECT.PINS', 'MIGRATION.SAME_VERSION.PINS_FLOATING'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const mig = migration(r, res);
      const seen = stateMap<string, true>(ctx, 'migrated');
      if (mig && isObj(mig.body.subscription)) {
        seen.set(mig.id, true);
        mig.body.subscription.versionPolicy = 'floating';
        return void ctx.applied();
      }
      const read = on(r, 'GET', R.subscription);
      const b = bodyOf(res);
      if (read && b && seen.has(decodeURIComponent(read[1])) && b.versionPolicy === 'pinned') {
        b.versionPolicy = 'floating';
        ctx.applied();
      }
    },
    demo: {
      steps: [migrated(1, 2), readSub({ versionPolicy: 'pinned' })],
      verify: (o, all) =>
        expectAll(
          [got(all[0])?.subscription?.versionPolicy === 'floating', 'the answer is pinned'],
          [got(o)?.versionPolicy === 'floating', 'the read is pinned'],
        ),
    },
  }),
  fault({
    name: 'migration-wrong-effectiveAt',
    family: 'version-migration',
    description: 'effectiveAt is a day after the end of the current billing period',
    rules: ['MIGRATION.EFFECT.PERIOD_END'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const mig = migration(r, res);
      if (!mig || typeof mig.m.effectiveAt !== 'string') return;
      mig.m.effectiveAt = new Date(Date.parse(mig.m.effectiveAt) + DAY_MS).toISOString();
      ctx.applied();
    },
    demo: {
      steps: [migrated(1, 2)],
      verify: (o) =>
        expectAll([
          got(o)?.migration?.effectiveAt === '2030-01-02T00:00:00.000Z',
          `effectiveAt ${got(o)?.migration?.effectiveAt}`,
        ]),
    },
  }),
  fault({
    name: 'migration-takes-effect-now',
    family: 'version-migration',
    description:
      'the move happens at once: effectiveAt is now and the subscription reads the target version before the boundary',
    rules: ['MIGRATION.EFFECT.PERIOD_END'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const moved = stateMap<string, number>(ctx, 'movedTo');
      const mig = migration(r, res);
      if (mig && mig.m.changed === true) {
        moved.set(mig.id, mig.m.toVersionNumber);
        mig.m.effectiveAt = new Date().toISOString();
        if (isObj(mig.body.subscription)) mig.body.subscription.versionNumber = mig.m.toVersionNumber;
        return void ctx.applied();
      }
      const read = on(r, 'GET', R.subscription);
      const b = bodyOf(res);
      const to = read ? moved.get(decodeURIComponent(read[1])) : undefined;
      if (b && to !== undefined && b.versionNumber !== to) {
        b.versionNumber = to;
        ctx.applied();
      }
    },
    demo: {
      steps: [migrated(1, 2), readSub({ versionPolicy: 'pinned', versionNumber: 1 })],
      verify: (o, all) =>
        expectAll(
          [got(all[0])?.migration?.effectiveAt !== T0, 'effectiveAt unchanged'],
          [got(o)?.versionNumber === 2, `reads version ${got(o)?.versionNumber}`],
        ),
    },
  }),
  fault({
    name: 'migration-missing-version-accepted',
    family: 'version-migration',
    description: 'a version the plan lacks (or an archived one) is accepted with 200 instead of 404',
    rules: ['MIGRATION.404.MISSING_VERSION', 'MIGRATION.404.ARCHIVED_VERSION'],
    suites: SUITES,
    async onResponse(r, res, ctx) {
      const hit = on(r, 'POST', R.migrate);
      if (!hit || res.status !== 404) return;
      ctx.applied();
      return fakeAccepted(r, ctx, decodeURIComponent(hit[1]));
    },
    demo: {
      steps: [
        {
          req: migrateReq(99),
          res: (f) =>
            f.method === 'GET' ? json(200, sub()) : json(404, { error: 'not_found', message: 'no version 99' }),
        },
      ],
      verify: (o) =>
        expectAll([o.response.status === 200 && got(o)?.migration?.toVersionNumber === 99, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'migration-409-without-code',
    family: 'version-migration',
    description: 'refused migrations (409) carry no code',
    rules: CONFLICTS,
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.migrate) || res.status !== 409 || b?.code === undefined) return;
      delete b.code;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: migrateReq(2),
          res: json(409, { error: 'conflict', message: 'not live', code: 'SUBSCRIPTION_NOT_LIVE' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 409 && got(o)?.code === undefined, 'code still there']),
    },
  }),
  fault({
    name: 'migration-conflict-accepted',
    family: 'version-migration',
    description: 'migrations the document refuses with 409 (not live, ends before the boundary, ...) are answered 200',
    rules: CONFLICTS,
    suites: SUITES,
    async onResponse(r, res, ctx) {
      const hit = on(r, 'POST', R.migrate);
      if (!hit || res.status !== 409) return;
      ctx.applied();
      return fakeAccepted(r, ctx, decodeURIComponent(hit[1]));
    },
    demo: {
      steps: [
        {
          req: migrateReq(2),
          res: (f) =>
            f.method === 'GET'
              ? json(200, sub())
              : json(409, { error: 'conflict', message: 'not live', code: 'SUBSCRIPTION_NOT_LIVE' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 200, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'migration-range-as-404',
    family: 'version-migration',
    description: 'targetVersionNumber out of 1..2147483647 (or not an integer) gets 404 instead of 400',
    rules: ['MIGRATION.400.TARGET_RANGE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      if (!on(r, 'POST', R.migrate) || res.status !== 400) return;
      ctx.applied();
      return json(404, { error: 'not_found', message: 'no such version' });
    },
    demo: {
      steps: [
        {
          req: migrateReq(0),
          res: json(400, {
            error: 'validation_error',
            message: 'bad',
            errors: [{ field: 'targetVersionNumber', message: 'min 1' }],
          }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 404, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'migration-same-version-changed',
    family: 'version-migration',
    description: 'migrating to the version in use answers changed true',
    rules: ['MIGRATION.SAME_VERSION.NO_CHANGE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const mig = migration(r, res);
      if (!mig || mig.m.fromVersionNumber !== mig.m.toVersionNumber || mig.m.changed !== false) return;
      mig.m.changed = true;
      ctx.applied();
    },
    demo: {
      steps: [migrated(1, 1)],
      verify: (o) => expectAll([got(o)?.migration?.changed === true, 'changed still false']),
    },
  }),
  fault({
    name: 'migration-floating-patch-ignored',
    family: 'version-migration',
    description: 'PATCH /v0/subscriptions/{id} versionPolicy floating is answered but not applied',
    rules: ['STATE.SUBSCRIPTION.FLOATING'],
    suites: SUITES,
    async onRequest(r, ctx) {
      if (!on(r, 'PATCH', R.subscription)) return;
      ctx.applied();
      const { 'content-type': _ct, ...headers } = r.headers;
      return ctx.upstream({ method: 'GET', path: r.path, headers, body: Buffer.alloc(0) });
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/subscriptions/sub_demo1', { versionPolicy: 'floating' }),
          res: (f) => json(200, sub({ versionPolicy: f.method === 'PATCH' ? 'floating' : 'pinned' })),
        },
      ],
      verify: (o) =>
        expectAll(
          [o.forwarded === undefined, 'the PATCH reached the target'],
          [got(o)?.versionPolicy === 'pinned', 'the answer is floating'],
        ),
    },
  }),
  fault({
    name: 'migration-from-version-wrong',
    family: 'version-migration',
    description: 'migration.fromVersionNumber repeats the target version',
    rules: ['MIGRATION.RESPONSE.VERSION_NUMBERS'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const mig = migration(r, res);
      if (!mig || mig.m.fromVersionNumber === mig.m.toVersionNumber) return;
      mig.m.fromVersionNumber = mig.m.toVersionNumber;
      ctx.applied();
    },
    demo: {
      steps: [migrated(1, 2)],
      verify: (o) => expectAll([got(o)?.migration?.fromVersionNumber === 2, 'fromVersionNumber unchanged']),
    },
  }),
  fault({
    name: 'migration-no-lineItems',
    family: 'version-migration',
    description: 'the migration answer drops lineItems',
    rules: ['MIGRATION.RESPONSE.SHAPE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const mig = migration(r, res);
      if (!mig || mig.body.lineItems === undefined) return;
      delete mig.body.lineItems;
      ctx.applied();
    },
    demo: {
      steps: [migrated(1, 2)],
      verify: (o) => expectAll([got(o) !== undefined && got(o)?.lineItems === undefined, 'lineItems still there']),
    },
  }),
  fault({
    name: 'migration-second-ignored',
    family: 'version-migration',
    description: 'a second migration before the boundary is acknowledged, but the first one stays scheduled',
    rules: ['MIGRATION.EFFECT.SECOND_REPLACES_FIRST'],
    suites: SUITES,
    onRequest(r, ctx) {
      const hit = on(r, 'POST', R.migrate);
      const first = hit && stateMap<string, Json>(ctx, 'first').get(decodeURIComponent(hit[1]));
      const to = bodyOf(r)?.targetVersionNumber;
      if (!first || !Number.isInteger(to) || to === first.migration.toVersionNumber) return;
      ctx.applied();
      return json(200, { ...first, migration: { ...first.migration, toVersionNumber: to } });
    },
    onResponse(r, res, ctx) {
      const mig = migration(r, res);
      const firsts = stateMap<string, Json>(ctx, 'first');
      if (mig && mig.m.changed === true && !firsts.has(mig.id))
        firsts.set(mig.id, JSON.parse(JSON.stringify(mig.body)));
    },
    demo: {
      steps: [migrated(1, 3), { req: migrateReq(2), res: json(200, answer(1, 2)) }],
      verify: (o) =>
        expectAll(
          [o.forwarded === undefined, 'the second migration reached the target'],
          [got(o)?.migration?.toVersionNumber === 2, 'the answer does not echo the second target'],
        ),
    },
  }),
  fault({
    name: 'migration-older-refused',
    family: 'version-migration',
    description: 'migrating to an older version than the one in use is refused (409)',
    rules: ['MIGRATION.TARGET.OLDER_OR_NEWER'],
    suites: SUITES,
    async onRequest(r, ctx) {
      const hit = on(r, 'POST', R.migrate);
      const to = bodyOf(r)?.targetVersionNumber;
      if (!hit || !Number.isInteger(to)) return;
      const read = await ctx.upstream({
        method: 'GET',
        path: `/v0/subscriptions/${hit[1]}`,
        headers: { authorization: r.headers.authorization ?? '' },
        body: Buffer.alloc(0),
      });
      const current = bodyOf(read)?.versionNumber;
      if (read.status !== 200 || !Number.isInteger(current) || to >= current) return;
      ctx.applied();
      return json(409, {
        error: 'conflict',
        message: `cannot move back from version ${current} to ${to}`,
        code: 'DOWNGRADE_NOT_ALLOWED',
      });
    },
    demo: {
      steps: [
        {
          req: migrateReq(1),
          res: (f) => (f.method === 'GET' ? json(200, sub({ versionNumber: 2 })) : json(200, answer(2, 1))),
        },
      ],
      verify: (o) => expectAll([o.response.status === 409 && o.forwarded === undefined, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'migration-409-code-lowercase',
    family: 'version-migration',
    description: 'migration 409 codes are lower case (subscription_not_live)',
    rules: ['MIGRATION.409.CODE_VALUES'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.migrate) || res.status !== 409 || typeof b?.code !== 'string') return;
      b.code = b.code.toLowerCase();
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: migrateReq(2),
          res: json(409, { error: 'conflict', message: 'not live', code: 'SUBSCRIPTION_NOT_LIVE' }),
        },
      ],
      verify: (o) => expectAll([got(o)?.code === 'subscription_not_live', `code ${got(o)?.code}`]),
    },
  }),
  fault({
    name: 'migration-version-number-string',
    family: 'version-migration',
    description: 'the subscription in a migration answer carries versionNumber as a string ("2")',
    rules: ['SUBSCRIPTIONS.VERSION.NUMBERED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const s = migration(r, res)?.body.subscription;
      if (!isObj(s) || typeof s.versionNumber !== 'number') return;
      s.versionNumber = String(s.versionNumber);
      ctx.applied();
    },
    demo: {
      steps: [migrated(1, 2)],
      verify: (o) =>
        expectAll([
          got(o)?.subscription?.versionNumber === '1',
          `versionNumber ${JSON.stringify(got(o)?.subscription?.versionNumber)}`,
        ]),
    },
  }),
  fault({
    name: 'migration-unit-basis-ignored',
    family: 'version-migration',
    description:
      "a price's unit basis (amount or proportion) is stored and shown but the migration check ignores it: " +
      'a kept override whose new price reads its rate as a proportion is migrated instead of refused',
    rules: ['MIGRATION.409.OVERRIDE_RATE'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (
        r.method !== 'POST' ||
        r.path.split('?')[0] !== '/v0/prices' ||
        typeof b?.unitBasis !== 'string' ||
        b.unitBasis === 'amount'
      )
        return;
      // The target only ever sees amount-basis prices; the proxy shows the basis asked for.
      stateMap<ProxyRequest, string>(ctx, 'askedBasis').set(r, b.unitBasis);
      delete b.unitBasis;
      ctx.applied();
    },
    onResponse(r, res, ctx) {
      const basis = stateMap<string, string>(ctx, 'basis');
      const asked = stateMap<ProxyRequest, string>(ctx, 'askedBasis').get(r);
      const b = bodyOf(res);
      if (asked && is2xx(res) && typeof b?.id === 'string') {
        basis.set(b.id, asked);
        b.unitBasis = asked;
        return;
      }
      if (r.method !== 'GET' || !is2xx(res) || !b) return;
      const prices = Array.isArray(b.data) ? b.data.filter(isObj) : [b];
      for (const p of prices) {
        if (typeof p.id !== 'string' || !basis.has(p.id) || p.unitBasis === basis.get(p.id)) continue;
        p.unitBasis = basis.get(p.id);
        ctx.applied();
      }
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/prices', {
            billableMetricId: 'bm_demo1',
            model: 'standard',
            currency: 'USD',
            properties: { unitPrice: '0.02' },
            unitBasis: 'proportion',
          }),
          res: (f) => json(201, { object: 'price', id: 'price_demo2', unitBasis: bodyOf(f)?.unitBasis ?? 'amount' }),
        },
        {
          req: req('GET', '/v0/prices/price_demo2'),
          res: json(200, { object: 'price', id: 'price_demo2', unitBasis: 'amount' }),
        },
      ],
      verify: (o, all) =>
        expectAll(
          [bodyOf(all[0].forwarded ?? {})?.unitBasis === undefined, 'the unit basis still reached the target'],
          [
            got(all[0])?.unitBasis === 'proportion' && got(o)?.unitBasis === 'proportion',
            'the answers do not show the basis asked for',
          ],
        ),
    },
  }),
];
