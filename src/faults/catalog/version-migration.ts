/** Version migration (POST /v0/subscriptions/{id}/versionMigration) and PATCH versionPolicy floating. */
import type { ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import { bodyOf, expectAll, fault, got, is2xx, isObj, json, on, R, req, stateMap, T0, type Json } from './helpers.ts';
import type { CatalogFault, DemoStep } from './types.ts';
import {
  answer,
  conflictCodeLowercase,
  migrateReq,
  olderRefused,
  refusedAnswerFaults,
  sub,
  unitBasisIgnored,
} from './version-migration-refusals.ts';

const SUITES = ['version-migration'];
const DAY_MS = 86_400_000;

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

export const migrationFaults: CatalogFault[] = [
  fault({
    name: 'migration-same-version-touches',
    area: 'version-migration',
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
    area: 'version-migration',
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
    area: 'version-migration',
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
    area: 'version-migration',
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
  ...refusedAnswerFaults,
  fault({
    name: 'migration-same-version-changed',
    area: 'version-migration',
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
    area: 'version-migration',
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
    area: 'version-migration',
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
    area: 'version-migration',
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
    area: 'version-migration',
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
  olderRefused,
  conflictCodeLowercase,
  fault({
    name: 'migration-version-number-string',
    area: 'version-migration',
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
  unitBasisIgnored,
];
