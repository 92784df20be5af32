/**
 * Held-out set 2, faults: deviations a real implementation of the billing service interface
 * could ship, written from the interface document alone (each description quotes the sentence
 * it breaks). They concentrate on relations between resources, shapes that depend on a field,
 * stated numbers, and two documented answers that disagree.
 */
import type { FaultContext, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import type { CatalogFault } from '../../src/faults/catalog/types.ts';
import {
  bodyOf,
  expectAll,
  fault,
  got,
  is2xx,
  isObj,
  json,
  on,
  pathOf,
  queryOf,
  R,
  req,
  stateMap,
  withQuery,
  type Json,
} from '../../src/faults/catalog/helpers.ts';
import {
  DAY_MS,
  MERCHANT,
  OTHER_MERCHANT,
  alert,
  alertList,
  another,
  creditNote,
  customer,
  extRef,
  interval,
  item,
  merchant,
  migration,
  note,
  noteOrgs,
  objectsOf,
  otherId,
  payment,
  price,
  schedule,
  sourceRule,
  subscription,
  topup,
  volumePrice,
  webhooksConfig,
  withBody,
} from './shared.ts';

/** When a demo item was archived. */
const T1 = '2030-01-10T00:00:00.000Z';

/** The JSON object of a successful answer to `method` on `route`, with the route's match. */
function okOn(
  rq: ProxyRequest,
  res: ProxyResponse,
  method: string,
  route: RegExp,
): { m: RegExpExecArray; b: Json } | undefined {
  const m = on(rq, method, route);
  const b = bodyOf(res);
  return m && b && is2xx(res) ? { m, b } : undefined;
}

/** The volume tiers of a price answer, if it is a volume price. */
function tiersOf(b: Json): Json[] | undefined {
  if (b.model !== 'volume' || !isObj(b.properties) || !Array.isArray(b.properties.tiers)) return undefined;
  return b.properties.tiers.every(isObj) ? (b.properties.tiers as Json[]) : undefined;
}

/** The rate-limited endpoints of the Limits table. */
const LISTED: Array<[string, RegExp]> = [
  ['GET', /^\/v0\/customers$/],
  ['POST', /^\/v0\/subscriptions\/[^/]+\/reconciliations$/],
  ['POST', /^\/v0\/subscriptions\/[^/]+\/portal$/],
  ['POST', /^\/v2\/invoices\/lineItems$/],
  ['GET', /^\/v0\/costs\/report$/],
  ['GET', /^\/v0\/integrations\/[^/]+\/accounts$/],
];
const isListed = (rq: ProxyRequest): boolean => LISTED.some(([m, re]) => on(rq, m, re) !== null);

/** The subscription object of an answer: the migration answer's `subscription`, or the body itself. */
function subscriptionOf(rq: ProxyRequest, res: ProxyResponse): Json | undefined {
  const b = bodyOf(res);
  if (!b || !is2xx(res)) return undefined;
  if (on(rq, 'POST', R.migrate)) return isObj(b.subscription) ? b.subscription : undefined;
  if (R.subscription.test(pathOf(rq)) && b.object === 'subscription') return b;
  return undefined;
}

const migrationOf = (rq: ProxyRequest, res: ProxyResponse): Json | undefined => {
  const hit = okOn(rq, res, 'POST', R.migrate);
  return hit && isObj(hit.b.migration) ? hit.b.migration : undefined;
};

// ====================================================================== relations

const itemExtRefEntityProduct = fault({
  name: 'ho2-item-extref-entity-product',
  area: 'items',
  description:
    "Item answers list their external references with entityId set to the item's catalogId (the product) instead of the item's own id, as if the reference were looked up by catalog. The document: ExternalReferences 'Links an entity (for example an item) to a record in an external CRM or ERP system'; an item's `externalReferences` are the item's own (entityType `item`), and on archiving 'references stay attached'.",
  rules: ['ITEMS.ARCHIVE.DEMOTES_PRIMARY'],
  suites: [],
  onResponse(rq, res, ctx) {
    if (!R.item.test(pathOf(rq)) || !is2xx(res)) return;
    const b = bodyOf(res);
    if (!b || typeof b.catalogId !== 'string' || !Array.isArray(b.externalReferences)) return;
    let changed = false;
    for (const r of b.externalReferences)
      if (isObj(r) && r.entityId === b.id) {
        r.entityId = b.catalogId;
        changed = true;
      }
    if (changed) ctx.applied();
  },
  demo: {
    steps: [{ req: req('PATCH', '/v0/items/itm_1', { name: 'Widget 2' }), res: json(200, item({ name: 'Widget 2' })) }],
    verify: (last) => {
      const refs = got(last)?.externalReferences;
      return expectAll(
        [Array.isArray(refs) && refs.length > 0, 'no external references'],
        [refs?.[0]?.entityId === 'prod_1', `entityId is ${refs?.[0]?.entityId}, not the catalogId prod_1`],
      );
    },
  },
});

const refundInvoiceOther = fault({
  name: 'ho2-refund-invoice-id-other',
  area: 'refunds-payments',
  description:
    "A credit note created by POST /v2/invoices/{id}/refunds names in invoiceId the invoice refunded before it (a reused builder keeps the previous invoice), or another invoice id when there was none. The document: 'POST /v2/invoices/{id}/refunds — path `id` is the invoice id' and the credit note's `invoiceId` is the invoice it refunds.",
  rules: ['REFUNDS.INVOICE.MATCHES'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'POST', R.refunds);
    if (!hit) return;
    const invoice = decodeURIComponent(hit.m[1]);
    if (hit.b.invoiceId === invoice) {
      hit.b.invoiceId = another(ctx, 'invoices', invoice);
      ctx.applied();
    }
    note(ctx, 'invoices', invoice);
  },
  demo: {
    steps: [
      { req: req('POST', '/v2/invoices/inv_a1/refunds', {}), res: json(201, creditNote({ invoiceId: 'inv_a1' })) },
      {
        req: req('POST', '/v2/invoices/inv_b2/refunds', { reason: 'late' }),
        res: json(201, creditNote({ id: 'crn_2', invoiceId: 'inv_b2', reason: 'late' })),
      },
    ],
    verify: (last) =>
      got(last)?.invoiceId === 'inv_a1' ? undefined : `invoiceId is ${got(last)?.invoiceId}, not the earlier inv_a1`,
  },
});

const scheduleIntervalOther = fault({
  name: 'ho2-interval-schedule-id-other',
  area: 'billing-schedules',
  description:
    "GET /v0/billingSchedules/{id}/intervals answers the schedule's intervals but each names in scheduleId another schedule the merchant has (the one touched last; another id when none). The document: Schedule interval `scheduleId`, and 'Billing Schedules | Schedules with intervals ... each belongs to exactly one order or exactly one subscription'.",
  rules: ['SCHEDULES.INTERVALS.PAGINATED'],
  suites: [],
  onResponse(rq, res, ctx) {
    const created = okOn(rq, res, 'POST', R.schedules);
    if (created) note(ctx, 'schedules', created.b.id);
    const hit = okOn(rq, res, 'GET', R.intervals);
    if (!hit) return;
    const own = decodeURIComponent(hit.m[1]);
    let changed = false;
    if (Array.isArray(hit.b.data))
      for (const iv of hit.b.data)
        if (isObj(iv) && iv.scheduleId === own) {
          iv.scheduleId = another(ctx, 'schedules', own);
          changed = true;
        }
    note(ctx, 'schedules', own);
    if (changed) ctx.applied();
  },
  demo: {
    steps: [
      { req: req('POST', '/v0/billingSchedules', { orderId: 'ord_1' }), res: json(201, schedule({ id: 'bs_9' })) },
      {
        req: req('GET', '/v0/billingSchedules/bs_1/intervals'),
        res: json(200, { object: 'list', data: [interval()], pagination: { limit: 10, offset: 0, total: 1 } }),
      },
    ],
    verify: (last) => {
      const d = got(last)?.data?.[0];
      return d?.scheduleId === 'bs_9' ? undefined : `interval scheduleId is ${d?.scheduleId}, not the other bs_9`;
    },
  },
});

