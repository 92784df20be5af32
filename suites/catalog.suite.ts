/**
 * Catalog: merchants, products, prices, source rules and the wallet auto top-up
 * configuration (Endpoints > Merchants, Products, Prices and fees, Source rules, Wallets).
 * Every scenario works on resources of its own: all run concurrently.
 */
import { Decimal } from 'decimal.js';
import { scenario, type ScenarioContext } from '../src/engine/scenario.ts';
import type { Exchange } from '../src/engine/types.ts';
import { notRefused } from './support.ts';

type Json = Record<string, any>;
const bodyOf = (ex: Exchange): Json => (ex.body && typeof ex.body === 'object' ? (ex.body as Json) : {});
const concurrent = { concurrent: true } as const;
const enc = encodeURIComponent;
const ORG = /^org_[a-zA-Z0-9]+$/;
const FEE = /^fee_[a-zA-Z0-9]+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const ADDRESS_FIELDS = new Set(['line1', 'line2', 'city', 'state', 'country', 'zipCode']);
const PRICE_MODELS = ['standard', 'dynamic', 'volume', 'percentage'];
const isDateTime = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));
/** Deep equality of JSON values; object key order does not matter. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => same((a as Json)[k], (b as Json)[k]));
}
/** `actual` carries every value of `sent` (objects may hold more properties: extra fields are allowed). */
function holds(actual: unknown, sent: unknown): boolean {
  if (Array.isArray(sent)) return Array.isArray(actual) && actual.length === sent.length && sent.every((x, i) => holds(actual[i], x));
  if (sent && typeof sent === 'object') return !!actual && typeof actual === 'object' && Object.entries(sent).every(([k, v]) => holds((actual as Json)[k], v));
  return actual === sent;
}

/** A condition is documented as {type, operator, value}: other properties a target adds are not compared. */
function documented(field: string, v: unknown): unknown {
  if (field !== 'conditions' || !Array.isArray(v)) return v;
  return v.map((c) => (c && typeof c === 'object' ? { type: (c as Json).type, operator: (c as Json).operator, value: (c as Json).value } : c));
}
const tag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** expectStatus judged under several rules: each records the finding, the last stops the scenario. */
/** A success: any 2xx, since none of these operations shows its success code. */
function expect2xx(t: ScenarioContext, ruleId: string, ex: Exchange, what: string): Json {
  notRefused(t, ex);
  t.expectRule(ruleId, ex.status !== undefined && ex.status >= 200 && ex.status < 300, `${what} succeeds (got ${ex.status ?? ex.transportError})`, ex);
  return bodyOf(ex);
}

// --- merchants ---------------------------------------------------------------------------

function addressProblems(a: unknown): string[] {
  if (a === undefined || a === null) return [];
  if (typeof a !== 'object' || Array.isArray(a)) return [`not an object: ${JSON.stringify(a)}`];
  // Only the documented fields are judged: extra properties are allowed (CONV.EXTRA_FIELDS.ALLOWED).
  return Object.entries(a as Json).filter(([k, v]) => ADDRESS_FIELDS.has(k) && typeof v !== 'string').map(([k, v]) => `${k}=${JSON.stringify(v)}`);
}

scenario(['MERCHANTS.CREATE.OBJECT', 'MERCHANTS.GET.ROUND_TRIP', 'VALIDATION.VALID_REQUEST.NOT_400'], 'POST /v0/merchants creates a merchant that GET /v0/merchants/{id} reads back', async (t) => {
  const k = tag();
  // Which fields are required is not shown: send every documented one.
  const sent = {
    name: `Conform merchant ${k}`,
    email: `merchant-${k}@conform.invalid`,
    description: 'created by the conform catalog suite',
    metadata: { conform: k },
    vatNumber: 'DE123456789',
    address: { line1: '1 Main Street', line2: 'Floor 2', city: 'Berlin', state: 'BE', country: 'DE', zipCode: '10115' },
    billingAddress: { line1: '2 Side Street', line2: '', city: 'Hamburg', state: 'HH', country: 'DE', zipCode: '20095' },
    phone: '+49 30 1234567',
  };
  const created = await t.http.post('/v0/merchants', sent);
  const m = expect2xx(t, 'MERCHANTS.CREATE.OBJECT', created, 'POST /v0/merchants with every documented field');
  t.expectRule('MERCHANTS.CREATE.OBJECT', m.object === 'merchant' && typeof m.id === 'string', `a merchant object with an id (got object ${JSON.stringify(m.object)}, id ${JSON.stringify(m.id)})`, created);
  for (const field of ['address', 'billingAddress'] as const) {
    const bad = addressProblems(m[field]);
    t.expectRule('MERCHANTS.CREATE.OBJECT', bad.length === 0, `${field} holds only string fields line1, line2, city, state, country, zipCode (bad: ${bad.join(', ')})`, created);
  }
  const read = await t.http.get(`/v0/merchants/${enc(m.id)}`);
  expect2xx(t, 'MERCHANTS.GET.ROUND_TRIP', read, `GET /v0/merchants/${m.id}`);
  const r = bodyOf(read);
  t.expectRule('MERCHANTS.GET.ROUND_TRIP', r.id === m.id && r.object === 'merchant', `the merchant read is ${m.id} (got ${JSON.stringify(r.id)})`, read);
  const differ = Object.entries(sent).filter(([k2, v]) => !holds(r[k2], v)).map(([k2]) => `${k2}: sent ${JSON.stringify((sent as Json)[k2])}, read ${JSON.stringify(r[k2])}`);
  t.expectRule('MERCHANTS.GET.ROUND_TRIP', differ.length === 0, `the merchant reads back with the fields it was created with (${differ.join('; ')})`, read);
}, concurrent);

