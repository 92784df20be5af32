/**
 * The faults of held-out set 1 (`npm run faults:heldout -- --set set-1`): faults written from the interface
 * document alone, on the properties every resource shares (a value sent reads back as sent,
 * deleted means gone, owned by the key's merchant, lists walk cleanly, derived amounts keep
 * their unit), by someone who had not read the scenario suites. Nothing here was tuned against
 * the suites: they run every suite, and their figures are reported apart from the hand and
 * generated catalogs. Changing a fault here to make the suites catch it defeats its purpose; a
 * fault the suites miss is a finding about the suites.
 */
import { Decimal } from 'decimal.js';
import type { FaultContext, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import {
  bodyOf,
  expectAll,
  fault,
  got,
  is2xx,
  isObj,
  json,
  on,
  R,
  req,
  stateMap,
  T0,
  type Json,
} from '../../src/faults/catalog/helpers.ts';
import type { CatalogFault } from '../../src/faults/catalog/types.ts';

/** Held-out faults run every suite: choosing suites would be tuning. */
export const EVERY: string[] = [];

export const listOf = (res: ProxyResponse): Json[] | undefined => {
  const b = bodyOf(res);
  return b?.object === 'list' && Array.isArray(b.data) ? (b.data as unknown[]).filter(isObj) : undefined;
};
const pageOf = (res: ProxyResponse): Json | undefined => {
  const p = bodyOf(res)?.pagination;
  return isObj(p) ? p : undefined;
};
const shiftInstant = (v: unknown, ms: number): string | undefined =>
  typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? new Date(Date.parse(v) + ms).toISOString() : undefined;
/** A decimal string times `by`, exactly (cents from dollars keep total = amount + taxAmount). */
const scaleDecimal = (v: unknown, by: number): string | undefined =>
  typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) && !new Decimal(v).isZero()
    ? new Decimal(v).times(by).toFixed()
    : undefined;
const plainHeaders = (r: ProxyRequest): Record<string, string> => {
  const { 'content-type': _ct, 'content-length': _cl, ...h } = r.headers;
  return h;
};

export const customer = (over: Json = {}): Json => ({
  object: 'customer',
  id: 'cus_demo1',
  consumerId: 'org_demo2',
  merchantId: 'org_demo1',
  createdAt: T0,
  updatedAt: T0,
  validTaxAddress: { valid: false, message: null },
  externalId: 'crm-42',
  ...over,
});
export const listed = (data: Json[], offset = 0, total = data.length): Json => ({
  object: 'list',
  data,
  pagination: { limit: 10, offset, total },
});
export const alert = (id: string, notifyPeriod = 3600): Json => ({
  object: 'alert',
  id,
  resourceId: 'wal_demo1',
  type: 'wallet_low_balance',
  config: {},
  enabled: true,
  notifyPeriod,
  recipients: ['a@example.com'],
  createdAt: T0,
  updatedAt: T0,
});
const refund = (amount: string, taxAmount: string, total: string, currency = 'USD'): Json => ({
  object: 'invoice_refund',
  id: 'crn_demo1',
  invoiceId: 'inv_demo1',
  merchantId: 'org_demo1',
  amount,
  taxAmount,
  total,
  currency,
  status: 'ISSUED',
  createdAt: T0,
});
const schedule = (over: Json = {}): Json => ({
  object: 'billing_schedule',
  id: 'bs_demo1',
  merchantId: 'org_demo1',
  orderId: 'ord_demo1',
  startDate: T0,
  endDate: '2031-01-01T00:00:00.000Z',
  billingAnchor: T0,
  paymentTermDays: 30,
  metadata: { po: 'PO-1' },
  createdAt: T0,
  updatedAt: T0,
  ...over,
});
export const interval = (id: string, unitPrice = '12.50'): Json => ({
  object: 'schedule_interval',
  id,
  scheduleId: 'bs_demo1',
  unitPrice,
  startDate: T0,
  endDate: '2030-02-01T00:00:00.000Z',
});

