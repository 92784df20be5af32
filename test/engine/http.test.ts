import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import {
  HttpClient,
  replayCommand,
  retryDelayMs,
  parseRetryAfter,
  readRetryAfter,
} from '../../src/engine/http/index.ts';
import { clearSecrets, registerFixtureKey, registerSecret } from '../../src/engine/http/redact.ts';
import type { Exchange } from '../../src/engine/types.ts';
import { json, startFakeTarget, type FakeTarget } from './helpers/fake-target.ts';

const KEY = 'sk_test_http_0123456789abcdef';
let target: FakeTarget;
let hits429 = 0;

beforeAll(async () => {
  target = await startFakeTarget(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    switch (url.pathname) {
      case '/ok':
        return json(res, 200, {
          object: 'thing',
          echo: req.bodyText ? JSON.parse(req.bodyText) : null,
          auth: req.headers.authorization,
        });
      case '/hang':
        return; // never answers
      case '/slow-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"a":');
        return; // body never completes
      case '/reset':
        req.socket.destroy();
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ pad: 'x'.repeat(5000) }));
        return;
      case '/html':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>oops</html>');
        return;
      case '/empty':
        res.writeHead(204);
        res.end();
        return;
      case '/gzip':
      case '/deflate':
      case '/deflate-raw':
      case '/br':
      case '/gzip-br': {
        // Compressed whatever the request accepted (a server may: RFC 9110), status and headers as sent.
        const plain = Buffer.from(JSON.stringify({ object: 'thing', zeta: 1, alpha: [1, 2], pad: 'p'.repeat(300) }));
        const encode: Record<string, [string, Buffer]> = {
          '/gzip': ['gzip', gzipSync(plain)],
          '/deflate': ['deflate', deflateSync(plain)],
          '/deflate-raw': ['deflate', deflateRawSync(plain)],
          '/br': ['br', brotliCompressSync(plain)],
          '/gzip-br': ['gzip, br', brotliCompressSync(gzipSync(plain))],
        };
        const [coding, bytes] = encode[url.pathname];
        res.writeHead(Number(url.searchParams.get('status') ?? 200), {
          'content-type': 'application/json',
          'content-encoding': coding,
          'x-request-id': 'r1',
          vary: 'accept-encoding',
        });
        res.end(bytes);
        return;
      }
      case '/bomb':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(Buffer.from(`{"pad":"${'x'.repeat(100_000)}"}`)));
        return;
      case '/corrupt-gzip':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(Buffer.from('not gzip at all'));
        return;
      case '/zstd':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
        res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
        return;
      case '/chunked-close':
        // No content-length: chunked transfer in three writes, and the connection closed after the answer.
        res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
        res.write('{"b":1,');
        setTimeout(() => {
          res.write('"a":');
          setTimeout(() => res.end('[true]}'), 5);
        }, 5);
        return;
      case '/limited': {
        hits429 += 1;
        const free = Number(url.searchParams.get('after') ?? '99');
        if (hits429 > free) return json(res, 200, { object: 'ok' });
        const ra = url.searchParams.get('ra');
        return json(res, 429, { error: 'rate_limit_exceeded', message: 'slow down' }, ra ? { 'retry-after': ra } : {});
      }
      default:
        return json(res, 404, { message: 'not found', error: 'not_found' });
    }
  });
});
afterAll(() => target.close());
beforeEach(() => {
  hits429 = 0;
  clearSecrets();
});

function client(extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  return new HttpClient({
    baseUrl: target.baseUrl,
    apiKey: KEY,
    apiKeyLabel: 'CONFORM_API_KEY',
    timeoutMs: 400,
    maxBodyBytes: 1024,
    ...extra,
  });
}