scenario(['STATUS.404.UNKNOWN_RESOURCE'], 'an unknown merchant gets 404', async (t) => {
  const res = await t.http.get('/v0/merchants/org_conform0unknown0merchant');
  t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', res, 404);
}, concurrent);

scenario(['MERCHANTS.CREATE.REFERENCE_REQUIRED'], 'the reference requires no merchant field', async (t) => {
  if (t.target.fixtureStrategy !== 'reference') t.notJudged('a reference rule: judged only on a target offering the reference extensions', 'not-applicable');
  const res = await t.http.post('/v0/merchants', {});
  const m = expect2xx(t, 'MERCHANTS.CREATE.REFERENCE_REQUIRED', res, 'POST /v0/merchants with an empty body');
  t.expectRule('MERCHANTS.CREATE.REFERENCE_REQUIRED', m.object === 'merchant' && typeof m.id === 'string', 'an empty body creates a merchant', res);
  if (res.status !== 201) t.note(`POST /v0/merchants answered ${res.status}; the reference's choice is 201`);
}, concurrent);

// --- products ----------------------------------------------------------------------------

scenario(['PRODUCTS.CREATE.OBJECT', 'VALIDATION.VALID_REQUEST.NOT_400'], 'POST /v0/products answers the product holding the values sent', async (t) => {
  const { merchantId } = await t.fixture((f) => f.merchant());
  const sent = { name: `Conform product ${tag()}`, description: 'Shown to the customer', merchantId, metadata: { conform: 'catalog', tier: 'gold' } };
  const res = await t.http.post('/v0/products', sent);
  const p = expect2xx(t, 'PRODUCTS.CREATE.OBJECT', res, 'POST /v0/products with name, description, merchantId and metadata');
  t.expectRule('PRODUCTS.CREATE.OBJECT', typeof p.id === 'string' && p.object === 'product', `a product with an id (got object ${JSON.stringify(p.object)}, id ${JSON.stringify(p.id)})`, res);
  const differ = (['name', 'description', 'merchantId', 'metadata'] as const).filter((k) => !same(p[k], sent[k]));
  t.expectRule('PRODUCTS.CREATE.OBJECT', differ.length === 0, `name, description, merchantId and metadata hold the values sent (differ: ${differ.map((k) => `${k}=${JSON.stringify(p[k])}`).join(', ')})`, res);
  t.expectRule('PRODUCTS.CREATE.OBJECT', isDateTime(p.createdAt) && isDateTime(p.updatedAt), 'createdAt and updatedAt are date-times', res);
}, concurrent);

scenario(['PRODUCTS.CREATE.REQUIRED', 'VALIDATION.REQUIRED.400', 'VALIDATION.TYPE.400'], 'POST /v0/products without name, description or merchantId gets 400', async (t) => {
  const { merchantId } = await t.fixture((f) => f.merchant());
  const full: Json = { name: `Conform product ${tag()}`, description: 'never created', merchantId, metadata: {} };
  for (const field of ['name', 'description', 'merchantId']) {
    const { [field]: _, ...body } = full;
    const res = await t.http.post('/v0/products', body);
    t.expectStatus(['VALIDATION.REQUIRED.400', 'PRODUCTS.CREATE.REQUIRED'], res, 400);
  }
  const wrongType = await t.http.post('/v0/products', { ...full, name: 42 });
  t.expectStatus('VALIDATION.TYPE.400', wrongType, 400);
}, concurrent);

