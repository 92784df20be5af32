/**
 * Resources the server holds: slow clients are cut off (timeouts, one budget for bodies
 * being received), expired rate-limit buckets are swept, every 5xx is one log line with
 * the request id and never the key. (Memory figures: `npm run bench:slow-clients`.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourcePlugin } from '../../../src/reference/http/plugin.ts';
import { loadContract } from '../../../src/reference/http/contract.ts';
import { buildApp } from '../../../src/reference/server.ts';
import { BucketStore, MemoryBucketStore } from '../../../src/reference/ratelimit/store.ts';
import { startTestServer, type TestServer } from './helpers.ts';

/** Polls until `probe` is true (bounded: at most `ms`). */
async function eventually(probe: () => Promise<boolean> | boolean, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return probe();
}

/** Opens a connection that sends headers and part of a body, then stalls; resolves with what the server answered once it closed. */
function halfSentBody(
  port: number,
  key: string,
  declared: number,
  sent: number,
): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /v0/merchants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      socket.write(`{"name":"${'x'.repeat(Math.max(0, sent - 10))}`);
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      const closed = new Promise<string>((done) => socket.on('close', () => done(answer)));
      resolve({ socket, closed });
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

describe('slow clients', () => {
  let s: TestServer;
  const busy: string[] = [];
  beforeAll(async () => {
    s = await startTestServer({
      transport: { requestTimeoutMs: 1500, headersTimeoutMs: 1000, bodyBytesInFlight: 64 * 1024 },
      errorLog: (l) => busy.push(l),
    });
  });
  afterAll(async () => s?.close());

  it('a body that never finishes is cut off, and bodies in flight share one budget (503 past it)', async () => {
    const port = Number(new URL(s.baseUrl).port);
    // 40 clients each declare 100 kB and send 8 kB: 320 kB would be held, the budget is 64 kB.
    const clients = await Promise.all(Array.from({ length: 40 }, () => halfSentBody(port, s.apiKey, 100_000, 8_000)));
    const answers = await Promise.all(clients.map((c) => c.closed));
    const statuses = answers.map((a) => /^HTTP\/1\.1 (\d{3})/.exec(a)?.[1] ?? 'closed');
    // Every connection was answered and closed by the server: 503 past the budget (64 kB
    // hold 8 of these bodies), 408 for those whose body never came in time.
    expect(statuses.filter((st) => st === '408').length, statuses.join(',')).toBeGreaterThan(0);
    expect(statuses.filter((st) => st === '503').length, statuses.join(',')).toBeGreaterThan(0);
    expect(
      statuses.every((st) => st === '503' || st === '408'),
      statuses.join(','),
    ).toBe(true);
    expect(answers.find((a) => a.startsWith('HTTP/1.1 503'))).toMatch(/retry-after: 1/i);
    expect(busy.filter((l) => l.includes(' 503 POST /v0/merchants ')).length).toBe(
      statuses.filter((st) => st === '503').length,
    );
    // The budget is free again: a whole request goes through.
    const ok = await s.call('POST', '/v0/merchants', { body: { name: 'after the slow clients' } });
    expect(ok.status).toBe(201);
  });
});

describe('slow clients beside others', () => {
  it('half-sent bodies are held until the request timeout, then answered 408 and closed; meanwhile other clients are answered', async () => {
    // A timeout long enough that the other clients' answers surely come while the slow ones are held.
    const s = await startTestServer({ transport: { requestTimeoutMs: 4000, headersTimeoutMs: 4000 } });
    try {
      const port = Number(new URL(s.baseUrl).port);
      const clients = await Promise.all(Array.from({ length: 30 }, () => halfSentBody(port, s.apiKey, 100_000, 1_000)));
      let closed = 0;
      for (const c of clients) void c.closed.then(() => closed++);
      const reads = await Promise.all(
        Array.from({ length: 5 }, () =>
          request(`${s.baseUrl}/v0/merchants/${s.merchantId}`, { headers: { authorization: `Bearer ${s.apiKey}` } }),
        ),
      );
      const openWhileRead = clients.length - closed;
      for (const r of reads) {
        expect(r.statusCode).toBe(200);
        expect((await r.body.json()) as { id: string }).toMatchObject({ id: s.merchantId });
      }
      expect(openWhileRead).toBe(30);
      const answers = await Promise.all(clients.map((c) => c.closed));
      expect(answers.map((a) => /^HTTP\/1\.1 (\d{3})/.exec(a)?.[1] ?? 'closed')).toEqual(Array(30).fill('408'));
      const after = await s.call('POST', '/v0/customers', { body: { name: 'after the slow clients' } });
      expect(after.status).toBe(201);
    } finally {
      await s.close();
    }
  });
});

