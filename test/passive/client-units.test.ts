/** The client's side: the retry rule after a 429 and the documented request constraints, per client. */
import { describe, expect, test } from 'vitest';
import { judge, messages, rec, verdicts } from './helpers.ts';
import { retryUnit } from '../../src/passive/clients/retry.ts';
import { clientRequestsUnit, CLIENT_REQUEST_RULE } from '../../src/passive/clients/requests.ts';
import { clientIdOf } from '../../src/passive/traffic/scrub.ts';

const tooMany = (start: number, retryAfter?: string, key?: string) =>
  rec('GET', '/v0/costs/report', {
    start,
    duration: 5,
    status: 429,
    key,
    headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
    got: { error: 'rate_limit_exceeded', message: 'slow down' },
  });
const ok = (start: number, key?: string) =>
  rec('GET', '/v0/costs/report', { start, duration: 5, status: 200, key, got: {} });

/** `n` attempts, each `gap` ms after the previous answer (which took 5 ms). */
function attempts(n: number, gap: (i: number) => number, retryAfter?: string, key?: string) {
  const out = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    out.push(tooMany(t, retryAfter, key));
    t += 5 + gap(i);
  }
  return out;
}

describe('RETRY.CLIENT.*', () => {
  test('a rude client (ten retries at once, retry-after ignored) fails both rules; a polite one passes both', async () => {
    const rude = verdicts(
      await judge(
        attempts(10, () => 1, '2'),
        [retryUnit()],
      ),
    );
    expect([rude.get('RETRY.CLIENT.WAIT'), rude.get('RETRY.CLIENT.MAX_ATTEMPTS')]).toEqual(['failed', 'failed']);
    const polite = verdicts(
      await judge(
        attempts(5, () => 2000, '2'),
        [retryUnit()],
      ),
    );
    expect([polite.get('RETRY.CLIENT.WAIT'), polite.get('RETRY.CLIENT.MAX_ATTEMPTS')]).toEqual(['passed', 'passed']);
  });

  test('without retry-after the wait is one second, doubled on each further rejection', async () => {
    const doubling = (i: number) => 1000 * 2 ** i;
    expect(verdicts(await judge(attempts(5, doubling), [retryUnit()])).get('RETRY.CLIENT.WAIT')).toBe('passed');
    const flat = await judge(
      attempts(3, () => 1000),
      [retryUnit()],
    );
    expect(verdicts(flat).get('RETRY.CLIENT.WAIT')).toBe('failed');
    expect(messages(flat, 'RETRY.CLIENT.WAIT')[0]).toMatch(
      /attempt 3 .* 1\.000 s after its 429 \(no retry-after: 2 s after rejection 2\)/,
    );
  });

  test('five attempts that all got 429 and then a success after the wait: the sixth attempt fails MAX_ATTEMPTS', async () => {
    const tries = [...attempts(5, () => 1000, '1')];
    const sixth = ok(5 * 1005 + 1000);
    expect(verdicts(await judge([...tries, sixth], [retryUnit()])).get('RETRY.CLIENT.MAX_ATTEMPTS')).toBe('failed');
  });

  test('not retries: a copy sent before the 429 came back, a request a minute past the wait, another client, another request', async () => {
    const cases = [
      [tooMany(0, '5'), tooMany(2, '5')],
      [tooMany(0, '1'), tooMany(70_000, '1')],
      [tooMany(0, '5'), ok(10, 'sk_test_someone_else_entirely')],
      [tooMany(0, '5'), rec('GET', '/v0/costs/report?from=2026-01-01', { start: 10, got: {} })],
    ];
    for (const c of cases) expect(verdicts(await judge(c, [retryUnit()])).get('RETRY.CLIENT.WAIT')).toBeUndefined();
  });

  test('clients are judged apart, named by the hash of their key', async () => {
    const rudeKey = 'sk_test_rude_client_key_000001';
    const o = await judge(
      [
        ...attempts(3, () => 0, '1', rudeKey),
        ...attempts(2, () => 1000, '1').map((r) => ({ ...r, startedMs: r.startedMs + 100_000 })),
      ],
      [retryUnit()],
    );
    const byClient = Object.fromEntries(o.sources.filter((s) => s.suite === 'clients').map((s) => [s.title, s.state]));
    expect(byClient).toEqual({
      [`client ${clientIdOf(rudeKey)}`]: 'failed',
      [`client ${clientIdOf('sk_test_passive_helper_key_0001')}`]: 'passed',
    });
    expect(JSON.stringify(o)).not.toContain(rudeKey);
  });
});

describe('requests against the documented constraints', () => {
  test('a client sending what the document refuses is reported, naming the field', async () => {
    const o = await judge(
      [
        rec('PATCH', '/v0/customers/cus_1', {
          sent: { taxRates: 101, externalId: 'x'.repeat(256) },
          status: 400,
          got: { message: 'no' },
        }),
        rec('PATCH', '/v0/alerts/al_1?resource=wallets', {
          sent: { enabled: true },
          status: 400,
          got: { message: 'no' },
        }),
        rec('PATCH', '/v0/webhooks', { sent: '{not json', status: 400, got: { message: 'no' } }),
      ],
      [clientRequestsUnit],
    );
    expect(verdicts(o).get(CLIENT_REQUEST_RULE)).toBe('failed');
    const m = messages(o, CLIENT_REQUEST_RULE);
    expect(m[0]).toContain('body /taxRates breaks maximum 100: 101');
    expect(m[0]).toContain('body /externalId breaks maxLength 255');
    expect(m[1]).toContain('query /resource breaks enum "wallet"');
    expect(m[2]).toContain('the body is not JSON');
  });

  test('documented requests pass; what the document leaves open is never held against the client', async () => {
    const o = await judge(
      [
        rec('PATCH', '/v0/customers/cus_1', {
          sent: { taxRates: 100, externalId: null, notificationSettings: { invoicePaid: true } },
          got: {},
        }),
        rec('POST', '/v0/merchants', { sent: { anything: 'goes', name: 1 }, got: {} }),
        rec('POST', '/v0/items', { sent: { name: 5 }, got: {} }),
      ],
      [clientRequestsUnit],
    );
    expect(verdicts(o).get(CLIENT_REQUEST_RULE)).toBe('passed');
  });
});
