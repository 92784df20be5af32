/**
 * Slowness is the target's property: a scenario that runs out of its time leaves its rules not
 * judged (category slow) with the latency measured, never an engine error and never a pass.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startFakeTarget, type FakeTarget } from './helpers/fake-target.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LATENCY_MS = 600;

const CREATED = new Date().toISOString();
let target: FakeTarget;
let work: string;

beforeAll(async () => {
  target = await startFakeTarget(async (_req, res) => {
    await new Promise((r) => setTimeout(r, LATENCY_MS));
    // One customer, created once: its createdAt stays, its updatedAt moves on.
    const now = new Date().toISOString();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'cus_slow1',
        object: 'customer',
        consumerId: 'org_c1',
        merchantId: 'org_m1',
        createdAt: CREATED,
        updatedAt: now,
        validTaxAddress: { valid: true, message: null },
      }),
    );
  });
  work = await mkdtemp(join(tmpdir(), 'conform-slow-'));
});
afterAll(async () => {
  await target?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), 'run', '--base-url', target.baseUrl, ...args, '--plain'],
      { cwd: work, env: { ...process.env, CONFORM_API_KEY: 'sk_test_slow_target' }, timeout: 120_000 },
      (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout }),
    ),
  );
}

test('a scenario out of time: its rule not judged as target too slow, with the latency; exit 3, no engine error', async () => {
  const dir = join(work, 'slow');
  const r = await run([
    '--suites-dir',
    join(ROOT, 'test/engine/fixtures-suites/slow'),
    '--scenario-timeout',
    '1500',
    '--report-dir',
    dir,
  ]);
  expect(r.code, r.stdout).toBe(3);
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
  const rule = (id: string) => report.rules.find((x: { id: string }) => x.id === id);
  // What was judged on the reads that came back in time stands; what needed the rest is not judged.
  const part = rule('CUSTOMERS.GET.BY_ID').parts.find((p: { id: string }) => p.id === 'answers-resource');
  expect(rule('CUSTOMERS.VALID_TAX_ADDRESS.PRESENT')).toMatchObject({
    verdict: 'not_judged',
    notJudged: [{ category: 'slow', reason: expect.stringMatching(/^target too slow/) }],
  });
  expect(report.summary.gaps.unaccepted).toEqual(['CUSTOMERS.VALID_TAX_ADDRESS.PRESENT']);
  expect(report.scenarios[0]).toMatchObject({ state: 'skipped' });
  expect(report.scenarios[0].skipReason).toMatch(
    /^target too slow: the scenario ran out of its 1\.5 s \(--scenario-timeout\) after \d+ requests \(p50 \d+\.\d+ s, p95 \d+\.\d+ s over \d+ answers\)$/,
  );
  expect(report.summary.rules.engineError).toBe(0);
  expect(report.errors).toEqual([]);
  expect(part.judgements).toBeGreaterThan(0);
  expect(r.stdout).toMatch(/\[target too slow\] target too slow: the scenario ran out/);
});

test('a timeout out of its bounds is refused before the run: exit 2', async () => {
  const r = await run(['--scenario-timeout', '5']);
  expect(r.code).toBe(2);
  expect(r.stdout).not.toMatch(/judged/);
});

test('a request with no answer within the request timeout: the rest of its scenario not judged as target too slow, never failed, never the tool', async () => {
  const hangs = await startFakeTarget(async (req, res) => {
    const now = new Date().toISOString();
    if (req.url?.includes('cus_hang1')) {
      // Answers long after the request timeout: the run must not wait for it.
      await new Promise((r) => setTimeout(r, 4_000));
    }
    if (req.url?.includes('cus_unknown1')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found', code: 'CUSTOMER_NOT_FOUND', message: 'no such customer' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: req.url?.includes('cus_hang1') ? 'cus_hang1' : 'cus_fast1',
        object: 'customer',
        consumerId: 'org_c1',
        merchantId: 'org_m1',
        createdAt: CREATED,
        updatedAt: now,
        validTaxAddress: { valid: true, message: null },
      }),
    );
  });
  try {
    const dir = join(work, 'hang');
    const r = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          join(ROOT, 'bin/conform.js'),
          'run',
          '--base-url',
          hangs.baseUrl,
          '--suites-dir',
          join(ROOT, 'test/engine/fixtures-suites/hang'),
          '--request-timeout',
          '800',
          '--report-dir',
          dir,
          '--plain',
        ],
        { cwd: work, env: { ...process.env, CONFORM_API_KEY: 'sk_test_slow_target' }, timeout: 120_000 },
        (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout }),
      ),
    );
    expect(r.code, r.stdout).toBe(3);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const rule = (id: string) => report.rules.find((x: { id: string }) => x.id === id);
    expect(rule('CUSTOMERS.VALID_TAX_ADDRESS.PRESENT')).toMatchObject({
      verdict: 'not_judged',
      notJudged: [
        {
          category: 'slow',
          reason: expect.stringMatching(
            /^target too slow: GET \/v0\/customers\/cus_hang1: no complete response within 800 ms \(timeout\)/,
          ),
        },
      ],
    });
    // The read answered in time was judged, and the other scenario passed its part.
    const parts = rule('CUSTOMERS.GET.BY_ID').parts;
    expect(parts.find((p: { id: string }) => p.id === 'answers-resource').judgements).toBeGreaterThan(0);
    expect(parts.find((p: { id: string }) => p.id === 'unknown-404').judgements).toBeGreaterThan(0);
    expect(report.summary.rules).toMatchObject({ failed: 0, engineError: 0 });
    expect(report.errors).toEqual([]);
    const hung = report.scenarios.find((s: { title: string }) => s.title.startsWith('a read in time'));
    expect(hung).toMatchObject({ state: 'skipped', findings: 0 });
  } finally {
    await hangs.close();
  }
});