describe('rate-limit buckets', () => {
  it('are swept once their window ended (every probed subscription id leaves one)', async () => {
    let t = Date.parse('2030-01-01T00:00:00Z');
    // A file database: the buckets are rows (an in-memory database keeps them in memory).
    const dir = mkdtempSync(join(tmpdir(), 'conform-buckets-'));
    const s = await startTestServer({ now: () => new Date(t), sweepEveryMs: 50, database: `file:${dir}` });
    try {
      for (let i = 0; i < 30; i++)
        expect((await s.call('POST', `/v0/subscriptions/sub_probe${i}/portal`)).status).toBe(404);
      const count = async () =>
        Number((await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM rate_buckets')).rows[0].n);
      expect(await count()).toBe(30);
      t += 2_000; // past the 1 s window of the portal limit
      expect(await eventually(async () => (await count()) === 0)).toBe(true);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('in memory admit, refuse and reset exactly as the table does, and are swept alike', async () => {
    let t = Date.parse('2030-01-01T00:00:00Z');
    const s = await startTestServer({ database: 'memory' });
    try {
      const table = new BucketStore(s.db, () => t);
      const memory = new MemoryBucketStore(() => t);
      // Two buckets, limit 3 per 2 s: hits within a window, past the limit, at and after its end.
      for (const [advance, key] of [
        [0, 'a'],
        [100, 'a'],
        [0, 'b'],
        [400, 'a'],
        [0, 'a'],
        [499, 'a'],
        [1000, 'a'],
        [1, 'a'],
        [1, 'b'],
        [2500, 'b'],
        [0, 'a'],
      ] as const) {
        t += advance;
        expect(await memory.hit(key, 3, 2), `${key} at +${advance} ms`).toEqual(await table.hit(key, 3, 2));
      }
      t += 5_000;
      expect(await memory.sweep()).toBe(await table.sweep());
    } finally {
      await s.close();
    }
  });
});

describe('5xx answers', () => {
  it('are logged as one line with the request id, never the key', async () => {
    const s = await startTestServer({});
    const lines: string[] = [];
    const boom: ResourcePlugin = {
      name: 'boom',
      async register(app) {
        app.get('/v0/boom', { config: { operationId: 'getBoom', schemas: {} } }, async (request) => {
          throw new Error(`broken while handling ${request.headers.authorization}\nsecond line`);
        });
      },
    };
    const app = await buildApp({
      db: s.db,
      contract: await loadContract(),
      plugins: [boom],
      errorLog: (l) => lines.push(l),
    });
    try {
      const r = await app.inject({
        method: 'GET',
        url: '/v0/boom?x=1',
        headers: { authorization: `Bearer ${s.apiKey}` },
      });
      expect(r.statusCode).toBe(500);
      expect(r.json()).toEqual({ error: 'internal_error', message: 'Internal server error' });
      const id = r.headers['x-request-id'] as string;
      expect(id).toMatch(/^req_[a-zA-Z0-9]{16}$/);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(
        `500 GET /v0/boom request ${id}: Error: broken while handling Bearer [redacted] second line`,
      );
      expect(lines[0]).not.toContain(s.apiKey);
      expect(lines[0]).not.toContain('\n');
      // A 4xx is not logged.
      await app.inject({ method: 'GET', url: '/v0/boom' });
      expect(lines).toHaveLength(1);
    } finally {
      await app.close();
      await s.close();
    }
  });
});
