/** The live proxy: forwards every byte both ways, hands the judge a scrubbed, decoded copy. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { startTrafficProxy } from '../../src/passive/traffic/recording-proxy.ts';
import type { TrafficRecord } from '../../src/passive/traffic/record.ts';
import { clientIdOf } from '../../src/passive/traffic/scrub.ts';

const KEY = 'sk_test_traffic_proxy_key_42';
let upstream: Server;
let target: string;

beforeAll(async () => {
  // Echoes what it got: method, path, body length; gzips when asked to.
  upstream = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const json = Buffer.from(
      JSON.stringify({
        method: req.method,
        url: req.url,
        length: body.length,
        echo: body.length < 1000 ? body.toString() : undefined,
        auth: req.headers.authorization,
      }),
    );
    const gzip = req.url?.includes('gzip');
    res.writeHead(200, { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
    res.end(gzip ? gzipSync(json) : json);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => upstream?.close(r));
});

describe('the traffic proxy', () => {
  test('bytes pass unchanged both ways; the record is decoded, scrubbed and timed', async () => {
    const records: TrafficRecord[] = [];
    const proxy = await startTrafficProxy({
      target: `${target}/prefix`,
      onRecord: (r) => records.push(r),
      maxJudgedBytes: 64 * 1024,
    });
    try {
      const sent = JSON.stringify({ name: 'x', note: KEY });
      const res = await request(`${proxy.url}/v0/items/itm_1?gzip=1`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: sent,
      });
      const raw = Buffer.from(await res.body.arrayBuffer());
      expect(res.headers['content-encoding']).toBe('gzip');
      const got = JSON.parse(gunzipSync(raw).toString());
      expect(got).toEqual({
        method: 'PATCH',
        url: '/prefix/v0/items/itm_1?gzip=1',
        length: sent.length,
        echo: sent,
        auth: `Bearer ${KEY}`,
      });

      const big = Buffer.alloc(200 * 1024, 'a');
      const large = await request(`${proxy.url}/v0/customers/cus_1`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${KEY}` },
        body: big,
      });
      expect((await large.body.json()) as { length: number }).toMatchObject({ length: big.length });
      await proxy.close();

      expect(records).toHaveLength(2);
      const [first, second] = records;
      expect(first).toMatchObject({
        client: clientIdOf(KEY),
        method: 'PATCH',
        path: '/v0/items/itm_1?gzip=1',
        status: 200,
      });
      expect(JSON.parse(first.responseBody)).toMatchObject({ length: sent.length });
      expect(JSON.stringify(first)).not.toContain(KEY);
      expect(first.requestHeaders.authorization).toBe(`Bearer $${clientIdOf(KEY)}`);
      expect(Number.isInteger(first.startedMs) && first.durationMs >= 0).toBe(true);
      expect(second.requestBody).toBe(''); // over the judging cap: forwarded whole, not judged
    } finally {
      await proxy.close();
    }
  });

  test('a target that cannot be reached: 502 in the Error shape, and a record of the transport error', async () => {
    const records: TrafficRecord[] = [];
    const proxy = await startTrafficProxy({ target: 'http://127.0.0.1:9', onRecord: (r) => records.push(r) });
    try {
      const res = await request(`${proxy.url}/v0/customers/cus_1`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(res.statusCode).toBe(502);
      expect(await res.body.json()).toMatchObject({
        error: 'bad_gateway',
        message: expect.stringContaining('connection refused'),
      });
    } finally {
      await proxy.close();
    }
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ transportError: expect.stringContaining('connection refused') });
    expect(records[0].status).toBeUndefined();
  });
});