const scheduleMerchantOther = fault({
  name: 'ho2-schedule-merchant-other',
  area: 'billing-schedules',
  description:
    "POST /v0/billingSchedules answers the schedule with merchantId naming another merchant organization (filled from another organization the service knows, such as the order's customer organization). The document: 'A merchant organization represents a business that sells products and owns products, prices, customers and subscriptions'; a schedule's `merchantId` is its owner's.",
  rules: ['CONV.OWNER.KEY_MERCHANT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'POST', R.schedules);
    if (hit && typeof hit.b.merchantId === 'string') {
      hit.b.merchantId = another(ctx, 'orgs', hit.b.merchantId);
      ctx.applied();
      return;
    }
    noteOrgs(ctx, res.json);
  },
  demo: {
    steps: [
      { req: req('GET', '/v0/customers/cus_1'), res: json(200, customer({ consumerId: OTHER_MERCHANT })) },
      { req: req('POST', '/v0/billingSchedules', { orderId: 'ord_1' }), res: json(201, schedule()) },
    ],
    verify: (last) =>
      got(last)?.merchantId === OTHER_MERCHANT
        ? undefined
        : `merchantId is ${got(last)?.merchantId}, not ${OTHER_MERCHANT}`,
  },
});

const scheduleOrderOther = fault({
  name: 'ho2-schedule-order-other',
  area: 'billing-schedules',
  description:
    "POST /v0/billingSchedules with orderId answers a schedule whose orderId names the order of the previous create (another order id when there was none). The document: '`orderId` | string | Owner order' and 'every schedule belongs to an order, so send `orderId`'.",
  rules: ['SCHEDULES.CREATE.BY_ORDER'],
  suites: [],
  onResponse(rq, res, ctx) {
    const sent = bodyOf(rq)?.orderId;
    const hit = okOn(rq, res, 'POST', R.schedules);
    if (!hit || typeof sent !== 'string') return;
    if (hit.b.orderId === sent) {
      hit.b.orderId = another(ctx, 'orders', sent);
      ctx.applied();
    }
    note(ctx, 'orders', sent);
  },
  demo: {
    steps: [{ req: req('POST', '/v0/billingSchedules', { orderId: 'ord_1' }), res: json(201, schedule()) }],
    verify: (last) =>
      got(last)?.orderId && got(last)?.orderId !== 'ord_1' ? undefined : `orderId is ${got(last)?.orderId}`,
  },
});

const customerConsumerIsMerchant = fault({
  name: 'ho2-customer-consumer-is-merchant',
  area: 'customers',
  description:
    "GET /v0/customers/{id} answers consumerId equal to merchantId (the read path maps both fields from the owner column); PATCH answers stay right. The document: Customers are 'An entity connected to a merchant through a subscription (the merchant-side view of a consumer)', with `consumerId` and `merchantId` distinct fields.",
  rules: ['CUSTOMERS.GET.BY_ID', 'CUSTOMERS.UPDATE.APPLIED'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.customer);
    if (!hit || typeof hit.b.merchantId !== 'string' || hit.b.consumerId === hit.b.merchantId) return;
    hit.b.consumerId = hit.b.merchantId;
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/customers/cus_1'), res: json(200, customer()) }],
    verify: (last) =>
      got(last)?.consumerId === MERCHANT ? undefined : `consumerId is ${got(last)?.consumerId}, not the merchant`,
  },
});

const priceMerchantOther = fault({
  name: 'ho2-price-merchant-other',
  area: 'merchants-products',
  description:
    "GET /v0/prices/{id} answers merchantId naming another merchant organization (derived from the wrong side of a shared billable metric). The document: Price `merchantId` is the 'Owner merchant, derived from the fee or billable metric; present on single-price reads'.",
  rules: ['PRICES.MERCHANT_ID.SINGLE_READ', 'MERCHANTS.OWNER.NAMED', 'CONV.OWNER.KEY_MERCHANT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.price);
    if (hit && typeof hit.b.merchantId === 'string') {
      hit.b.merchantId = another(ctx, 'orgs', hit.b.merchantId);
      ctx.applied();
      return;
    }
    noteOrgs(ctx, res.json);
  },
  demo: {
    steps: [{ req: req('GET', '/v0/prices/price_1'), res: json(200, price()) }],
    verify: (last) => {
      const m = got(last)?.merchantId;
      return typeof m === 'string' && /^org_[a-zA-Z0-9]+$/.test(m) && m !== MERCHANT ? undefined : `merchantId is ${m}`;
    },
  },
});

const alertResourceOther = fault({
  name: 'ho2-alert-resource-id-other',
  area: 'alerts',
  description:
    "GET /v0/alerts?resourceId=X (and PATCH /v0/alerts/{id}) answer alerts whose resourceId names the resource asked about before (a cached key), or another id when none. The document: 'GET /v0/alerts — query: `resourceId` string required' and the Alert's `resourceId` is the resource it watches.",
  rules: ['ALERTS.LIST.PAGINATED', 'CONV.ROUND_TRIP.AS_SENT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const list = okOn(rq, res, 'GET', R.alerts);
    const patched = okOn(rq, res, 'PATCH', R.alert);
    const asked = list ? queryOf(rq).get('resourceId') : null;
    const alerts = list ? objectsOf(list.b).slice(1) : patched ? [patched.b] : [];
    let changed = false;
    for (const a of alerts)
      if (typeof a.resourceId === 'string') {
        const own = a.resourceId;
        a.resourceId = another(ctx, 'resources', own);
        changed = true;
      }
    if (asked) note(ctx, 'resources', asked);
    if (changed) ctx.applied();
  },
  demo: {
    steps: [
      { req: req('GET', '/v0/alerts?resourceId=wal_0'), res: json(200, alertList([])) },
      { req: req('GET', '/v0/alerts?resourceId=wal_1'), res: json(200, alertList([alert()])) },
    ],
    verify: (last) => {
      const r = got(last)?.data?.[0]?.resourceId;
      return r === 'wal_0' ? undefined : `resourceId is ${r}, not the earlier wal_0`;
    },
  },
});

