import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from 'undici';
import { startProxy, type RunningProxy } from '../../src/faults/fault-proxy.ts';
import { documentedOnly } from '../../src/faults/documented-only.ts';
import { loadSpec } from '../../src/contract/index.ts';

let upstream: Server;
let proxy: RunningProxy;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'echo', method: req.method, path: req.url }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  proxy = await startProxy({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    fault: documentedOnly(await loadSpec()),
  });
});

afterAll(async () => {
  await proxy?.close();
  await new Promise<void>((r) => upstream.close(() => r()));
});

async function send(method: string, path: string) {
  const res = await request(`${proxy.url}${path}`, {
    method: method as 'GET',
    headers: { 'content-type': 'application/json' },
    body: method === 'GET' ? undefined : '{}',
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

describe('documented endpoints only', () => {
  test.each([
    ['POST', '/v0/customers'],
    ['POST', '/v0/apiKeys?name=x'],
    ['GET', '/v0/subscriptions/sub_1'],
    ['POST', '/v0/subscriptions/sub_1/cancel'],
    ['GET', '/v0/items/itm_1'],
    ['DELETE', '/v0/prices/price_1'],
    ['POST', '/v0/testClocks/clk_1/advance'],
  ])('the extension %s %s answers 404 in Error shape, never reaching the server', async (method, path) => {
    const res = await send(method, path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: `No route for ${method} ${path.split('?')[0]}` });
  });

  test.each([
    ['GET', '/v0/customers'],
    ['GET', '/v0/customers/cus_1'],
    ['PATCH', '/v0/subscriptions/sub_1'],
    ['POST', '/v0/subscriptions/sub_1/versionMigration'],
    ['PATCH', '/v0/items/itm_1'],
    ['GET', '/v0/prices/price_1'],
    ['POST', '/v0/merchants'],
    ['GET', '/v0/no/such/route'],
  ])('the documented %s %s (and anything the spec does not name) passes through', async (method, path) => {
    const before = proxy.stats.applied;
    const res = await send(method, path);
    expect(res).toEqual({ status: 200, body: { object: 'echo', method, path } });
    expect(proxy.stats.applied).toBe(before);
  });
});