// --- prices ------------------------------------------------------------------------------

async function readPrice(t: ScenarioContext, id: string): Promise<{ ex: Exchange; p: Json }> {
  const ex = await t.http.get(`/v0/prices/${enc(id)}`);
  expect2xx(t, 'PRICES.GET.BY_ID', ex, `GET /v0/prices/${id}`);
  const p = bodyOf(ex);
  t.expectRule('PRICES.GET.BY_ID', p.id === id && p.object === 'price', `the price read is ${id} (got ${JSON.stringify(p.id)}, object ${JSON.stringify(p.object)})`, ex);
  t.expectRule('PRICES.MODEL.ENUM', PRICE_MODELS.includes(p.model), `model is one of ${PRICE_MODELS.join(', ')} (got ${JSON.stringify(p.model)})`, ex);
  return { ex, p };
}

/** Single-read rules every price meets: merchantId, feeId when linked, quantity >= 0. */
function expectSingleRead(t: ScenarioContext, ex: Exchange, p: Json, merchantId: string, linkedToFee: boolean): void {
  t.expectRule('PRICES.MERCHANT_ID.SINGLE_READ', typeof p.merchantId === 'string' && ORG.test(p.merchantId), `merchantId matches ^org_[a-zA-Z0-9]+$ (got ${JSON.stringify(p.merchantId)})`, ex);
  t.expectRule('PRICES.MERCHANT_ID.SINGLE_READ', p.merchantId === merchantId, `merchantId is the owner merchant ${merchantId} (got ${JSON.stringify(p.merchantId)})`, ex);
  if (linkedToFee) t.expectRule('PRICES.FEE_ID.WHEN_LINKED', typeof p.feeId === 'string' && FEE.test(p.feeId), `a fee price carries feeId matching ^fee_[a-zA-Z0-9]+$ (got ${JSON.stringify(p.feeId)})`, ex);
  if (p.quantity !== undefined) t.expectRule('PRICES.QUANTITY.NON_NEGATIVE', typeof p.quantity === 'number' && p.quantity >= 0, `quantity is a number >= 0 (got ${JSON.stringify(p.quantity)})`, ex);
  else t.note(`price ${p.id}: no quantity shown`);
}

scenario(['PRICES.GET.BY_ID', 'PRICES.MODEL.ENUM', 'PRICES.MERCHANT_ID.SINGLE_READ', 'PRICES.FEE_ID.WHEN_LINKED', 'PRICES.QUANTITY.NON_NEGATIVE'], 'a standard fee price reads back with merchantId, feeId and quantity', async (t) => {
  const { standard } = await t.fixture((f) => f.prices());
  const { merchantId } = await t.fixture((f) => f.merchant());
  const { ex, p } = await readPrice(t, standard);
  t.expectRule('PRICES.MODEL.ENUM', p.model === 'standard', `the standard price reads as standard (got ${JSON.stringify(p.model)})`, ex);
  expectSingleRead(t, ex, p, merchantId, true);
  const unitPrice = p.properties?.unitPrice;
  if (unitPrice !== undefined) t.expectRule('PRICES.GET.BY_ID', typeof unitPrice === 'string', `properties.unitPrice is a string (got ${JSON.stringify(unitPrice)})`, ex);
}, concurrent);

scenario(['PRICES.VOLUME.LAST_TIER_OPEN', 'PRICES.MODEL.ENUM', 'PRICES.MERCHANT_ID.SINGLE_READ', 'PRICES.FEE_ID.WHEN_LINKED'], 'a volume price has tiers whose last (and only the last) upTo is null', async (t) => {
  const { volume } = await t.fixture((f) => f.prices());
  const { merchantId } = await t.fixture((f) => f.merchant());
  const { ex, p } = await readPrice(t, volume);
  t.expectRule('PRICES.MODEL.ENUM', p.model === 'volume', `the volume price reads as volume (got ${JSON.stringify(p.model)})`, ex);
  expectSingleRead(t, ex, p, merchantId, true);
  const tiers: Json[] = Array.isArray(p.properties?.tiers) ? p.properties.tiers : [];
  t.expectRule('PRICES.VOLUME.LAST_TIER_OPEN', tiers.length > 0, `properties.tiers is a non-empty array (got ${JSON.stringify(p.properties?.tiers)})`, ex);
  const malformed = tiers.filter((tier) => typeof tier?.unitPrice !== 'string' || !(typeof tier?.upTo === 'string' || tier?.upTo === null));
  t.expectRule('PRICES.VOLUME.LAST_TIER_OPEN', malformed.length === 0, `every tier is {unitPrice: string, upTo: string or null} (bad: ${JSON.stringify(malformed)})`, ex);
  const openAt = tiers.map((tier, i) => (tier.upTo === null ? i : -1)).filter((i) => i >= 0);
  t.expectRule('PRICES.VOLUME.LAST_TIER_OPEN', openAt.length === 1 && openAt[0] === tiers.length - 1, `only the last tier has upTo null (null at ${JSON.stringify(openAt)} of ${tiers.length})`, ex);
}, concurrent);