const sourceRuleSourceOther = fault({
  name: 'ho2-source-rule-source-id-other',
  area: 'merchants-products',
  description:
    "PATCH /v0/sourceRules/{ruleId} answers the rule with sourceId naming another source (the one of the rule updated before; another id when none), though the body never mentions the source. The document: body fields are 'conditions, description, enabled, name, order' (all optional) and the rule's `sourceId` names its source; sources 'are configured at plan level'.",
  rules: ['SOURCE_RULES.UPDATE.PARTIAL'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'PATCH', R.sourceRule);
    if (!hit || typeof hit.b.sourceId !== 'string') return;
    const own = hit.b.sourceId;
    hit.b.sourceId = another(ctx, 'sources', own);
    note(ctx, 'sources', own);
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/sourceRules/srule_1', { name: 'Renamed' }),
        res: json(200, sourceRule({ name: 'Renamed' })),
      },
    ],
    verify: (last) =>
      got(last)?.sourceId && got(last)?.sourceId !== 'src_1' ? undefined : `sourceId is ${got(last)?.sourceId}`,
  },
});

const paymentCustomerOther = fault({
  name: 'ho2-payment-customer-other',
  area: 'refunds-payments',
  description:
    "GET /v0/payments/{id} answers customerId naming another customer of the merchant (the customer seen last; another id when none). The document: Payment `customerId` and 'Payments ... One-off payments (a single charge a merchant collects from a customer)'.",
  rules: ['PAYMENTS.GET.BY_ID', 'CONV.ROUND_TRIP.AS_SENT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.payment);
    if (hit && typeof hit.b.customerId === 'string') {
      hit.b.customerId = another(ctx, 'customers', hit.b.customerId);
      ctx.applied();
      return;
    }
    for (const o of objectsOf(res.json)) {
      if (o.object === 'customer') note(ctx, 'customers', o.id);
      if (typeof o.customerId === 'string') note(ctx, 'customers', o.customerId);
    }
  },
  demo: {
    steps: [
      { req: req('GET', '/v0/customers/cus_7'), res: json(200, customer({ id: 'cus_7' })) },
      { req: req('GET', '/v0/payments/pay_1'), res: json(200, payment()) },
    ],
    verify: (last) => (got(last)?.customerId === 'cus_7' ? undefined : `customerId is ${got(last)?.customerId}`),
  },
});

const webhooksMerchantIgnored = fault({
  name: 'ho2-webhooks-merchant-query-ignored',
  area: 'webhooks',
  description:
    "PATCH /v0/webhooks ignores the merchantId query parameter and always acts on the merchant of the API key. The document: 'Query: `merchantId` string, optional (defaults to the merchant of the API key)' — a named merchant is the one acted on, and the configuration's `merchantId` is it.",
  rules: ['WEBHOOKS.MERCHANT.NAMED', 'WEBHOOKS.MERCHANT.UNMANAGED'],
  suites: [],
  onRequest(rq, ctx) {
    if (!on(rq, 'PATCH', R.webhooks)) return;
    const q = queryOf(rq);
    if (!q.has('merchantId')) return;
    q.delete('merchantId');
    const fwd = { ...rq };
    withQuery(fwd, q);
    ctx.applied();
    return fwd;
  },
  demo: {
    steps: [
      {
        req: req('PATCH', `/v0/webhooks?merchantId=${OTHER_MERCHANT}`, { enabled: false }),
        res: (f) => json(200, webhooksConfig({ enabled: false, merchantId: queryOf(f).get('merchantId') ?? MERCHANT })),
      },
    ],
    verify: (last) =>
      expectAll(
        [!!last.forwarded && !queryOf(last.forwarded).has('merchantId'), 'merchantId still forwarded'],
        [got(last)?.merchantId === MERCHANT, `configuration merchantId is ${got(last)?.merchantId}`],
      ),
  },
});

// ====================================================================== shapes that depend on a field

const priceStandardNoUnitPrice = fault({
  name: 'ho2-price-standard-no-unit-price',
  area: 'merchants-products',
  description:
    "GET /v0/prices/{id} of a standard price answers properties without unitPrice (the serializer only copies tiers). The document: '`properties` | object | Depends on model; for volume: `tiers` ... Also `unitPrice` for standard.'",
  rules: ['SCHEMA.RESPONSE.MATCHES', 'CONV.ROUND_TRIP.AS_SENT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.price);
    if (!hit || hit.b.model !== 'standard' || !isObj(hit.b.properties) || !('unitPrice' in hit.b.properties)) return;
    delete hit.b.properties.unitPrice;
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/prices/price_1'), res: json(200, price()) }],
    verify: (last) => {
      const p = got(last)?.properties;
      return isObj(p) && !('unitPrice' in p) ? undefined : 'standard price still carries properties.unitPrice';
    },
  },
});

const volumeLastTierClosed = fault({
  name: 'ho2-price-volume-last-tier-capped',
  area: 'merchants-products',
  description:
    "GET /v0/prices/{id} of a volume price answers the last tier with upTo '999999999' (the storage sentinel for an open tier) instead of null. The document: 'for volume: `tiers` array of {unitPrice: string, upTo: string or null (null for the last tier)}'.",
  rules: ['PRICES.VOLUME.LAST_TIER_OPEN'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.price);
    const tiers = hit && tiersOf(hit.b);
    const last = tiers?.[tiers.length - 1];
    if (!last || last.upTo !== null) return;
    last.upTo = '999999999';
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('GET', '/v0/prices/price_2'),
        res: json(
          200,
          volumePrice([
            { unitPrice: '1.00', upTo: '100' },
            { unitPrice: '0.80', upTo: null },
          ]),
        ),
      },
    ],
    verify: (last) => {
      const t = got(last)?.properties?.tiers;
      return t?.[t.length - 1]?.upTo === '999999999' ? undefined : 'last tier upTo is not the sentinel';
    },
  },
});

const volumeMiddleTierOpen = fault({
  name: 'ho2-price-volume-first-tier-open',
  area: 'merchants-products',
  description:
    "GET /v0/prices/{id} of a volume price with two or more tiers answers the first tier with upTo null (its bound lost when the tier rows are copied), so an earlier tier is open too. The document: 'upTo: string or null (null for the last tier)'.",
  rules: ['PRICES.VOLUME.LAST_TIER_OPEN'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.price);
    const tiers = hit && tiersOf(hit.b);
    if (!tiers || tiers.length < 2 || tiers[0].upTo === null) return;
    tiers[0].upTo = null;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('GET', '/v0/prices/price_2'),
        res: json(
          200,
          volumePrice([
            { unitPrice: '1.00', upTo: '100' },
            { unitPrice: '0.90', upTo: '1000' },
            { unitPrice: '0.80', upTo: null },
          ]),
        ),
      },
    ],
    verify: (last) => (got(last)?.properties?.tiers?.[0]?.upTo === null ? undefined : 'first tier is still bounded'),
  },
});

const volumeTiersDescending = fault({
  name: 'ho2-price-volume-tiers-descending',
  area: 'merchants-products',
  description:
    "GET /v0/prices/{id} of a volume price answers its tiers in descending order of upTo with the open tier first (ORDER BY up_to DESC, where nulls sort first). The document: 'tiers array of {unitPrice: string, upTo: string or null (null for the last tier)}'.",
  rules: ['PRICES.VOLUME.LAST_TIER_OPEN'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.price);
    const tiers = hit && tiersOf(hit.b);
    if (!tiers || tiers.length < 2) return;
    tiers.reverse();
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('GET', '/v0/prices/price_2'),
        res: json(
          200,
          volumePrice([
            { unitPrice: '1.00', upTo: '100' },
            { unitPrice: '0.80', upTo: null },
          ]),
        ),
      },
    ],
    verify: (last) => {
      const t = got(last)?.properties?.tiers;
      return t?.[0]?.upTo === null && t?.[1]?.upTo === '100' ? undefined : 'tiers not in descending order';
    },
  },
});

