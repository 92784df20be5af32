/**
 * Requests for fuzzing the reference server, built on the engine's generators (fast-check
 * from the spec's request schemas): valid requests, requests breaking one documented
 * constraint, and valid requests with one field given a hostile value (huge, Infinity,
 * negative, a leap second, deep nesting, NUL, a century-long duration...), plus raw hostile
 * bodies and query values. Path ids come mostly from resources that exist, so handlers run
 * past their lookups. Used by test/reference/platform/fuzz.test.ts and `npm run fuzz:server`.
 */
import fc from 'fast-check';
import {
  anyNegativeRequest,
  arbitraryFromSchema,
  fromSpec,
  positiveRequests,
  requestPath,
  withValueAt,
  API_KEY_VARIABLE,
  type GenOperation,
  type JsonSchema,
  type RequestPlan,
} from '../../../src/engine/generators/index.ts';
import type { Operation, Spec } from '../../../src/contract/index.ts';

export interface FuzzRequest {
  operationId: string;
  method: string;
  /** Path and query string. */
  url: string;
  /** The raw JSON text sent, when any. */
  payload?: string;
}

/** Ids of resources that exist on the target, by the path segment naming their collection (`customers`). */
export type ExistingIds = Record<string, string[]>;

/** Raw JSON tokens JSON.stringify cannot write, and values that once broke the server. */
const RAW_TOKENS = [
  '1e400',
  '-1e400',
  '1e21',
  '1e308',
  '-0',
  '123456789012345678901234567890',
  `${'['.repeat(6000)}${']'.repeat(6000)}`,
  `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`,
];
const HOSTILE_STRINGS = [
  '',
  ' ',
  '-1',
  '-1.00',
  '1e21',
  '0.000000000000000000000000000001',
  '9'.repeat(400),
  'NaN',
  'Infinity',
  'null',
  '2016-12-31T23:59:60Z',
  '2016-12-31T23:59:60.5+01:00',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '2024-02-30T25:00:00Z',
  'P300000Y',
  'P99999999D',
  'P0D',
  'P',
  'P1M',
  'P100Y',
  'x\u0000y',
  '\ud800',
  '../../etc',
  '%00',
  'a'.repeat(5000),
  'cus_x',
  'price_x',
  'fee_x',
  'sub_x',
  'plan_x',
  'org_x',
];
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...HOSTILE_STRINGS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      -0.5,
      1e21,
      2 ** 53 + 1,
      1e300,
      -1e300,
      2147483648,
      [],
      {},
      [[]],
      { a: { b: {} } },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

function collectionOf(op: Operation, param: string): string | undefined {
  const segments = op.pathTemplate.split('/');
  const at = segments.indexOf(`{${param}}`);
  return at > 0 ? segments[at - 1] : undefined;
}

function pathValue(
  op: Operation,
  name: string,
  schema: JsonSchema | undefined,
  ids: ExistingIds,
): fc.Arbitrary<string> {
  const known =
    name === 'versionNumber'
      ? ['1', '2', '3', '99999999999', '0', '-1']
      : name === 'crmProvider'
        ? ['salesforce', 'hubspot', 'x']
        : name === 'ruleId'
          ? (ids.sourceRules ?? [])
          : (ids[collectionOf(op, name) ?? ''] ?? Object.values(ids).flat());
  const parts: Array<fc.WeightedArbitrary<string>> = [
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s !== '' && !/[\ud800-\udfff]/.test(s))) },
  ];
  if (known.length) parts.push({ weight: 5, arbitrary: fc.constantFrom(...known) });
  if (schema)
    parts.push({
      weight: 1,
      arbitrary: arbitraryFromSchema(schema)
        .map((v) => String(v))
        .filter((s) => s !== ''),
    });
  return fc.oneof(...parts);
}

/** Replaces one value somewhere in `value` (any depth) by `replacement`; `pick` chooses where. */
function replaceSomewhere(value: unknown, replacement: unknown, pick: number): unknown {
  const slots: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((x, i) => (slots.push({ parent: v, key: i }), walk(x)));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) (slots.push({ parent: v as Record<string, unknown>, key: k }), walk(x));
  };
  const copy = structuredClone(value);
  walk(copy);
  if (slots.length === 0) return replacement;
  const slot = slots[pick % slots.length];
  (slot.parent as Record<string | number, unknown>)[slot.key] = replacement;
  return copy;
}

