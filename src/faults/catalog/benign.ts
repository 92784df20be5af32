/**
 * Benign variants: behaviours the document allows, which no suite may flag. Each changes
 * real traffic (so "applied" proves it was exercised) without breaking a rule.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliCompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import { listedEndpoint } from './rate-emulation.ts';
import { higherLimit, higherLimits, slidingWindowLimiter, tokenBucketLimiter } from './rate-limits.ts';
import { bodyOf, expectAll, fault, got, isObj, json, pathOf, R, req, type Json } from './helpers.ts';
import { MERCHANTS_PRODUCTS_SUITES, type CatalogFault } from './types.ts';
import { bodyShapeVariants, longerIdSuffix, MAPS, notFound, readCustomer, sample } from './benign-bodies.ts';

/** Every suite: a benign variant that touches everything should pass everything. */
const ALL: string[] = [];
const ERROR_SUITES = ['auth', 'customers', 'alerts', ...MERCHANTS_PRODUCTS_SUITES];

/** RFC 9110 §12.5.3: no Accept-Encoding means any coding is acceptable. */
function accepts(r: ProxyRequest, coding: string): boolean {
  const header = r.headers['accept-encoding'];
  return header === undefined || header.split(',').some((c) => c.trim().split(';')[0].toLowerCase() === coding);
}

/** Compresses every non-empty answer with `coding` when the request accepts it, as a compressing server or proxy does. */
function compressing(coding: 'gzip' | 'br', compress: (b: Buffer) => Buffer) {
  return (r: ProxyRequest, res: ProxyResponse, ctx: { applied(): void }): ProxyResponse | undefined => {
    if (!res.body.length || res.headers['content-encoding'] || !accepts(r, coding)) return;
    ctx.applied();
    return {
      ...res,
      headers: { ...res.headers, 'content-encoding': coding, vary: 'accept-encoding' },
      body: compress(res.body),
    };
  };
}

/** A UTC date-time written with Z (the reference's form). */
const Z_DATE_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/;

/** Rewrites every UTC date-time outside free-form maps with the offset +00:00 (deep). */
function offsetTimestamps(v: unknown): { value: unknown; changed: boolean } {
  let changed = false;
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') {
      const m = Z_DATE_TIME.exec(x);
      if (!m) return x;
      changed = true;
      return `${m[1]}+00:00`;
    }
    if (Array.isArray(x)) return x.map(walk);
    if (!isObj(x)) return x;
    return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, MAPS.has(k) ? y : walk(y)]));
  };
  const value = walk(v);
  return { value, changed };
}

function isErrorBody(res: ProxyResponse): Json | undefined {
  const b = bodyOf(res);
  return res.status >= 400 && res.status < 500 && b && typeof b.message === 'string' ? b : undefined;
}