const walletPeriodDaily = fault({
  name: 'ho2-wallet-limit-period-daily',
  area: 'merchants-products',
  description:
    "PATCH /v0/wallets/{id}/autoTopupConfig answers limit.period 'daily' where 'day' was set (mapped through the billing-schedule vocabulary). The document: '`limit` | object {amount: number, period: string} | Period value `day` occurs.'",
  rules: ['WALLETS.AUTO_TOPUP.PERIOD_DAY', 'CONV.ROUND_TRIP.AS_SENT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'PATCH', R.autoTopup);
    if (!hit || !isObj(hit.b.limit) || hit.b.limit.period !== 'day') return;
    hit.b.limit.period = 'daily';
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/wallets/wal_1/autoTopupConfig', { limit: { amount: 200, period: 'day' } }),
        res: json(200, topup()),
      },
    ],
    verify: (last) =>
      got(last)?.limit?.period === 'daily' ? undefined : `limit.period is ${got(last)?.limit?.period}`,
  },
});

const merchantZipNumber = fault({
  name: 'ho2-merchant-zip-code-number',
  area: 'merchants-products',
  description:
    "Merchant answers (POST /v0/merchants, GET /v0/merchants/{id}) carry address and billingAddress zipCode as a JSON number when it is all digits (a numeric column). The document: 'Address object: `line1`, `line2`, `city`, `state`, `country`, `zipCode` (all strings).'",
  rules: ['MERCHANTS.CREATE.OBJECT', 'MERCHANTS.GET.ROUND_TRIP', 'SCHEMA.RESPONSE.MATCHES'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'POST', R.merchants) ?? okOn(rq, res, 'GET', R.merchant);
    if (!hit) return;
    let changed = false;
    for (const k of ['address', 'billingAddress']) {
      const a = hit.b[k];
      if (isObj(a) && typeof a.zipCode === 'string' && /^[1-9][0-9]{0,14}$/.test(a.zipCode)) {
        a.zipCode = Number(a.zipCode);
        changed = true;
      }
    }
    if (changed) ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/merchants/org_new1'), res: json(200, merchant()) }],
    verify: (last) =>
      typeof got(last)?.address?.zipCode === 'number' ? undefined : 'address.zipCode is still a string',
  },
});

const merchantBillingCopiesAddress = fault({
  name: 'ho2-merchant-billing-address-copies-address',
  area: 'merchants-products',
  description:
    "GET /v0/merchants/{id} answers billingAddress as a copy of address (both read from the same column), losing the billing address it was created with. The document: merchant fields '`address`, `billingAddress`' are distinct, and GET /v0/merchants/{id} answers 'merchant object' for the one created.",
  rules: ['MERCHANTS.GET.ROUND_TRIP', 'CONV.ROUND_TRIP.AS_SENT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.merchant);
    if (!hit || !isObj(hit.b.address) || !isObj(hit.b.billingAddress)) return;
    if (JSON.stringify(hit.b.address) === JSON.stringify(hit.b.billingAddress)) return;
    hit.b.billingAddress = { ...hit.b.address };
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/merchants/org_new1'), res: json(200, merchant()) }],
    verify: (last) =>
      got(last)?.billingAddress?.line1 === '1 Main St' ? undefined : 'billingAddress is not the address copy',
  },
});

// ====================================================================== numbers and stated facts

const refundTotalCents = fault({
  name: 'ho2-refund-total-in-cents',
  area: 'refunds-payments',
  description:
    "A credit note answers total as amount + taxAmount in cents ('1100' for 10.00 + 1.00), the tax provider's minor units, while amount and taxAmount stay in dollars. The document: '`total` | string | amount + taxAmount, decimal dollars.'",
  rules: ['REFUNDS.TOTAL.SUM', 'CONV.DERIVED.AMOUNTS'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'POST', R.refunds);
    if (!hit) return;
    const a = Number(hit.b.amount);
    const t = Number(hit.b.taxAmount);
    if (!Number.isFinite(a) || !Number.isFinite(t)) return;
    const cents = Math.round((a + t) * 100);
    if (cents === 0) return;
    hit.b.total = String(cents);
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('POST', '/v2/invoices/inv_1/refunds', {}), res: json(201, creditNote()) }],
    verify: (last) => (got(last)?.total === '1100' ? undefined : `total is ${got(last)?.total}`),
  },
});

const subscriptionZeroBased = fault({
  name: 'ho2-subscription-version-zero-based',
  area: 'version-migration',
  description:
    "Subscription representations (the version migration answer's subscription, PATCH/GET /v0/subscriptions/{id}) carry versionNumber 0-based (the version's index: 0 for version 1). The document: 'Plans have numbered versions (integer, starting at 1). A subscription has `planVersionId`, `versionNumber` and `versionPolicy`'.",
  rules: ['SUBSCRIPTIONS.VERSION.NUMBERED'],
  suites: [],
  onResponse(rq, res, ctx) {
    const s = subscriptionOf(rq, res);
    if (!s || typeof s.versionNumber !== 'number' || !Number.isInteger(s.versionNumber)) return;
    s.versionNumber -= 1;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 2 }),
        res: json(200, migration(1, 2)),
      },
    ],
    verify: (last) =>
      got(last)?.subscription?.versionNumber === 0
        ? undefined
        : `versionNumber is ${got(last)?.subscription?.versionNumber}`,
  },
});

const migrationToOffByOne = fault({
  name: 'ho2-migration-to-version-off-by-one',
  area: 'version-migration',
  description:
    "A version migration answers migration.toVersionNumber one above the targetVersionNumber asked (the version's 1-based position converted to a number twice). The document: '`targetVersionNumber` integer ... the number of a published version' and 'the subscription moves to the named version'; the answer's `toVersionNumber` is that version.",
  rules: ['MIGRATION.RESPONSE.VERSION_NUMBERS'],
  suites: [],
  onResponse(rq, res, ctx) {
    const mg = migrationOf(rq, res);
    if (!mg || typeof mg.toVersionNumber !== 'number') return;
    mg.toVersionNumber += 1;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 2 }),
        res: json(200, migration(1, 2)),
      },
    ],
    verify: (last) =>
      got(last)?.migration?.toVersionNumber === 3
        ? undefined
        : `toVersionNumber is ${got(last)?.migration?.toVersionNumber}`,
  },
});

const migrationFromIsTarget = fault({
  name: 'ho2-migration-from-version-is-target',
  area: 'version-migration',
  description:
    "A version migration that changes the version answers migration.fromVersionNumber equal to toVersionNumber (read back after the pending move was recorded), while changed stays true. The document: 'Migrating to the version already in use changes nothing' — fromVersionNumber is the version in use, and it differs from the target when something changes.",
  rules: ['MIGRATION.RESPONSE.VERSION_NUMBERS'],
  suites: [],
  onResponse(rq, res, ctx) {
    const mg = migrationOf(rq, res);
    if (!mg || typeof mg.toVersionNumber !== 'number' || mg.fromVersionNumber === mg.toVersionNumber) return;
    mg.fromVersionNumber = mg.toVersionNumber;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 2 }),
        res: json(200, migration(1, 2)),
      },
    ],
    verify: (last) =>
      got(last)?.migration?.fromVersionNumber === 2
        ? undefined
        : `fromVersionNumber is ${got(last)?.migration?.fromVersionNumber}`,
  },
});