/** Pointers of the properties and items a body schema declares (a few levels deep), with their schemas. */
export function fieldsOf(
  schema: JsonSchema,
  pointer = '',
  depth = 0,
  out: Array<{ pointer: string; schema: JsonSchema }> = [],
) {
  if (depth > 4) return out;
  for (const branch of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
    fieldsOf(branch, pointer, depth + 1, out);
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const at = `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    out.push({ pointer: at, schema: child });
    fieldsOf(child, at, depth + 1, out);
  }
  if (schema.items) {
    out.push({ pointer: `${pointer}/0`, schema: schema.items });
    fieldsOf(schema.items, `${pointer}/0`, depth + 1, out);
  }
  return out;
}

/**
 * Hostile values suited to a field, most telling first: what once broke a server of this
 * kind. A string starting `RAW:` is raw JSON text (what JSON.stringify cannot write).
 */
export function hostileFor(schema: JsonSchema): unknown[] {
  const branches = [schema, ...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  const types = new Set(branches.flatMap((b) => b.type ?? []));
  const out: unknown[] = [];
  if (branches.some((b) => b.format === 'date-time'))
    out.push(
      '2016-12-31T23:59:60Z',
      '2016-06-30T23:59:60.999-01:00',
      '9999-12-31T23:59:59.999Z',
      '0001-01-01T00:00:00Z',
    );
  if (types.has('integer') || types.has('number'))
    out.push('RAW:1e400', 1e21, 'RAW:-1e400', 2 ** 53 + 1, -1, 1e300, 0.5, 0);
  if (types.has('object') || types.size === 0)
    out.push(`RAW:${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, `RAW:${'['.repeat(6000)}${']'.repeat(6000)}`, {});
  if (types.has('string') || types.size === 0)
    out.push(
      '-1',
      'P300000Y',
      '1e21',
      '-0.01',
      'P99999999D',
      '99999999999999999999999.99',
      '0.000000000001',
      'P0D',
      'x\u0000',
      '',
    );
  if (types.has('array')) out.push('RAW:[1e400]', [], [null]);
  out.push(null);
  return out;
}

/** Every declared field of a body schema with its first `perField` hostile values: a deterministic sweep. */
export function hostileBodies(schema: JsonSchema | undefined, base: unknown, perField = 3): string[] {
  if (!schema) return [];
  return fieldsOf(schema).flatMap((f) =>
    hostileFor(f.schema)
      .slice(0, perField)
      .map((h) => textWith(base, f.pointer, h)),
  );
}

const MARKER = '__conform_raw_token__';

/** The body's JSON text with `value` at `pointer` (a RAW: string goes in as raw JSON). */
function textWith(body: unknown, pointer: string, value: unknown): string {
  if (typeof value === 'string' && value.startsWith('RAW:')) {
    return JSON.stringify(withValueAt(body, pointer, MARKER)).replace(JSON.stringify(MARKER), value.slice(4));
  }
  return JSON.stringify(withValueAt(body, pointer, value));
}

/** The operation as the engine's generators see it; the reference's own extensions are fuzzed too. */
function genOperation(spec: Spec, op: Operation): GenOperation {
  return { ...fromSpec(spec, op.operationId), extension: false };
}

/** Path parameters from existing ids mostly, hostile strings and schema values sometimes. */
function pathParams(op: Operation, gen: GenOperation, ids: ExistingIds): fc.Arbitrary<Record<string, string>> {
  const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  return fc.record(Object.fromEntries(names.map((n) => [n, pathValue(op, n, gen.inputs.path?.properties?.[n], ids)])));
}

/** Query values that once broke servers of this kind, on the declared names. */
function hostileQuery(gen: GenOperation): fc.Arbitrary<Record<string, string>> | undefined {
  const names = Object.keys(gen.inputs.query?.properties ?? {});
  if (!names.length) return undefined;
  return fc.dictionary(
    fc.constantFrom(...names),
    fc.constantFrom('1e400', '-1', '0', '1e21', '99999999999999999999', '0x10', 'abc', '', '%00', 'true'),
    { minKeys: 1, maxKeys: 3 },
  );
}

const asRequest = (
  plan: RequestPlan,
  payload = plan.body === undefined ? undefined : JSON.stringify(plan.body),
): FuzzRequest => ({
  operationId: plan.operationId,
  method: plan.method,
  url: requestPath(plan),
  ...(payload === undefined ? {} : { payload }),
});

/**
 * Generated requests for one operation: valid ones and documented-constraint negatives from
 * the engine's generators, each with path ids of existing resources (or hostile ones), and
 * hostile variants of the valid ones.
 */
export function fuzzRequests(spec: Spec, op: Operation, ids: ExistingIds): fc.Arbitrary<FuzzRequest> {
  const gen = genOperation(spec, op);
  const placeholders = Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, 'x']));
  const path = pathParams(op, gen, ids);
  const valid = fc
    .tuple(positiveRequests(gen, placeholders), path)
    .map(([plan, pathParams]): RequestPlan => ({ ...plan, pathParams }));
  const negative = anyNegativeRequest(gen, placeholders);
  const body = gen.inputs.body;
  const fields = body ? fieldsOf(body) : [];
  const query = hostileQuery(gen);
  const parts: Array<fc.WeightedArbitrary<FuzzRequest>> = [{ weight: 4, arbitrary: valid.map((p) => asRequest(p)) }];
  if (negative) {
    // A path negative keeps its broken path parameter; the others get real ids.
    const withIds = fc
      .tuple(negative, path)
      .map(([c, pathParams]) => (c.location === 'path' ? c : { ...c, pathParams }));
    parts.push({ weight: 3, arbitrary: withIds.map((p) => asRequest(p)) });
  }
  if (fields.length) {
    // One declared field at a time gets a value hostile for its type.
    const field = fc
      .constantFrom(...fields)
      .chain((f) => fc.tuple(fc.constant(f.pointer), fc.constantFrom(...hostileFor(f.schema))));
    parts.push({
      weight: 5,
      arbitrary: fc.tuple(valid, field).map(([p, [pointer, h]]) => asRequest(p, textWith(p.body, pointer, h))),
    });
  }
  if (body) {
    parts.push(
      {
        weight: 2,
        arbitrary: fc
          .tuple(valid, hostileValue, fc.nat())
          .map(([p, h, pick]) => asRequest(p, JSON.stringify(replaceSomewhere(p.body, h, pick)))),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            valid,
            fc.constantFrom('', '{', '[]', '"text"', '{"a":1,}', '{"__proto__":{"x":1}}', 'true', ...RAW_TOKENS),
          )
          .map(([p, raw]) => asRequest(p, raw)),
      },
    );
  } else {
    parts.push({
      weight: 1,
      arbitrary: fc.tuple(valid, fc.constantFrom('{}', 'null', '[1e400]')).map(([p, raw]) => asRequest(p, raw)),
    });
  }
  if (query)
    parts.push({ weight: 2, arbitrary: fc.tuple(valid, query).map(([p, q]) => asRequest({ ...p, query: q })) });
  return fc.oneof(...parts);
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl command replaying the request (the key from $CONFORM_API_KEY); long bodies are cut. */
export function curlOf(baseUrl: string, r: FuzzRequest, maxBody = 2000): string {
  const parts = [
    'curl',
    '-sS',
    '-X',
    r.method,
    shellQuote(baseUrl.replace(/\/+$/, '') + r.url),
    '-H',
    `"Authorization: Bearer $${API_KEY_VARIABLE}"`,
  ];
  if (r.payload !== undefined) {
    const body =
      r.payload.length > maxBody ? `${r.payload.slice(0, maxBody)}...(${r.payload.length} characters)` : r.payload;
    parts.push('-H', shellQuote('Content-Type: application/json'), '--data', shellQuote(body));
  }
  return parts.join(' ');
}

