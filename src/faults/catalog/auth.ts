/** Authentication: bearer keys, 401/403 shapes, the key's merchant as default. */
import {
  bodyOf,
  DEMO_KEY,
  expectAll,
  fault,
  got,
  is2xx,
  json,
  on,
  queryOf,
  R,
  req,
  stateMap,
  type Json,
} from './helpers.ts';
import { leak, learnOwners } from './tenancy.ts';
import type { CatalogFault } from './types.ts';

const SUITES = ['auth'];

export const authFaults: CatalogFault[] = [
  fault({
    name: 'auth-no-bearer-accepted',
    area: 'auth',
    description: 'a request without Authorization is served as if it carried the last key that worked',
    rules: ['AUTH.BEARER.REQUIRED'],
    suites: SUITES,
    onRequest(r, ctx) {
      const last = ctx.state.get('lastGoodKey') as string | undefined;
      if (r.headers.authorization || !last) return;
      r.headers.authorization = last;
      ctx.applied();
    },
    onResponse(r, res, ctx) {
      if (r.headers.authorization && res.status !== 401 && res.status !== 403)
        ctx.state.set('lastGoodKey', r.headers.authorization);
    },
    demo: {
      steps: [
        { req: req('GET', '/v0/customers/cus_demo1'), res: json(200, { object: 'customer', id: 'cus_demo1' }) },
        {
          req: req('GET', '/v0/customers/cus_demo1', undefined, {}),
          res: (f) =>
            f.headers.authorization
              ? json(200, { object: 'customer', id: 'cus_demo1' })
              : json(401, { message: 'no key' }),
        },
      ],
      verify: (o) =>
        expectAll(
          [o.forwarded?.headers.authorization !== undefined, 'no key was added'],
          [o.response.status === 200, `got ${o.response.status}`],
        ),
    },
  }),
  fault({
    name: 'auth-401-not-error-shape',
    area: 'auth',
    description: '401 bodies are {status, reason} without the Error message',
    rules: ['AUTH.401.SHAPE'],
    suites: SUITES,
    onResponse(_r, res, ctx) {
      if (res.status !== 401) return;
      ctx.applied();
      return json(401, { status: 401, reason: 'unauthorized' }, { ...res.headers });
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/customers', undefined, {}),
          res: json(401, { error: 'unauthorized', message: 'no key' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 401 && got(o)?.message === undefined, 'message still there']),
    },
  }),
  fault({
    name: 'auth-403-without-message',
    area: 'auth',
    description: '403 bodies lose their message',
    rules: ['AUTH.403.SHAPE'],
    suites: SUITES,
    onResponse(_r, res, ctx) {
      const b = bodyOf(res);
      if (res.status !== 403 || !b) return;
      delete b.message;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/customers/cus_demo1', { externalId: 'x' }),
          res: json(403, { error: 'forbidden', message: 'read only' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 403 && got(o)?.message === undefined, 'message still there']),
    },
  }),
  fault({
    name: 'auth-403-as-404',
    area: 'auth',
    description: 'an action the key may not take answers 404 instead of 403',
    offTraffic: "which actions a key may take is not shown, so its 404 reads as a missing resource's",
    rules: ['AUTH.403.SHAPE'],
    suites: SUITES,
    onResponse(_r, res, ctx) {
      if (res.status !== 403) return;
      ctx.applied();
      return json(404, { error: 'not_found', message: 'not found' });
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/customers/cus_demo1', { externalId: 'x' }),
          res: json(403, { error: 'forbidden', message: 'read only' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 404, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'auth-revoked-key-works',
    area: 'auth',
    description: 'a revoked key keeps working (requests run as the key that created it)',
    offTraffic: 'how a key is revoked is not shown, so no exchange says a key is revoked',
    rules: ['AUTH.401.SHAPE'],
    suites: SUITES,
    onRequest(r, ctx) {
      const revoked = stateMap<string, string>(ctx, 'revoked').get(r.headers.authorization ?? '');
      if (!revoked) return;
      r.headers.authorization = revoked;
      ctx.applied();
    },
    onResponse(r, res, ctx) {
      const made = stateMap<string, { secret: string; by: string }>(ctx, 'keys');
      if (on(r, 'POST', R.apiKeys) && is2xx(res)) {
        const k = bodyOf(res);
        if (typeof k?.id === 'string' && typeof k.secret === 'string' && r.headers.authorization)
          made.set(k.id, { secret: `Bearer ${k.secret}`, by: r.headers.authorization });
      }
      const m = on(r, 'DELETE', R.apiKey);
      const k = m && made.get(decodeURIComponent(m[1]));
      if (k && is2xx(res)) stateMap<string, string>(ctx, 'revoked').set(k.secret, k.by);
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/apiKeys', {}),
          res: json(201, { object: 'api_key', id: 'key_demo1', secret: 'sk_test_demo0revoked' }),
        },
        { req: req('DELETE', '/v0/apiKeys/key_demo1'), res: json(200, { object: 'api_key', id: 'key_demo1' }) },
        {
          req: req('GET', '/v0/customers/cus_demo1', undefined, { authorization: 'Bearer sk_test_demo0revoked' }),
          res: (f) =>
            f.headers.authorization === 'Bearer sk_test_demo0revoked'
              ? json(401, { message: 'revoked' })
              : json(200, { object: 'customer' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 200, `the revoked key got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'auth-merchant-default-wrong',
    area: 'auth',
    description: "PATCH /v0/webhooks without merchantId answers another merchant's configuration",
    rules: ['AUTH.MERCHANT.DEFAULT', 'WEBHOOKS.MERCHANT.DEFAULT'],
    suites: ['auth', 'webhooks'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.webhooks) || queryOf(r).has('merchantId') || res.status !== 200 || !b) return;
      b.merchantId = 'org_conformSomeOtherMerchant0';
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/webhooks', { enabled: true }),
          res: json(200, { object: 'webhooks', merchantId: 'org_demo1', enabled: true }),
        },
      ],
      verify: (o) =>
        expectAll([(got(o) as Json)?.merchantId === 'org_conformSomeOtherMerchant0', 'merchantId unchanged']),
    },
  }),
  fault({
    name: 'auth-customer-of-other-merchant-readable',
    area: 'auth',
    description:
      "GET /v0/customers/{id} answers another merchant's customer to any valid key (the read is not scoped to the key's merchant)",
    rules: ['AUTH.MERCHANT.ISOLATION'],
    suites: ['isolation'],
    onResponse(r, res, ctx) {
      learnOwners(r, res, ctx);
      const hit = on(r, 'GET', R.customer);
      if (hit) return leak(r, res, ctx, [decodeURIComponent(hit[1])]);
    },
    demo: {
      steps: [
        { req: req('POST', '/v0/customers', { name: 'Ada' }), res: json(201, { object: 'customer', id: 'cus_demo1' }) },
        {
          req: req('GET', '/v0/customers/cus_demo1', undefined, { authorization: 'Bearer sk_test_other0key' }),
          res: (f) =>
            f.headers.authorization === DEMO_KEY
              ? json(200, { object: 'customer', id: 'cus_demo1' })
              : json(404, { error: 'not_found', message: 'no such customer' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 200 && got(o)?.id === 'cus_demo1', `got ${o.response.status}`]),
    },
  }),
];
