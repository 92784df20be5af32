import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { spawnServe } from './child.ts';
import { DATABASE_URL, isolatedPgUrl, PG_SKIP } from './drivers.ts';

async function call(baseUrl: string, key: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const r = await request(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.statusCode, body: (await r.body.json()) as any };
}

/** Writes through a child server, kills it with SIGKILL, restarts it, and reads everything back. */
async function killAndRestart(database: string) {
  const key = `sk_test_${randomBytes(12).toString('hex')}`;
  const first = await spawnServe(['--database', database, '--api-key', key]);
  expect(first.output()).not.toContain(key);
  const written: Array<{ id: string; name: string }> = [];
  let lastKey = '';
  try {
    for (let i = 0; i < 20; i++) {
      const r = await call(first.baseUrl, key, 'POST', '/v0/merchants', { name: `durable ${i}` });
      expect(r.status).toBe(201);
      written.push({ id: r.body.id, name: r.body.name });
    }
    const k = await call(first.baseUrl, key, 'POST', '/v0/apiKeys', { name: 'durable' });
    expect(k.status).toBe(201);
    lastKey = k.body.secret;
  } finally {
    first.proc.kill('SIGKILL');
  }
  expect(await first.exited).toBe('SIGKILL');

  const second = await spawnServe(['--database', database, '--api-key', key]);
  try {
    expect(second.merchantId).toBe(first.merchantId); // bootstrap is idempotent
    for (const w of written) {
      const r = await call(second.baseUrl, key, 'GET', `/v0/merchants/${w.id}`);
      expect(r.status).toBe(200);
      expect(r.body.name).toBe(w.name);
    }
    // the key created just before the kill still authenticates
    expect((await call(second.baseUrl, lastKey, 'GET', `/v0/merchants/${first.merchantId}`)).status).toBe(200);
  } finally {
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }
}

describe('durability: acknowledged writes survive kill -9 and restart', () => {
  it('with PGlite in a directory (file:)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conform-durable-'));
    try {
      await killAndRestart(`file:${dir}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!DATABASE_URL)(`with PostgreSQL${PG_SKIP}`, async () => {
    const { url, drop } = await isolatedPgUrl();
    try {
      await killAndRestart(url);
    } finally {
      await drop();
    }
  });
});
