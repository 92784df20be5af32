import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../../src/reference/index.ts';
import { runConform, spawnServe } from './child.ts';
import { DATABASE_URL, isolatedPgUrl, PG_SKIP } from './drivers.ts';

describe('conform serve', () => {
  it('prints help and exits 0', async () => {
    const r = await runConform(['serve', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--rate-limit');
    expect(r.stdout).toContain('sk_test_conform_reference');
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--port', 'abc'], /--port 'abc'/],
    [['--database', 'mysql://x'], /unsupported database/],
    [['--database', 'postgres://u:pw@127.0.0.1:1/x'], /cannot reach PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/],
    [['--rate-limit', 'listCustomers=59'], /below the published limit of 60/],
    [['--rate-limit', 'nonsense'], /expected operationId=N/],
  ])('exits 2 with one clear line for %j', async (args, message) => {
    const r = await runConform(['serve', '--port', '0', ...args]);
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n').filter((l) => l.trim() && !l.includes('npm warn'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(r.stderr).not.toContain('pw@');
  });

  it('prints one line with the base URL and merchant, never the key, and stops on SIGTERM', async () => {
    const key = `sk_test_${randomBytes(8).toString('hex')}`;
    const child = await spawnServe([], { CONFORM_API_KEY: key });
    try {
      expect(child.output().trim().split('\n')).toHaveLength(1);
      expect(child.output()).not.toContain(key);
      const r = await request(`${child.baseUrl}/v0/merchants/${child.merchantId}`, { headers: { authorization: `Bearer ${key}` } });
      expect(r.statusCode).toBe(200);
      await r.body.dump();
    } finally {
      child.proc.kill('SIGTERM');
    }
    expect(await child.exited).toBe(0);
  });

  it('stops on SIGINT too', async () => {
    const child = await spawnServe([]);
    child.proc.kill('SIGINT');
    expect(await child.exited).toBe(0);
  });
});

describe(`several servers on one PostgreSQL${PG_SKIP}`, () => {
  it.skipIf(!DATABASE_URL)('share rate-limit buckets: exactly `limit` of 200 requests pass across two servers', async () => {
    const { url, drop } = await isolatedPgUrl();
    const key = `sk_test_${randomBytes(8).toString('hex')}`;
    // Two servers starting at once: migrations and bootstrap must not collide. A frozen
    // clock keeps the whole burst in one window however slow the machine is.
    const now = () => new Date('2030-01-01T00:00:00Z');
    const [a, b] = await Promise.all([startReferenceServer({ port: 0, database: url, apiKey: key, now }), startReferenceServer({ port: 0, database: url, apiKey: key, now })]);
    try {
      expect(a.merchantId).toBe(b.merchantId);
      const statuses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          request(`${(i % 2 ? a : b).baseUrl}/v0/customers`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => {
            await r.body.dump();
            return r.statusCode;
          }),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(60);
      expect(statuses.filter((s) => s === 429)).toHaveLength(140);
      // a key revoked through one server is refused by the other
      const created = await request(`${a.baseUrl}/v0/apiKeys`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
      const k = (await created.body.json()) as any;
      const del = await request(`${a.baseUrl}/v0/apiKeys/${k.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
      expect(del.statusCode).toBe(204);
      await del.body.dump();
      const after = await request(`${b.baseUrl}/v0/merchants/${b.merchantId}`, { headers: { authorization: `Bearer ${k.secret}` } });
      expect(after.statusCode).toBe(401);
      await after.body.dump();
    } finally {
      await Promise.all([a.close(), b.close()]);
      await drop();
    }
  });
});