const migrationChangedOnRepeat = fault({
  name: 'ho2-migration-changed-on-same-version',
  area: 'version-migration',
  description:
    "A migration to the version already in use answers migration.changed true (it means 'a migration row was written'). The document: 'Migrating to the version already in use changes nothing except pinning a floating subscription (safe to repeat).'",
  rules: ['MIGRATION.SAME_VERSION.NO_CHANGE'],
  suites: [],
  onResponse(rq, res, ctx) {
    const mg = migrationOf(rq, res);
    if (!mg || mg.changed !== false || mg.fromVersionNumber !== mg.toVersionNumber) return;
    mg.changed = true;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 1 }),
        res: json(200, migration(1, 1)),
      },
    ],
    verify: (last) => (got(last)?.migration?.changed === true ? undefined : 'changed is not true'),
  },
});

const migrationEffectiveNow = fault({
  name: 'ho2-migration-effective-immediately',
  area: 'version-migration',
  description:
    "A version migration answers migration.effectiveAt as the moment of the request (the subscription's updatedAt, else the Date header) instead of the end of the current billing period. The document: 'the subscription moves to the named version at the end of the current billing period; the current period bills as before'.",
  rules: ['MIGRATION.EFFECT.PERIOD_END'],
  suites: [],
  onResponse(rq, res, ctx) {
    const mg = migrationOf(rq, res);
    if (!mg) return;
    const sub = bodyOf(res)?.subscription;
    const dateHeader = res.headers.date ? new Date(res.headers.date) : undefined;
    const now =
      isObj(sub) && typeof sub.updatedAt === 'string'
        ? sub.updatedAt
        : dateHeader && !Number.isNaN(dateHeader.getTime())
          ? dateHeader.toISOString()
          : undefined;
    if (!now || now === mg.effectiveAt) return;
    mg.effectiveAt = now;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 2 }),
        res: json(200, migration(1, 2)),
      },
    ],
    verify: (last) =>
      got(last)?.migration?.effectiveAt === subscription().updatedAt
        ? undefined
        : `effectiveAt is ${got(last)?.migration?.effectiveAt}`,
  },
});

const sourceRuleCountsNegative = fault({
  name: 'ho2-source-rule-counts-negative',
  area: 'merchants-products',
  description:
    "PATCH /v0/sourceRules/{ruleId} answers evaluationCount and matchCount -1 for a rule never evaluated (an 'unknown' sentinel leaking out). The document: '`evaluationCount` | integer | yes | Times evaluated.' and '`matchCount` | integer | yes | Times matched and auto-accepted an invoice.' — counts, which cannot be negative.",
  rules: ['SOURCE_RULES.UPDATE.PARTIAL', 'SCHEMA.RESPONSE.MATCHES'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'PATCH', R.sourceRule);
    if (!hit) return;
    let changed = false;
    for (const k of ['evaluationCount', 'matchCount'])
      if (hit.b[k] === 0) {
        hit.b[k] = -1;
        changed = true;
      }
    if (changed) ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/sourceRules/srule_1', { enabled: false }),
        res: json(200, sourceRule({ enabled: false })),
      },
    ],
    verify: (last) =>
      got(last)?.evaluationCount === -1 && got(last)?.matchCount === -1 ? undefined : 'counts are not negative',
  },
});

const alertsTotalPlusOne = fault({
  name: 'ho2-alerts-total-plus-one',
  area: 'alerts',
  description:
    "GET /v0/alerts answers pagination.total one above the alerts the resource has (the count query also counts a deleted alert row). The document: 'Offset pagination object: `limit` integer, `offset` integer, `total` integer' — total is how many there are.",
  rules: ['CONV.LIST.TOTAL_REACHED'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.alerts);
    const p = hit?.b.pagination;
    if (!isObj(p) || typeof p.total !== 'number') return;
    p.total += 1;
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('GET', '/v0/alerts?resourceId=wal_1'), res: json(200, alertList([alert()])) }],
    verify: (last) => (got(last)?.pagination?.total === 2 ? undefined : `total is ${got(last)?.pagination?.total}`),
  },
});

const alertsOffsetEchoZero = fault({
  name: 'ho2-alerts-offset-echo-zero',
  area: 'alerts',
  description:
    "GET /v0/alerts with offset > 0 pages correctly but echoes pagination.offset 0 (the default, not the one asked). The document: 'GET /v0/alerts — query: ... `offset` integer default 0, >= 0' and the 'Offset pagination object: `limit` integer, `offset` integer, `total` integer'.",
  rules: ['CONV.LIST.WALK'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.alerts);
    const p = hit?.b.pagination;
    const asked = Number(queryOf(rq).get('offset') ?? '0');
    if (!isObj(p) || !(asked > 0) || p.offset === 0) return;
    p.offset = 0;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('GET', '/v0/alerts?resourceId=wal_1&limit=1&offset=1'),
        res: json(200, alertList([alert({ id: 'alrt_2' })], { limit: 1, offset: 1, total: 2 })),
      },
    ],
    verify: (last) => (got(last)?.pagination?.offset === 0 ? undefined : `offset is ${got(last)?.pagination?.offset}`),
  },
});

const feeBlockerCountLow = fault({
  name: 'ho2-fee-blocker-count-low',
  area: 'delete-blockers',
  description:
    "A refused DELETE /v0/fees/{id} answers each blocker with count one below the prices it lists (the count skips the fee's default price). The document: '`details.blockers` array of {type: string, count: integer, items: array of {id, invoiceDisplayName}}' — count is how many block the delete.",
  rules: ['FEES.DELETE.BLOCKER_COUNT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const m = on(rq, 'DELETE', R.fee);
    const blockers = m && res.status === 409 ? bodyOf(res)?.details?.blockers : undefined;
    if (!Array.isArray(blockers)) return;
    let changed = false;
    for (const b of blockers)
      if (isObj(b) && Array.isArray(b.items) && b.items.length > 0 && typeof b.count === 'number') {
        b.count = b.items.length - 1;
        changed = true;
      }
    if (changed) ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('DELETE', '/v0/fees/fee_1'),
        res: json(409, {
          error: 'conflict',
          message: 'Fee has prices',
          details: {
            blockers: [{ type: 'prices', count: 1, items: [{ id: 'price_1', invoiceDisplayName: 'Setup' }] }],
          },
        }),
      },
    ],
    verify: (last) => {
      const b = got(last)?.details?.blockers?.[0];
      return b?.count === 0 && b?.items?.length === 1 ? undefined : `count is ${b?.count}`;
    },
  },
});

