import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../../src/reference/index.ts';
import { RateLimitConfigError, resolveRateLimits } from '../../../src/reference/ratelimit/limits.ts';
import { limitsTable, loadRules } from '../../../src/contract/rules.ts';

const LIMITS = limitsTable(await loadRules());
import { startTestServer, type TestServer } from './helpers.ts';

/** A clock that only moves when told: windows never reset behind a test's back. */
function fakeClock(start = Date.parse('2030-01-01T00:00:00Z')) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}

const clock = fakeClock();
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ now: clock.now });
});
afterAll(async () => {
  await s?.close();
});

async function newMerchantKey(): Promise<string> {
  const m = await s.call('POST', '/v0/merchants', { body: { name: 'rl' } });
  const k = await s.call('POST', '/v0/apiKeys', { body: { merchantId: m.body.id } });
  return k.body.secret;
}

async function newSubscription(key: string): Promise<string> {
  const me = await s.call('POST', '/v0/apiKeys', { key, body: {} }); // learn the merchant id
  const sub = await s.repo.insert(
    'subscription',
    me.body.merchantId,
    { object: 'subscription', status: 'active' },
    { prefix: 'sub' },
  );
  return sub.id;
}

describe('published limits', () => {
  it('come from the spec and equal the Limits table of spec/rules.yaml (compared with the document by the drift test)', async () => {
    const rules = [...s.rateLimits.values()].map(({ operationId, limit, windowSeconds, bucket }) => [
      operationId,
      { limit, windowSeconds, bucket },
    ]);
    expect(Object.fromEntries(rules)).toEqual(LIMITS);
  });

  it('may be raised by configuration, never lowered', async () => {
    expect(resolveRateLimits(LIMITS, { listCustomers: 1000 }).get('listCustomers')!.limit).toBe(1000);
    expect(() => resolveRateLimits(LIMITS, { listCustomers: 59 })).toThrow(/below the published limit of 60/);
    expect(() => resolveRateLimits(LIMITS, { getCustomer: 100 })).toThrow(RateLimitConfigError);
    await expect(startReferenceServer({ port: 0, rateLimits: { createPortalSession: 0 } })).rejects.toThrow(
      RateLimitConfigError,
    );
  });
});

