import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from 'undici';
import { SETUP_REQUEST_HEADER } from '../../src/engine/http/client.ts';
import { startProxy, type Fault, type RunningProxy } from '../../src/faults/fault-proxy.ts';

let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '60' });
      res.end(
        JSON.stringify({
          object: 'echo',
          method: req.method,
          path: req.url,
          body: body ? JSON.parse(body) : null,
          ...(req.headers['x-conform-setup'] !== undefined ? { sawSetupMarker: true } : {}),
        }),
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => upstream.close(() => r()));
});

async function via(proxy: RunningProxy, path: string, body?: unknown, extra: Record<string, string> = {}) {
  const res = await request(`${proxy.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

describe('fault proxy', () => {
  test('without a fault it passes requests and responses through unchanged', async () => {
    const proxy = await startProxy({ upstream: upstreamUrl });
    try {
      const res = await via(proxy, '/v0/x?a=1', { n: 1 });
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(JSON.parse(res.text)).toEqual({ object: 'echo', method: 'POST', path: '/v0/x?a=1', body: { n: 1 } });
      expect(proxy.stats).toEqual({ exchanges: 1, applied: 0, appliedSetup: 0 });
    } finally {
      await proxy.close();
    }
  });

  test('a marked setup request counts apart, and the target never sees the marker', async () => {
    const fault: Fault = {
      name: 'wrong-object',
      onResponse(_req, res, ctx) {
        (res.json as { object: string }).object = 'nope';
        ctx.applied();
      },
    };
    const proxy = await startProxy({ upstream: upstreamUrl, fault });
    try {
      const setup = await via(proxy, '/v0/x', undefined, { [SETUP_REQUEST_HEADER]: '1' });
      expect(JSON.parse(setup.text)).toEqual({ object: 'nope', method: 'GET', path: '/v0/x', body: null });
      await via(proxy, '/v0/y');
      expect(proxy.stats).toEqual({ exchanges: 2, applied: 1, appliedSetup: 1 });
    } finally {
      await proxy.close();
    }
  });

  test('a response fault edits the JSON in place and headers are rewritten', async () => {
    const fault: Fault = {
      name: 'wrong-object',
      onResponse(_req, res, ctx) {
        (res.json as { object: string }).object = 'nope';
        res.headers['x-ratelimit-limit'] = '1';
        ctx.applied();
      },
    };
    const proxy = await startProxy({ upstream: upstreamUrl, fault });
    try {
      const res = await via(proxy, '/v0/x');
      expect(JSON.parse(res.text).object).toBe('nope');
      expect(res.headers['x-ratelimit-limit']).toBe('1');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      expect(proxy.stats.applied).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  test('a request fault can answer without reaching the target, or rewrite the request', async () => {
    const proxy = await startProxy({
      upstream: upstreamUrl,
      fault: {
        name: 'short-circuit',
        onRequest(req) {
          if (req.path.startsWith('/blocked'))
            return { status: 418, headers: { 'content-type': 'text/plain' }, body: Buffer.from('not json') };
          (req.json as { n: number }).n = 42;
        },
      },
    });
    try {
      const blocked = await via(proxy, '/blocked');
      expect(blocked.status).toBe(418);
      expect(blocked.text).toBe('not json');
      const rewritten = await via(proxy, '/v0/y', { n: 1 });
      expect(JSON.parse(rewritten.text).body).toEqual({ n: 42 });
    } finally {
      await proxy.close();
    }
  });

  test('raw bytes set by a fault win over the parsed JSON, and setFault swaps faults', async () => {
    const proxy = await startProxy({
      upstream: upstreamUrl,
      fault: { name: 'garbage', onResponse: (_q, res) => ({ ...res, body: Buffer.from('<html>') }) },
    });
    try {
      expect((await via(proxy, '/a')).text).toBe('<html>');
      proxy.setFault(undefined);
      expect(JSON.parse((await via(proxy, '/a')).text).object).toBe('echo');
      expect(proxy.stats.exchanges).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