export const benignVariants: CatalogFault[] = [
  higherLimit,
  higherLimits(10),
  higherLimits(100),
  slidingWindowLimiter,
  tokenBucketLimiter,
  fault({
    name: 'benign-gzip',
    area: 'conventions',
    benign: true,
    description:
      'every answer with a body is gzip-compressed (content-encoding: gzip) when the request accepts gzip or names no coding',
    rules: [],
    suites: ALL,
    onResponse: compressing('gzip', (b) => gzipSync(b)),
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) =>
        expectAll([
          o.response.headers['content-encoding'] === 'gzip' &&
            JSON.parse(gunzipSync(o.response.body).toString()).id === 'cus_demo1',
          'not gzip-compressed',
        ]),
    },
  }),
  fault({
    name: 'benign-brotli',
    area: 'conventions',
    benign: true,
    description:
      'every answer with a body is br-compressed (content-encoding: br) when the request accepts br or names no coding',
    rules: [],
    suites: ['customers', 'auth', 'rate-limits'],
    onResponse: compressing('br', (b) => brotliCompressSync(b)),
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) =>
        expectAll([
          o.response.headers['content-encoding'] === 'br' && o.response.body[0] !== 0x7b,
          'not br-compressed',
        ]),
    },
  }),
  fault({
    name: 'benign-offset-timestamps',
    area: 'conventions',
    benign: true,
    description:
      'UTC date-times are written with the offset +00:00 instead of Z (ISO 8601 either way), in every answer; ' +
      'free-form maps are left alone',
    rules: [],
    suites: ALL,
    onResponse(_r, res, ctx) {
      if (res.json === undefined) return;
      const { value, changed } = offsetTimestamps(res.json);
      if (!changed) return;
      ctx.applied();
      res.json = value;
    },
    demo: {
      steps: [
        {
          req: readCustomer(),
          res: json(200, {
            object: 'customer',
            id: 'cus_demo1',
            createdAt: '2030-01-01T00:00:00.000Z',
            metadata: { at: '2030-01-01T00:00:00Z' },
          }),
        },
      ],
      verify: (o) =>
        expectAll(
          [got(o)?.createdAt === '2030-01-01T00:00:00.000+00:00', `createdAt ${got(o)?.createdAt}`],
          [got(o)?.metadata?.at === '2030-01-01T00:00:00Z', 'metadata was touched'],
        ),
    },
  }),
  fault({
    name: 'benign-retry-after-http-date',
    area: 'rate-limits',
    benign: true,
    description:
      'retry-after on 429 answers is the HTTP-date to retry at (with a date header), not a number of seconds',
    rules: [],
    suites: ['rate-limits'],
    onResponse(_r, res, ctx) {
      const seconds = Number(res.headers['retry-after']);
      if (res.status !== 429 || res.headers['retry-after'] === undefined || !Number.isFinite(seconds)) return;
      // Whole seconds, as HTTP-dates are: the date is rounded down and the moment to retry at up.
      const now = Date.now();
      res.headers.date = new Date(Math.floor(now / 1000) * 1000).toUTCString();
      res.headers['retry-after'] = new Date(Math.ceil((now + seconds * 1000) / 1000) * 1000).toUTCString();
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('POST', '/v0/subscriptions/sub_demo1/portal', {}),
          res: json(429, { error: 'rate_limit_exceeded', message: 'slow down' }, { 'retry-after': '3' }),
        },
      ],
      verify: (o) => {
        const wait =
          (Date.parse(o.response.headers['retry-after'] ?? '') - Date.parse(o.response.headers.date ?? '')) / 1000;
        return expectAll([
          /GMT$/.test(o.response.headers['retry-after'] ?? '') && wait >= 3 && wait <= 4,
          `retry-after ${o.response.headers['retry-after']}, date ${o.response.headers.date}`,
        ]);
      },
    },
  }),
  ...bodyShapeVariants,
  fault({
    name: 'benign-content-type-variant',
    area: 'conventions',
    benign: true,
    description: 'content type written application/json;charset=UTF-8 (no space, upper-case charset)',
    rules: [],
    suites: ['auth', 'customers', ...MERCHANTS_PRODUCTS_SUITES],
    onResponse(_r, res, ctx) {
      if (!/^application\/json/i.test(res.headers['content-type'] ?? '')) return;
      res.headers['content-type'] = 'application/json;charset=UTF-8';
      ctx.applied();
    },
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) =>
        expectAll([
          o.response.headers['content-type'] === 'application/json;charset=UTF-8',
          `content-type ${o.response.headers['content-type']}`,
        ]),
    },
  }),
  fault({
    name: 'benign-unlisted-ratelimit-headers',
    area: 'rate-limits',
    benign: true,
    description:
      'endpoints outside the Limits table send x-ratelimit headers describing no reachable limit (limit 1, remaining 0)',
    rules: [],
    suites: ['rate-limits', ...MERCHANTS_PRODUCTS_SUITES, 'customers'],
    async onResponse(r, res, ctx) {
      if (res.status === 401 || (await listedEndpoint(r))) return;
      Object.assign(res.headers, {
        'x-ratelimit-limit': '1',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '3600',
      });
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/merchants/org_demo1'), res: json(200, { object: 'merchant' }) }],
      verify: (o) => expectAll([o.response.headers['x-ratelimit-remaining'] === '0', 'no headers added']),
    },
  }),
  fault({
    name: 'benign-extra-error-code',
    area: 'conventions',
    benign: true,
    description: 'errors without a code get one (UPPER_SNAKE_CASE), 429s included',
    rules: [],
    suites: [...ERROR_SUITES, 'rate-limits'],
    onResponse(_r, res, ctx) {
      const b = isErrorBody(res);
      if (!b || b.code !== undefined) return;
      b.code = `CONFORM_${String(res.status)}_EXTRA`;
      ctx.applied();
    },
    demo: {
      steps: [{ req: readCustomer(), res: notFound() }],
      verify: (o) => expectAll([got(o)?.code === 'CONFORM_404_EXTRA', `code ${got(o)?.code}`]),
    },
  }),
  fault({
    name: 'benign-error-details',
    area: 'conventions',
    benign: true,
    description: 'errors without details carry a details object (request id)',
    rules: [],
    suites: ERROR_SUITES,
    onResponse(_r, res, ctx) {
      const b = isErrorBody(res);
      if (!b || b.details !== undefined) return;
      b.details = { requestId: `req_${Date.now().toString(36)}` };
      ctx.applied();
    },
    demo: {
      steps: [{ req: readCustomer(), res: notFound() }],
      verify: (o) => expectAll([typeof got(o)?.details?.requestId === 'string', 'no details']),
    },
  }),
  fault({
    name: 'benign-extra-headers',
    area: 'conventions',
    benign: true,
    description: 'every answer carries extra headers (x-request-id, cache-control, vary, x-powered-by)',
    rules: [],
    suites: ALL,
    onResponse(_r, res, ctx) {
      Object.assign(res.headers, {
        'x-request-id': `req_${Math.random().toString(36).slice(2)}`,
        'cache-control': 'no-store',
        vary: 'Authorization',
        'x-powered-by': 'conform-fault-proxy',
      });
      ctx.applied();
    },
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) => expectAll([o.response.headers['cache-control'] === 'no-store', 'no extra headers']),
    },
  }),
  longerIdSuffix,
  fault({
    name: 'benign-pretty-json',
    area: 'conventions',
    benign: true,
    description: 'JSON bodies are pretty-printed (two-space indent, trailing newline)',
    rules: [],
    suites: ALL,
    onResponse(_r, res, ctx) {
      if (res.json === undefined) return;
      ctx.applied();
      return { ...res, body: Buffer.from(`${JSON.stringify(res.json, null, 2)}\n`) };
    },
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) =>
        expectAll([
          o.response.body.toString().startsWith('{\n  "object"') && got(o)?.id === 'cus_demo1',
          'not pretty-printed',
        ]),
    },
  }),
  fault({
    name: 'benign-200-instead-of-201',
    area: 'conventions',
    benign: true,
    description: 'creations whose success code the document does not show answer 200 instead of 201',
    rules: [],
    suites: ['merchants', 'products', 'billing-schedules', 'refunds-payments'],
    onResponse(r, res, ctx) {
      const p = pathOf(r);
      const documented = [R.products, R.merchants, R.schedules, R.refunds].some((re) => re.test(p));
      if (r.method !== 'POST' || !documented || res.status !== 201) return;
      ctx.applied();
      return { ...res, status: 200 };
    },
    demo: {
      steps: [{ req: req('POST', '/v0/products', { name: 'x' }), res: json(201, { object: 'product' }) }],
      verify: (o) => expectAll([o.response.status === 200, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'benign-latency',
    area: 'conventions',
    benign: true,
    description: 'every answer is 25 ms slower',
    rules: [],
    suites: ['rate-limits', 'auth'],
    async onResponse(_r: ProxyRequest, _res: ProxyResponse, ctx) {
      await sleep(25);
      ctx.applied();
    },
    demo: {
      steps: [{ req: readCustomer(), res: sample() }],
      verify: (o) => expectAll([(o.durationMs ?? 0) >= 20 && got(o)?.id === 'cus_demo1', `took ${o.durationMs} ms`]),
    },
  }),
];
