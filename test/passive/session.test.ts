/** startPassiveProxy's ends: a HAR file that fails while recording loses the recording, not the judgement. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startPassiveProxy } from '../../src/passive/session.ts';

let upstream: Server;
let target: string;
let dir: string;

beforeAll(async () => {
  upstream = createServer((_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'unauthorized', message: 'no key' }));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'conform-session-'));
});
afterAll(async () => {
  await new Promise((r) => upstream?.close(r));
  await rm(dir, { recursive: true, force: true });
});

describe('the passive proxy session', () => {
  test('a HAR file that cannot be opened stops the start with the reason', async () => {
    await expect(startPassiveProxy({ target, harPath: join(dir, 'missing', 'x.har') })).rejects.toThrow(/ENOENT/);
  });

  test('a HAR file that fails while recording: the judgement comes back, with an engine error naming the file', async () => {
    // /dev/full opens, and every write to it fails (ENOSPC): a disk that filled up.
    const proxy = await startPassiveProxy({ target, harPath: '/dev/full' });
    const res = await request(`${proxy.url}/v0/customers`);
    await res.body.text();
    const outcome = await proxy.stop();
    expect(outcome.exchanges).toBe(1);
    expect(outcome.sources.some((s) => Object.keys(s.judged).length > 0)).toBe(true);
    expect(outcome.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^the HAR file \/dev\/full could not be written: .*ENOSPC/),
    ]);
  });
});