/**
 * The deterministic sweep of one operation: a valid body (sampled with `seed`) on a path of
 * existing ids, with each declared field in turn given its most telling hostile values.
 */
export function sweepRequests(spec: Spec, op: Operation, ids: ExistingIds, seed: number, perField = 3): FuzzRequest[] {
  const schemas = spec.requestSchemas(op.operationId, { stripExtensions: true });
  const body = schemas?.body as JsonSchema | undefined;
  if (!body) return [];
  const url = op.parameters
    .filter((p) => p.in === 'path')
    .reduce((t, p) => {
      const known =
        p.name === 'versionNumber'
          ? '1'
          : p.name === 'crmProvider'
            ? 'salesforce'
            : p.name === 'ruleId'
              ? ids.sourceRules?.[0]
              : ids[collectionOf(op, p.name) ?? '']?.[0];
      return t.replace(`{${p.name}}`, encodeURIComponent(known ?? 'x'));
    }, op.pathTemplate);
  const [base] = fc.sample(arbitraryFromSchema(body), { seed, numRuns: 1 });
  return hostileBodies(body, base, perField).map((payload) => ({
    operationId: op.operationId,
    method: op.method,
    url,
    payload,
  }));
}

/** Every operation, deletes and cancellations last (they remove what the others use). */
export function fuzzOrder(spec: Spec): Operation[] {
  const last = (op: Operation) => Number(op.method === 'DELETE' || /cancel|archive/i.test(op.operationId));
  return [...spec.operations.values()].sort((a, b) => last(a) - last(b));
}

