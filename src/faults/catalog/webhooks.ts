/** Webhooks: PATCH /v0/webhooks, the toggle and the configuration shape. */
import { bodyOf, expectAll, fault, got, json, on, queryOf, R, req, T0, withQuery, type Json } from './helpers.ts';
import { leak, learnOwners } from './tenancy.ts';
import type { CatalogFault } from './types.ts';

const SUITES = ['webhooks'];
const config = (over: Json = {}): Json => ({
  object: 'webhooks',
  applicationId: 'app_demo1',
  createdAt: T0,
  updatedAt: T0,
  enabled: true,
  merchantId: 'org_demo1',
  ...over,
});
const patch = (enabled: unknown) => req('PATCH', '/v0/webhooks', { enabled });

export const webhookFaults: CatalogFault[] = [
  fault({
    name: 'webhooks-200-when-never-enabled',
    area: 'webhooks',
    description: 'PATCH /v0/webhooks for a merchant that never enabled webhooks answers 200 instead of 404',
    rules: ['WEBHOOKS.404.NEVER_ENABLED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      if (!on(r, 'PATCH', R.webhooks) || res.status !== 404) return;
      ctx.applied();
      const now = new Date().toISOString();
      return json(200, {
        object: 'webhooks',
        applicationId: 'app_conform_fault',
        createdAt: now,
        updatedAt: now,
        enabled: bodyOf(r)?.enabled === true,
        merchantId: queryOf(r).get('merchantId') ?? 'org_conformUnknownMerchant',
      });
    },
    demo: {
      steps: [{ req: patch(true), res: json(404, { error: 'not_found', message: 'never enabled' }) }],
      verify: (o) =>
        expectAll([o.response.status === 200 && got(o)?.object === 'webhooks', `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'webhooks-disable-drops-endpoints',
    area: 'webhooks',
    description: 'disabling delivery deletes the endpoints and their event subscriptions',
    rules: ['WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const who = r.headers.authorization ?? '';
      if (on(r, 'PATCH', R.webhooks) && res.status === 200 && bodyOf(r)?.enabled === false)
        ctx.state.set(`dropped:${who}`, true);
      const list = bodyOf(res);
      if (
        on(r, 'GET', R.webhookEndpoints) &&
        ctx.state.get(`dropped:${who}`) &&
        Array.isArray(list?.data) &&
        list.data.length
      ) {
        list.data = [];
        if (list.pagination && typeof list.pagination === 'object') list.pagination.total = 0;
        ctx.applied();
      }
    },
    demo: {
      steps: [
        { req: patch(false), res: json(200, config({ enabled: false })) },
        {
          req: req('GET', '/v0/webhooks/endpoints'),
          res: json(200, { object: 'list', data: [{ url: 'https://x.invalid', eventTypes: ['invoice.paid'] }] }),
        },
      ],
      verify: (o) => expectAll([Array.isArray(got(o)?.data) && got(o)!.data.length === 0, 'endpoints still listed']),
    },
  }),
  fault({
    name: 'webhooks-createdAt-moves',
    area: 'webhooks',
    description: 'createdAt changes on every PATCH (it is the time of the last toggle)',
    rules: ['WEBHOOKS.CREATED_AT.FIRST_ENABLED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.webhooks) || res.status !== 200 || !b) return;
      const n = ((ctx.state.get('n') as number | undefined) ?? 0) + 1;
      ctx.state.set('n', n);
      b.createdAt = new Date(Date.now() + n).toISOString();
      ctx.applied();
    },
    demo: {
      steps: [{ req: patch(false), res: json(200, config({ enabled: false })) }],
      verify: (o) => expectAll([got(o)?.createdAt !== T0, 'createdAt unchanged']),
    },
  }),
  fault({
    name: 'webhooks-disable-ignored',
    area: 'webhooks',
    description: 'PATCH enabled=false leaves delivery on',
    rules: ['STATE.WEBHOOKS.DISABLE'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.webhooks) || b?.enabled !== false) return;
      b.enabled = true;
      ctx.applied();
    },
    demo: {
      steps: [{ req: patch(false), res: (f) => json(200, config({ enabled: bodyOf(f)?.enabled })) }],
      verify: (o) =>
        expectAll(
          [bodyOf(o.forwarded ?? {})?.enabled === true, 'enabled=false reached the target'],
          [got(o)?.enabled === true, 'delivery reads off'],
        ),
    },
  }),
  fault({
    name: 'webhooks-no-applicationId',
    area: 'webhooks',
    description: 'the webhooks configuration drops its required applicationId',
    rules: ['WEBHOOKS.CONFIG.SHAPE', 'SCHEMA.REQUIRED.PRESENT'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.webhooks) || res.status !== 200 || b?.applicationId === undefined) return;
      delete b.applicationId;
      ctx.applied();
    },
    demo: {
      steps: [{ req: patch(true), res: json(200, config()) }],
      verify: (o) =>
        expectAll([got(o)?.object === 'webhooks' && got(o)?.applicationId === undefined, 'applicationId still there']),
    },
  }),
  fault({
    name: 'webhooks-201-instead-of-200',
    area: 'webhooks',
    description: 'PATCH /v0/webhooks answers 201 where the document gives 200',
    rules: ['STATUS.SUCCESS.CODE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      if (!on(r, 'PATCH', R.webhooks) || res.status !== 200) return;
      ctx.applied();
      return { ...res, status: 201 };
    },
    demo: {
      steps: [{ req: patch(true), res: json(200, config()) }],
      verify: (o) => expectAll([o.response.status === 201, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'webhooks-non-boolean-accepted',
    area: 'webhooks',
    description: "PATCH /v0/webhooks takes enabled 'yes' (coerced to true) instead of answering 400",
    rules: ['VALIDATION.TYPE.400'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.webhooks) || !b || b.enabled === undefined || typeof b.enabled === 'boolean') return;
      b.enabled = Boolean(b.enabled);
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: patch('yes'),
          res: (f) =>
            typeof bodyOf(f)?.enabled === 'boolean'
              ? json(200, config())
              : json(400, { message: 'enabled must be a boolean' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 200, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'webhooks-enable-ignored',
    area: 'webhooks',
    description: 'once delivery was turned off, PATCH enabled=true leaves it off',
    rules: ['STATE.WEBHOOKS.ENABLE'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      const who = `off:${r.headers.authorization ?? ''}`;
      if (!on(r, 'PATCH', R.webhooks) || typeof b?.enabled !== 'boolean') return;
      if (b.enabled === false) return void ctx.state.set(who, true);
      if (!ctx.state.get(who)) return;
      b.enabled = false;
      ctx.applied();
    },
    demo: {
      steps: [
        { req: patch(false), res: json(200, config({ enabled: false })) },
        { req: patch(true), res: (f) => json(200, config({ enabled: bodyOf(f)?.enabled })) },
      ],
      verify: (o) => expectAll([got(o)?.enabled === false, 'delivery came back on']),
    },
  }),
  fault({
    name: 'webhooks-merchant-param-ignored',
    area: 'webhooks',
    description: 'PATCH /v0/webhooks ignores the merchantId query: it always acts on the merchant of the key',
    rules: ['WEBHOOKS.MERCHANT.NAMED'],
    suites: SUITES,
    onRequest(r, ctx) {
      const q = queryOf(r);
      if (!on(r, 'PATCH', R.webhooks) || !q.has('merchantId')) return;
      q.delete('merchantId');
      withQuery(r, q);
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/webhooks?merchantId=org_other1', { enabled: true }),
          res: (f) => json(200, config({ merchantId: queryOf(f).get('merchantId') ?? 'org_demo1' })),
        },
      ],
      verify: (o) => expectAll([got(o)?.merchantId === 'org_demo1', `got merchantId ${got(o)?.merchantId}`]),
    },
  }),
  fault({
    name: 'webhooks-unmanaged-merchant-toggled',
    area: 'webhooks',
    description:
      'a key turns the webhook delivery of a merchant it may not manage on or off ' +
      '(PATCH /v0/webhooks?merchantId=<that merchant>) instead of getting 403',
    rules: ['WEBHOOKS.MERCHANT.UNMANAGED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      learnOwners(r, res, ctx);
      const named = queryOf(r).get('merchantId');
      if (!on(r, 'PATCH', R.webhooks) || !named) return;
      return leak(r, res, ctx, [named]);
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/webhooks', { enabled: true }, { authorization: 'Bearer sk_test_other0key' }),
          res: json(200, config({ merchantId: 'org_other1' })),
        },
        {
          req: req('PATCH', '/v0/webhooks?merchantId=org_other1', { enabled: false }),
          res: (f) =>
            f.headers.authorization === 'Bearer sk_test_other0key'
              ? json(200, config({ merchantId: 'org_other1', enabled: false }))
              : json(403, { error: 'forbidden', message: 'not your merchant' }),
        },
      ],
      verify: (o) =>
        expectAll([
          o.response.status === 200 && got(o)?.merchantId === 'org_other1' && got(o)?.enabled === false,
          `got ${o.response.status} ${JSON.stringify(got(o))}`,
        ]),
    },
  }),
];
