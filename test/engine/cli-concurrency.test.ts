/** `concurrency` in conform.config.yaml bounds the scenarios of one suite running at once, not only the workers. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startFakeTarget, type FakeTarget } from './helpers/fake-target.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES = join(ROOT, 'test/engine/fixtures-suites/concurrency');

let target: FakeTarget;
let work: string;
let inFlight = 0;
let peak = 0;

beforeAll(async () => {
  target = await startFakeTarget(async (req, res) => {
    const m = /^\/v0\/customers\/(cus_slow\d)$/.exec(req.url ?? '');
    if (req.url === '/v0/alerts') {
      // A route that exists (no resourceId: 400), so that the base URL is not refused.
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: 'bad_request', message: 'resourceId is required' }));
    }
    if (!m) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: 'not_found', message: 'no such customer' }));
    }
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    await new Promise((r) => setTimeout(r, 400));
    inFlight -= 1;
    const now = new Date().toISOString();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: m[1],
        object: 'customer',
        consumerId: 'org_c1',
        merchantId: 'org_m1',
        createdAt: now,
        updatedAt: now,
        validTaxAddress: { valid: true, message: null },
      }),
    );
  });
  work = await mkdtemp(join(tmpdir(), 'conform-concurrency-'));
});
afterAll(async () => {
  await target?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function runWith(concurrency: number): Promise<number> {
  peak = 0;
  const config = join(work, `c${concurrency}.yaml`);
  await writeFile(
    config,
    `baseUrl: ${target.baseUrl}\napiKeyEnv: CONCURRENCY_KEY\nconcurrency: ${concurrency}\nfixtures: { strategy: none }\n`,
  );
  const code = await new Promise<number>((resolve) =>
    execFile(
      process.execPath,
      [
        join(ROOT, 'bin/conform.js'),
        'run',
        '--config',
        config,
        '--suites-dir',
        SUITES,
        '--report-dir',
        join(work, `r${concurrency}`),
        '--plain',
      ],
      { cwd: work, env: { ...process.env, CONCURRENCY_KEY: 'sk_test_concurrency' }, timeout: 120_000 },
      (err) => resolve(err ? (typeof err.code === 'number' ? err.code : 99) : 0),
    ),
  );
  expect(code).toBeLessThan(2);
  return peak;
}

test('concurrency: 1 runs the concurrent scenarios of a suite one at a time; 4 lets them overlap', async () => {
  expect(await runWith(1)).toBe(1);
  expect(await runWith(4)).toBeGreaterThan(1);
}, 240_000);