describe('rate-limit headers', () => {
  it('are on every authenticated answer of a listed endpoint, and count down', async () => {
    const key = await newMerchantKey();
    const a = await s.call('GET', '/v0/customers', { key });
    const b = await s.call('GET', '/v0/customers?limit=0', { key }); // 400 still counted and labelled
    expect(a.status).toBe(200);
    expect(b.status).toBe(400);
    expect(a.headers['x-ratelimit-limit']).toBe('60');
    expect(a.headers['x-ratelimit-remaining']).toBe('59');
    expect(a.headers['x-ratelimit-reset']).toBe('6');
    expect(b.headers['x-ratelimit-remaining']).toBe('58');
  });

  it('are absent when authentication fails', async () => {
    const r = await s.call('GET', '/v0/customers', { key: 'sk_test_nobody_at_all' });
    expect(r.status).toBe(401);
    expect(Object.keys(r.headers).filter((h) => h.startsWith('x-ratelimit') || h === 'retry-after')).toEqual([]);
  });

  it('are absent on endpoints outside the table', async () => {
    const r = await s.call('GET', `/v0/merchants/${s.merchantId}`);
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('admission', () => {
  it('admits exactly `limit` of 200 parallel requests and answers 429 to the rest', async () => {
    const key = await newMerchantKey();
    const results = await Promise.all(
      Array.from({ length: 200 }, () =>
        request(`${s.baseUrl}/v0/customers`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
          status: r.statusCode,
          headers: r.headers,
          body: (await r.body.json()) as any,
        })),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length).toBe(60);
    expect(limited.length).toBe(140);
    const remaining = ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => i));
    const r = limited[0];
    expect(r.body).toEqual({ error: 'rate_limit_exceeded', message: expect.stringContaining('GET /v0/customers') });
    expect(r.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(6);
  });

  it('shares a bucket between the keys of one merchant, not between merchants', async () => {
    const key1 = await newMerchantKey();
    const m = await s.call('POST', '/v0/apiKeys', { key: key1, body: {} });
    const key2 = m.body.secret;
    for (let i = 0; i < 30; i++)
      expect((await s.call('GET', '/v0/integrations/hubspot/accounts', { key: i % 2 ? key1 : key2 })).status).toBe(200);
    const blocked = await s.call('GET', '/v0/integrations/salesforce/accounts', { key: key2 });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toMatch(/30 requests per minute per merchant/);
    const other = await newMerchantKey();
    expect((await s.call('GET', '/v0/integrations/hubspot/accounts', { key: other })).status).toBe(200);
    // each endpoint has its own bucket
    expect((await s.call('GET', '/v0/costs/report', { key: key1 })).status).toBe(200);
  });

  it('resets when the window ends', async () => {
    const key = await newMerchantKey();
    for (let i = 0; i < 60; i++) await s.call('POST', '/v2/invoices/lineItems', { key, body: {} });
    const full = await s.call('POST', '/v2/invoices/lineItems', { key, body: {} });
    expect(full.status).toBe(429);
    expect(full.headers['retry-after']).toBe('60');
    clock.advance(59_500);
    const still = await s.call('POST', '/v2/invoices/lineItems', { key, body: {} });
    expect(still.status).toBe(429);
    expect(still.headers['retry-after']).toBe('1');
    expect(still.headers['x-ratelimit-reset']).toBe('1');
    clock.advance(500);
    const again = await s.call('POST', '/v2/invoices/lineItems', { key, body: {} });
    expect(again.status).toBe(400); // admitted: the empty body fails validation
    expect(again.headers['x-ratelimit-remaining']).toBe('59');
    expect(again.headers['x-ratelimit-reset']).toBe('60');
  });
});

describe('per-subscription buckets', () => {
  it('count each subscription separately for portal and reconciliations', async () => {
    const key = await newMerchantKey();
    const a = await newSubscription(key);
    const b = await newSubscription(key);
    const p1 = await s.call('POST', `/v0/subscriptions/${a}/portal`, { key });
    expect(p1.status).toBe(201);
    expect(p1.body).toMatchObject({ object: 'portal_session', subscriptionId: a });
    expect(p1.headers['x-ratelimit-limit']).toBe('1');
    const p2 = await s.call('POST', `/v0/subscriptions/${a}/portal`, { key });
    expect(p2.status).toBe(429);
    expect(p2.body.message).toMatch(/per subscription/);
    expect(p2.headers['retry-after']).toBe('1');
    expect((await s.call('POST', `/v0/subscriptions/${b}/portal`, { key })).status).toBe(201);

    const r = [];
    for (let i = 0; i < 3; i++)
      r.push((await s.call('POST', `/v0/subscriptions/${a}/reconciliations`, { key })).status);
    expect(r).toEqual([201, 201, 429]);
    expect((await s.call('POST', `/v0/subscriptions/${b}/reconciliations`, { key })).status).toBe(201);
  });

  it('answers 404 for an unknown subscription, with the headers of its own bucket', async () => {
    const key = await newMerchantKey();
    const r = await s.call('POST', '/v0/subscriptions/sub_doesnotexist/portal', { key });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('not_found');
    expect(r.headers['x-ratelimit-limit']).toBe('1');
    expect(r.headers['x-ratelimit-remaining']).toBe('0');
  });

  it("hides another merchant's subscription (404) without touching its bucket", async () => {
    const owner = await newMerchantKey();
    const stranger = await newMerchantKey();
    const sub = await newSubscription(owner);
    expect((await s.call('POST', `/v0/subscriptions/${sub}/portal`, { key: stranger })).status).toBe(404);
    expect((await s.call('POST', `/v0/subscriptions/${sub}/portal`, { key: owner })).status).toBe(201);
  });
});

describe('raised limits', () => {
  it('apply the configured value', async () => {
    const ref = await startReferenceServer({ port: 0, rateLimits: { listCustomers: 100 } });
    try {
      const r = await request(`${ref.baseUrl}/v0/customers`, { headers: { authorization: `Bearer ${ref.apiKey}` } });
      await r.body.dump();
      expect(r.headers['x-ratelimit-limit']).toBe('100');
    } finally {
      await ref.close();
    }
  });
});
