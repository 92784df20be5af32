/**
 * The benign variants of the held-out catalog: behaviours the interface document allows, written
 * from the document alone like its faults (index.ts), that the suites must not flag.
 */
import type { FaultContext, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import { bodyOf, expectAll, fault, got, isObj, json, on, R, req, type Json } from '../../src/faults/catalog/helpers.ts';
import type { CatalogFault } from '../../src/faults/catalog/types.ts';
import { EVERY, customer, interval, listed, listOf, alert } from './faults.ts';

/** Every string that is a UTC date-time, rewritten as `+00:00` without its fraction when the fraction is zero. */
function plusZero(v: unknown): { value: unknown; changed: boolean } {
  if (typeof v === 'string') {
    const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.0+)?Z$/.exec(v);
    return m ? { value: `${m[1]}+00:00`, changed: true } : { value: v, changed: false };
  }
  if (Array.isArray(v)) {
    let changed = false;
    const value = v.map((x) => {
      const o = plusZero(x);
      changed ||= o.changed;
      return o.value;
    });
    return { value, changed };
  }
  if (isObj(v)) {
    let changed = false;
    const value: Json = {};
    for (const [k, x] of Object.entries(v)) {
      // metadata is the client's own map: a server hands it back as it was sent.
      const o = k === 'metadata' ? { value: x, changed: false } : plusZero(x);
      changed ||= o.changed;
      value[k] = o.value;
    }
    return { value, changed };
  }
  return { value: v, changed: false };
}

/** The money fields whose values are decimal strings in the document (amounts, prices, quantities). */
const DECIMAL_FIELDS = new Set([
  'amount',
  'taxAmount',
  'total',
  'threshold',
  'unitPrice',
  'unitAmount',
  'baseQuantity',
]);
function trimZeros(v: unknown): { value: unknown; changed: boolean } {
  if (Array.isArray(v)) {
    let changed = false;
    const value = v.map((x) => {
      const o = trimZeros(x);
      changed ||= o.changed;
      return o.value;
    });
    return { value, changed };
  }
  if (!isObj(v)) return { value: v, changed: false };
  let changed = false;
  const value: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'metadata') value[k] = x;
    else if (DECIMAL_FIELDS.has(k) && typeof x === 'string' && /^-?\d+\.\d*0$/.test(x)) {
      value[k] = x.replace(/\.?0+$/, '');
      changed = true;
    } else {
      const o = trimZeros(x);
      changed ||= o.changed;
      value[k] = o.value;
    }
  }
  return { value, changed };
}

/**
 * Maps whose keys are data, not fields: a key added there would change what they say
 * (metadata is the client's, taxRates maps plans and metrics to rates, config's contents are
 * not shown). The first measured version of this variant added a key to taxRates too, which is
 * a fault, not a benign variant: the suites flagged it, rightly.
 */
const MAPS = new Set(['metadata', 'taxRates', 'config']);

/** Every object in an answer gains a vendor field; maps whose keys are data are left as they were. */
function withVendorFields(v: unknown): { value: unknown; changed: boolean } {
  if (Array.isArray(v)) {
    let changed = false;
    const value = v.map((x) => {
      const o = withVendorFields(x);
      changed ||= o.changed;
      return o.value;
    });
    return { value, changed };
  }
  if (!isObj(v)) return { value: v, changed: false };
  const value: Json = {};
  for (const [k, x] of Object.entries(v)) value[k] = MAPS.has(k) ? x : withVendorFields(x).value;
  value.vendorTrace = { region: 'eu-1', shard: 7 };
  return { value, changed: true };
}

function rewriting(fn: (v: unknown) => { value: unknown; changed: boolean }) {
  return (_r: ProxyRequest, res: ProxyResponse, ctx: FaultContext) => {
    if (res.json === undefined || res.status >= 300) return;
    const { value, changed } = fn(res.json);
    if (!changed) return;
    res.json = value;
    ctx.applied();
  };
}

