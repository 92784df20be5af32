import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../../../src/reference/index.ts';
import { startTestServer, type TestServer } from './helpers.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

describe('authentication', () => {
  it('bootstraps the sandbox merchant with the default key', async () => {
    expect(s.apiKey).toBe(DEFAULT_API_KEY);
    expect(s.merchantId).toMatch(/^org_[a-zA-Z0-9]+$/);
    const r = await s.call('GET', `/v0/merchants/${s.merchantId}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: s.merchantId, object: 'merchant' });
  });

  it.each([
    ['missing', null, undefined],
    ['malformed', null, { authorization: 'Basic abc' }],
    ['empty bearer', null, { authorization: 'Bearer ' }],
    ['unknown', 'sk_test_unknown_key_123', undefined],
  ])('answers 401 in the Error shape for a %s key, without rate headers', async (_label, key, headers) => {
    const r = await s.call('GET', '/v0/customers', { key: key as string | null, headers });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
    for (const h of RATE_HEADERS) expect(r.headers[h]).toBeUndefined();
  });

  it('creates several keys per merchant and revokes one (then 401)', async () => {
    const a = await s.call('POST', '/v0/apiKeys', { body: { name: 'a' } });
    const b = await s.call('POST', '/v0/apiKeys', { body: { name: 'b' } });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ object: 'api_key', merchantId: s.merchantId, scope: 'full', name: 'a' });
    expect(a.body.secret).toMatch(/^sk_test_[a-zA-Z0-9]+$/);
    expect(a.body.id).toMatch(/^key_[a-zA-Z0-9]+$/);
    expect((await s.call('GET', `/v0/merchants/${s.merchantId}`, { key: a.body.secret })).status).toBe(200);
    const del = await s.call('DELETE', `/v0/apiKeys/${a.body.id}`);
    expect(del.status).toBe(204);
    const { rows } = await s.db.query<{ revoked_at: unknown }>('SELECT revoked_at FROM api_keys WHERE id = $1', [
      a.body.id,
    ]);
    expect(rows[0].revoked_at).not.toBeNull();
    const after = await s.call('GET', `/v0/merchants/${s.merchantId}`, { key: a.body.secret });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('unauthorized');
    // the other key still works
    expect((await s.call('GET', `/v0/merchants/${s.merchantId}`, { key: b.body.secret })).status).toBe(200);
  });

  it('stores only a digest of the secret', async () => {
    const k = await s.call('POST', '/v0/apiKeys', { body: {} });
    const { rows } = await s.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [k.body.id]);
    expect(JSON.stringify(rows[0])).not.toContain(k.body.secret);
    expect(rows[0].secret_sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('authorization', () => {
  it('gives a read_only key 403 on writes and 200 on reads', async () => {
    const k = await s.call('POST', '/v0/apiKeys', { body: { scope: 'read_only' } });
    expect(k.body.scope).toBe('read_only');
    const w = await s.call('POST', '/v0/merchants', { key: k.body.secret, body: { name: 'x' } });
    expect(w.status).toBe(403);
    expect(w.body).toEqual({ error: 'forbidden', message: expect.any(String) });
    expect((await s.call('GET', `/v0/merchants/${s.merchantId}`, { key: k.body.secret })).status).toBe(200);
  });

  it('lets a merchant mint a key for a merchant it created, not for a stranger', async () => {
    const child = await s.call('POST', '/v0/merchants', { body: { name: 'child' } });
    expect(child.status).toBe(201);
    const ck = await s.call('POST', '/v0/apiKeys', { body: { merchantId: child.body.id } });
    expect(ck.status).toBe(201);
    expect(ck.body.merchantId).toBe(child.body.id);
    // the child's key sees its own merchant, and not its parent
    expect((await s.call('GET', `/v0/merchants/${child.body.id}`, { key: ck.body.secret })).status).toBe(200);
    expect((await s.call('GET', `/v0/merchants/${s.merchantId}`, { key: ck.body.secret })).status).toBe(404);
    // the child may not mint keys for its parent
    const up = await s.call('POST', '/v0/apiKeys', { key: ck.body.secret, body: { merchantId: s.merchantId } });
    expect(up.status).toBe(403);
    expect(up.body.error).toBe('forbidden');
    // nor revoke the parent's keys (404: not visible)
    const parentKey = await s.call('POST', '/v0/apiKeys', { body: {} });
    expect((await s.call('DELETE', `/v0/apiKeys/${parentKey.body.id}`, { key: ck.body.secret })).status).toBe(404);
  });
});

describe('revocation on a fresh key right after use', () => {
  it('refuses a key at once after it was revoked, even if it was just used', async () => {
    const k = await s.call('POST', '/v0/apiKeys', { body: {} });
    for (let i = 0; i < 3; i++)
      expect((await s.call('GET', `/v0/merchants/${s.merchantId}`, { key: k.body.secret })).status).toBe(200);
    expect((await s.call('DELETE', `/v0/apiKeys/${k.body.id}`)).status).toBe(204);
    expect((await s.call('GET', `/v0/merchants/${s.merchantId}`, { key: k.body.secret })).status).toBe(401);
  });
});

describe('route declarations', () => {
  it('refuses a route without an operationId at build time', async () => {
    const { buildApp } = await import('../../../src/reference/server.ts');
    const { loadContract } = await import('../../../src/reference/http/contract.ts');
    const rogue = { name: 'rogue', register: async (app: any) => app.get('/v0/rogue', async () => ({ ok: true })) };
    await expect(buildApp({ db: s.db, contract: await loadContract(), plugins: [rogue] })).rejects.toThrow(
      /declares no config.operationId/,
    );
  });
});

describe('the operator log of API keys (conform serve --log)', () => {
  it('names each key created, revoked and refused by its id and when, never its secret', async () => {
    const lines: Array<Record<string, any>> = [];
    const stream = { write: (line: string) => void lines.push(JSON.parse(line)) };
    const logged = await startTestServer({ logger: { level: 'info', stream } });
    try {
      const k = await logged.call('POST', '/v0/apiKeys', { body: { name: 'traced' } });
      expect((await logged.call('GET', `/v0/merchants/${logged.merchantId}`, { key: k.body.secret })).status).toBe(200);
      expect((await logged.call('DELETE', `/v0/apiKeys/${k.body.id}`)).status).toBe(204);
      expect((await logged.call('GET', '/v0/customers', { key: k.body.secret })).status).toBe(401);
      expect((await logged.call('GET', '/v0/customers', { key: 'sk_test_never_issued_0000' })).status).toBe(401);
      const byMsg = (msg: string) => lines.filter((l) => l.msg === msg);
      expect(byMsg('api key created').map((l) => l.apiKey)).toEqual([
        { keyId: k.body.id, name: 'traced', merchantId: logged.merchantId, scope: 'full' },
      ]);
      const revoked = byMsg('api key revoked').map((l) => l.apiKey);
      expect(revoked).toEqual([{ keyId: k.body.id, name: 'traced', revokedAt: expect.any(String) }]);
      expect(byMsg('api key refused').map((l) => l.refusedKey)).toEqual([
        { keyId: k.body.id, revokedAt: revoked[0].revokedAt },
        'unknown',
      ]);
      // Each line comes with the request that caused it, so a refusal can be traced to the revoking request.
      for (const l of [...byMsg('api key revoked'), ...byMsg('api key refused')]) expect(l.reqId).toMatch(/^req_/);
      expect(JSON.stringify(lines)).not.toContain(k.body.secret);
      expect(JSON.stringify(lines)).not.toContain('sk_test_never_issued_0000');
    } finally {
      await logged.close();
    }
  });
});
