/**
 * Benign variants that reshape answer bodies the document leaves open: extra properties,
 * optional or nullable fields left out, keys reordered, longer ids.
 */
import { bodyOf, expectAll, fault, got, isObj, json, pathOf, R, req, stateMap, type Json } from './helpers.ts';
import type { CatalogFault } from './types.ts';

/** Every suite: a benign variant that touches everything should pass everything. */
const ALL: string[] = [];

/** A customer answer for the demos, and the request reading it. */
export const sample = () =>
  json(200, {
    object: 'customer',
    id: 'cus_demo1',
    validTaxAddress: { valid: true, message: null },
    metadata: { b: 1, a: 2 },
  });
export const readCustomer = () => req('GET', '/v0/customers/cus_demo1');
export const notFound = () => json(404, { error: 'not_found', message: 'no such customer' });

/** Response bodies of resources: the body itself and the elements of a list. */
function representations(body: unknown): Json[] {
  if (Array.isArray(body)) return body.filter(isObj);
  if (!isObj(body)) return [];
  return body.object === 'list' && Array.isArray(body.data) ? [body, ...body.data.filter(isObj)] : [body];
}

function reorder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reorder);
  if (!isObj(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .reverse()
      .map((k) => [k, reorder(v[k])]),
  );
}

/** Replaces every string equal to a key of `map` (deep). */
function mapStrings(v: unknown, map: (s: string) => string | undefined): unknown {
  if (typeof v === 'string') return map(v) ?? v;
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, map));
  if (!isObj(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, map)]));
}

/** Free-form maps: an extra key there would change the merchant's own data, not add a field. */
export const MAPS = new Set(['metadata', 'taxRates', 'config', 'usageFilter']);

/** Adds `conformExtra` to every object below the top level (list envelopes' elements count as top level). */
function addNested(v: unknown, depth: number): boolean {
  let changed = false;
  if (Array.isArray(v)) {
    for (const x of v) changed = addNested(x, depth) || changed;
    return changed;
  }
  if (!isObj(v)) return false;
  if (depth > 0 && !('conformExtra' in v)) {
    v.conformExtra = true;
    changed = true;
  }
  for (const [k, x] of Object.entries(v))
    if (!MAPS.has(k) && k !== 'conformExtra') changed = addNested(x, depth + 1) || changed;
  return changed;
}

const CUSTOMER_ID = /^cus_[a-zA-Z0-9]+$/;
const LONGER = 'Q7longer0suffix';

/** In catalog order, between the retry-after and content-type variants. */
export const bodyShapeVariants: CatalogFault[] = [
  fault({
    name: 'benign-extra-properties',
    area: 'conventions',
    benign: true,
    description: 'every resource (and list element) carries an extra, undocumented property',
    rules: [],
    suites: ALL,
    onResponse(_r, res, ctx) {
      const reps = representations(res.json);
      if (!reps.length || res.status >= 400) return;
      for (const rep of reps) rep.conformExtra = { note: 'undocumented property', n: 1 };
      ctx.applied();
    },
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) => expectAll([got(o)?.conformExtra?.n === 1 && got(o)?.id === 'cus_demo1', 'no extra property']),
    },
  }),
  fault({
    name: 'benign-extra-nested-properties',
    area: 'conventions',
    benign: true,
    description:
      'every nested object (address, validTaxAddress, migration, conditions, blockers...) carries an extra property too; ' +
      'free-form maps (metadata, taxRates, config) are left alone',
    rules: [],
    suites: ALL,
    onResponse(_r, res, ctx) {
      if (res.status >= 400 || (!isObj(res.json) && !Array.isArray(res.json))) return;
      if (addNested(res.json, 0)) ctx.applied();
    },
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) =>
        expectAll(
          [got(o)?.validTaxAddress?.conformExtra === true, 'no extra property in validTaxAddress'],
          [got(o)?.metadata?.conformExtra === undefined, 'metadata was touched'],
        ),
    },
  }),
  fault({
    name: 'benign-null-fields-omitted',
    area: 'conventions',
    benign: true,
    description:
      "optional fields typed 'or null' are left out instead of sent as null " +
      '(credit note pdfUrl/voidedAt/reason, source rule createdBy/lastEvaluatedAt)',
    rules: [],
    suites: ['refunds-payments', 'source-rules'],
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      const fields =
        b?.object === 'invoice_refund'
          ? ['pdfUrl', 'voidedAt', 'reason']
          : b && R.sourceRule.test(pathOf(r)) && res.status < 300
            ? ['createdBy', 'lastEvaluatedAt']
            : [];
      const nulls = fields.filter((k) => b![k] === null);
      if (!nulls.length) return;
      for (const k of nulls) delete b![k];
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v2/invoices/inv_1/refunds', {}),
          res: json(201, {
            object: 'invoice_refund',
            id: 'crn_1',
            amount: '1.00',
            taxAmount: '0.00',
            total: '1.00',
            pdfUrl: null,
            voidedAt: null,
            reason: null,
          }),
        },
      ],
      verify: (o) =>
        expectAll([
          got(o)?.id === 'crn_1' && !['pdfUrl', 'voidedAt', 'reason'].some((k) => k in got(o)!),
          'null fields still there',
        ]),
    },
  }),
  fault({
    name: 'benign-optional-fields-omitted',
    area: 'conventions',
    benign: true,
    description:
      'payments leave out every optional field (paymentUrl, customerId, idempotencyKey, reference, metadata, lineItems, expiresAt)',
    rules: [],
    suites: ['refunds-payments'],
    onResponse(_r, res, ctx) {
      const b = bodyOf(res);
      if (b?.object !== 'payment') return;
      const optional = [
        'paymentUrl',
        'customerId',
        'idempotencyKey',
        'reference',
        'metadata',
        'lineItems',
        'expiresAt',
      ].filter((k) => k in b);
      if (!optional.length) return;
      for (const k of optional) delete b[k];
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/payments/pay_1'),
          res: json(200, {
            object: 'payment',
            id: 'pay_1',
            amount: '1.00',
            currency: 'USD',
            status: 'pending',
            createdAt: '2030-01-01T00:00:00Z',
            metadata: {},
            paymentUrl: 'https://pay.invalid',
          }),
        },
      ],
      verify: (o) =>
        expectAll([
          got(o)?.id === 'pay_1' && got(o)?.metadata === undefined && got(o)?.paymentUrl === undefined,
          'optional fields still there',
        ]),
    },
  }),
  fault({
    name: 'benign-reordered-keys',
    area: 'conventions',
    benign: true,
    description: 'object keys come in reverse order, at every depth',
    rules: [],
    suites: ALL,
    onResponse(_r, res, ctx) {
      if (!isObj(res.json) && !Array.isArray(res.json)) return;
      ctx.applied();
      return { ...res, body: Buffer.from(JSON.stringify(reorder(res.json))) };
    },
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) =>
        expectAll([
          Object.keys(got(o) ?? {})[0] === 'metadata' && Object.keys(got(o)?.metadata ?? {})[0] === 'a',
          `keys ${Object.keys(got(o) ?? {}).join(',')}`,
        ]),
    },
  }),
];

