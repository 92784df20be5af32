/** Emulated buckets on a frozen clock: windows, per-merchant identity, hiding the real bucket. */
import { describe, expect, test } from 'vitest';
import { emulatedBuckets } from '../../src/faults/catalog/rate-emulation.ts';
import { json, req } from '../../src/faults/catalog/helpers.ts';
import type { DemoStep } from '../../src/faults/catalog/index.ts';
import { simulate } from './simulate.ts';

const A = 'Bearer sk_test_keyA000000000000';
const B = 'Bearer sk_test_keyB000000000000';
const ok = () =>
  json(
    200,
    { object: 'list', data: [] },
    { 'x-ratelimit-limit': '1200', 'x-ratelimit-remaining': '1199', 'x-ratelimit-reset': '6' },
  );
const portal = (key = A, sub = 'sub_1'): DemoStep => ({
  req: req('POST', `/v0/subscriptions/${sub}/portal`, {}, { authorization: key }),
  res: ok(),
});
const customers = (key = A): DemoStep => ({
  req: req('GET', '/v0/customers', undefined, { authorization: key }),
  res: ok(),
});
const newKey = (by: string, secret: string, merchantId: string, body: object = {}): DemoStep => ({
  req: req('POST', '/v0/apiKeys', body, { authorization: by }),
  res: json(201, { object: 'api_key', id: 'key_1', secret, merchantId }),
});

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('emulated buckets', () => {
  test('the documented buckets: limit, remaining counting down, 429 with retry-after past the limit, a new window after reset', async () => {
    const c = clock();
    const hooks = emulatedBuckets({}, c.now);
    const steps = [portal(), portal()];
    const [first, second] = await simulate({ name: 'x', ...hooks }, steps);
    expect(first.response.headers).toMatchObject({
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    });
    expect(second.response.status).toBe(429);
    expect(second.response.headers['retry-after']).toBe('1');
    expect(JSON.parse(second.response.body.toString())).toMatchObject({ error: 'rate_limit_exceeded' });
    expect(second.forwarded).toBeUndefined();
  });

  test('a window reopens after windowSeconds, unless the policy says it never resets', async () => {
    for (const resets of [true, false]) {
      const c = clock();
      const hooks = emulatedBuckets({ resets }, c.now);
      const steps: DemoStep[] = [portal(), portal(), portal()];
      // The clock moves past the 1 s window just before the third request.
      const fault = {
        name: 'x',
        ...hooks,
        onRequest: async (
          r: Parameters<NonNullable<typeof hooks.onRequest>>[0],
          ctx: Parameters<NonNullable<typeof hooks.onRequest>>[1],
        ) => {
          if ((ctx.state.get('n') as number | undefined) === 2) c.advance(1_001);
          ctx.state.set('n', ((ctx.state.get('n') as number | undefined) ?? 0) + 1);
          return hooks.onRequest!(r, ctx);
        },
      };
      const out = await simulate(fault, steps);
      expect(
        out.map((o) => o.response.status),
        `resets ${resets}`,
      ).toEqual(resets ? [200, 429, 200] : [200, 429, 429]);
    }
  });

  test('keys of one merchant share its buckets once POST /v0/apiKeys told whose keys they are', async () => {
    const hooks = emulatedBuckets({ enforce: () => 2 }, clock().now);
    const out = await simulate({ name: 'x', ...hooks }, [
      newKey(A, 'sk_test_keyB000000000000', 'org_1'),
      customers(A),
      customers(B),
      customers(A),
    ]);
    expect(out.slice(1).map((o) => [o.response.status, o.response.headers['x-ratelimit-remaining']])).toEqual([
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
  });

  test('a per-key policy gives each key its own bucket; a 401 is passed through and not counted', async () => {
    const hooks = emulatedBuckets(
      { enforce: () => 1, key: (ep, _who, auth) => `${auth}|${ep.operationId}` },
      clock().now,
    );
    const unauthorized: DemoStep = {
      req: req('GET', '/v0/customers', undefined, {}),
      res: json(401, { message: 'no key' }),
    };
    const out = await simulate({ name: 'x', ...hooks }, [
      newKey(A, 'sk_test_keyB000000000000', 'org_1'),
      unauthorized,
      customers(A),
      customers(B),
    ]);
    expect(out[1].response.status).toBe(401);
    expect(out[1].response.headers['x-ratelimit-limit']).toBeUndefined();
    expect(out.slice(2).map((o) => o.response.status)).toEqual([200, 200]);
  });

  test('a real 429 the emulated bucket would admit is answered with the last success of that request', async () => {
    const hooks = emulatedBuckets({ enforce: () => 100 }, clock().now);
    const real429: DemoStep = {
      req: customers().req,
      res: json(429, { error: 'rate_limit_exceeded', message: 'real' }, { 'retry-after': '3' }),
    };
    const out = await simulate({ name: 'x', ...hooks }, [customers(), real429]);
    expect(out[1].response.status).toBe(200);
    expect(out[1].response.headers).toMatchObject({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '98' });
    expect(out[1].response.headers['retry-after']).toBeUndefined();
  });

  test('unlisted endpoints are left alone', async () => {
    const hooks = emulatedBuckets({}, clock().now);
    const [o] = await simulate({ name: 'x', ...hooks }, [
      { req: req('GET', '/v0/merchants/org_1'), res: json(200, { object: 'merchant' }) },
    ]);
    expect(o.applied).toBe(0);
    expect(o.response.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