const customerBlockerNamesCustomer = fault({
  name: 'ho2-customer-blocker-names-customer',
  area: 'delete-blockers',
  description:
    "A refused DELETE /v0/customers/{id} answers blockers whose items carry the customer's own id instead of the blocking subscriptions' ids. The document: 'DELETE /v0/customers/{id} — refused with 409 (`error: conflict`) when blockers exist; `details.blockers` is an array of {type (e.g. `subscriptions`), count: integer, items: array of {id, status}}'.",
  rules: ['CUSTOMERS.DELETE.BLOCKER_COUNT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const m = on(rq, 'DELETE', R.customer);
    const blockers = m && res.status === 409 ? bodyOf(res)?.details?.blockers : undefined;
    if (!m || !Array.isArray(blockers)) return;
    const own = decodeURIComponent(m[1]);
    let changed = false;
    for (const b of blockers)
      if (isObj(b) && Array.isArray(b.items))
        for (const it of b.items)
          if (isObj(it) && it.id !== own) {
            it.id = own;
            changed = true;
          }
    if (changed) ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('DELETE', '/v0/customers/cus_1'),
        res: json(409, {
          error: 'conflict',
          message: 'Customer has subscriptions',
          details: { blockers: [{ type: 'subscriptions', count: 1, items: [{ id: 'sub_1', status: 'active' }] }] },
        }),
      },
    ],
    verify: (last) =>
      got(last)?.details?.blockers?.[0]?.items?.[0]?.id === 'cus_1'
        ? undefined
        : 'blocker item does not name the customer',
  },
});

const scheduleEndDayEarly = fault({
  name: 'ho2-schedule-end-date-day-early',
  area: 'billing-schedules',
  description:
    "POST /v0/billingSchedules answers endDate one day before the endDate sent (stored as the inclusive last day). The document: '`endDate` | date-time | Always present.' with `endDate` a body field of the create, so the schedule ends when it was told to.",
  rules: ['SCHEDULES.END_DATE.PRESENT', 'CONV.ROUND_TRIP.AS_SENT'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'POST', R.schedules);
    const sent = bodyOf(rq)?.endDate;
    if (!hit || typeof sent !== 'string' || typeof hit.b.endDate !== 'string') return;
    const t = Date.parse(hit.b.endDate);
    if (Number.isNaN(t) || t !== Date.parse(sent)) return;
    hit.b.endDate = new Date(t - DAY_MS).toISOString();
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('POST', '/v0/billingSchedules', {
          orderId: 'ord_1',
          startDate: '2030-01-01T00:00:00.000Z',
          endDate: '2031-01-01T00:00:00.000Z',
        }),
        res: json(201, schedule()),
      },
    ],
    verify: (last) =>
      got(last)?.endDate === '2030-12-31T00:00:00.000Z' ? undefined : `endDate is ${got(last)?.endDate}`,
  },
});

const ratelimitResetMs = fault({
  name: 'ho2-ratelimit-reset-milliseconds',
  area: 'rate-limits',
  description:
    "The rate-limited endpoints answer x-ratelimit-reset in milliseconds (6000 for 6 s). The document: '`x-ratelimit-reset` | same | Seconds until the window resets.'",
  rules: ['RATE.RESET.WITHIN_WINDOW'],
  suites: [],
  onResponse(rq, res, ctx) {
    if (!isListed(rq)) return;
    const v = Number(res.headers['x-ratelimit-reset']);
    if (!(v > 0)) return;
    res.headers['x-ratelimit-reset'] = String(Math.round(v * 1000));
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('GET', '/v0/customers'),
        res: json(
          200,
          { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } },
          {
            'x-ratelimit-limit': '60',
            'x-ratelimit-remaining': '59',
            'x-ratelimit-reset': '6',
          },
        ),
      },
    ],
    verify: (last) =>
      last.response.headers['x-ratelimit-reset'] === '6000'
        ? undefined
        : `x-ratelimit-reset is ${last.response.headers['x-ratelimit-reset']}`,
  },
});

const rateLimitCategory = fault({
  name: 'ho2-429-error-too-many-requests',
  area: 'rate-limits',
  description:
    "429 answers carry error 'too_many_requests' (the HTTP reason phrase) instead of 'rate_limit_exceeded'. The document: '429 | Rate limit exceeded; body `error` = `rate_limit_exceeded` plus endpoint-specific `message`.'",
  rules: ['RATE.EXCEEDED.BODY'],
  suites: [],
  onResponse(_rq, res, ctx) {
    const b = bodyOf(res);
    if (res.status !== 429 || !b || b.error !== 'rate_limit_exceeded') return;
    b.error = 'too_many_requests';
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('POST', '/v0/subscriptions/sub_1/portal', {}),
        res: json(
          429,
          { error: 'rate_limit_exceeded', message: 'Portal sessions: 1 per second' },
          { 'retry-after': '1' },
        ),
      },
    ],
    verify: (last) => (got(last)?.error === 'too_many_requests' ? undefined : `error is ${got(last)?.error}`),
  },
});

const webhooksCreatedAtMoves = fault({
  name: 'ho2-webhooks-created-at-follows-toggle',
  area: 'webhooks',
  description:
    "PATCH /v0/webhooks answers createdAt equal to updatedAt (the row is re-inserted on every toggle). The document: '`createdAt` | date-time | yes | When webhooks were first enabled.'",
  rules: ['WEBHOOKS.CREATED_AT.FIRST_ENABLED', 'CONV.TIMESTAMPS.LIFECYCLE'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'PATCH', R.webhooks);
    if (!hit || typeof hit.b.updatedAt !== 'string' || hit.b.createdAt === hit.b.updatedAt) return;
    hit.b.createdAt = hit.b.updatedAt;
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/webhooks', { enabled: true }),
        res: json(200, webhooksConfig({ updatedAt: '2030-03-01T00:00:00.000Z' })),
      },
    ],
    verify: (last) =>
      got(last)?.createdAt === '2030-03-01T00:00:00.000Z' ? undefined : `createdAt is ${got(last)?.createdAt}`,
  },
});

// ====================================================================== two documented answers that disagree

const customerExternalIdAnswerOnly = fault({
  name: 'ho2-customer-external-id-answer-only',
  area: 'customers',
  description:
    "PATCH /v0/customers/{id} with an externalId string answers the customer holding it, but the write drops it, so a later GET shows the old value. The document: 'PATCH /v0/customers/{id} — body (all optional): ... `externalId` string or null (max 255; null clears) ... Response: customer object.'",
  rules: ['CUSTOMERS.UPDATE.APPLIED', 'CONV.ROUND_TRIP.AS_SENT'],
  suites: [],
  onRequest(rq, ctx) {
    const b = bodyOf(rq);
    if (!on(rq, 'PATCH', R.customer) || !b || typeof b.externalId !== 'string' || b.externalId.length > 255) return;
    const { externalId: _dropped, ...rest } = b;
    ctx.applied();
    return withBody(rq, rest);
  },
  onResponse(rq, res) {
    const sent = bodyOf(rq)?.externalId;
    const hit = okOn(rq, res, 'PATCH', R.customer);
    if (hit && typeof sent === 'string' && sent.length <= 255) hit.b.externalId = sent;
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/customers/cus_1', { externalId: 'crm-2' }),
        res: (f) => json(200, customer({ externalId: bodyOf(f)?.externalId ?? 'crm-1' })),
      },
    ],
    verify: (last) =>
      expectAll(
        [!!last.forwarded && !('externalId' in (bodyOf(last.forwarded) ?? {})), 'externalId was written'],
        [got(last)?.externalId === 'crm-2', `answer externalId is ${got(last)?.externalId}`],
      ),
  },
});