/** Between the extra-headers and pretty-json variants in the catalog. */
export const longerIdSuffix: CatalogFault = fault({
  name: 'benign-longer-id-suffix',
  area: 'conventions',
  benign: true,
  description:
    'customer ids are longer (cus_ + a longer suffix): every cus_ id is rewritten in answers and mapped back in requests',
  rules: [],
  suites: ['customers', 'delete-blockers'],
  onRequest(r, ctx) {
    const back = stateMap<string, string>(ctx, 'short');
    if (!back.size) return;
    const short = (s: string) => back.get(s);
    const [p, q] = r.path.split('?');
    const segments = p
      .split('/')
      .map((seg) => (short(decodeURIComponent(seg)) ? encodeURIComponent(short(decodeURIComponent(seg))!) : seg));
    const query = new URLSearchParams(q ?? '');
    const mapped = [...query].filter(([, v]) => short(v));
    for (const [k, v] of mapped) query.set(k, short(v)!);
    const path = `${segments.join('/')}${q === undefined ? '' : `?${mapped.length ? query : q}`}`;
    const body = r.json === undefined ? undefined : mapStrings(r.json, short);
    if (path === r.path && JSON.stringify(body) === JSON.stringify(r.json)) return;
    r.path = path;
    if (body !== undefined) r.json = body;
    ctx.applied();
  },
  onResponse(_r, res, ctx) {
    if (res.json === undefined) return;
    const back = stateMap<string, string>(ctx, 'short');
    let hit = false;
    const out = mapStrings(res.json, (s) => {
      if (!CUSTOMER_ID.test(s) || back.has(s)) return undefined;
      hit = true;
      const long = `${s}${LONGER}`;
      back.set(long, s);
      return long;
    });
    if (!hit) return;
    ctx.applied();
    res.json = out;
  },
  demo: {
    steps: [
      { req: req('POST', '/v0/customers', {}), res: json(201, { object: 'customer', id: 'cus_demo1' }) },
      {
        req: req('GET', `/v0/customers/cus_demo1${LONGER}`),
        res: (f) => (pathOf(f) === '/v0/customers/cus_demo1' ? sample() : notFound()),
      },
    ],
    verify: (o, all) =>
      expectAll(
        [got(all[0])?.id === `cus_demo1${LONGER}`, 'the id was not lengthened'],
        [o.response.status === 200 && got(o)?.id === `cus_demo1${LONGER}`, `got ${o.response.status} ${got(o)?.id}`],
      ),
  },
});
