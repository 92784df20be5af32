/**
 * Rules about the tool itself (spec/rules.yaml kinds restraint and client). Nothing a target
 * answers can break them, so no run against a target judges them: these tests judge the
 * engine on them. The check registry must never judge what the document leaves open; the
 * engine's own HTTP client must obey the client's retry rule.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { judge as judgeTraffic, rec } from '../passive/helpers.ts';
import { clientRequestsUnit } from '../../src/passive/clients/requests.ts';
import { readRequest, runChecks, type CheckContext } from '../../src/engine/checks/index.ts';
import { HttpClient } from '../../src/engine/http/client.ts';
import { loadSpec } from '../../src/contract/index.ts';
import { loadRules } from '../../src/contract/rules.ts';
import { ex } from './helpers/exchange.ts';
import { json, startFakeTarget, type FakeTarget } from './helpers/fake-target.ts';

let contract: Pick<CheckContext, 'spec' | 'rules'>;
beforeAll(async () => {
  contract = { spec: await loadSpec(), rules: await loadRules() };
});

const customer = {
  id: 'cus_1',
  object: 'customer',
  merchantId: 'org_1',
  consumerId: 'org_2',
  createdAt: '2024-01-01T00:00:00Z',
  updatedAt: '2024-01-01T00:00:00Z',
  validTaxAddress: { valid: true, message: null },
};
const judgedOf = (e: ReturnType<typeof ex>) => runChecks(e, { ...contract, request: readRequest(contract.spec, e) });

describe('restraint rules: the check registry never judges what the document leaves open', () => {
  test('the tool rules are marked restraint or client, each saying why', async () => {
    const rules = await loadRules();
    const kinds = Object.fromEntries(
      [
        'RATE.UNLISTED.NOT_JUDGED',
        'RATE.DASHBOARD.EXEMPT',
        'CONV.EXTRA_FIELDS.ALLOWED',
        'SCHEMA.NOT_SHOWN.OPEN',
        'RETRY.CLIENT.WAIT',
        'RETRY.CLIENT.MAX_ATTEMPTS',
        'VALIDATION.CLIENT.REQUEST_DOCUMENTED',
      ].map((id) => [id, rules.byId(id)?.kind]),
    );
    expect(kinds).toEqual({
      'RATE.UNLISTED.NOT_JUDGED': 'restraint',
      'RATE.DASHBOARD.EXEMPT': 'restraint',
      'CONV.EXTRA_FIELDS.ALLOWED': 'restraint',
      'SCHEMA.NOT_SHOWN.OPEN': 'restraint',
      'RETRY.CLIENT.WAIT': 'client',
      'RETRY.CLIENT.MAX_ATTEMPTS': 'client',
      'VALIDATION.CLIENT.REQUEST_DOCUMENTED': 'client',
    });
    for (const r of rules.rules.filter((x) => x.kind === 'restraint' || x.kind === 'client'))
      expect(r.notes ?? '', r.id).toMatch(/test\/engine\/tool-rules\.test\.ts/);
  });

  test('RATE.UNLISTED.NOT_JUDGED: x-ratelimit headers on an endpoint outside the Limits table are never judged', () => {
    const headers = { 'x-ratelimit-limit': '-3', 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': '99999' };
    const out = judgedOf(ex('GET', '/v0/customers/cus_1', 200, customer, headers));
    expect(out.findings).toEqual([]);
    expect(out.judged.filter((id) => id.startsWith('RATE.'))).toEqual([]);
    // The same headers on a listed endpoint are judged, and fail: the restraint is about the table.
    const listed = judgedOf(
      ex(
        'GET',
        '/v0/customers',
        200,
        { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } },
        headers,
      ),
    );
    expect(listed.judged).toContain('RATE.HEADERS.PRESENT');
    expect(listed.findings.length).toBeGreaterThan(0);
  });

  test('RATE.DASHBOARD.EXEMPT: a bucket found in use (by dashboard or other traffic) is no violation; nothing judges the dashboard', () => {
    const inUse = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '2' };
    const out = judgedOf(
      ex(
        'GET',
        '/v0/customers',
        200,
        { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } },
        inUse,
      ),
    );
    expect(out.findings).toEqual([]);
    expect(out.judged).not.toContain('RATE.DASHBOARD.EXEMPT');
  });

  test('CONV.EXTRA_FIELDS.ALLOWED: properties the document does not list are never a failure', () => {
    const extra = { ...customer, loyaltyTier: 'gold', internal: { shard: 7, flags: [true, null] }, x_vendor: null };
    expect(judgedOf(ex('GET', '/v0/customers/cus_1', 200, extra)).findings).toEqual([]);
    // Without the extra fields the same response passes too, and a missing required field still fails.
    expect(judgedOf(ex('GET', '/v0/customers/cus_1', 200, customer)).findings).toEqual([]);
    const { validTaxAddress: _, ...missing } = extra;
    expect(judgedOf(ex('GET', '/v0/customers/cus_1', 200, missing)).findings.length).toBeGreaterThan(0);
  });

  test('SCHEMA.NOT_SHOWN.OPEN: the payloads and fields the document does not show are never judged', () => {
    const rate = { 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '60' };
    // The rate-limited endpoints' payloads are not shown: any JSON body is accepted.
    for (const body of [{ whatever: [1, 2, 3] }, [{ no: 'envelope' }], { rows: 'text' }]) {
      expect(judgedOf(ex('GET', '/v0/costs/report', 200, body, rate)).findings, JSON.stringify(body)).toEqual([]);
    }
    // organization is an object whose fields are not shown: any fields are accepted.
    for (const organization of [{ name: 1, nested: { deep: [] } }, {}, { id: null, members: ['a'] }]) {
      expect(
        judgedOf(ex('GET', '/v0/customers/cus_1', 200, { ...customer, organization })).findings,
        JSON.stringify(organization),
      ).toEqual([]);
    }
  });
});

describe("client rules: the engine's own HTTP client against a fake server", () => {
  let server: FakeTarget;
  /** The retry-after each rejection carries, in order; undefined: none. */
  let script: Array<string | undefined> = [];
  beforeAll(async () => {
    server = await startFakeTarget((_req, res) => {
      const next = script.shift();
      if (next === 'ok') return json(res, 200, { ok: true });
      return json(
        res,
        429,
        { error: 'rate_limit_exceeded', message: 'GET /v0/customers: slow down' },
        next === undefined ? {} : { 'retry-after': next },
      );
    });
  });
  afterAll(() => server.close());

  async function attempts(
    retryAfters: Array<string | undefined>,
  ): Promise<{ waits: number[]; sent: number; last?: number }> {
    script = [...retryAfters];
    const waits: number[] = [];
    const before = server.requests.length;
    const client = new HttpClient({
      baseUrl: server.baseUrl,
      apiKey: 'sk_test_tool_rules',
      sleep: async (ms) => void waits.push(ms),
    });
    const res = await client.get('/v0/customers');
    return { waits, sent: server.requests.length - before, last: res.status };
  }

  test('RETRY.CLIENT.WAIT: never at once; retry-after seconds, else 1 s doubled on each further rejection', async () => {
    expect((await attempts([undefined, undefined, undefined, undefined, undefined])).waits).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect((await attempts(['3', '1', 'ok'])).waits).toEqual([3000, 1000]);
    const mixed = await attempts(['2', undefined, 'ok']);
    expect(mixed.waits).toEqual([2000, 2000]);
    expect(mixed.last).toBe(200);
    for (const w of [...mixed.waits]) expect(w).toBeGreaterThan(0);
  });

  test('RETRY.CLIENT.MAX_ATTEMPTS: five attempts at a request that keeps getting 429, then it stops', async () => {
    const r = await attempts(Array.from({ length: 9 }, () => '0'));
    expect(r.sent).toBe(5);
    expect(r.waits).toHaveLength(4);
    expect(r.last).toBe(429);
  });
});