const itemCatalogAnswerOnly = fault({
  name: 'ho2-item-catalog-id-answer-only',
  area: 'items',
  description:
    "PATCH /v0/items/{id} with catalogId answers the item holding the new catalogId, but the write drops it, so a later read shows the old product. The document: 'PATCH /v0/items/{id} — ... Body: `name` string, `catalogId` string (`^prod_[a-zA-Z0-9]+$`), `archived` boolean, `metadata` object. ... Response: Item object ('Item updated').'",
  rules: ['ITEMS.UPDATE.APPLIED', 'CONV.ROUND_TRIP.AS_SENT'],
  suites: [],
  onRequest(rq, ctx) {
    const b = bodyOf(rq);
    if (!on(rq, 'PATCH', R.item) || !b || typeof b.catalogId !== 'string') return;
    if (!/^prod_[a-zA-Z0-9]+$/.test(b.catalogId)) return;
    const { catalogId: _dropped, ...rest } = b;
    ctx.applied();
    return withBody(rq, rest);
  },
  onResponse(rq, res) {
    const sent = bodyOf(rq)?.catalogId;
    const hit = okOn(rq, res, 'PATCH', R.item);
    if (hit && typeof sent === 'string' && /^prod_[a-zA-Z0-9]+$/.test(sent)) hit.b.catalogId = sent;
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/items/itm_1', { catalogId: 'prod_2' }),
        res: (f) => json(200, item({ catalogId: bodyOf(f)?.catalogId ?? 'prod_1' })),
      },
    ],
    verify: (last) =>
      expectAll(
        [!!last.forwarded && !('catalogId' in (bodyOf(last.forwarded) ?? {})), 'catalogId was written'],
        [got(last)?.catalogId === 'prod_2', `answer catalogId is ${got(last)?.catalogId}`],
      ),
  },
});

const alertEnabledAnswerOnly = fault({
  name: 'ho2-alert-enabled-answer-only',
  area: 'alerts',
  description:
    "PATCH /v0/alerts/{id} with enabled answers the alert holding the value sent, but the write drops it, so GET /v0/alerts later shows the old value. The document: 'PATCH /v0/alerts/{id} — ... Body fields: `config` object, `enabled` boolean, ... Response 200: alert object.'",
  rules: ['CONV.ROUND_TRIP.AS_SENT', 'ALERTS.UPDATE.PARTIAL'],
  suites: [],
  onRequest(rq, ctx) {
    const b = bodyOf(rq);
    if (!on(rq, 'PATCH', R.alert) || !b || typeof b.enabled !== 'boolean') return;
    const { enabled: _dropped, ...rest } = b;
    ctx.applied();
    return withBody(rq, rest);
  },
  onResponse(rq, res) {
    const sent = bodyOf(rq)?.enabled;
    const hit = okOn(rq, res, 'PATCH', R.alert);
    if (hit && typeof sent === 'boolean') hit.b.enabled = sent;
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/alerts/alrt_1?resource=wallet', { enabled: false }),
        res: (f) => json(200, alert({ enabled: bodyOf(f)?.enabled ?? true })),
      },
    ],
    verify: (last) =>
      expectAll(
        [!!last.forwarded && !('enabled' in (bodyOf(last.forwarded) ?? {})), 'enabled was written'],
        [got(last)?.enabled === false, `answer enabled is ${got(last)?.enabled}`],
      ),
  },
});

const customerNotificationsReplaced = fault({
  name: 'ho2-customer-notifications-replaced',
  area: 'customers',
  description:
    "PATCH /v0/customers/{id} with notificationSettings replaces the whole object: the flags not sent are written false. The document: '`notificationSettings` object with booleans `invoiceIssued`, `invoicePaid`, `renewalReminder` (only provided fields change)'.",
  rules: ['CUSTOMERS.NOTIFICATIONS.PARTIAL'],
  suites: [],
  onRequest(rq, ctx) {
    const b = bodyOf(rq);
    const ns = b?.notificationSettings;
    if (!on(rq, 'PATCH', R.customer) || !b || !isObj(ns)) return;
    const flags = ['invoiceIssued', 'invoicePaid', 'renewalReminder'];
    if (flags.every((k) => k in ns)) return;
    ctx.applied();
    return withBody(rq, {
      ...b,
      notificationSettings: { invoiceIssued: false, invoicePaid: false, renewalReminder: false, ...ns },
    });
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/customers/cus_1', { notificationSettings: { invoicePaid: false } }),
        res: (f) =>
          json(
            200,
            customer({
              notificationSettings: { ...customer().notificationSettings, ...bodyOf(f)?.notificationSettings },
            }),
          ),
      },
    ],
    verify: (last) =>
      got(last)?.notificationSettings?.invoiceIssued === false ? undefined : 'invoiceIssued kept its value',
  },
});

const customerDeleteNeverRuns = fault({
  name: 'ho2-customer-delete-never-runs',
  area: 'customers',
  description:
    "DELETE /v0/customers/{id} of a customer the service has shown is answered 204 at once and handed to a deletion job that never runs (nor checks blockers): the customer keeps reading 200. The document: 'DELETE /v0/customers/{id} — refused with 409 (`error: conflict`) when blockers exist' — a delete that succeeds removes the customer; one that cannot is refused.",
  rules: ['CUSTOMERS.DELETE.GONE', 'CONV.DELETE.GONE', 'CUSTOMERS.DELETE.BLOCKED'],
  suites: [],
  onRequest(rq, ctx) {
    const m = on(rq, 'DELETE', R.customer);
    if (!m || !stateMap<string, true>(ctx, 'seen:customers').has(decodeURIComponent(m[1]))) return;
    ctx.applied();
    return { status: 204, headers: {}, body: Buffer.alloc(0) };
  },
  onResponse(_rq, res, ctx) {
    if (!is2xx(res)) return;
    for (const o of objectsOf(res.json)) if (o.object === 'customer') note(ctx, 'customers', o.id);
  },
  demo: {
    steps: [
      { req: req('GET', '/v0/customers/cus_1'), res: json(200, customer()) },
      {
        req: req('DELETE', '/v0/customers/cus_1'),
        res: json(409, {
          error: 'conflict',
          message: 'Customer has subscriptions',
          details: { blockers: [{ type: 'subscriptions', count: 1, items: [{ id: 'sub_1', status: 'active' }] }] },
        }),
      },
    ],
    verify: (last) =>
      expectAll(
        [last.forwarded === undefined, 'the delete reached the service'],
        [last.response.status === 204, `status ${last.response.status}`],
      ),
  },
});

