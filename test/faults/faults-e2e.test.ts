/**
 * End to end, kept small: a few catalog faults and benign variants run through the real
 * runner (a fresh bundled reference per fault, the proxy, `conform run` in a child) with
 * one suite each. A regression in the suites' power to catch these fails here. And the
 * `conform faults` command itself: exit codes, the table, faults.json, no key printed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { faultByName, type CatalogFault } from '../../src/faults/catalog/index.ts';
import { composeFaults } from '../../src/faults/catalog/helpers.ts';
import { runFaults, type FaultsReport } from '../../src/faults/runner.ts';
import { bundledTargets } from '../../src/cli/commands/faults.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TIMEOUT_MS = 420_000;

/** A catalog entry with its suites narrowed to one, to keep the run short. */
function only(name: string, suite?: string): CatalogFault {
  const f = faultByName(name);
  if (!f) throw new Error(`no fault ${name}`);
  return suite ? { ...f, suites: [suite] } : f;
}

const FAULTS: Array<[CatalogFault, string]> = [
  [only('conv-wrong-id-prefix'), 'CONV.ID.PATTERNS'],
  [only('conv-body-not-json'), 'CONV.CONTENT_TYPE.JSON'],
  [only('rate-headers-on-401'), 'RATE.FAILED_AUTH.NO_HEADERS'],
  [only('rate-missing-retry-after'), 'RATE.RETRY_AFTER.ON_429'],
];
/** Benign variants one conforming server may show all at once: compressed answers, reordered keys, +00:00 offsets. */
const combined: CatalogFault = {
  ...only('benign-reordered-keys', 'customers'),
  ...composeFaults(
    'benign-reordered-gzip-offsets',
    only('benign-reordered-keys'),
    only('benign-offset-timestamps'),
    only('benign-gzip'),
  ),
  name: 'benign-reordered-gzip-offsets',
};
const BENIGN = [only('benign-extra-properties', 'customers'), combined, only('benign-content-type-variant', 'auth')];

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'conform-faults-'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function conform(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: '' },
        timeout: TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr }),
    );
  });
}

describe.concurrent('fault injection, end to end on the bundled reference', () => {
  test(
    'the subset: every fault caught citing its rule, no benign variant flagged, each applied',
    async () => {
      const report: FaultsReport = await runFaults({
        faults: [...FAULTS.map(([f]) => f), ...BENIGN],
        startTarget: bundledTargets(),
        reportDir: join(work, 'subset'),
        profile: 'quick',
        seed: 1,
        parallel: 2,
        baseline: false,
        target: { bundled: true },
      });
      const by = new Map(report.results.map((r) => [r.name, r]));
      for (const [f, rule] of FAULTS) {
        const r = by.get(f.name)!;
        expect([r.name, r.outcome, r.error ?? ''], `rules fired: ${r.rulesFired.join(', ')}`).toEqual([
          f.name,
          'caught',
          '',
        ]);
        expect(r.rulesFired, f.name).toContain(rule);
        expect(r.applied, f.name).toBeGreaterThan(0);
      }
      for (const f of BENIGN) {
        const r = by.get(f.name)!;
        expect([r.name, r.outcome, r.rulesFired], r.error).toEqual([f.name, 'passed', []]);
        expect(r.applied, f.name).toBeGreaterThan(0);
      }
      expect(report.summary).toMatchObject({ detectionRate: 1, falseAlarmRate: 0, exitCode: 0 });
    },
    TIMEOUT_MS,
  );

  test(
    'conform faults: a fault its suites never reach is "not exercised" (exit 1), with the table, faults.json and faults.md, and no key',
    async () => {
      const dir = join(work, 'cli');
      const r = await conform([
        'faults',
        '--fault',
        'customers-null-keeps-taxId',
        '--suite',
        'auth',
        '--no-baseline',
        '--report-dir',
        dir,
        '--plain',
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(/^NOT-EXERCISED\s+customers-null-keeps-taxId \[customers\]/m);
      expect(r.stdout).toMatch(/^FAULT\s+FAMILY\s+CAUGHT\?\s+RULES FIRED\s+TIME$/m);
      expect(r.stdout).toMatch(/^customers-null-keeps-taxId\s+customers\s+not exercised\s/m);
      expect(r.stdout).toMatch(/detection rate: 0\/1 = 0\.0 % \(none applied\); false-alarm rate: 0\/0 = 0\.0 %/);
      const json = JSON.parse(await readFile(join(dir, 'faults.json'), 'utf8'));
      expect(json.results[0]).toMatchObject({
        name: 'customers-null-keeps-taxId',
        outcome: 'not-exercised',
        applied: 0,
        suites: ['auth'],
      });
      expect(json.summary).toMatchObject({ faults: 1, caught: 0, exitCode: 1 });
      expect(await readFile(join(dir, 'faults.md'), 'utf8')).toMatch(/## Not caught/);
      const config = await readFile(join(dir, 'customers-null-keeps-taxId', 'conform.config.yaml'), 'utf8');
      expect(config).not.toMatch(/sk_test_/);
      expect(
        `${r.stdout}${r.stderr}${await readFile(join(dir, 'customers-null-keeps-taxId', 'run.log'), 'utf8')}`,
      ).not.toMatch(/sk_test_[0-9a-f]{24}/);
    },
    TIMEOUT_MS,
  );

  test(
    'conform faults: --list prints the catalog; an unknown fault is one line and exit 2',
    async () => {
      const list = await conform(['faults', '--list', '--plain']);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(/^rate-bucket-per-key\s+rate-limits\s+AUTH\.ALLOWANCE\.PER_MERCHANT/m);
      expect(list.stdout).toMatch(/^\d+ faults, \d+ benign variants$/m);
      const bad = await conform(['faults', '--fault', 'no-such-fault']);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim()).toBe("conform faults: unknown fault: no-such-fault. Run 'conform faults --list'.");
    },
    TIMEOUT_MS,
  );
});