/**
 * Seeds one resource of each kind through `call` (a JSON client) and returns their ids by
 * collection: the path ids the fuzzer mostly uses.
 */
export async function seedResources(
  call: (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>,
  merchantId: string,
): Promise<ExistingIds> {
  const made = async (url: string, body: unknown) => {
    const r = await call('POST', url, body);
    if (r.status !== 201) throw new Error(`seeding ${url}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const product = await made('/v0/products', { name: 'Fuzz', description: 'Fuzzed', merchantId });
  const item = await made('/v0/items', { name: 'Item', catalogId: product.id });
  const metric = await made('/v0/billableMetrics', { name: 'Calls', productId: product.id });
  const fee = await made('/v0/fees', { productId: product.id, name: 'Fee', invoiceDisplayName: 'Fee' });
  const price = await made('/v0/prices', {
    feeId: fee.id,
    model: 'standard',
    currency: 'USD',
    properties: { unitPrice: '10.00' },
    cadence: 'P1M',
  });
  const metered = await made('/v0/prices', {
    billableMetricId: metric.id,
    model: 'volume',
    currency: 'USD',
    properties: {
      tiers: [
        { unitPrice: '1', upTo: '10' },
        { unitPrice: '0.5', upTo: null },
      ],
    },
  });
  const plan = await made('/v0/plans', { productId: product.id, name: 'Plan' });
  await made(`/v0/plans/${plan.id}/versions`, { priceIds: [price.id, metered.id] });
  await made(`/v0/plans/${plan.id}/versions`, { priceIds: [price.id] });
  const customer = await made('/v0/customers', { name: 'Fuzz customer' });
  const clock = await made('/v0/testClocks', { frozenTime: '2030-01-01T00:00:00Z' });
  const sub = await made('/v0/subscriptions', { customerId: customer.id, planId: plan.id, testClockId: clock.id });
  const invoice = await made('/v2/invoices', {
    customerId: customer.id,
    lineItems: [{ description: 'Line', amount: '5.00' }],
  });
  const paid = await made('/v2/invoices', {
    customerId: customer.id,
    lineItems: [{ description: 'Line', amount: '7.00' }],
  });
  await call('POST', `/v2/invoices/${paid.id}/finalize`);
  await call('POST', `/v2/invoices/${paid.id}/pay`);
  const payment = await made('/v0/payments', { amount: '3.00', currency: 'USD', customerId: customer.id });
  const source = await made('/v0/sources', { name: 'Source' });
  const rule = await made('/v0/sourceRules', {
    sourceId: source.id,
    name: 'Rule',
    description: 'Accepts',
    conditions: [{ type: 't', operator: 'eq', value: 1 }],
  });
  const wallet = await made('/v0/wallets', { customerId: customer.id });
  const alert = await made('/v0/alerts', { resourceId: wallet.id, type: 'wallet_low_balance' });
  const order = await made('/v0/orders', {
    customerId: customer.id,
    lineItems: [{ description: 'Seats', quantity: 3, unitPrice: '2.00', priceId: price.id }],
  });
  const schedule = await made('/v0/billingSchedules', { orderId: order.id });
  const pu = await made('/v0/pricingUnits', { name: 'Credits' });
  await call('POST', '/v0/webhooks', { endpoints: [{ url: 'https://hooks.example/x', eventTypes: ['invoice.paid'] }] });
  const key = await made('/v0/apiKeys', { name: 'fuzzed' });
  return {
    products: [product.id],
    items: [item.id],
    billableMetrics: [metric.id],
    fees: [fee.id],
    prices: [price.id, metered.id],
    plans: [plan.id],
    customers: [customer.id],
    testClocks: [clock.id],
    subscriptions: [sub.id],
    invoices: [invoice.id, paid.id],
    payments: [payment.id],
    sources: [source.id],
    sourceRules: [rule.id],
    wallets: [wallet.id],
    alerts: [alert.id],
    orders: [order.id],
    billingSchedules: [schedule.id],
    pricingUnits: [pu.id],
    merchants: [merchantId],
    apiKeys: [key.id],
  };
}
