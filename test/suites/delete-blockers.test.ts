/**
 * The delete-blockers suite passes against the reference and fails, citing the right
 * rules, against the reference behind a proxy that breaks the 409 answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import { startProxy, type Fault, type ProxyResponse } from '../../src/engine/faults/proxy.ts';

const SUITE = 'delete-blockers';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUN_TIMEOUT_MS = 150_000;

let ref: RunningReference;
let work: string;

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory', apiKey: `sk_test_${randomBytes(12).toString('hex')}` });
  work = await mkdtemp(join(tmpdir(), `conform-${SUITE}-`));
  await writeFile(join(work, 'conform.config.yaml'), 'destructive: true\n');
}, 60_000);

afterAll(async () => {
  await ref?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  stdout: string;
  verdicts: Map<string, string>;
  scenarios: Array<{ title: string; state: string }>;
  applied: number;
}

/** `conform run --suite SUITE` against the reference behind `fault` (none: passes everything through). */
async function runThrough(fault: Fault | undefined, name: string): Promise<Outcome> {
  const proxy = await startProxy({ upstream: ref.baseUrl, fault });
  const dir = join(work, name);
  try {
    const args = [join(ROOT, 'bin/conform.js'), 'run', '--base-url', proxy.url, '--suite', SUITE, '--report-dir', dir, '--config', join(work, 'conform.config.yaml'), '--plain', '--seed', '1'];
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: ref.apiKey }, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, out) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout: out }),
      );
    });
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(stdout).not.toContain(ref.apiKey);
    return {
      code,
      stdout,
      verdicts: new Map(report.rules.map((r: { id: string; verdict: string }) => [r.id, r.verdict])),
      scenarios: report.scenarios.filter((s: { suite: string }) => s.suite === SUITE),
      applied: proxy.stats.applied,
    };
  } finally {
    await proxy.close();
  }
}

function expectVerdicts(o: Outcome, failed: string[], passed: string[]): void {
  const of = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, o.verdicts.get(id)]));
  expect(o.applied, 'the fault altered at least one exchange').toBeGreaterThan(0);
  expect(o.code, o.stdout.slice(-3000)).toBe(1);
  expect(of(failed)).toEqual(Object.fromEntries(failed.map((id) => [id, 'failed'])));
  expect(of(passed)).toEqual(Object.fromEntries(passed.map((id) => [id, 'passed'])));
  for (const id of failed) expect(o.stdout).toMatch(new RegExp(`^failed rules: .*${id.replace(/\./g, '\\.')}`, 'm'));
}

const CUSTOMER = /^\/v0\/customers\/[^/?]+(\?|$)/;
const FEE = /^\/v0\/fees\/[^/?]+(\?|$)/;
type Json = Record<string, any>;

function json(status: number, body: unknown): ProxyResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(body)), json: body };
}

/**
 * A customer's 409 carries no blockers; a fee's blockers count 0 whatever they list; a fee
 * without prices still cannot be deleted (409 with no blockers).
 */
const blockersFault: Fault = {
  name: 'delete-blockers',
  onResponse(req, res, ctx) {
    if (req.method !== 'DELETE') return;
    const body = res.json as Json | undefined;
    if (CUSTOMER.test(req.path) && res.status === 409 && body) {
      ctx.applied();
      delete body.details;
    } else if (FEE.test(req.path) && res.status === 409 && Array.isArray(body?.details?.blockers)) {
      ctx.applied();
      for (const b of body.details.blockers) b.count = 0;
    } else if (FEE.test(req.path) && res.status >= 200 && res.status < 300) {
      ctx.applied();
      return json(409, { error: 'conflict', message: 'fee is in use', details: { blockers: [] } });
    }
  },
};

describe.concurrent(`${SUITE} suite`, () => {
  test('passes against the unaltered reference: every scenario passes, none skipped', async () => {
    const o = await runThrough(undefined, 'clean');
    expect(o.code, o.stdout.slice(-3000)).toBe(0);
    expect(o.scenarios.length).toBeGreaterThanOrEqual(4);
    expect(o.scenarios.filter((s) => s.state !== 'passed')).toEqual([]);
    for (const [id, verdict] of o.verdicts) if (/^FEES\.|^CUSTOMERS\.DELETE\./.test(id)) expect([id, verdict]).toEqual([id, 'passed']);
  }, RUN_TIMEOUT_MS + 10_000);

  test('fails on a 409 without blockers, a blocker count below its items, and a delete refused with nothing blocking', async () => {
    const o = await runThrough(blockersFault, 'blockers');
    expectVerdicts(
      o,
      ['CUSTOMERS.DELETE.BLOCKED', 'FEES.DELETE.BLOCKER_COUNT', 'FEES.DELETE.UNBLOCKED'],
      ['CUSTOMERS.DELETE.UNBLOCKED', 'FEES.DELETE.BLOCKED'],
    );
  }, RUN_TIMEOUT_MS + 10_000);
});