export const heldoutBenign: CatalogFault[] = [
  fault({
    name: 'ho-benign-plus-zero-no-fraction',
    area: 'conventions',
    benign: true,
    description:
      'every UTC date-time in a 2xx answer is written 2030-01-01T00:00:00+00:00 (offset form, a zero fraction dropped)',
    rules: [],
    suites: EVERY,
    onResponse: rewriting(plusZero),
    demo: {
      steps: [{ req: req('GET', '/v0/customers/cus_demo1'), res: json(200, customer()) }],
      verify: (o) => expectAll([got(o)?.createdAt === '2030-01-01T00:00:00+00:00', `createdAt ${got(o)?.createdAt}`]),
    },
  }),
  fault({
    name: 'ho-benign-decimal-zeros-trimmed',
    area: 'conventions',
    benign: true,
    description: 'decimal amounts in 2xx answers drop trailing zeros (12.50 is written 12.5, 10.00 is written 10)',
    rules: [],
    suites: EVERY,
    onResponse: rewriting(trimZeros),
    demo: {
      steps: [
        { req: req('GET', '/v0/billingSchedules/bs_demo1/intervals'), res: json(200, listed([interval('si_1')])) },
      ],
      verify: (o) => expectAll([got(o)?.data?.[0]?.unitPrice === '12.5', `unitPrice ${got(o)?.data?.[0]?.unitPrice}`]),
    },
  }),
  fault({
    name: 'ho-benign-vendor-fields',
    area: 'conventions',
    benign: true,
    description:
      'every object in a 2xx answer, list elements and nested objects included, carries an extra vendorTrace object',
    rules: [],
    suites: EVERY,
    onResponse: rewriting(withVendorFields),
    demo: {
      steps: [{ req: req('GET', '/v0/customers/cus_demo1'), res: json(200, customer()) }],
      verify: (o) =>
        expectAll([
          isObj(got(o)?.vendorTrace) && isObj(got(o)?.validTaxAddress?.vendorTrace),
          'no vendorTrace on the customer and its validTaxAddress',
        ]),
    },
  }),
  fault({
    name: 'ho-benign-alerts-newest-first',
    area: 'alerts',
    benign: true,
    description: 'GET /v0/alerts lists each page newest first (the document states no order)',
    rules: [],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const data = on(r, 'GET', R.alerts) && res.status === 200 ? listOf(res) : undefined;
      if (!data || data.length < 2) return;
      (bodyOf(res)!.data as Json[]).reverse();
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/alerts?resourceId=wal_demo1'),
          res: json(200, listed([alert('alr_1'), alert('alr_2')])),
        },
      ],
      verify: (o) => expectAll([got(o)?.data?.[0]?.id === 'alr_2', 'not reversed']),
    },
  }),
  fault({
    name: 'ho-benign-source-rule-counters-move',
    area: 'merchants-products',
    benign: true,
    description:
      'the fields the server keeps on a source rule move between answers: evaluationCount and matchCount grow, ' +
      'lastEvaluatedAt is the time of the answer (the rule was evaluated meanwhile)',
    rules: [],
    suites: EVERY,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'PATCH', R.sourceRule) || res.status !== 200 || typeof b?.evaluationCount !== 'number') return;
      const seen = ((ctx.state.get('evaluations') as number | undefined) ?? 0) + 1;
      ctx.state.set('evaluations', seen);
      b.evaluationCount += seen;
      if (typeof b.matchCount === 'number') b.matchCount += 1;
      b.lastEvaluatedAt = new Date().toISOString();
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/sourceRules/srl_demo1', { name: 'x' }),
          res: json(200, { id: 'srl_demo1', name: 'x', evaluationCount: 0, matchCount: 0, lastEvaluatedAt: null }),
        },
      ],
      verify: (o) => expectAll([got(o)?.evaluationCount === 1 && got(o)?.matchCount === 1, 'counters did not move']),
    },
  }),
];
