/**
 * Benign variants over every answer, generated alongside the faults: compressed bodies
 * (gzip, deflate, br), keys in a shuffled order, published limits raised ten and a hundred
 * times, and buckets counted by a sliding window or a token bucket instead of fixed windows.
 */
import { brotliCompressSync, deflateSync, gunzipSync, gzipSync, brotliDecompressSync, inflateSync } from 'node:zlib';
import type { ProxyResponse } from '../fault-proxy.ts';
import { expectAll, isObj, json, req } from '../catalog/helpers.ts';
import type { DemoOutcome } from '../catalog/types.ts';
import { emulatedBuckets, listedEndpoint } from '../catalog/rate-emulation.ts';
import { slidingWindow, tokenBucket, type LimiterModel } from '../catalog/limiters.ts';
import type { GeneratedFault } from './types.ts';

const ALL: string[] = [];
const CODINGS = {
  gzip: { encode: gzipSync, decode: gunzipSync },
  deflate: { encode: deflateSync, decode: inflateSync },
  br: { encode: brotliCompressSync, decode: brotliDecompressSync },
} as const;

const sampleAnswer = () =>
  json(200, {
    object: 'customer',
    id: 'cus_demo1',
    validTaxAddress: { valid: true, message: null },
    metadata: { b: 1, a: 2 },
  });

function encoded(coding: keyof typeof CODINGS): GeneratedFault {
  return {
    name: `gen-benign-${coding}-bodies`,
    area: 'conventions',
    kind: 'benign-transport',
    benign: true,
    description: `every answer with a body is sent with Content-Encoding: ${coding}`,
    rules: [],
    suites: ALL,
    onResponse(_r, res, ctx) {
      if (!res.body.length || res.headers['content-encoding']) return;
      ctx.applied();
      return {
        ...res,
        headers: { ...res.headers, 'content-encoding': coding, vary: 'accept-encoding' },
        body: CODINGS[coding].encode(res.body),
      };
    },
    demo: {
      steps: [{ req: req('GET', '/v0/customers/cus_demo1'), res: sampleAnswer() }],
      verify: (o: DemoOutcome) =>
        expectAll([
          o.response.headers['content-encoding'] === coding &&
            JSON.parse(CODINGS[coding].decode(o.response.body).toString('utf8')).id === 'cus_demo1',
          'the body is not encoded as said',
        ]),
    },
  };
}

/** A seeded shuffle of every object's keys (deep). */
function shuffleKeys(v: unknown, next: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => shuffleKeys(x, next));
  if (!isObj(v)) return v;
  const keys = Object.keys(v);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  return Object.fromEntries(keys.map((k) => [k, shuffleKeys(v[k], next)]));
}

/** mulberry32: a small seeded generator, so that runs repeat. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const shuffled: GeneratedFault = {
  name: 'gen-benign-shuffled-keys',
  area: 'conventions',
  kind: 'benign-transport',
  benign: true,
  description: 'every JSON object of every answer has its keys in a shuffled order',
  rules: [],
  suites: ALL,
  onResponse(_r, res, ctx) {
    // An encoded body is bytes already: its `json` is what it was before the encoding.
    if (res.json === undefined || typeof res.json !== 'object' || res.headers['content-encoding']) return;
    const next = (ctx.state.get('rng') as (() => number) | undefined) ?? seeded(7);
    ctx.state.set('rng', next);
    const out = shuffleKeys(res.json, next);
    if (JSON.stringify(out) === JSON.stringify(res.json)) return;
    ctx.applied();
    return { ...res, json: out, body: Buffer.from(JSON.stringify(out)) };
  },
  demo: {
    steps: [
      {
        req: req('GET', '/v0/customers/cus_demo1'),
        res: json(200, { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8 }),
      },
    ],
    verify: (o: DemoOutcome) => {
      const keys = Object.keys(JSON.parse(o.response.body.toString('utf8')));
      return expectAll([
        keys.join('') !== 'abcdefgh' && [...keys].sort().join('') === 'abcdefgh',
        `keys ${keys.join('')}`,
      ]);
    },
  },
};

/** The bundled reference with every published limit raised `factor` times (its headers say so). */
function raised(factor: number): GeneratedFault {
  return {
    name: `gen-benign-limits-x${factor}`,
    area: 'rate-limits',
    kind: 'benign-transport',
    benign: true,
    description: `every published limit is ${factor} times higher, with consistent headers (a published limit can rise)`,
    rules: [],
    suites: ['rate-limits', 'auth'],
    target: { raiseRateLimits: factor },
    async onResponse(r, res: ProxyResponse, ctx) {
      if (res.headers['x-ratelimit-limit'] !== undefined && (await listedEndpoint(r))) ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('GET', '/v0/customers'),
          res: json(200, { object: 'list', data: [] }, { 'x-ratelimit-limit': String(60 * factor) }),
        },
      ],
      verify: (o: DemoOutcome) => expectAll([o.applied > 0, 'not counted as applied']),
    },
  };
}

/** Buckets counted by another limiter model, at the published limits (the real buckets raised out of the way). */
function limiter(model: LimiterModel<any>): GeneratedFault {
  const hooks = emulatedBuckets({ limiter: model });
  return {
    name: `gen-benign-${model.name}-limiter`,
    area: 'rate-limits',
    kind: 'benign-transport',
    benign: true,
    description: `the listed endpoints count with a ${model.name.replace('-', ' ')} at the published limits`,
    rules: [],
    suites: ['rate-limits'],
    target: { raiseRateLimits: 20 },
    ...hooks,
    demo: {
      steps: [
        {
          req: req('GET', '/v0/customers'),
          res: json(
            200,
            { object: 'list', data: [] },
            { 'x-ratelimit-limit': '1200', 'x-ratelimit-remaining': '1199', 'x-ratelimit-reset': '6' },
          ),
        },
      ],
      verify: (o: DemoOutcome) =>
        expectAll([
          o.response.headers['x-ratelimit-limit'] === '60',
          `limit ${o.response.headers['x-ratelimit-limit']}`,
        ]),
    },
  };
}

export function transportVariants(): GeneratedFault[] {
  return [
    encoded('gzip'),
    encoded('deflate'),
    encoded('br'),
    shuffled,
    raised(10),
    raised(100),
    limiter(slidingWindow),
    limiter(tokenBucket),
  ];
}