/** Remembers the last 2xx representation of each resource answered at `re` (GET or PATCH by id). */
function remember(ctx: FaultContext, key: string, r: ProxyRequest, res: ProxyResponse, re: RegExp): void {
  const hit = re.exec(r.path.split('?')[0]);
  const b = bodyOf(res);
  if (hit && (r.method === 'GET' || r.method === 'PATCH') && res.status === 200 && b?.id === decodeURIComponent(hit[1]))
    stateMap<string, Json>(ctx, key).set(b.id, structuredClone(b));
}

export const heldoutFaults: CatalogFault[] = [
  // ------------------------------------------------------------ a value sent reads back changed
  fault({
    name: 'ho-product-description-cut',
    area: 'merchants-products',
    description: 'POST /v0/products answers the product with its description cut to its first 8 characters',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.products) || !is2xx(res) || typeof b?.description !== 'string' || b.description.length <= 8)
        return;
      b.description = b.description.slice(0, 8);
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/products', {
            name: 'Seat',
            description: 'A seat on the plan',
            merchantId: 'org_demo1',
          }),
          res: json(201, {
            object: 'product',
            id: 'prod_demo1',
            name: 'Seat',
            description: 'A seat on the plan',
            merchantId: 'org_demo1',
            metadata: {},
            createdAt: T0,
            updatedAt: T0,
          }),
        },
      ],
      verify: (o) => expectAll([got(o)?.description === 'A seat o', `description ${got(o)?.description}`]),
    },
  }),
  fault({
    name: 'ho-merchant-read-phone-digits',
    area: 'merchants-products',
    description: 'GET /v0/merchants/{id} answers the phone with everything but its digits stripped',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'GET', R.merchant) || res.status !== 200 || typeof b?.phone !== 'string') return;
      const digits = b.phone.replace(/\D/g, '');
      if (digits === b.phone) return;
      b.phone = digits;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/merchants/org_demo1'),
          res: json(200, { object: 'merchant', id: 'org_demo1', name: 'Acme', phone: '+1 555-0100' }),
        },
      ],
      verify: (o) => expectAll([got(o)?.phone === '15550100', `phone ${got(o)?.phone}`]),
    },
  }),
  fault({
    name: 'ho-schedule-payment-term-plus-one',
    area: 'billing-schedules',
    description: 'POST /v0/billingSchedules answers paymentTermDays one more than was sent',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.schedules) || !is2xx(res) || typeof b?.paymentTermDays !== 'number') return;
      b.paymentTermDays += 1;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/billingSchedules', { orderId: 'ord_demo1', paymentTermDays: 30 }),
          res: json(201, schedule()),
        },
      ],
      verify: (o) => expectAll([got(o)?.paymentTermDays === 31, `paymentTermDays ${got(o)?.paymentTermDays}`]),
    },
  }),
  fault({
    name: 'ho-schedule-anchor-hour-off',
    area: 'billing-schedules',
    description:
      'POST /v0/billingSchedules answers a billingAnchor one hour later than the instant sent (still a valid date-time)',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      const later = shiftInstant(b?.billingAnchor, 3_600_000);
      if (!on(r, 'POST', R.schedules) || !is2xx(res) || !b || !later) return;
      b.billingAnchor = later;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/billingSchedules', { orderId: 'ord_demo1', billingAnchor: T0 }),
          res: json(201, schedule()),
        },
      ],
      verify: (o) =>
        expectAll([got(o)?.billingAnchor === '2030-01-01T01:00:00.000Z', `billingAnchor ${got(o)?.billingAnchor}`]),
    },
  }),
  fault({
    name: 'ho-customer-read-external-id-upper',
    area: 'customers',
    description: 'GET /v0/customers/{id} answers externalId upper-cased (the PATCH answer itself is right)',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'GET', R.customer) || res.status !== 200 || typeof b?.externalId !== 'string') return;
      const upper = b.externalId.toUpperCase();
      if (upper === b.externalId) return;
      b.externalId = upper;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/customers/cus_demo1'), res: json(200, customer()) }],
      verify: (o) => expectAll([got(o)?.externalId === 'CRM-42', `externalId ${got(o)?.externalId}`]),
    },
  }),
  fault({
    name: 'ho-alerts-list-notify-period-stale',
    area: 'alerts',
    description: 'GET /v0/alerts shows every alert with notifyPeriod one more than the alert holds',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const data = on(r, 'GET', R.alerts) && res.status === 200 ? listOf(res) : undefined;
      let changed = false;
      for (const a of data ?? [])
        if (typeof a.notifyPeriod === 'number') {
          a.notifyPeriod += 1;
          changed = true;
        }
      if (changed) ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/alerts?resourceId=wal_demo1'), res: json(200, listed([alert('alr_1')])) }],
      verify: (o) => expectAll([got(o)?.data?.[0]?.notifyPeriod === 3601, 'notifyPeriod unchanged']),
    },
  }),
  fault({
    name: 'ho-autotopup-limit-amount-cents',
    area: 'merchants-products',
    description: 'PATCH /v0/wallets/{id}/autoTopupConfig answers limit.amount in cents (100 times the amount sent)',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const limit = bodyOf(res)?.limit;
      if (!on(r, 'PATCH', R.autoTopup) || !is2xx(res) || !isObj(limit) || typeof limit.amount !== 'number') return;
      if (limit.amount === 0) return;
      limit.amount *= 100;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/wallets/wal_demo1/autoTopupConfig', { limit: { amount: 50, period: 'day' } }),
          res: json(200, {
            object: 'autoTopupConfig',
            amount: '10',
            threshold: '5',
            limit: { amount: 50, period: 'day' },
          }),
        },
      ],
      verify: (o) => expectAll([got(o)?.limit?.amount === 5000, `limit ${JSON.stringify(got(o)?.limit)}`]),
    },
  }),
  fault({
    name: 'ho-item-metadata-stringified',
    area: 'items',
    description: 'PATCH /v0/items/{id} answers metadata with every number or boolean value turned into a string',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const m = bodyOf(res)?.metadata;
      if (!on(r, 'PATCH', R.item) || !is2xx(res) || !isObj(m)) return;
      let changed = false;
      for (const [k, v] of Object.entries(m))
        if (typeof v === 'number' || typeof v === 'boolean') {
          m[k] = String(v);
          changed = true;
        }
      if (changed) ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/items/itm_demo1', { metadata: { seats: 3 } }),
          res: json(200, { object: 'item', id: 'itm_demo1', name: 'Seat', metadata: { seats: 3 }, archivedAt: null }),
        },
      ],
      verify: (o) => expectAll([got(o)?.metadata?.seats === '3', `metadata ${JSON.stringify(got(o)?.metadata)}`]),
    },
  }),
  fault({
    name: 'ho-source-rule-description-cut',
    area: 'merchants-products',
    description: 'PATCH /v0/sourceRules/{ruleId} answers the rule with its description cut to 10 characters',
    rules: ['CONV.ROUND_TRIP.AS_SENT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.sourceRule) || !is2xx(res) || typeof b?.description !== 'string') return;
      if (b.description.length <= 10) return;
      b.description = b.description.slice(0, 10);
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/sourceRules/srl_demo1', { name: 'x' }),
          res: json(200, { id: 'srl_demo1', name: 'x', description: 'Accept every invoice under ten' }),
        },
      ],
      verify: (o) => expectAll([got(o)?.description === 'Accept eve', `description ${got(o)?.description}`]),
    },
  }),
  // ------------------------------------------------------------ deleted means gone
  fault({
    name: 'ho-customer-deleted-still-read',
    area: 'customers',
    description:
      'after a successful DELETE /v0/customers/{id}, GET of that id still answers 200 with the customer as it was',
    rules: ['CONV.DELETE.GONE'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      remember(ctx, 'customers', r, res, R.customer);
      const hit = R.customer.exec(r.path.split('?')[0]);
      if (!hit) return;
      const id = decodeURIComponent(hit[1]);
      const deleted = stateMap<string, true>(ctx, 'deleted');
      if (r.method === 'DELETE' && is2xx(res)) deleted.set(id, true);
      const last = stateMap<string, Json>(ctx, 'customers').get(id);
      if (r.method === 'GET' && deleted.has(id) && res.status === 404 && last) {
        ctx.applied();
        return json(200, last);
      }
    },
    demo: {
      steps: [
        { req: req('GET', '/v0/customers/cus_demo1'), res: json(200, customer()) },
        { req: req('DELETE', '/v0/customers/cus_demo1'), res: { status: 204, headers: {}, body: Buffer.alloc(0) } },
        { req: req('GET', '/v0/customers/cus_demo1'), res: json(404, { error: 'not_found', message: 'gone' }) },
      ],
      verify: (o) =>
        expectAll([o.response.status === 200 && got(o)?.id === 'cus_demo1', `status ${o.response.status}`]),
    },
  }),
  fault({
    name: 'ho-fee-second-delete-succeeds',
    area: 'delete-blockers',
    description: 'a second DELETE /v0/fees/{id} of a fee already deleted answers 204 instead of not found',
    rules: ['CONV.DELETE.GONE'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const hit = on(r, 'DELETE', R.fee);
      if (!hit) return;
      const deleted = stateMap<string, true>(ctx, 'deleted');
      const id = decodeURIComponent(hit[1]);
      if (is2xx(res)) deleted.set(id, true);
      else if (res.status === 404 && deleted.has(id)) {
        ctx.applied();
        return { status: 204, headers: {}, body: Buffer.alloc(0) };
      }
    },
    demo: {
      steps: [
        { req: req('DELETE', '/v0/fees/fee_demo1'), res: { status: 204, headers: {}, body: Buffer.alloc(0) } },
        { req: req('DELETE', '/v0/fees/fee_demo1'), res: json(404, { error: 'not_found', message: 'no fee' }) },
      ],
      verify: (o) => expectAll([o.response.status === 204, `status ${o.response.status}`]),
    },
  }),
  fault({
    name: 'ho-customers-list-keeps-deleted',
    area: 'customers',
    description: 'GET /v0/customers keeps listing a customer after its successful DELETE (first page, total counted)',
    rules: ['CONV.DELETE.GONE'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      remember(ctx, 'customers', r, res, R.customer);
      const hit = on(r, 'DELETE', R.customer);
      if (hit && is2xx(res)) stateMap<string, true>(ctx, 'deleted').set(decodeURIComponent(hit[1]), true);
      const data = on(r, 'GET', R.customers) && res.status === 200 ? listOf(res) : undefined;
      const page = pageOf(res);
      if (!data || !page || page.offset !== 0) return;
      const known = stateMap<string, Json>(ctx, 'customers');
      const ghosts = [...stateMap<string, true>(ctx, 'deleted').keys()]
        .filter((id) => !data.some((c) => c.id === id))
        .map((id) => known.get(id))
        .filter((c): c is Json => !!c);
      if (!ghosts.length) return;
      (bodyOf(res)!.data as Json[]).unshift(...ghosts);
      if (typeof page.total === 'number') page.total += ghosts.length;
      ctx.applied();
    },
    demo: {
      steps: [
        { req: req('GET', '/v0/customers/cus_demo1'), res: json(200, customer()) },
        { req: req('DELETE', '/v0/customers/cus_demo1'), res: { status: 204, headers: {}, body: Buffer.alloc(0) } },
        { req: req('GET', '/v0/customers?limit=10&offset=0'), res: json(200, listed([])) },
      ],
      verify: (o) => expectAll([got(o)?.data?.[0]?.id === 'cus_demo1', 'the deleted customer is not listed']),
    },
  }),
  // ------------------------------------------------------------ owned by the key's merchant
  fault({
    name: 'ho-customers-list-foreign-entry',
    area: 'customers',
    description:
      "GET /v0/customers adds, on its first page, a customer of another merchant (the first entry's copy, another id and merchantId)",
    rules: ['CONV.OWNER.KEY_MERCHANT'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const data = on(r, 'GET', R.customers) && res.status === 200 ? listOf(res) : undefined;
      const page = pageOf(res);
      if (!data?.length || !page || page.offset !== 0) return;
      const foreign = { ...data[0], id: 'cus_elsewhere0leak', merchantId: 'org_elsewhere0leak' };
      (bodyOf(res)!.data as Json[]).push(foreign);
      if (typeof page.total === 'number') page.total += 1;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/customers?limit=10&offset=0'), res: json(200, listed([customer()])) }],
      verify: (o) =>
        expectAll([got(o)?.data?.[1]?.merchantId === 'org_elsewhere0leak', 'no foreign customer in the page']),
    },
  }),
  fault({
    name: 'ho-alerts-list-other-wallet',
    area: 'alerts',
    description:
      "GET /v0/alerts?resourceId=X adds, on its first page, an alert of another resource (X's alert copied, resourceId changed)",
    rules: ['ALERTS.LIST.PAGINATED'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const data = on(r, 'GET', R.alerts) && res.status === 200 ? listOf(res) : undefined;
      const page = pageOf(res);
      if (!data?.length || !page || page.offset !== 0) return;
      (bodyOf(res)!.data as Json[]).push({ ...data[0], id: 'alr_elsewhere0', resourceId: 'wal_elsewhere0' });
      if (typeof page.total === 'number') page.total += 1;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/alerts?resourceId=wal_demo1'), res: json(200, listed([alert('alr_1')])) }],
      verify: (o) => expectAll([got(o)?.data?.[1]?.resourceId === 'wal_elsewhere0', 'no other alert']),
    },
  }),
  // ------------------------------------------------------------ derived amounts
  fault({
    name: 'ho-refund-in-cents',
    area: 'refunds-payments',
    description:
      'POST /v2/invoices/{id}/refunds answers amount, taxAmount and total in cents (100 times the dollars), total still their sum',
    rules: ['CONV.DERIVED.AMOUNTS'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.refunds) || !is2xx(res) || !b) return;
      const scaled = ['amount', 'taxAmount', 'total'].map((k) => scaleDecimal(b[k], 100));
      if (scaled.every((v) => v === undefined)) return;
      ['amount', 'taxAmount', 'total'].forEach((k, i) => {
        if (scaled[i] !== undefined) b[k] = scaled[i];
      });
      ctx.applied();
    },
    demo: {
      steps: [
        { req: req('POST', '/v2/invoices/inv_demo1/refunds', {}), res: json(201, refund('100', '8.5', '108.5')) },
      ],
      verify: (o) => expectAll([got(o)?.total === '10850' && got(o)?.amount === '10000', `total ${got(o)?.total}`]),
    },
  }),
  fault({
    name: 'ho-refund-other-currency',
    area: 'refunds-payments',
    description:
      "POST /v2/invoices/{id}/refunds answers the credit note in EUR (or USD for an EUR invoice): not the invoice's currency",
    rules: ['CONV.DERIVED.AMOUNTS'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.refunds) || !is2xx(res) || typeof b?.currency !== 'string') return;
      b.currency = b.currency.toUpperCase() === 'EUR' ? 'USD' : 'EUR';
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('POST', '/v2/invoices/inv_demo1/refunds', {}), res: json(201, refund('100', '0', '100')) }],
      verify: (o) => expectAll([got(o)?.currency === 'EUR', `currency ${got(o)?.currency}`]),
    },
  }),
  fault({
    name: 'ho-intervals-unit-price-cents',
    area: 'billing-schedules',
    description:
      'GET /v0/billingSchedules/{id}/intervals answers every unitPrice in cents (100 times the unit price of its order line)',
    rules: ['CONV.DERIVED.AMOUNTS'],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const data = on(r, 'GET', R.intervals) && res.status === 200 ? listOf(res) : undefined;
      let changed = false;
      for (const i of data ?? []) {
        const cents = scaleDecimal(i.unitPrice, 100);
        if (cents === undefined) continue;
        i.unitPrice = cents;
        changed = true;
      }
      if (changed) ctx.applied();
    },
    demo: {
      steps: [
        { req: req('GET', '/v0/billingSchedules/bs_demo1/intervals'), res: json(200, listed([interval('si_1')])) },
      ],
      verify: (o) => expectAll([got(o)?.data?.[0]?.unitPrice === '1250', `unitPrice ${got(o)?.data?.[0]?.unitPrice}`]),
    },
  }),
  // ------------------------------------------------------------ list walks
  fault({
    name: 'ho-intervals-offset-ignored',
    area: 'billing-schedules',
    description:
      'GET /v0/billingSchedules/{id}/intervals with an offset above 0 answers the first page again, its pagination naming the offset asked',
    rules: ['CONV.LIST.WALK'],
    suites: EVERY,
    async onResponse(r, res, ctx) {
      const hit = on(r, 'GET', R.intervals);
      const q = new URLSearchParams(r.path.split('?')[1] ?? '');
      const offset = Number(q.get('offset') ?? '0');
      if (!hit || res.status !== 200 || !(offset > 0) || !listOf(res)) return;
      q.set('offset', '0');
      const first = await ctx.upstream({ ...r, path: `${r.path.split('?')[0]}?${q}`, headers: plainHeaders(r) });
      const data = listOf(first);
      if (first.status !== 200 || !data) return;
      bodyOf(res)!.data = data;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/billingSchedules/bs_demo1/intervals?limit=1&offset=1'),
          res: (f) =>
            f.path.includes('offset=0')
              ? json(200, listed([interval('si_1')], 0, 2))
              : json(200, listed([interval('si_2')], 1, 2)),
        },
      ],
      verify: (o) => expectAll([got(o)?.data?.[0]?.id === 'si_1', `data ${JSON.stringify(got(o)?.data)}`]),
    },
  }),
  fault({
    name: 'ho-alerts-page-repeats-last',
    area: 'alerts',
    description: 'GET /v0/alerts with an offset above 0 repeats, first, the element just before the offset',
    rules: ['CONV.LIST.WALK'],
    suites: EVERY,
    async onResponse(r, res, ctx) {
      const hit = on(r, 'GET', R.alerts);
      const q = new URLSearchParams(r.path.split('?')[1] ?? '');
      const offset = Number(q.get('offset') ?? '0');
      if (!hit || res.status !== 200 || !(offset > 0) || !listOf(res)) return;
      q.set('offset', String(offset - 1));
      q.set('limit', '1');
      const before = listOf(
        await ctx.upstream({ ...r, path: `${r.path.split('?')[0]}?${q}`, headers: plainHeaders(r) }),
      );
      if (!before?.length) return;
      (bodyOf(res)!.data as Json[]).unshift(before[0]);
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/alerts?resourceId=wal_demo1&limit=1&offset=1'),
          res: (f) =>
            f.path.includes('offset=0')
              ? json(200, listed([alert('alr_1')], 0, 2))
              : json(200, listed([alert('alr_2')], 1, 2)),
        },
      ],
      verify: (o) => expectAll([got(o)?.data?.[0]?.id === 'alr_1' && got(o)?.data?.length === 2, 'no repeat']),
    },
  }),
];
