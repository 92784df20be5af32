/** Rate limits (Limits): buckets, headers, 429s. Bucket faults use emulated buckets (rate-emulation.ts). */
import type { ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import { emulatedBuckets, listedEndpoint, type BucketPolicy } from './rate-emulation.ts';
import { slidingWindow, tokenBucket } from './limiters.ts';
import { expectAll, fault, got, json, req, type Json } from './helpers.ts';
import type { CatalogFault, DemoStep } from './types.ts';

const LIMIT = 'x-ratelimit-limit';
const REMAINING = 'x-ratelimit-remaining';
const RESET = 'x-ratelimit-reset';
const SUITES = ['rate-limits'];
/** On the bundled reference, the real buckets are raised this much so the emulated ones alone bind. */
const HIDE_REAL = { raiseRateLimits: 20 };

// ------------------------------------------------------------------ demo exchanges

const PORTAL = '/v0/subscriptions/sub_demo1/portal';
const CUSTOMERS = '/v0/customers';
const KEY_B = 'Bearer sk_test_demo0key0000000000B';

/** What the target answers on a listed endpoint: 200 with its own (published) headers. */
const upstreamOk = (limit: number, remaining: number, reset = 1): ProxyResponse =>
  json(
    200,
    { object: 'portal_session' },
    { [LIMIT]: String(limit), [REMAINING]: String(remaining), [RESET]: String(reset) },
  );
const upstream429 = (limit: number): ProxyResponse =>
  json(
    429,
    { error: 'rate_limit_exceeded', message: 'slow down' },
    { [LIMIT]: String(limit), [REMAINING]: '0', [RESET]: '1', 'retry-after': '1' },
  );
const step = (r: ProxyRequest, res: ProxyResponse): DemoStep => ({ req: r, res });
const portal = (key?: string) => req('POST', PORTAL, {}, key ? { authorization: key } : undefined);
const h = (o: { response: ProxyResponse }, name: string) => o.response.headers[name];

function emulated(
  f: Omit<CatalogFault, 'onRequest' | 'onResponse' | 'area' | 'suites'> & { policy: BucketPolicy; suites?: string[] },
): CatalogFault {
  const { policy, ...rest } = f;
  return fault({ area: 'rate-limits', suites: SUITES, target: HIDE_REAL, ...rest, ...emulatedBuckets(policy) });
}

/** Edits the headers of responses from the listed endpoints that `when` selects. */
function onListed(
  when: (res: ProxyResponse, req: ProxyRequest) => boolean,
  edit: (h: Record<string, string>, limit: number, windowSeconds: number) => void,
) {
  return async (r: ProxyRequest, res: ProxyResponse, ctx: { applied(): void }) => {
    if (!when(res, r)) return;
    const ep = await listedEndpoint(r);
    if (!ep) return;
    edit(res.headers, ep.limit, ep.windowSeconds);
    ctx.applied();
  };
}

export const rateLimitFaults: CatalogFault[] = [
  fault({
    name: 'rate-missing-retry-after',
    area: 'rate-limits',
    description: '429 answers carry no retry-after header',
    rules: ['RATE.RETRY_AFTER.ON_429'],
    suites: SUITES,
    onResponse(_r, res, ctx) {
      if (res.status !== 429 || res.headers['retry-after'] === undefined) return;
      delete res.headers['retry-after'];
      ctx.applied();
    },
    demo: {
      steps: [step(portal(), upstream429(1))],
      verify: (o) =>
        expectAll(
          [o.response.status === 429, 'still a 429'],
          [h(o, 'retry-after') === undefined, 'retry-after still there'],
        ),
    },
  }),
  fault({
    name: 'rate-429-wrong-error',
    area: 'rate-limits',
    description: "429 bodies say error 'too_many_requests' instead of 'rate_limit_exceeded'",
    rules: ['RATE.EXCEEDED.BODY'],
    suites: SUITES,
    onResponse(_r, res, ctx) {
      const b = res.json as Json | undefined;
      if (res.status !== 429 || !b) return;
      b.error = 'too_many_requests';
      ctx.applied();
    },
    demo: {
      steps: [step(portal(), upstream429(1))],
      verify: (o) => expectAll([got(o)?.error === 'too_many_requests', 'error category unchanged']),
    },
  }),
  fault({
    name: 'rate-429-generic-message',
    area: 'rate-limits',
    description: "every 429 carries the same generic message ('Too many requests'), whatever the endpoint",
    rules: ['RATE.EXCEEDED.BODY'],
    suites: SUITES,
    onResponse(_r, res, ctx) {
      const b = res.json as Json | undefined;
      if (res.status !== 429 || !b || b.message === 'Too many requests') return;
      b.message = 'Too many requests';
      ctx.applied();
    },
    demo: {
      steps: [step(portal(), upstream429(1))],
      verify: (o) =>
        expectAll([
          got(o)?.message === 'Too many requests' && got(o)?.error === 'rate_limit_exceeded',
          `message ${got(o)?.message}`,
        ]),
    },
  }),
  fault({
    name: 'rate-headers-on-401',
    area: 'rate-limits',
    description: 'a 401 on a listed endpoint carries x-ratelimit-limit/remaining/reset',
    rules: ['RATE.FAILED_AUTH.NO_HEADERS'],
    suites: ['auth'],
    onResponse: onListed(
      (res) => res.status === 401,
      (hd, limit, win) =>
        Object.assign(hd, { [LIMIT]: String(limit), [REMAINING]: String(limit), [RESET]: String(win) }),
    ),
    demo: {
      steps: [step(req('GET', CUSTOMERS, undefined, {}), json(401, { error: 'unauthorized', message: 'no key' }))],
      verify: (o) =>
        expectAll(
          [o.response.status === 401, 'not a 401'],
          [h(o, LIMIT) === '60' && h(o, REMAINING) !== undefined && h(o, RESET) !== undefined, 'no rate headers added'],
        ),
    },
  }),
  fault({
    name: 'rate-headers-missing',
    area: 'rate-limits',
    description: 'authenticated answers of the listed endpoints carry no x-ratelimit headers',
    rules: ['RATE.HEADERS.PRESENT'],
    suites: SUITES,
    onResponse: onListed(
      (res) => res.status !== 401 && res.status !== 429,
      (hd) => {
        delete hd[LIMIT];
        delete hd[REMAINING];
        delete hd[RESET];
      },
    ),
    demo: {
      steps: [step(req('GET', CUSTOMERS), upstreamOk(60, 59, 6))],
      verify: (o) =>
        expectAll([
          h(o, LIMIT) === undefined && h(o, REMAINING) === undefined && h(o, RESET) === undefined,
          'headers still there',
        ]),
    },
  }),
  fault({
    name: 'rate-reset-beyond-window',
    area: 'rate-limits',
    description: 'x-ratelimit-reset counts far past the window (window + 1 h)',
    rules: ['RATE.RESET.WITHIN_WINDOW'],
    suites: SUITES,
    onResponse: onListed(
      (res) => res.headers[RESET] !== undefined,
      (hd, _l, win) => void (hd[RESET] = String(win + 3600)),
    ),
    demo: {
      steps: [step(req('GET', CUSTOMERS), upstreamOk(60, 59, 6))],
      verify: (o) => expectAll([h(o, RESET) === '3606', `reset is ${h(o, RESET)}`]),
    },
  }),
  fault({
    name: 'rate-remaining-negative',
    area: 'rate-limits',
    description: 'x-ratelimit-remaining goes below zero on a 429 (-1)',
    rules: ['RATE.REMAINING.NON_NEGATIVE'],
    suites: SUITES,
    onResponse: onListed(
      (res) => res.status === 429,
      (hd) => void (hd[REMAINING] = '-1'),
    ),
    demo: {
      steps: [step(portal(), upstream429(1))],
      verify: (o) => expectAll([h(o, REMAINING) === '-1', `remaining is ${h(o, REMAINING)}`]),
    },
  }),
  fault({
    name: 'rate-remaining-frozen',
    area: 'rate-limits',
    description: 'x-ratelimit-remaining stays at limit - 1 whatever was used',
    rules: ['RATE.REMAINING.DECREMENTS'],
    suites: SUITES,
    onResponse: onListed(
      (res) => res.status !== 429 && res.headers[LIMIT] !== undefined,
      (hd) => void (hd[REMAINING] = String(Number(hd[LIMIT]) - 1)),
    ),
    demo: {
      steps: [step(req('GET', CUSTOMERS), upstreamOk(60, 17, 6))],
      verify: (o) => expectAll([h(o, REMAINING) === '59', `remaining is ${h(o, REMAINING)}`]),
    },
  }),
  emulated({
    name: 'rate-bucket-per-key',
    description:
      'each API key has its own buckets: two keys of one merchant (or on one subscription) get twice the allowance',
    rules: ['AUTH.ALLOWANCE.PER_MERCHANT', 'RATE.CUSTOMERS_LIST.BUCKET'],
    policy: { key: (ep, _who, auth) => `${auth}|${ep.subscriptionId ?? ''}|${ep.operationId}` },
    demo: {
      // Key A uses up the subscription's portal bucket; key B is admitted on it (documented: refused).
      steps: [
        step(portal(), upstreamOk(1, 0)),
        step(portal(), upstreamOk(1, 0)),
        step(portal(KEY_B), upstreamOk(20, 19)),
      ],
      verify: (o, all) =>
        expectAll(
          [all[1].response.status === 429, 'key A was not refused past its limit'],
          [
            o.response.status === 200 && h(o, REMAINING) === '0' && h(o, LIMIT) === '1',
            `key B got ${o.response.status}, remaining ${h(o, REMAINING)} of ${h(o, LIMIT)}`,
          ],
        ),
    },
  }),
  emulated({
    name: 'rate-limit-below-published',
    description: 'buckets admit, and x-ratelimit-limit shows, half the published limit',
    rules: ['RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED', 'RATE.CUSTOMERS_LIST.LIMIT'],
    policy: { enforce: (ep) => Math.ceil(ep.limit / 2) },
    demo: {
      steps: [step(req('GET', CUSTOMERS), upstreamOk(1200, 1199)), step(req('GET', CUSTOMERS), upstreamOk(1200, 1198))],
      verify: (o) =>
        expectAll([
          h(o, LIMIT) === '30' && h(o, REMAINING) === '28',
          `limit ${h(o, LIMIT)}, remaining ${h(o, REMAINING)}`,
        ]),
    },
  }),
  emulated({
    name: 'rate-limit-enforced-below-advertised',
    description: 'x-ratelimit-limit shows the published limit but 429 comes one request earlier',
    rules: ['RATE.CUSTOMERS_LIST.LIMIT'],
    policy: { enforce: (ep) => (ep.limit > 1 ? ep.limit - 1 : ep.limit), advertise: (ep) => ep.limit },
    demo: {
      steps: [
        step(req('POST', '/v0/subscriptions/sub_demo1/reconciliations', {}), upstreamOk(40, 39)),
        step(req('POST', '/v0/subscriptions/sub_demo1/reconciliations', {}), upstreamOk(40, 38)),
      ],
      verify: (o, all) =>
        expectAll(
          [h(all[0], LIMIT) === '2' && h(all[0], REMAINING) === '1', 'first answer does not advertise 2 with 1 left'],
          [o.response.status === 429, `the second request of a limit of 2 got ${o.response.status}`],
        ),
    },
  }),
  emulated({
    name: 'rate-bucket-shared-across-endpoints',
    description: "one bucket per merchant for all listed endpoints: using one up eats the others' allowance",
    rules: ['RATE.BUCKET.PER_ENDPOINT'],
    policy: { applies: (ep) => ep.bucket === 'merchant', key: (_ep, who) => who },
    demo: {
      steps: [
        step(req('GET', CUSTOMERS), upstreamOk(1200, 1199)),
        step(req('GET', '/v0/costs/report'), upstreamOk(12000, 11999)),
      ],
      verify: (o) =>
        expectAll([
          h(o, LIMIT) === '600' && h(o, REMAINING) === '598',
          `the costs report bucket shows remaining ${h(o, REMAINING)} of ${h(o, LIMIT)} after one request to another endpoint`,
        ]),
    },
  }),
  emulated({
    name: 'rate-subscription-bucket-per-merchant',
    description: 'reconciliations and portal sessions are counted per merchant, not per subscription',
    rules: ['RATE.PORTAL.BUCKET', 'RATE.RECONCILIATIONS.BUCKET'],
    policy: { applies: (ep) => ep.bucket === 'subscription', key: (ep, who) => `${who}|${ep.operationId}` },
    demo: {
      steps: [
        step(portal(), upstreamOk(20, 19)),
        step(req('POST', '/v0/subscriptions/sub_demo2/portal', {}), upstreamOk(20, 19)),
      ],
      verify: (o) => expectAll([o.response.status === 429, `another subscription's portal got ${o.response.status}`]),
    },
  }),
  emulated({
    name: 'rate-window-never-resets',
    description: 'a used-up bucket stays closed after x-ratelimit-reset seconds',
    rules: ['RATE.WINDOW.READMITS'],
    policy: { resets: false },
    demo: {
      steps: [step(portal(), upstreamOk(20, 19)), step(portal(), upstreamOk(20, 18))],
      verify: (o) => expectAll([o.response.status === 429 && Number(h(o, RESET)) >= 1, 'no 429 with a reset']),
    },
  }),
  emulated({
    name: 'rate-never-429',
    description: 'requests past the limit are admitted; remaining stays at 0',
    rules: ['RATE.EXCEEDED.STATUS'],
    policy: { rejects: false },
    demo: {
      steps: [step(portal(), upstreamOk(20, 19)), step(portal(), upstreamOk(20, 18))],
      verify: (o) =>
        expectAll([
          o.response.status === 200 && h(o, REMAINING) === '0' && h(o, LIMIT) === '1',
          `past the limit: ${o.response.status}, remaining ${h(o, REMAINING)}`,
        ]),
    },
  }),
];

// ------------------------------------------------------------------ benign limiters (listed in benign.ts)

/** Benign: buckets admit `factor` times the published limit, and their headers say so consistently (a limit may rise). */
export function higherLimits(factor: number): CatalogFault {
  const limit = 60 * factor;
  return emulated({
    name: factor === 2 ? 'benign-limit-higher-than-published' : `benign-limits-x${factor}`,
    description:
      `buckets admit ${factor} times the published limit; ` +
      'x-ratelimit-limit and remaining say so consistently (a limit may rise)',
    benign: true,
    rules: [],
    policy: { enforce: (ep) => ep.limit * factor },
    // The reference's own buckets are raised further, so that they never bind first.
    target: { raiseRateLimits: Math.max(HIDE_REAL.raiseRateLimits, factor * 4) },
    demo: {
      steps: [
        step(req('GET', CUSTOMERS), upstreamOk(1_000_000, 999_999)),
        step(req('GET', CUSTOMERS), upstreamOk(1_000_000, 999_998)),
      ],
      verify: (o) =>
        expectAll([
          h(o, LIMIT) === String(limit) && h(o, REMAINING) === String(limit - 2),
          `limit ${h(o, LIMIT)}, remaining ${h(o, REMAINING)}`,
        ]),
    },
  });
}

export const higherLimit = higherLimits(2);

/** Benign: a sliding window log instead of fixed windows, at the published limits. */
export const slidingWindowLimiter: CatalogFault = emulated({
  name: 'benign-sliding-window',
  description:
    'buckets are sliding windows (a request is admitted while fewer than the limit were admitted in the last window; ' +
    'reset counts down to when the oldest ages out)',
  benign: true,
  rules: [],
  policy: { limiter: slidingWindow },
  demo: {
    steps: [step(portal(), upstreamOk(20, 19)), step(portal(), upstreamOk(20, 18))],
    verify: (o, all) =>
      expectAll(
        [h(all[0], REMAINING) === '0', `remaining ${h(all[0], REMAINING)} after one request of a limit of 1`],
        [
          o.response.status === 429 && h(o, 'retry-after') === '1',
          `past the limit: ${o.response.status}, retry-after ${h(o, 'retry-after')}`,
        ],
      ),
  },
});

/** Benign: token buckets refilled continuously at the published rate. */
export const tokenBucketLimiter: CatalogFault = emulated({
  name: 'benign-token-bucket',
  description:
    'buckets are token buckets of the published limit refilled continuously at the published rate ' +
    '(reset: until full again; retry-after: until one token is back)',
  benign: true,
  rules: [],
  policy: { limiter: tokenBucket },
  demo: {
    steps: [step(req('GET', CUSTOMERS), upstreamOk(1200, 1199)), step(req('GET', CUSTOMERS), upstreamOk(1200, 1198))],
    verify: (o) =>
      expectAll([
        o.response.status === 200 && h(o, LIMIT) === '60' && Number(h(o, REMAINING)) >= 57 && Number(h(o, RESET)) >= 1,
        `limit ${h(o, LIMIT)}, remaining ${h(o, REMAINING)}, reset ${h(o, RESET)}`,
      ]),
  },
});
