/** Faults of the merchants-products area: merchants, products, prices, source rules, wallet auto top-up. */
import { bodyOf, expectAll, fault, got, is2xx, isObj, json, on, R, req, T0, type Json } from './helpers.ts';
import type { CatalogFault } from './types.ts';

const address = { line1: '1 Main Street', city: 'Berlin', country: 'DE', zipCode: '10115' };
const merchant = (over: Json = {}): Json => ({
  object: 'merchant',
  id: 'org_demo1',
  name: 'Demo',
  email: 'd@x.invalid',
  metadata: {},
  address,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});
const product = (over: Json = {}): Json => ({
  object: 'product',
  id: 'prod_demo1',
  name: 'Seats',
  description: 'Shown',
  merchantId: 'org_demo1',
  metadata: { tier: 'gold' },
  createdAt: T0,
  updatedAt: T0,
  ...over,
});
const price = (over: Json = {}): Json => ({
  object: 'price',
  id: 'price_demo1',
  merchantId: 'org_demo1',
  feeId: 'fee_demo1',
  model: 'volume',
  currency: 'USD',
  quantity: 1,
  properties: {
    tiers: [
      { unitPrice: '2.00', upTo: '100' },
      { unitPrice: '1.00', upTo: null },
    ],
  },
  createdAt: T0,
  updatedAt: T0,
  ...over,
});
const rule = (over: Json = {}): Json => ({
  id: 'srule_demo1',
  sourceId: 'src_demo1',
  name: 'r',
  description: 'd',
  enabled: true,
  order: 3,
  conditions: [],
  evaluationCount: 0,
  matchCount: 0,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});
const topup = (over: Json = {}): Json => ({
  object: 'autoTopupConfig',
  amount: '25.00',
  threshold: '5.50',
  paymentMethod: 'pm_1',
  limit: { amount: 100, period: 'day' },
  createdAt: T0,
  updatedAt: T0,
  ...over,
});
const readPrice = (over: Json = {}) => ({ req: req('GET', '/v0/prices/price_demo1'), res: json(200, price(over)) });
const patchTopup = () => req('PATCH', '/v0/wallets/wal_demo1/autoTopupConfig', { amount: '25.00' });

/** The price of a successful single read, or undefined. */
function priceOf(r: Parameters<typeof on>[0], res: Parameters<typeof is2xx>[0]): Json | undefined {
  const b = bodyOf(res);
  return on(r, 'GET', R.price) && res.status === 200 && b?.object === 'price' ? b : undefined;
}

