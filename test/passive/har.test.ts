/** HAR files: read one entry at a time, written by the proxy, keys never kept. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readHarEntries } from '../../src/passive/traffic/har-read.ts';
import { HarError, recordOfEntry, type HarEntry } from '../../src/passive/traffic/har-entry.ts';
import { HarWriter } from '../../src/passive/traffic/har-write.ts';
import { clientIdOf, scrub } from '../../src/passive/traffic/scrub.ts';
import { judgeHar } from '../../src/passive/har.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conform-har-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const KEY = 'sk_live_har_test_key_9f8e7d6c5b';

function entry(url: string, extra: Partial<HarEntry['response']> = {}, started = '2026-03-01T10:00:00.123Z'): HarEntry {
  return {
    startedDateTime: started,
    time: 12.5,
    request: {
      method: 'GET',
      url,
      headers: [
        { name: 'Authorization', value: `Bearer ${KEY}` },
        { name: 'Cookie', value: 'session=abc' },
      ],
    },
    response: {
      status: 200,
      headers: [{ name: 'Content-Type', value: 'application/json' }],
      content: { mimeType: 'application/json', text: `{"id":"cus_1","note":"${KEY}"}` },
      ...extra,
    },
  };
}

async function harFile(name: string, entries: unknown[], pretty = false): Promise<string> {
  const path = join(dir, name);
  const doc = {
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1', comment: 'entries: [ { } ] "quoted" \\ back' },
      pages: [{ id: 'p', title: '{"entries":[]}' }],
      entries,
    },
  };
  await writeFile(path, pretty ? JSON.stringify(doc, null, 2) : JSON.stringify(doc));
  return path;
}

describe('reading HAR', () => {
  test('every entry of log.entries, in order, whatever else the file holds, across read chunks', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024); // larger than one read chunk: entries cross chunk boundaries
    const entries = [
      entry('https://api.test/v0/customers/cus_1'),
      { ...entry('https://api.test/v0/customers/cus_2'), _big: big, _quote: 'a "}" b' },
      entry('https://api.test/v0/customers/cus_3'),
    ];
    const seen: string[] = [];
    for await (const e of readHarEntries(await harFile('three.har', entries, true))) seen.push(e.request.url);
    expect(seen).toEqual(entries.map((e) => e.request.url));
  });

  test('a file that is not HAR, cut short, or missing is a HarError saying so', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        await harFile('empty-log.har', []).then(async (p) => (await writeFile(p, '{"log":{"pages":[]}}'), p)),
        /no log.entries/,
      ],
      [join(dir, 'cut.har'), /ends in the middle/],
      [join(dir, 'array.har'), /top level is not an object/],
      [join(dir, 'missing.har'), /no such file/],
    ];
    await writeFile(join(dir, 'cut.har'), '{"log":{"entries":[{"request":{"url":"x"}}');
    await writeFile(join(dir, 'array.har'), '[1,2]');
    for (const [path, message] of cases) {
      const read = async () => {
        for await (const _ of readHarEntries(path));
      };
      await expect(read()).rejects.toThrow(message);
      await expect(read()).rejects.toBeInstanceOf(HarError);
    }
  });

  test('an entry becomes a record: path relative to the base, base64 and gzip bodies decoded, key turned into the client id everywhere, cookies masked', () => {
    const base = new URL('https://api.test/billing/');
    const gz = gzipSync(Buffer.from('{"id":"cus_9"}')).toString('base64');
    const r = recordOfEntry(
      entry('https://api.test/billing/v0/customers/cus_9?x=1', {
        headers: [{ name: 'content-encoding', value: 'gzip' }],
        content: { mimeType: 'application/json', text: gz, encoding: 'base64' },
      }),
      base,
    )!;
    expect(r).toMatchObject({
      method: 'GET',
      path: '/v0/customers/cus_9?x=1',
      status: 200,
      responseBody: '{"id":"cus_9"}',
      durationMs: 12.5,
      startedMs: Date.parse('2026-03-01T10:00:00.123Z'),
    });
    expect(r.client).toBe(clientIdOf(KEY));
    expect(r.requestHeaders.authorization).toBe(`Bearer $${clientIdOf(KEY)}`);
    expect(r.requestHeaders.cookie).toBe('***');
    expect(recordOfEntry(entry('https://api.test/v0/customers/cus_9'), base)).toBeUndefined();
    expect(recordOfEntry(entry('https://other.test/billing/v0/customers/cus_9'), base)).toBeUndefined();
    const failed = recordOfEntry(entry('https://api.test/billing/v0/customers/cus_9', { status: 0 }), base)!;
    expect(failed.status).toBeUndefined();
    expect(failed.transportError).toBe('no response recorded');
  });
});

describe('scrubbing', () => {
  test('the key leaves no trace; secret fields are masked; the same key is always the same client', () => {
    const s = scrub({
      requestHeaders: { authorization: `Bearer ${KEY}`, 'x-echo': KEY },
      responseHeaders: { 'set-cookie': 'a=b' },
      requestBody: `{"secret":"sk_new_secret_value","nested":{"apiKey":"k2","ok":"${KEY}"}}`,
      responseBody: '{"secretHint":"sk_new_","name":"fine"}',
      path: `/v0/customers?key=${KEY}`,
    });
    expect(JSON.stringify(s)).not.toContain(KEY);
    expect(JSON.stringify(s)).not.toContain('sk_new_');
    expect(JSON.parse(s.requestBody)).toEqual({ secret: '***', nested: { apiKey: '***', ok: `$${clientIdOf(KEY)}` } });
    expect(clientIdOf(KEY)).toMatch(/^CLIENT_KEY_[0-9A-F]{12}$/);
    expect(clientIdOf(KEY)).toBe(clientIdOf(KEY));
    expect(clientIdOf(`$${clientIdOf(KEY)}`)).toBe(clientIdOf(KEY));
  });
});

describe('writing HAR and judging it', () => {
  test('what the writer wrote reads back as the same records, and conform judge finds the base by itself', async () => {
    const base = new URL('http://127.0.0.1:4010');
    const path = join(dir, 'written.har');
    const w = new HarWriter(path, base, { name: 'billing-conform', version: 'test' });
    const r1 = recordOfEntry(entry('http://127.0.0.1:4010/v0/customers/cus_1'), base)!;
    const r2 = {
      ...r1,
      path: '/v0/customers/cus_2',
      bodyProblem: 'body larger than the cap: not judged',
      startedMs: r1.startedMs + 7,
    };
    w.write(r1);
    w.write(r2);
    await w.close();
    const back = [];
    for await (const e of readHarEntries(path)) back.push(recordOfEntry(e, base));
    expect(back).toEqual([r1, r2]);
    expect(await readFile(path, 'utf8')).not.toContain(KEY);
    const judged = await judgeHar(path);
    expect(judged).toMatchObject({ baseUrl: 'http://127.0.0.1:4010', entries: 2, outside: 0 });
    expect(judged.outcome.exchanges).toBe(2);
  });
});

describe('the base URL to judge', () => {
  test("a file conform proxy recorded is judged under the proxy's URL as under its target's; another URL is refused naming the ones it holds", async () => {
    const target = new URL('http://127.0.0.1:4010');
    const path = join(dir, 'proxied.har');
    const w = new HarWriter(path, target, { name: 'billing-conform', version: 'test' });
    w.write(recordOfEntry(entry('http://127.0.0.1:4010/v0/customers/cus_1'), target)!);
    w.write(recordOfEntry(entry('http://127.0.0.1:4010/v0/customers/cus_2'), target)!);
    await w.close({ proxy: 'http://127.0.0.1:4011' });
    const fields: string[] = [];
    for await (const _ of readHarEntries(path, (name, value) => fields.push(`${name}=${value}`)));
    expect(fields).toEqual(['_conformProxy=http://127.0.0.1:4011', '_conformTarget=http://127.0.0.1:4010/']);

    const direct = await judgeHar(path, { baseUrl: 'http://127.0.0.1:4010' });
    const viaProxy = await judgeHar(path, { baseUrl: 'http://localhost:4011/' });
    expect(direct).toMatchObject({ baseUrl: 'http://127.0.0.1:4010', outside: 0 });
    expect(direct.proxy).toBeUndefined();
    expect(viaProxy).toMatchObject({
      baseUrl: 'http://127.0.0.1:4010',
      outside: 0,
      proxy: { url: 'http://localhost:4011', target: 'http://127.0.0.1:4010' },
    });
    expect([direct.outcome.exchanges, viaProxy.outcome.exchanges]).toEqual([2, 2]);

    const elsewhere = await judgeHar(path, { baseUrl: 'https://sandbox.example.com' });
    expect(elsewhere.outcome.exchanges).toBe(0);
    expect(elsewhere.bases).toEqual([{ url: 'http://127.0.0.1:4010', entries: 2 }]);
  });

  test('a file from another recorder: the API bases it holds are counted, other origins apart', async () => {
    const path = await harFile('mixed.har', [
      entry('https://cdn.example.com/app.js'),
      entry('http://127.0.0.1:4011/api/v0/customers/cus_1'),
      entry('http://127.0.0.1:4011/api/v0/customers/cus_2'),
    ]);
    const judged = await judgeHar(path, { baseUrl: 'http://127.0.0.1:4010' });
    expect(judged.outcome.exchanges).toBe(0);
    expect(judged.proxy).toBeUndefined();
    expect(judged.bases).toEqual([{ url: 'http://127.0.0.1:4011/api', entries: 2 }]);
    expect(judged.origins).toEqual([
      { url: 'http://127.0.0.1:4011', entries: 2 },
      { url: 'https://cdn.example.com', entries: 1 },
    ]);
  });
});