scenario(['PRICES.MODEL.ENUM', 'PRICES.GET.BY_ID'], 'legacy (dynamic, percentage) prices stay readable', async (t) => {
  const { legacy } = await t.fixture((f) => f.prices());
  const models = new Set<string>();
  for (const id of legacy) {
    const { p } = await readPrice(t, id);
    models.add(p.model);
  }
  t.note(`legacy prices read: ${legacy.length}, models ${[...models].join(', ')}`);
}, concurrent);

scenario(['PRICES.GET.BY_ID', 'STATUS.404.UNKNOWN_RESOURCE', 'VALIDATION.PATTERN.400'], 'an unknown price gets 404; an id breaking ^price_ gets 400 or 404', async (t) => {
  const unknown = await t.http.get('/v0/prices/price_conform0unknown0price');
  t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', unknown, 404);
  t.expectRule('PRICES.GET.BY_ID', typeof bodyOf(unknown).message === 'string', 'the 404 body is an Error with a message', unknown);
  const badPattern = await t.http.get('/v0/prices/not-a-price-id');
  t.expectStatus('VALIDATION.PATTERN.400', badPattern, [400, 404]);
}, concurrent);

scenario(['PRICES.MODEL.CREATABLE'], 'the reference refuses to create legacy (dynamic, percentage) prices with 400', async (t) => {
  if (t.target.fixtureStrategy !== 'reference') t.notJudged('a reference rule: judged only on a target offering the reference extensions', 'not-applicable');
  const { feeId } = await t.fixture((f) => f.feeWithoutPrices());
  for (const model of ['dynamic', 'percentage']) {
    const res = await t.http.post('/v0/prices', { feeId, model, currency: 'USD', cadence: 'P1M', properties: { unitPrice: '1.00' } });
    t.expectStatus('PRICES.MODEL.CREATABLE', res, 400);
  }
}, concurrent);

// --- source rules ------------------------------------------------------------------------

const RULE_KEPT = ['id', 'sourceId', 'createdAt', 'conditions', 'description', 'enabled', 'name', 'order'] as const;

function expectRuleObject(t: ScenarioContext, ex: Exchange, ruleId: string): Json {
  const r = expect2xx(t, 'SOURCE_RULES.UPDATE.OBJECT', ex, `PATCH /v0/sourceRules/${ruleId}`);
  const types: Record<string, (v: unknown) => boolean> = {
    // Conventions: representations carry `object` holding the resource type name. Which name a
    // source rule carries is not shown; an empty string names none.
    object: (v) => typeof v === 'string' && v.trim().length > 0,
    id: (v) => v === ruleId,
    conditions: (v) => Array.isArray(v) && v.every((c) => !!c && typeof c === 'object' && ['type', 'operator', 'value'].every((k) => k in c)),
    createdAt: isDateTime,
    updatedAt: isDateTime,
    description: (v) => typeof v === 'string',
    enabled: (v) => typeof v === 'boolean',
    evaluationCount: Number.isInteger,
    matchCount: Number.isInteger,
    name: (v) => typeof v === 'string',
    order: Number.isInteger,
    sourceId: (v) => typeof v === 'string',
  };
  const bad = Object.entries(types).filter(([k, ok]) => !ok(r[k])).map(([k]) => `${k}=${JSON.stringify(r[k])}`);
  t.expectRule('SOURCE_RULES.UPDATE.OBJECT', bad.length === 0, `the source rule carries every required field, conditions as {type, operator, value} (bad: ${bad.join(', ')})`, ex);
  return r;
}

