/** Conventions, schemas, status codes and error shapes, on whichever operation a suite exercises. */
import {
  bodyOf,
  expectAll,
  fault,
  got,
  is2xx,
  json,
  on,
  pathOf,
  queryOf,
  R,
  req,
  T0,
  withQuery,
  type Json,
} from './helpers.ts';
import { bareBadRequest, errorShapeFaults, invalid } from './conventions-errors.ts';
import { customer } from './customers.ts';
import type { CatalogFault } from './types.ts';

const customerAnswer = (r: Parameters<typeof on>[0], res: Parameters<typeof is2xx>[0]): Json | undefined => {
  const b = bodyOf(res);
  return R.customer.test(pathOf(r)) &&
    (r.method === 'GET' || r.method === 'PATCH') &&
    is2xx(res) &&
    b?.object === 'customer'
    ? b
    : undefined;
};
const readCustomer = { req: req('GET', '/v0/customers/cus_demo1'), res: json(200, customer()) };

export const conventionFaults: CatalogFault[] = [
  fault({
    name: 'conv-malformed-json-ignored',
    area: 'conventions',
    description: 'a body that is not JSON is taken as an empty object and the request succeeds',
    rules: ['ERRORS.400.BODY'],
    suites: ['contract'],
    onRequest(r, ctx) {
      if (r.body.length === 0 || r.json !== undefined || !/json/i.test(r.headers['content-type'] ?? '')) return;
      ctx.applied();
      return { ...r, body: Buffer.from('{}'), json: {} };
    },
    demo: {
      steps: [
        {
          req: {
            ...req('PATCH', '/v0/customers/cus_demo1', {}),
            body: Buffer.from('{"externalId": '),
            json: undefined,
          },
          res: json(200, customer()),
        },
      ],
      verify: (o) => expectAll([o.forwarded?.body.toString() === '{}', `forwarded ${o.forwarded?.body.toString()}`]),
    },
  }),
  fault({
    name: 'conv-body-not-json',
    area: 'conventions',
    description: 'GET /v0/customers/{id} answers a text body (still labelled application/json)',
    rules: ['CONV.CONTENT_TYPE.JSON'],
    suites: ['customers'],
    onResponse(r, res, ctx) {
      const c = on(r, 'GET', R.customer) && customerAnswer(r, res);
      if (!c) return;
      ctx.applied();
      return { ...res, body: Buffer.from(`customer ${c.id}: OK`), json: undefined };
    },
    demo: {
      steps: [readCustomer],
      verify: (o) =>
        expectAll([
          got(o) === undefined && o.response.body.toString() === 'customer cus_demo1: OK',
          'the body is still JSON',
        ]),
    },
  }),
  fault({
    name: 'conv-content-type-text-plain',
    area: 'conventions',
    description: 'payments are served as text/plain (the body is still JSON)',
    rules: ['CONV.CONTENT_TYPE.JSON'],
    suites: ['refunds-payments'],
    onResponse(r, res, ctx) {
      if (!on(r, 'GET', R.payment) || !res.body.length) return;
      res.headers['content-type'] = 'text/plain; charset=utf-8';
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/payments/pay_demo1'), res: json(200, { object: 'payment', id: 'pay_demo1' }) }],
      verify: (o) =>
        expectAll([
          o.response.headers['content-type'] === 'text/plain; charset=utf-8',
          `content-type ${o.response.headers['content-type']}`,
        ]),
    },
  }),
  fault({
    name: 'conv-wrong-id-prefix',
    area: 'conventions',
    description: 'customer answers carry ids prefixed cust_ instead of cus_',
    rules: ['CONV.ID.PATTERNS'],
    suites: ['customers'],
    onResponse(r, res, ctx) {
      const c = customerAnswer(r, res);
      if (typeof c?.id !== 'string' || !c.id.startsWith('cus_')) return;
      c.id = `cust_${c.id.slice(4)}`;
      ctx.applied();
    },
    demo: { steps: [readCustomer], verify: (o) => expectAll([got(o)?.id === 'cust_demo1', `id ${got(o)?.id}`]) },
  }),
  fault({
    name: 'conv-wrong-object',
    area: 'conventions',
    description: "item answers say object 'Item' instead of 'item'",
    rules: ['CONV.OBJECT.TYPE_NAME'],
    suites: ['items'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.item) || !is2xx(res) || b?.object !== 'item') return;
      b.object = 'Item';
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/items/itm_demo1', { name: 'x' }),
          res: json(200, { object: 'item', id: 'itm_demo1' }),
        },
      ],
      verify: (o) => expectAll([got(o)?.object === 'Item', `object ${got(o)?.object}`]),
    },
  }),
  fault({
    name: 'conv-required-field-dropped',
    area: 'conventions',
    description: 'customer answers drop the required consumerId',
    rules: ['SCHEMA.REQUIRED.PRESENT'],
    suites: ['customers'],
    onResponse(r, res, ctx) {
      const c = customerAnswer(r, res);
      if (c?.consumerId === undefined) return;
      delete c.consumerId;
      ctx.applied();
    },
    demo: {
      steps: [readCustomer],
      verify: (o) =>
        expectAll([got(o)?.object === 'customer' && got(o)?.consumerId === undefined, 'consumerId still there']),
    },
  }),
  fault({
    name: 'conv-timestamp-epoch',
    area: 'conventions',
    description: 'created products carry createdAt/updatedAt as epoch milliseconds, not ISO 8601 strings',
    rules: ['CONV.TIMESTAMP.ISO8601'],
    suites: ['products'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.products) || !is2xx(res) || typeof b?.createdAt !== 'string') return;
      b.createdAt = Date.parse(b.createdAt);
      if (typeof b.updatedAt === 'string') b.updatedAt = Date.parse(b.updatedAt);
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/products', { name: 'x' }),
          res: json(201, { object: 'product', id: 'prod_demo1', createdAt: T0, updatedAt: T0 }),
        },
      ],
      verify: (o) => expectAll([got(o)?.createdAt === Date.parse(T0), `createdAt ${got(o)?.createdAt}`]),
    },
  }),
  fault({
    name: 'conv-list-envelope-broken',
    area: 'conventions',
    description: "alert lists put their elements under 'items' instead of 'data'",
    rules: ['CONV.LIST.ENVELOPE'],
    suites: ['alerts'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'GET', R.alerts) || res.status !== 200 || !Array.isArray(b?.data)) return;
      b.items = b.data;
      delete b.data;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/alerts?resourceId=wal_demo1'),
          res: json(200, { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } }),
        },
      ],
      verify: (o) => expectAll([got(o)?.data === undefined && Array.isArray(got(o)?.items), 'still data']),
    },
  }),
  ...errorShapeFaults,
  fault({
    name: 'status-500-on-bad-input',
    area: 'conventions',
    description: 'PATCH /v0/customers/{id} with bad input crashes with 500 instead of answering 400',
    rules: ['STATUS.DOCUMENTED.ONLY'],
    suites: ['customers'],
    onResponse(r, res, ctx) {
      if (!on(r, 'PATCH', R.customer) || res.status !== 400) return;
      ctx.applied();
      return json(500, { error: 'internal_error', message: 'Internal Server Error' });
    },
    demo: {
      steps: [{ req: req('PATCH', '/v0/customers/cus_demo1', { externalId: 'z'.repeat(256) }), res: invalid() }],
      verify: (o) => expectAll([o.response.status === 500, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'status-422-for-validation',
    area: 'conventions',
    description: 'GET /v0/alerts answers bad queries with 422 instead of 400',
    rules: ['STATUS.DOCUMENTED.ONLY'],
    suites: ['alerts'],
    onResponse(r, res, ctx) {
      if (!on(r, 'GET', R.alerts) || res.status !== 400) return;
      ctx.applied();
      return { ...res, status: 422 };
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/alerts?resourceId=wal_demo1&limit=0'),
          res: json(400, { error: 'validation_error', message: 'bad', errors: [{ field: 'limit', message: 'min 1' }] }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 422, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'conv-money-with-currency',
    area: 'conventions',
    description: "a payment amount carries its currency ('12.50 USD'), not a plain decimal string",
    rules: ['CONV.MONEY.DECIMAL_STRING'],
    suites: ['refunds-payments'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'GET', R.payment) || res.status !== 200 || typeof b?.amount !== 'string') return;
      b.amount = `${b.amount} ${b.currency ?? 'USD'}`;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/payments/pay_demo1'),
          res: json(200, { object: 'payment', id: 'pay_demo1', amount: '12.50', currency: 'USD' }),
        },
      ],
      verify: (o) => expectAll([got(o)?.amount === '12.50 USD', `amount ${JSON.stringify(got(o)?.amount)}`]),
    },
  }),
  fault({
    name: 'validation-valid-request-refused',
    area: 'conventions',
    description: 'PATCH /v0/items/{id} refuses a valid metadata object with 400',
    rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
    suites: ['contract'],
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.item) || b?.metadata === undefined) return;
      ctx.applied();
      return json(400, {
        error: 'validation_error',
        message: 'invalid request',
        errors: [{ field: 'metadata', message: 'unsupported', code: 'UNSUPPORTED' }],
      });
    },
    demo: {
      steps: [
        { req: req('PATCH', '/v0/items/itm_demo1', { metadata: { a: '1' } }), res: json(200, { object: 'item' }) },
      ],
      verify: (o) => expectAll([o.response.status === 400 && o.forwarded === undefined, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'schema-type-mismatch',
    area: 'conventions',
    description: 'merchant metadata is serialised as a string ("{}") instead of an object',
    rules: ['SCHEMA.RESPONSE.MATCHES'],
    suites: ['merchants'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (
        !(on(r, 'POST', R.merchants) || on(r, 'GET', R.merchant)) ||
        !is2xx(res) ||
        typeof b?.metadata !== 'object' ||
        b.metadata === null
      )
        return;
      b.metadata = JSON.stringify(b.metadata);
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/merchants/org_demo1'),
          res: json(200, { object: 'merchant', id: 'org_demo1', metadata: { a: '1' } }),
        },
      ],
      verify: (o) => expectAll([got(o)?.metadata === '{"a":"1"}', `metadata ${JSON.stringify(got(o)?.metadata)}`]),
    },
  }),
  bareBadRequest,
  fault({
    name: 'validation-enum-any-case',
    area: 'conventions',
    description: 'PATCH /v0/alerts/{id} takes resource in any case (WALLET) instead of answering 400 outside the enum',
    rules: ['VALIDATION.ENUM.400'],
    suites: ['contract', 'alerts'],
    onRequest(r, ctx) {
      const q = queryOf(r);
      const resource = q.get('resource');
      if (!on(r, 'PATCH', R.alert) || !resource || resource === 'wallet' || resource.toLowerCase() !== 'wallet') return;
      q.set('resource', 'wallet');
      withQuery(r, q);
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/alerts/alert_1?resource=WALLET', { enabled: false }),
          res: json(200, { object: 'alert', id: 'alert_1' }),
        },
      ],
      verify: (o) =>
        expectAll([o.forwarded?.path === '/v0/alerts/alert_1?resource=wallet', `forwarded ${o.forwarded?.path}`]),
    },
  }),
];
