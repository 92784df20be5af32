/**
 * suites/contract.suite.ts against a deliberately lax target (the reference behind a fault
 * proxy): it fails the broken rules, on minimal counterexamples, with seed, path and a
 * replay command, never leaks the key, and the same --seed finds the same cases.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startProxy, type Fault, type RunningProxy } from '../../../src/faults/fault-proxy.ts';
import { startReferenceServer, type RunningReference } from '../../../src/reference/index.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const KEY = `sk_test_contractlive_${Date.now().toString(36)}`;

/** Accepts taxRates above 100 (clamps them) and answers 200 for customer ids outside their pattern. */
const laxValidation: Fault = {
  name: 'lax-validation',
  onRequest(req, ctx) {
    const [path] = req.path.split('?');
    const m = /^\/v0\/customers\/([^/]+)$/.exec(path);
    if (!m) return;
    const id = decodeURIComponent(m[1]);
    if (
      req.method === 'PATCH' &&
      typeof (req.json as { taxRates?: unknown })?.taxRates === 'number' &&
      (req.json as { taxRates: number }).taxRates > 100
    ) {
      (req.json as { taxRates: number }).taxRates = 100;
      ctx.applied();
      return req;
    }
    if (req.method === 'GET' && !/^cus_[a-zA-Z0-9]+$/.test(id)) {
      ctx.applied();
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ message: 'found it anyway' })),
      };
    }
  },
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  dir: string;
}

let ref: RunningReference;
let proxy: RunningProxy;
let work: string;

function conform(args: string[]): Promise<Omit<Run, 'dir'>> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: KEY }, timeout: 170_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr }),
    );
  });
}

async function runContract(name: string): Promise<Run> {
  const dir = join(work, name);
  const r = await conform([
    'run',
    '--suite',
    'contract',
    '--base-url',
    proxy.url,
    '--seed',
    '11',
    '--report-dir',
    dir,
    '--plain',
  ]);
  return { ...r, dir };
}

interface RuleEntry {
  id: string;
  verdict: string;
  failures: { message: string; replay?: string }[];
}
const rulesOf = async (run: Run): Promise<RuleEntry[]> =>
  JSON.parse(await readFile(join(run.dir, 'report.json'), 'utf8')).rules;

let first: Run;
let second: Run;

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory', apiKey: KEY });
  proxy = await startProxy({ upstream: ref.baseUrl, fault: laxValidation });
  work = await mkdtemp(join(tmpdir(), 'conform-contract-'));
  first = await runContract('first');
  second = await runContract('second');
}, 400_000);

afterAll(async () => {
  await proxy?.close();
  await ref?.close();
});

describe('contract suite on a lax target', () => {
  test('exits 1 and fails exactly the broken rules', async () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(1);
    expect(proxy.stats.applied).toBeGreaterThan(0);
    const failed = (await rulesOf(first))
      .filter((r) => r.verdict === 'failed')
      .map((r) => r.id)
      .sort();
    // The GET fault's 200 body is no customer, so the response checks fail too.
    expect(failed).toEqual(
      expect.arrayContaining(['CUSTOMERS.TAX_RATES.RANGE', 'VALIDATION.BOUNDS.400', 'VALIDATION.PATTERN.400']),
    );
    for (const untouched of [
      'VALIDATION.TYPE.400',
      'VALIDATION.REQUIRED.400',
      'VALIDATION.ENUM.400',
      'VALIDATION.VALID_REQUEST.NOT_400',
      'CUSTOMERS.EXTERNAL_ID.MAX_LENGTH',
      'ALERTS.LIST.LIMIT_RANGE',
      'MIGRATION.400.TARGET_RANGE',
    ])
      expect(failed, untouched).not.toContain(untouched);
  });

  test('the failure is the minimal case, with seed, path and a replay that uses $CONFORM_API_KEY', async () => {
    const range = (await rulesOf(first)).find((r) => r.id === 'CUSTOMERS.TAX_RATES.RANGE')!;
    const failure = range.failures.find((f) => f.message.includes('taxRates maximum'))!;
    expect(failure, JSON.stringify(range.failures)).toBeDefined();
    expect(failure.message).toMatch(/seed: -?\d+ {2}path: "[\d:]*"/);
    expect(failure.message).toContain('"constraint":"maximum"');
    expect(failure.message).toContain('"value":100.01');
    // The documented edge is sent first, on a minimal body: nothing else could explain the verdict.
    expect(failure.message).toContain('"body":{"taxRates":100.01}');
    expect(failure.message).toMatch(
      /replay: curl .*-X PATCH .*\/v0\/customers\/cus_\w+.* "Authorization: Bearer \$CONFORM_API_KEY"/,
    );
    expect(failure.message).toContain(`CONFORM_REPLAY='updateCustomer negative body /taxRates maximum|`);
    expect(failure.replay).toContain('$CONFORM_API_KEY');
  });

  test('the key appears nowhere: not in the reports, not in the output', async () => {
    for (const run of [first, second]) {
      expect(run.stdout + run.stderr).not.toContain(KEY);
      for (const f of await readdir(run.dir)) expect(await readFile(join(run.dir, f), 'utf8'), f).not.toContain(KEY);
    }
  });

  test('the same --seed finds the same failures on the same cases', async () => {
    const cases = async (run: Run) =>
      (await rulesOf(run))
        .flatMap((r) =>
          r.failures.map(
            (f) =>
              `${r.id} ${(/seed: -?\d+ {2}path: "[\d:]*"/.exec(f.message) ?? [''])[0]} ${(/"value":[^,}]*/.exec(f.message) ?? [''])[0]}`,
          ),
        )
        .filter((s) => s.includes('seed:'))
        .sort();
    const a = await cases(first);
    expect(a.length).toBeGreaterThan(0);
    expect(await cases(second)).toEqual(a);
  });
});