scenario(['SOURCE_RULES.UPDATE.PARTIAL', 'SOURCE_RULES.UPDATE.OBJECT'], 'PATCH /v0/sourceRules/{ruleId} changes only the fields given', async (t) => {
  const { ruleId } = await t.fixture((f) => f.sourceRule());
  const path = `/v0/sourceRules/${enc(ruleId)}`;
  // No read endpoint is documented: the answer of a first PATCH is the baseline.
  let current = expectRuleObject(t, await t.http.patch(path, { description: `conform baseline ${tag()}` }), ruleId);
  const steps: Json[] = [
    { name: `Conform renamed ${tag()}` },
    { enabled: !current.enabled, order: (Number.isInteger(current.order) ? current.order : 0) + 5 },
    { conditions: [{ type: 'amount', operator: 'gte', value: '1.00' }] },
    { description: `conform changed ${tag()}` },
  ];
  for (const patch of steps) {
    const ex = await t.http.patch(path, patch);
    const next = expectRuleObject(t, ex, ruleId);
    const wrong = RULE_KEPT.filter((k) => !same(documented(k, next[k]), documented(k, k in patch ? patch[k] : current[k])));
    t.expectRule(
      'SOURCE_RULES.UPDATE.PARTIAL',
      wrong.length === 0,
      `PATCH ${JSON.stringify(patch)} changes those fields only (wrong: ${wrong.map((k) => `${k}: expected ${JSON.stringify(k in patch ? patch[k] : current[k])}, got ${JSON.stringify(next[k])}`).join('; ')})`,
      ex,
    );
    current = next;
  }
}, concurrent);

scenario(['STATUS.404.UNKNOWN_RESOURCE', 'VALIDATION.TYPE.400'], 'an unknown source rule gets 404; a non-integer order gets 400', async (t) => {
  const unknown = await t.http.patch('/v0/sourceRules/srule_conform0unknown', { name: 'nobody' });
  t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', unknown, 404);
  const { ruleId } = await t.fixture((f) => f.sourceRule());
  const wrongType = await t.http.patch(`/v0/sourceRules/${enc(ruleId)}`, { order: 'first' });
  t.expectStatus('VALIDATION.TYPE.400', wrongType, 400);
}, concurrent);

// --- wallets -----------------------------------------------------------------------------

scenario(['WALLETS.AUTO_TOPUP.SHAPE', 'WALLETS.AUTO_TOPUP.PERIOD_DAY'], 'PATCH /v0/wallets/{id}/autoTopupConfig answers the autoTopupConfig with the values given', async (t) => {
  const { walletId } = await t.fixture((f) => f.wallet());
  const sent = { amount: '25.00', threshold: '5.50', paymentMethod: 'pm_conform_card', limit: { amount: 100, period: 'day' } };
  const res = await t.http.patch(`/v0/wallets/${enc(walletId)}/autoTopupConfig`, sent);
  t.checkRule('WALLETS.AUTO_TOPUP.PERIOD_DAY', res.status !== undefined && res.status >= 200 && res.status < 300, `limit.period day is accepted (got ${res.status ?? res.transportError})`, res);
  const c = expect2xx(t, 'WALLETS.AUTO_TOPUP.SHAPE', res, 'PATCH autoTopupConfig with limit.period day');
  t.expectRule('WALLETS.AUTO_TOPUP.SHAPE', c.object === 'autoTopupConfig', `object is autoTopupConfig (got ${JSON.stringify(c.object)})`, res);
  // The document types these as strings only: the value sent, or the same decimal written otherwise.
  const decEq = (v: unknown, want: string) => typeof v === 'string' && (v === want || (DECIMAL.test(v) && new Decimal(v).equals(want)));
  t.expectRule('WALLETS.AUTO_TOPUP.SHAPE', decEq(c.amount, sent.amount) && decEq(c.threshold, sent.threshold), `amount and threshold are the decimals sent (got ${JSON.stringify([c.amount, c.threshold])})`, res);
  t.expectRule('WALLETS.AUTO_TOPUP.SHAPE', c.paymentMethod === sent.paymentMethod, `paymentMethod is the one sent (got ${JSON.stringify(c.paymentMethod)})`, res);
  const l = c.limit;
  t.expectRule('WALLETS.AUTO_TOPUP.SHAPE', !!l && typeof l === 'object' && typeof l.amount === 'number' && typeof l.period === 'string', `limit is {amount: number, period: string} (got ${JSON.stringify(l)})`, res);
  t.expectRule('WALLETS.AUTO_TOPUP.PERIOD_DAY', l.amount === 100 && l.period === 'day', `limit holds amount 100 and period day (got ${JSON.stringify(l)})`, res);
}, concurrent);

scenario(['STATUS.404.UNKNOWN_RESOURCE'], 'the auto top-up configuration of an unknown wallet gets 404', async (t) => {
  const res = await t.http.patch('/v0/wallets/wal_conform0unknown/autoTopupConfig', { amount: '10.00' });
  t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', res, 404);
}, concurrent);
