/** Customers: GET and PATCH /v0/customers/{id}. */
import { bodyOf, expectAll, fault, got, is2xx, json, on, R, req, T0, type Json } from './helpers.ts';
import type { CatalogFault } from './types.ts';

const SUITES = ['customers'];
const FLAGS = ['invoiceIssued', 'invoicePaid', 'renewalReminder'];
export const customer = (over: Json = {}): Json => ({
  object: 'customer',
  id: 'cus_demo1',
  consumerId: 'org_demo2',
  merchantId: 'org_demo1',
  createdAt: T0,
  updatedAt: T0,
  validTaxAddress: { valid: false, message: null },
  ...over,
});
const patchCustomer = (body: Json) => req('PATCH', '/v0/customers/cus_demo1', body);
const echo =
  (status = 200) =>
  (f: { json?: unknown }) =>
    json(status, customer(bodyOf(f) ?? {}));

export const customerFaults: CatalogFault[] = [
  fault({
    name: 'customers-null-keeps-taxId',
    area: 'customers',
    description: 'PATCH taxId=null leaves the tax id in place',
    rules: ['CUSTOMERS.TAX_ID.NULL_CLEARS'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.customer) || b?.taxId !== null) return;
      delete b.taxId;
      ctx.applied();
    },
    demo: {
      steps: [{ req: patchCustomer({ taxId: null }), res: echo() }],
      verify: (o) =>
        expectAll([
          o.forwarded !== undefined && !('taxId' in (bodyOf(o.forwarded) ?? {})),
          'taxId=null reached the target',
        ]),
    },
  }),
  fault({
    name: 'customers-externalId-truncated',
    area: 'customers',
    description: 'an externalId over 255 characters is cut to 255 and accepted instead of refused with 400',
    rules: ['CUSTOMERS.EXTERNAL_ID.MAX_LENGTH'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.customer) || typeof b?.externalId !== 'string' || b.externalId.length <= 255) return;
      b.externalId = b.externalId.slice(0, 255);
      ctx.applied();
    },
    demo: {
      steps: [{ req: patchCustomer({ externalId: 'z'.repeat(256) }), res: echo() }],
      verify: (o) =>
        expectAll([o.response.status === 200 && got(o)?.externalId?.length === 255, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'customers-taxRates-clamped',
    area: 'customers',
    description: 'taxRates outside 0..100 is clamped into range and accepted instead of refused with 400',
    rules: ['CUSTOMERS.TAX_RATES.RANGE'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.customer) || typeof b?.taxRates !== 'number' || (b.taxRates >= 0 && b.taxRates <= 100))
        return;
      b.taxRates = Math.min(100, Math.max(0, b.taxRates));
      ctx.applied();
    },
    demo: {
      steps: [{ req: patchCustomer({ taxRates: 100.01 }), res: echo() }],
      verify: (o) => expectAll([bodyOf(o.forwarded ?? {})?.taxRates === 100, 'the rate reached the target unclamped']),
    },
  }),
  fault({
    name: 'customers-notifications-replaced',
    area: 'customers',
    description: 'a partial notificationSettings update resets the flags not given to false',
    rules: ['CUSTOMERS.NOTIFICATIONS.PARTIAL'],
    suites: SUITES,
    onRequest(r, ctx) {
      const n = bodyOf(r)?.notificationSettings;
      if (!on(r, 'PATCH', R.customer) || !n || typeof n !== 'object' || FLAGS.every((k) => k in n)) return;
      for (const k of FLAGS) n[k] ??= false;
      ctx.applied();
    },
    demo: {
      steps: [{ req: patchCustomer({ notificationSettings: { invoicePaid: true } }), res: echo() }],
      verify: (o) =>
        expectAll([
          JSON.stringify(bodyOf(o.forwarded ?? {})?.notificationSettings) ===
            JSON.stringify({ invoicePaid: true, invoiceIssued: false, renewalReminder: false }),
          'the other flags were not reset',
        ]),
    },
  }),
  fault({
    name: 'customers-no-validTaxAddress',
    area: 'customers',
    description: 'customer answers drop the required validTaxAddress',
    rules: ['CUSTOMERS.VALID_TAX_ADDRESS.PRESENT', 'SCHEMA.REQUIRED.PRESENT'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!R.customer.test(r.path.split('?')[0]) || !is2xx(res) || b?.validTaxAddress === undefined) return;
      delete b.validTaxAddress;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/customers/cus_demo1'), res: json(200, customer()) }],
      verify: (o) =>
        expectAll([
          got(o)?.object === 'customer' && got(o)?.validTaxAddress === undefined,
          'validTaxAddress still there',
        ]),
    },
  }),
  fault({
    name: 'customers-unknown-is-200',
    area: 'customers',
    description: 'an unknown cus_ id answers 200 with an empty customer instead of 404',
    rules: ['STATUS.404.UNKNOWN_RESOURCE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const hit = R.customer.exec(r.path.split('?')[0]);
      const id = hit ? decodeURIComponent(hit[1]) : '';
      if (!hit || (r.method !== 'GET' && r.method !== 'PATCH') || res.status !== 404 || !/^cus_[a-zA-Z0-9]+$/.test(id))
        return;
      ctx.applied();
      const now = new Date().toISOString();
      return json(200, {
        object: 'customer',
        id,
        consumerId: 'org_conformNobody',
        merchantId: 'org_conformNobody',
        createdAt: now,
        updatedAt: now,
        validTaxAddress: { valid: false, message: null },
      });
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/customers/cus_nobody'),
          res: json(404, { error: 'not_found', message: 'no such customer' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 200 && got(o)?.id === 'cus_nobody', `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'customers-taxRates-extra-rate',
    area: 'customers',
    description: 'after PATCH taxRates=N the customer shows another rate beside N',
    rules: ['CUSTOMERS.TAX_RATES.SINGLE_RATE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (
        !on(r, 'PATCH', R.customer) ||
        !is2xx(res) ||
        typeof bodyOf(r)?.taxRates !== 'number' ||
        !b?.taxRates ||
        typeof b.taxRates !== 'object'
      )
        return;
      b.taxRates.plan_conformOther = 7;
      ctx.applied();
    },
    demo: {
      steps: [{ req: patchCustomer({ taxRates: 20 }), res: json(200, customer({ taxRates: { default: 20 } })) }],
      verify: (o) => expectAll([got(o)?.taxRates?.plan_conformOther === 7, 'no extra rate']),
    },
  }),
  fault({
    name: 'customers-get-wrong-customer',
    area: 'customers',
    description: 'GET /v0/customers/{id} answers the first customer ever read, whatever the id',
    rules: ['CUSTOMERS.GET.BY_ID'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'GET', R.customer) || res.status !== 200 || b?.object !== 'customer') return;
      const first = ctx.state.get('first') as Json | undefined;
      if (!first) return void ctx.state.set('first', b);
      if (first.id === b.id) return;
      ctx.applied();
      return json(200, first);
    },
    demo: {
      steps: [
        { req: req('GET', '/v0/customers/cus_demo1'), res: json(200, customer()) },
        { req: req('GET', '/v0/customers/cus_demo2'), res: json(200, customer({ id: 'cus_demo2' })) },
      ],
      verify: (o) => expectAll([got(o)?.id === 'cus_demo1', `got ${got(o)?.id}`]),
    },
  }),
  fault({
    name: 'customers-null-keeps-externalId',
    area: 'customers',
    description: 'PATCH externalId=null leaves the external id in place',
    rules: ['CUSTOMERS.EXTERNAL_ID.NULL_CLEARS'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.customer) || b?.externalId !== null) return;
      delete b.externalId;
      ctx.applied();
    },
    demo: {
      steps: [{ req: patchCustomer({ externalId: null }), res: echo() }],
      verify: (o) =>
        expectAll([
          o.forwarded !== undefined && !('externalId' in (bodyOf(o.forwarded) ?? {})),
          'externalId=null reached the target',
        ]),
    },
  }),
  fault({
    name: 'customers-bad-id-is-500',
    area: 'customers',
    description: 'a customer id breaking ^cus_ crashes the lookup (500) instead of 400 or 404',
    rules: ['VALIDATION.PATTERN.400'],
    suites: SUITES,
    onRequest(r, ctx) {
      const hit = R.customer.exec(r.path.split('?')[0]);
      if (!hit || /^cus_[a-zA-Z0-9]+$/.test(decodeURIComponent(hit[1]))) return;
      ctx.applied();
      return json(500, { error: 'internal_error', message: 'invalid input syntax for type uuid' });
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/customers/customer-without-prefix'),
          res: json(404, { error: 'not_found', message: 'no such customer' }),
        },
      ],
      verify: (o) => expectAll([o.response.status === 500, `got ${o.response.status}`]),
    },
  }),
];