describe('client rules: live clients, as conform proxy and conform judge see them', () => {
  test('VALIDATION.CLIENT.REQUEST_DOCUMENTED: a request the document refuses fails its client; a documented one passes', async () => {
    const customer = { id: 'cus_1', object: 'customer' };
    const o = await judgeTraffic(
      [
        rec('PATCH', '/v0/customers/cus_1', { sent: { taxRates: 50 }, got: customer }),
        rec('PATCH', '/v0/customers/cus_1', {
          key: 'sk_other_client_key_0123456789',
          sent: { taxRates: 101 },
          got: customer,
        }),
      ],
      [clientRequestsUnit],
    );
    const byClient = Object.fromEntries(o.sources.map((s) => [s.title, s]));
    const failed = Object.values(byClient).filter((s) => (s.failed['VALIDATION.CLIENT.REQUEST_DOCUMENTED'] ?? 0) > 0);
    const held = Object.values(byClient).filter(
      (s) => s.judged['VALIDATION.CLIENT.REQUEST_DOCUMENTED'] && !s.failed['VALIDATION.CLIENT.REQUEST_DOCUMENTED'],
    );
    expect(failed).toHaveLength(1);
    expect(held).toHaveLength(1);
    expect(failed[0].findings[0].message).toMatch(/taxRates/);
  });
});