export const catalogFaults: CatalogFault[] = [
  fault({
    name: 'merchants-wrong-object',
    area: 'merchants-products',
    description: "merchants come back with object 'organization' instead of 'merchant'",
    rules: ['MERCHANTS.CREATE.OBJECT', 'CONV.OBJECT.TYPE_NAME'],
    suites: ['merchants'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!(on(r, 'POST', R.merchants) || on(r, 'GET', R.merchant)) || !is2xx(res) || b?.object !== 'merchant') return;
      b.object = 'organization';
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('POST', '/v0/merchants', { name: 'Demo' }), res: json(201, merchant()) }],
      verify: (o) => expectAll([got(o)?.object === 'organization', `object ${got(o)?.object}`]),
    },
  }),
  fault({
    name: 'merchants-read-drops-address',
    area: 'merchants-products',
    description: 'GET /v0/merchants/{id} loses the address the merchant was created with',
    rules: ['MERCHANTS.GET.ROUND_TRIP'],
    suites: ['merchants'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'GET', R.merchant) || res.status !== 200 || b?.address === undefined) return;
      delete b.address;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/merchants/org_demo1'), res: json(200, merchant()) }],
      verify: (o) => expectAll([got(o)?.object === 'merchant' && got(o)?.address === undefined, 'address still there']),
    },
  }),
  fault({
    name: 'products-metadata-dropped',
    area: 'merchants-products',
    description: 'a created product comes back with empty metadata whatever was sent',
    rules: ['PRODUCTS.CREATE.OBJECT'],
    suites: ['products'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.products) || !is2xx(res) || !isObj(b?.metadata) || !Object.keys(b.metadata).length) return;
      b.metadata = {};
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('POST', '/v0/products', { name: 'Seats' }), res: json(201, product()) }],
      verify: (o) => expectAll([JSON.stringify(got(o)?.metadata) === '{}', 'metadata kept']),
    },
  }),
  fault({
    name: 'products-required-defaulted',
    area: 'merchants-products',
    description: 'POST /v0/products without name or description fills a default instead of answering 400',
    rules: ['PRODUCTS.CREATE.REQUIRED'],
    suites: ['products'],
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'POST', R.products) || !b || (b.name !== undefined && b.description !== undefined)) return;
      b.name ??= 'Untitled product';
      b.description ??= '';
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/products', { name: 'Seats', merchantId: 'org_demo1' }),
          res: (f) => json(201, product(bodyOf(f))),
        },
      ],
      verify: (o) =>
        expectAll(
          [bodyOf(o.forwarded ?? {})?.description === '', 'no description added'],
          [o.response.status === 201, `got ${o.response.status}`],
        ),
    },
  }),
  fault({
    name: 'prices-last-tier-closed',
    area: 'merchants-products',
    description: "a volume price's last tier has an upTo instead of null",
    rules: ['PRICES.VOLUME.LAST_TIER_OPEN'],
    suites: ['prices'],
    onResponse(r, res, ctx) {
      const tiers = priceOf(r, res)?.properties?.tiers;
      if (!Array.isArray(tiers) || !tiers.length || !isObj(tiers[tiers.length - 1])) return;
      tiers[tiers.length - 1].upTo = '1000000';
      ctx.applied();
    },
    demo: {
      steps: [readPrice()],
      verify: (o) => expectAll([got(o)?.properties?.tiers?.[1]?.upTo === '1000000', 'last tier still open']),
    },
  }),
  fault({
    name: 'prices-no-merchantId-on-read',
    area: 'merchants-products',
    description: 'a single price read omits merchantId',
    rules: ['PRICES.MERCHANT_ID.SINGLE_READ'],
    suites: ['prices'],
    onResponse(r, res, ctx) {
      const p = priceOf(r, res);
      if (p?.merchantId === undefined) return;
      delete p.merchantId;
      ctx.applied();
    },
    demo: {
      steps: [readPrice()],
      verify: (o) =>
        expectAll([got(o)?.object === 'price' && got(o)?.merchantId === undefined, 'merchantId still there']),
    },
  }),
  fault({
    name: 'prices-feeId-dropped',
    area: 'merchants-products',
    description: 'a price linked to a fee omits feeId',
    rules: ['PRICES.FEE_ID.WHEN_LINKED'],
    suites: ['prices'],
    onResponse(r, res, ctx) {
      const p = priceOf(r, res);
      if (p?.feeId === undefined) return;
      delete p.feeId;
      ctx.applied();
    },
    demo: {
      steps: [readPrice()],
      verify: (o) => expectAll([got(o)?.object === 'price' && got(o)?.feeId === undefined, 'feeId still there']),
    },
  }),
  fault({
    name: 'prices-legacy-model-renamed',
    area: 'merchants-products',
    description: "legacy prices read model 'tiered' / 'percent', outside the documented enum",
    rules: ['PRICES.MODEL.ENUM'],
    suites: ['prices'],
    onResponse(r, res, ctx) {
      const p = priceOf(r, res);
      const renamed: Record<string, string> = { dynamic: 'tiered', percentage: 'percent' };
      if (!p || !renamed[p.model]) return;
      p.model = renamed[p.model];
      ctx.applied();
    },
    demo: {
      steps: [readPrice({ model: 'dynamic' })],
      verify: (o) => expectAll([got(o)?.model === 'tiered', `model ${got(o)?.model}`]),
    },
  }),
  fault({
    name: 'prices-negative-quantity',
    area: 'merchants-products',
    description: 'price quantity reads -1',
    rules: ['PRICES.QUANTITY.NON_NEGATIVE'],
    suites: ['prices'],
    onResponse(r, res, ctx) {
      const p = priceOf(r, res);
      if (typeof p?.quantity !== 'number') return;
      p.quantity = -1;
      ctx.applied();
    },
    demo: { steps: [readPrice()], verify: (o) => expectAll([got(o)?.quantity === -1, `quantity ${got(o)?.quantity}`]) },
  }),
  fault({
    name: 'source-rules-order-ignored',
    area: 'merchants-products',
    description: 'PATCH /v0/sourceRules/{ruleId} ignores order',
    rules: ['SOURCE_RULES.UPDATE.PARTIAL'],
    suites: ['source-rules'],
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.sourceRule) || b?.order === undefined || !Number.isInteger(b.order)) return;
      delete b.order;
      ctx.applied();
    },
    demo: {
      steps: [
        { req: req('PATCH', '/v0/sourceRules/srule_demo1', { order: 8 }), res: (f) => json(200, rule(bodyOf(f))) },
      ],
      verify: (o) => expectAll([got(o)?.order === 3, `order ${got(o)?.order}`]),
    },
  }),
  fault({
    name: 'source-rules-no-counts',
    area: 'merchants-products',
    description: 'source rules lose the required evaluationCount and matchCount',
    rules: ['SOURCE_RULES.UPDATE.OBJECT'],
    suites: ['source-rules'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.sourceRule) || !is2xx(res) || b?.evaluationCount === undefined) return;
      delete b.evaluationCount;
      delete b.matchCount;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('PATCH', '/v0/sourceRules/srule_demo1', { name: 'x' }), res: json(200, rule()) }],
      verify: (o) =>
        expectAll([got(o)?.id === 'srule_demo1' && got(o)?.evaluationCount === undefined, 'counts still there']),
    },
  }),
  fault({
    name: 'source-rules-object-empty',
    area: 'merchants-products',
    description: 'source rules are answered with object "" (a representation whose object field names no type)',
    rules: ['SOURCE_RULES.UPDATE.OBJECT', 'SCHEMA.RESPONSE.MATCHES'],
    suites: ['source-rules'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.sourceRule) || !is2xx(res) || typeof b?.object !== 'string') return;
      b.object = '';
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/sourceRules/srule_demo1', { name: 'x' }),
          res: json(200, rule({ object: 'source_rule' })),
        },
      ],
      verify: (o) => expectAll([got(o)?.object === '', `object ${JSON.stringify(got(o)?.object)}`]),
    },
  }),
  fault({
    name: 'wallets-limit-period-daily',
    area: 'merchants-products',
    description: "the auto top-up limit period reads 'daily' when 'day' was sent",
    rules: ['WALLETS.AUTO_TOPUP.PERIOD_DAY'],
    suites: ['wallets'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.autoTopup) || !is2xx(res) || b?.limit?.period !== 'day') return;
      b.limit.period = 'daily';
      ctx.applied();
    },
    demo: {
      steps: [{ req: patchTopup(), res: json(200, topup()) }],
      verify: (o) => expectAll([got(o)?.limit?.period === 'daily', `period ${got(o)?.limit?.period}`]),
    },
  }),
  fault({
    name: 'wallets-wrong-object',
    area: 'merchants-products',
    description: "the auto top-up configuration reads object 'auto_topup_config'",
    rules: ['WALLETS.AUTO_TOPUP.SHAPE', 'CONV.OBJECT.TYPE_NAME'],
    suites: ['wallets'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.autoTopup) || !is2xx(res) || b?.object !== 'autoTopupConfig') return;
      b.object = 'auto_topup_config';
      ctx.applied();
    },
    demo: {
      steps: [{ req: patchTopup(), res: json(200, topup()) }],
      verify: (o) => expectAll([got(o)?.object === 'auto_topup_config', `object ${got(o)?.object}`]),
    },
  }),
];
