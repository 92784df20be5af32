import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { startReferenceServer } from '../../../src/reference/index.ts';
import { procState, runConform, spawnServe, spawnServeUnreaped, type Child } from './child.ts';
import { DATABASE_URL, isolatedPgUrl, PG_SKIP } from './drivers.ts';

describe('conform serve', () => {
  it('prints help and exits 0', async () => {
    const r = await runConform(['serve', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--rate-limit');
    expect(r.stdout).toContain('sk_test_conform_reference');
    expect(r.stdout).toMatch(/--api-key <key> [\s\S]*prefer the variable[\s\S]*a command line is visible/);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--port', 'abc'], /--port 'abc'/],
    [['--database', 'mysql://x'], /unsupported database/],
    [
      ['--database', 'postgres://u:pw@127.0.0.1:1/x'],
      /cannot reach PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/,
    ],
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
      const r = await request(`${child.baseUrl}/v0/merchants/${child.merchantId}`, {
        headers: { authorization: `Bearer ${key}` },
      });
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

describe('one owner per data directory (file:)', () => {
  it('a second server on the directory exits 2 naming it and its holder; a lock left by kill -9 does not block a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conform-owner-'));
    try {
      const first = await spawnServe(['--database', `file:${dir}`]);
      try {
        const second = await runConform(['serve', '--port', '0', '--database', `file:${dir}`]);
        expect(second.code).toBe(2);
        const lines = second.stderr.split('\n').filter((l) => l.trim() && !l.includes('npm warn'));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`database directory ${dir} is in use by process ${first.proc.pid}`);
        // The first server still serves, with its data.
        const r = await request(`${first.baseUrl}/v0/merchants/${first.merchantId}`, {
          headers: { authorization: 'Bearer sk_test_conform_reference' },
        });
        expect(r.statusCode).toBe(200);
        await r.body.dump();
      } finally {
        first.proc.kill('SIGKILL');
      }
      expect(await first.exited).toBe('SIGKILL');
      expect(await readFile(join(dir, 'conform.lock'), 'utf8')).toContain(`"pid":${first.proc.pid}`);
      const restarted = await spawnServe(['--database', `file:${dir}`]);
      expect(restarted.merchantId).toBe(first.merchantId);
      restarted.proc.kill('SIGTERM');
      expect(await restarted.exited).toBe(0);
      // A clean stop leaves no lock behind.
      await expect(readFile(join(dir, 'conform.lock'), 'utf8')).rejects.toThrow(/ENOENT/);
      // A lock naming a pid that no process has is stale too.
      await writeFile(
        join(dir, 'conform.lock'),
        JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), startedAt: '2020-01-01T00:00:00.000Z' }),
      );
      const again = await spawnServe(['--database', `file:${dir}`]);
      again.proc.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('one owner per data directory: restarts after a crash', () => {
  const HAS_PROC = existsSync('/proc/self/stat');

  it.skipIf(!HAS_PROC)(
    'a killed server its parent has not reaped yet (a zombie) does not block the restart',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'conform-zombie-'));
      const first = await spawnServeUnreaped(['--database', `file:${dir}`]);
      try {
        process.kill(first.serverPid, 'SIGKILL');
        await vi.waitFor(() => expect(procState(first.serverPid)).toBe('Z'), { timeout: 10_000 });
        expect(await readFile(join(dir, 'conform.lock'), 'utf8')).toContain(`"pid":${first.serverPid}`);
        const restarted = await spawnServe(['--database', `file:${dir}`]);
        // Still a zombie when the restart took the directory over.
        expect(procState(first.serverPid)).toBe('Z');
        expect(restarted.merchantId).toBe(first.merchantId);
        restarted.proc.kill('SIGTERM');
        expect(await restarted.exited).toBe(0);
      } finally {
        await first.reap();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('three servers started at once: exactly one listens, the others exit 2 naming it; the same after it is killed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conform-three-'));
    const started: Child[] = [];
    try {
      let merchantId: string | undefined;
      for (const round of ['empty directory', 'after kill -9']) {
        const outcomes = await Promise.all(
          [0, 1, 2].map(() =>
            spawnServe(['--database', `file:${dir}`]).then(
              (child) => {
                started.push(child);
                return child;
              },
              (err: Error) => err.message,
            ),
          ),
        );
        const listening = outcomes.filter((o): o is Child => typeof o !== 'string');
        expect(listening, round).toHaveLength(1);
        const [winner] = listening;
        merchantId ??= winner.merchantId;
        expect(winner.merchantId).toBe(merchantId);
        for (const refused of outcomes.filter((o): o is string => typeof o === 'string')) {
          expect(refused).toMatch(/exited \(2\) before listening/);
          const lines = refused
            .split('\n')
            .slice(1)
            .filter((l) => l.trim() && !l.includes('npm warn'));
          expect(lines).toHaveLength(1);
          expect(lines[0]).toContain(`database directory ${dir} is in use by process ${winner.proc.pid}`);
        }
        winner.proc.kill('SIGKILL');
        expect(await winner.exited).toBe('SIGKILL');
      }
    } finally {
      started.forEach((c) => c.proc.kill('SIGKILL'));
      await Promise.all(started.map((c) => c.exited));
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000); // six server starts, three at a time: slow on a loaded 2-core machine
});

describe(`several servers on one PostgreSQL${PG_SKIP}`, () => {
  it.skipIf(!DATABASE_URL)(
    'share rate-limit buckets: exactly `limit` of 200 requests pass across two servers',
    async () => {
      const { url, drop } = await isolatedPgUrl();
      const key = `sk_test_${randomBytes(8).toString('hex')}`;
      // Two servers starting at once: migrations and bootstrap must not collide. A frozen
      // clock keeps the whole burst in one window however slow the machine is.
      const now = () => new Date('2030-01-01T00:00:00Z');
      const [a, b] = await Promise.all([
        startReferenceServer({ port: 0, database: url, apiKey: key, now }),
        startReferenceServer({ port: 0, database: url, apiKey: key, now }),
      ]);
      try {
        expect(a.merchantId).toBe(b.merchantId);
        const statuses = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            request(`${(i % 2 ? a : b).baseUrl}/v0/customers`, { headers: { authorization: `Bearer ${key}` } }).then(
              async (r) => {
                await r.body.dump();
                return r.statusCode;
              },
            ),
          ),
        );
        expect(statuses.filter((s) => s === 200)).toHaveLength(60);
        expect(statuses.filter((s) => s === 429)).toHaveLength(140);
        // a key revoked through one server is refused by the other
        const created = await request(`${a.baseUrl}/v0/apiKeys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: '{}',
        });
        const k = (await created.body.json()) as any;
        const del = await request(`${a.baseUrl}/v0/apiKeys/${k.id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${key}` },
        });
        expect(del.statusCode).toBe(204);
        await del.body.dump();
        const after = await request(`${b.baseUrl}/v0/merchants/${b.merchantId}`, {
          headers: { authorization: `Bearer ${k.secret}` },
        });
        expect(after.statusCode).toBe(401);
        await after.body.dump();
      } finally {
        await Promise.all([a.close(), b.close()]);
        await drop();
      }
    },
  );
});