const merchantCreateIdUnreadable = fault({
  name: 'ho2-merchant-create-id-unreadable',
  area: 'merchants-products',
  description:
    "POST /v0/merchants answers an id generated before the insert, not the one the row is stored under, so GET /v0/merchants/{id} of the id answered is 404. The document: 'POST /v0/merchants — creates a merchant organization. ... Response: merchant object.' and 'GET /v0/merchants/{id} — path `id` the merchant organization id. Response: merchant object.'",
  rules: ['MERCHANTS.GET.ROUND_TRIP'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'POST', R.merchants);
    if (!hit || typeof hit.b.id !== 'string') return;
    hit.b.id = otherId(hit.b.id);
    ctx.applied();
  },
  demo: {
    steps: [{ req: req('POST', '/v0/merchants', { name: 'Acme' }), res: json(201, merchant()) }],
    verify: (last) => {
      const id = got(last)?.id;
      return typeof id === 'string' && id !== 'org_new1' && /^org_[a-zA-Z0-9]+$/.test(id) ? undefined : `id is ${id}`;
    },
  },
});

const alertsPageDropsLast = fault({
  name: 'ho2-alerts-page-drops-last',
  area: 'alerts',
  description:
    "GET /v0/alerts answers each page without its last alert (an off-by-one end index) while pagination.total still counts it, so an alert PATCH /v0/alerts/{id} answers is never listed. The document: 'GET /v0/alerts — query: `resourceId` string required ... Response 200: list of alerts with pagination.'",
  rules: ['CONV.LIST.TOTAL_REACHED', 'CONV.LIST.WALK'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'GET', R.alerts);
    if (!hit || !Array.isArray(hit.b.data) || hit.b.data.length === 0) return;
    hit.b.data.pop();
    ctx.applied();
  },
  demo: {
    steps: [
      { req: req('GET', '/v0/alerts?resourceId=wal_1'), res: json(200, alertList([alert(), alert({ id: 'alrt_2' })])) },
    ],
    verify: (last) =>
      got(last)?.data?.length === 1 && got(last)?.pagination?.total === 2 ? undefined : 'page not shortened',
  },
});

// ====================================================================== item archive states

/** Remembers, per item, the references that any answer showed as primary. */
function notePrimaries(ctx: FaultContext, body: unknown): void {
  const primaries = stateMap<string, string[]>(ctx, 'primaries');
  const refs: Json[] = [];
  for (const o of objectsOf(body)) {
    if (o.object === 'externalReference') refs.push(o);
    if (Array.isArray(o.externalReferences)) for (const r of o.externalReferences) if (isObj(r)) refs.push(r);
  }
  for (const r of refs) {
    if (r.isPrimary !== true || typeof r.entityId !== 'string' || typeof r.id !== 'string') continue;
    const ids = primaries.get(r.entityId) ?? [];
    if (!ids.includes(r.id)) ids.push(r.id);
    primaries.delete(r.entityId);
    primaries.set(r.entityId, ids.slice(-16));
    if (primaries.size > 256) primaries.delete(primaries.keys().next().value as string);
  }
}

const itemUnarchiveReclaims = fault({
  name: 'ho2-item-unarchive-reclaims-primary',
  area: 'items',
  description:
    "Unarchiving an item (PATCH /v0/items/{id} archived=false) restores the primary flag of the references it held as primary before it was archived (or of its first reference when none was seen). The document: 'Item | archived | PATCH /v0/items/{id} archived=false | | active | Primary status is not reclaimed.'",
  rules: ['ITEMS.UNARCHIVE.NO_RECLAIM'],
  suites: [],
  onResponse(rq, res, ctx) {
    const hit = okOn(rq, res, 'PATCH', R.item);
    if (hit && bodyOf(rq)?.archived === false && hit.b.archivedAt === null && Array.isArray(hit.b.externalReferences)) {
      const refs = hit.b.externalReferences.filter(isObj);
      const before = stateMap<string, string[]>(ctx, 'primaries').get(String(hit.b.id)) ?? [];
      const targets = before.length ? refs.filter((r) => before.includes(r.id)) : refs.slice(0, 1);
      let changed = false;
      for (const r of targets)
        if (r.isPrimary !== true) {
          r.isPrimary = true;
          changed = true;
        }
      if (changed) ctx.applied();
      return;
    }
    if (is2xx(res)) notePrimaries(ctx, res.json);
  },
  demo: {
    steps: [
      { req: req('PATCH', '/v0/items/itm_1', { name: 'Widget' }), res: json(200, item()) },
      {
        req: req('PATCH', '/v0/items/itm_1', { archived: true }),
        res: json(200, item({ archivedAt: T1, externalReferences: [extRef({ isPrimary: false })] })),
      },
      {
        req: req('PATCH', '/v0/items/itm_1', { archived: false }),
        res: json(200, item({ externalReferences: [extRef({ isPrimary: false })] })),
      },
    ],
    verify: (last) =>
      got(last)?.externalReferences?.[0]?.isPrimary === true ? undefined : 'the reference is not primary again',
  },
});

const itemArchiveDetaches = fault({
  name: 'ho2-item-archive-detaches-references',
  area: 'items',
  description:
    "Item answers for an archived item (the archive answer and later reads) carry externalReferences [] (archiving cascades to the references). The document: 'Item | active (archivedAt null) | PATCH /v0/items/{id} archived=true | ... | archived (archivedAt set) | Any external reference it holds as primary becomes non-primary; references stay attached.'",
  rules: ['ITEMS.ARCHIVE.DEMOTES_PRIMARY'],
  suites: [],
  onResponse(rq, res, ctx) {
    if (!R.item.test(pathOf(rq)) || !is2xx(res)) return;
    const b = bodyOf(res);
    if (!b || typeof b.archivedAt !== 'string' || !Array.isArray(b.externalReferences)) return;
    if (b.externalReferences.length === 0) return;
    b.externalReferences = [];
    ctx.applied();
  },
  demo: {
    steps: [
      {
        req: req('PATCH', '/v0/items/itm_1', { archived: true }),
        res: json(200, item({ archivedAt: T1, externalReferences: [extRef({ isPrimary: false })] })),
      },
    ],
    verify: (last) => (got(last)?.externalReferences?.length === 0 ? undefined : 'references still attached'),
  },
});

export const heldoutSet2Faults: CatalogFault[] = [
  itemExtRefEntityProduct,
  refundInvoiceOther,
  scheduleIntervalOther,
  scheduleMerchantOther,
  scheduleOrderOther,
  customerConsumerIsMerchant,
  priceMerchantOther,
  alertResourceOther,
  sourceRuleSourceOther,
  paymentCustomerOther,
  webhooksMerchantIgnored,
  priceStandardNoUnitPrice,
  volumeLastTierClosed,
  volumeMiddleTierOpen,
  volumeTiersDescending,
  walletPeriodDaily,
  merchantZipNumber,
  merchantBillingCopiesAddress,
  refundTotalCents,
  subscriptionZeroBased,
  migrationToOffByOne,
  migrationFromIsTarget,
  migrationChangedOnRepeat,
  migrationEffectiveNow,
  sourceRuleCountsNegative,
  alertsTotalPlusOne,
  alertsOffsetEchoZero,
  feeBlockerCountLow,
  customerBlockerNamesCustomer,
  scheduleEndDayEarly,
  ratelimitResetMs,
  rateLimitCategory,
  webhooksCreatedAtMoves,
  customerExternalIdAnswerOnly,
  itemCatalogAnswerOnly,
  alertEnabledAnswerOnly,
  customerNotificationsReplaced,
  customerDeleteNeverRuns,
  merchantCreateIdUnreadable,
  alertsPageDropsLast,
  itemUnarchiveReclaims,
  itemArchiveDetaches,
];