describe('HttpClient', () => {
  test('sends JSON with the bearer key and parses the JSON answer', async () => {
    const ex = await client().post('/ok', { a: 1 }, { query: { q: 'x y' } });
    expect(ex.status).toBe(200);
    expect(ex.path).toBe('/ok?q=x+y');
    expect(ex.body).toMatchObject({ object: 'thing', echo: { a: 1 } });
    expect(target.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(ex.transportError).toBeUndefined();
    expect(ex.jsonError).toBeUndefined();
  });

  test('the exchange never holds the key: the echoed header is redacted too', async () => {
    const ex = await client().get('/ok');
    expect(JSON.stringify(ex)).not.toContain(KEY);
    expect(ex.requestHeaders.authorization).toBe('Bearer $CONFORM_API_KEY');
    expect((ex.body as { auth: string }).auth).toBe('Bearer $CONFORM_API_KEY');
  });

  test('key: null sends no Authorization; a raw header is sent verbatim', async () => {
    await client().get('/ok', { key: null });
    expect(target.requests.at(-1)!.headers.authorization).toBeUndefined();
    const ex = await client().get('/ok', { key: null, headers: { authorization: 'Bearer not-a-key' } });
    expect(target.requests.at(-1)!.headers.authorization).toBe('Bearer not-a-key');
    expect(ex.requestHeaders.authorization).toBe('Bearer not-a-key');
  });

  test('a hang becomes a transport error, not a crash', async () => {
    const ex = await client().get('/hang');
    expect(ex.status).toBeUndefined();
    expect(ex.transportError).toMatch(/timeout/);
  });

  test('a body that never completes becomes a transport error', async () => {
    const ex = await client().get('/slow-body');
    expect(ex.status).toBe(200);
    expect(ex.transportError).toMatch(/timeout|interrupted/);
  });

  test('a connection reset becomes a transport error', async () => {
    const ex = await client().get('/reset');
    expect(ex.transportError).toMatch(/reset|closed|socket/i);
  });

  test('an oversize body is cut and reported', async () => {
    const ex = await client().get('/big');
    expect(ex.transportError).toMatch(/exceeds the 1024-byte cap/);
    expect(ex.body).toBeUndefined();
  });

  test('a non-JSON body sets jsonError and keeps the raw text', async () => {
    const ex = await client().get('/html');
    expect(ex.jsonError).toMatch(/not valid JSON/);
    expect(ex.rawBody).toBe('<html>oops</html>');
  });

  test('an empty body is neither JSON nor an error', async () => {
    const ex = await client().delete('/empty');
    expect(ex.status).toBe(204);
    expect(ex.body).toBeUndefined();
    expect(ex.jsonError).toBeUndefined();
  });

  test('nothing listening becomes a transport error', async () => {
    const ex = await new HttpClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2000 }).get('/x');
    expect(ex.transportError).toMatch(/refused/);
  });

  test('accepts gzip, deflate and br, and decodes each, error statuses included; headers are kept as sent', async () => {
    for (const [path, coding] of [
      ['/gzip', 'gzip'],
      ['/deflate', 'deflate'],
      ['/deflate-raw', 'deflate'],
      ['/br', 'br'],
      ['/gzip-br', 'gzip, br'],
      ['/gzip?status=429', 'gzip'],
    ]) {
      const ex = await client({ maxBodyBytes: 4096, retry429: false }).get(path);
      expect([path, ex.transportError, ex.jsonError]).toEqual([path, undefined, undefined]);
      expect(ex.body).toMatchObject({ object: 'thing', zeta: 1, alpha: [1, 2] });
      expect(ex.responseHeaders['content-encoding']).toBe(coding);
      expect(ex.responseHeaders['x-request-id']).toBe('r1');
    }
    expect(target.requests.at(-1)!.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  test('a body that expands past the size cap, a corrupt one and an unaccepted coding are transport errors, not binary text', async () => {
    const bomb = await client().get('/bomb');
    expect(bomb.transportError).toBe('decoded response body exceeds the 1024-byte cap (content-encoding gzip)');
    const corrupt = await client().get('/corrupt-gzip');
    expect(corrupt.transportError).toMatch(/^response body is not valid gzip/);
    expect(corrupt.rawBody).toBe('(15 bytes in content-coding gzip, not decoded)');
    const zstd = await client().get('/zstd');
    expect(zstd.transportError).toBe(
      'response body in the content-coding "zstd", which the client did not accept (Accept-Encoding: gzip, deflate, br)',
    );
  });

  test('a chunked body on a connection the target closes is read whole, whatever the key order', async () => {
    for (let i = 0; i < 3; i++) {
      const ex = await client().get('/chunked-close');
      expect([ex.status, ex.transportError, ex.body]).toEqual([200, undefined, { b: 1, a: [true] }]);
      expect(ex.responseHeaders.connection).toBe('close');
    }
  });

  test('an https:// URL at a plain-HTTP port says in one line that the target does not speak TLS', async () => {
    const ex = await new HttpClient({ baseUrl: target.baseUrl.replace('http:', 'https:'), timeoutMs: 2000 }).get('/ok');
    expect(ex.transportError).toBe(
      'the target does not speak TLS (an https:// URL pointed at a plain-HTTP port? use http://, or the port that serves TLS)',
    );
  });

  test('attributes exchanges to their operation', async () => {
    const ex = await client({ resolveOperation: (m, p) => (m === 'GET' && p === '/ok' ? 'getOk' : undefined) }).get(
      '/ok?x=1',
    );
    expect(ex.operationId).toBe('getOk');
  });
});

describe('429 retry rule', () => {
  test('waits retry-after seconds and stops when admitted', async () => {
    const waits: number[] = [];
    const seen: Exchange[] = [];
    const ex = await client({ sleep: async (ms) => void waits.push(ms), onExchange: (e) => seen.push(e) }).get(
      '/limited',
      { query: { after: 2, ra: 3 } },
    );
    expect(ex.status).toBe(200);
    expect(waits).toEqual([3000, 3000]);
    expect(seen.map((e) => e.status)).toEqual([429, 429, 200]);
  });

  test('without retry-after: 1 s doubling, at most five attempts', async () => {
    const waits: number[] = [];
    const ex = await client({ sleep: async (ms) => void waits.push(ms) }).get('/limited');
    expect(ex.status).toBe(429);
    expect(waits).toEqual([1000, 2000, 4000, 8000]);
    expect(hits429).toBe(5);
  });

  test('never retries at once: every retry is preceded by a wait', async () => {
    const events: string[] = [];
    await client({
      sleep: async (ms) => void events.push(`wait ${ms}`),
      onExchange: (e) => events.push(String(e.status)),
    }).get('/limited', { query: { after: 1 } });
    expect(events).toEqual(['429', 'wait 1000', '200']);
  });

  test('rate-limit scenarios turn the retry off', async () => {
    const waits: number[] = [];
    const ex = await client({ retry429: false, sleep: async (ms) => void waits.push(ms) }).get('/limited', {
      query: { ra: 1 },
    });
    expect(ex.status).toBe(429);
    expect(waits).toEqual([]);
    expect(hits429).toBe(1);
  });

  test('delay arithmetic', () => {
    expect(retryDelayMs(1, '2', 60_000)).toBe(2000);
    expect(retryDelayMs(3, undefined, 60_000)).toBe(4000);
    expect(retryDelayMs(5, '1', 60_000)).toBeUndefined();
    expect(retryDelayMs(1, '999', 5000)).toBe(5000);
    expect(parseRetryAfter('abc')).toBeUndefined();
    expect(parseRetryAfter(' 7 ')).toBe(7);
  });

  test('retry-after as an HTTP-date is the wait until that date, from the response date (or now); a past date is no wait', () => {
    const date = 'Sun, 06 Nov 1994 08:49:37 GMT';
    expect(readRetryAfter('Sun, 06 Nov 1994 08:49:40 GMT', date)).toEqual({ seconds: 3, form: 'http-date' });
    expect(readRetryAfter('Sunday, 06-Nov-94 08:49:39 GMT', date)?.seconds).toBe(2);
    expect(readRetryAfter('Sun Nov  6 08:49:38 1994', date)?.seconds).toBe(1);
    expect(readRetryAfter('Sun, 06 Nov 1994 08:49:40 GMT', undefined, Date.parse(date) + 1000)?.seconds).toBe(2);
    expect(readRetryAfter('Sun, 06 Nov 1994 08:00:00 GMT', date)?.seconds).toBe(0);
    expect(readRetryAfter('1994-11-06T08:49:40Z', date)).toBeUndefined();
    expect(retryDelayMs(1, 'Sun, 06 Nov 1994 08:49:42 GMT', 60_000, date)).toBe(5000);
  });

  test('a 429 whose retry-after is an HTTP-date is waited out as that many seconds', async () => {
    const waits: number[] = [];
    const server = createServer((_req, res) => {
      const now = new Date();
      res.writeHead(429, {
        'content-type': 'application/json',
        date: now.toUTCString(),
        'retry-after': new Date(now.getTime() + 4000).toUTCString(),
      });
      res.end('{"error":"rate_limit_exceeded","message":"slow down"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const ex = await new HttpClient({
        baseUrl: `http://127.0.0.1:${port}`,
        sleep: async (ms) => void waits.push(ms),
      }).get('/x');
      expect(ex.status).toBe(429);
      expect(waits).toEqual([4000, 4000, 4000, 4000]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('replay commands', () => {
  test('use $CONFORM_API_KEY and never the key', () => {
    registerSecret(KEY, 'CONFORM_API_KEY');
    const cmd = replayCommand({
      method: 'PATCH',
      url: 'http://h/v0/webhooks?merchantId=org_1',
      requestHeaders: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      requestBody: { enabled: true, note: "it's" },
    });
    expect(cmd).not.toContain(KEY);
    expect(cmd).toContain('"Authorization: Bearer $CONFORM_API_KEY"');
    expect(cmd).toContain(`--data-raw '{"enabled":true,"note":"it'\\''s"}'`);
  });

  test('a key a fixture made is read from a variable named after the fixture, which says so when unset', () => {
    registerSecret('sk_fixture_key_123456');
    registerFixtureKey('sk_fixture_key_123456', 'secondKeySameMerchant');
    registerSecret('sk_other_key_7654321');
    const cmd = (key: string) =>
      replayCommand({ method: 'GET', url: 'http://h/x', requestHeaders: { authorization: `Bearer ${key}` } });
    expect(cmd('sk_fixture_key_123456')).toContain(
      '"Authorization: Bearer ${CONFORM_KEY_SECOND:?key made by fixture secondKeySameMerchant}"',
    );
    // A key nothing named still gets a variable of its own, never `***`.
    expect(cmd('sk_other_key_7654321')).toMatch(/"Authorization: Bearer \$\{CONFORM_KEY_\d+:\?a key the run created/);
    for (const key of ['sk_fixture_key_123456', 'sk_other_key_7654321']) expect(cmd(key)).not.toContain(key);
    // Recorded traffic: the client's id, a hash of its key, names the variable.
    expect(cmd('$CLIENT_KEY_0A1B2C3D4E5F')).toContain(
      '"Authorization: Bearer ${CLIENT_KEY_0A1B2C3D4E5F:?the API key of client CLIENT_KEY_0A1B2C3D4E5F (named by a hash of it)}"',
    );
  });
});
