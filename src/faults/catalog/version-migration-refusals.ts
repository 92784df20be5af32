/**
 * Version migrations the document refuses, and how: a missing or archived version (404), a target
 * out of range (400), a migration that may not happen (409, with its code; also a kept override
 * whose new price reads its rate as a proportion); and the other way round, a move the document
 * allows (to an older version) refused.
 */
import type { FaultContext, ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import { bodyOf, expectAll, fault, got, is2xx, isObj, json, on, R, req, stateMap, T0, type Json } from './helpers.ts';
import type { CatalogFault } from './types.ts';

const SUITES = ['version-migration'];
const CONFLICTS = [
  'MIGRATION.409.NOT_LIVE',
  'MIGRATION.409.ENDS_BEFORE_BOUNDARY',
  'MIGRATION.409.OVERRIDE_RATE',
  'MIGRATION.409.FEATURE_CHANGE',
  'MIGRATION.409.INTERVAL_COVERED',
];

/** The demos' subscription, a migration answer, and the request asking for one. */
export const sub = (over: Json = {}): Json => ({
  object: 'subscription',
  id: 'sub_demo1',
  versionPolicy: 'floating',
  versionNumber: 1,
  planVersionId: 'pv_demo1',
  ...over,
});
export const answer = (from: number, to: number, over: Json = {}): Json => ({
  subscription: sub({ versionPolicy: 'pinned', versionNumber: from }),
  migration: { fromVersionNumber: from, toVersionNumber: to, effectiveAt: T0, changed: from !== to },
  lineItems: { syncFailed: false },
  ...over,
});
export const migrateReq = (to: unknown) =>
  req('POST', '/v0/subscriptions/sub_demo1/versionMigration', { targetVersionNumber: to });

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

/** In catalog order, after migration-takes-effect-now. */
export const refusedAnswerFaults: CatalogFault[] = [
  fault({
    name: 'migration-missing-version-accepted',
    area: 'version-migration',
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
    area: 'version-migration',
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
    area: 'version-migration',
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
    area: 'version-migration',
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
];

/** In catalog order, after migration-second-ignored. */
export const olderRefused: CatalogFault = fault({
  name: 'migration-older-refused',
  area: 'version-migration',
  description: 'migrating to an older version than the one in use is refused (409)',
  offTraffic: 'a 409 may be a documented refusal, whose codes the document does not name',
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
});

/** After migration-older-refused in the catalog. */
export const conflictCodeLowercase: CatalogFault = fault({
  name: 'migration-409-code-lowercase',
  area: 'version-migration',
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
});

/** Last of the version-migration area in the catalog. */
export const unitBasisIgnored: CatalogFault = fault({
  name: 'migration-unit-basis-ignored',
  area: 'version-migration',
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
});
