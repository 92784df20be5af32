/**
 * Expected failures, end to end through `node bin/conform.js run`: a declared difference fails
 * nothing and is reported apart with its reason; one that no longer happens fails the run; a
 * bad declaration is refused before anything is sent (exit 2, one line).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { startFakeBilling, FAKE_KEY } from './helpers/fake-billing.ts';
import type { FakeTarget } from './helpers/fake-target.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES = join(ROOT, 'test/engine/fixtures-suites');

function conform(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: FAKE_KEY }, timeout: 240_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr }),
    );
  });
}

let good: FakeTarget;
let broken: FakeTarget;
let work: string;

beforeAll(async () => {
  // `broken` leaves validTaxAddress (required) out of every customer it answers.
  [good, broken] = await Promise.all([startFakeBilling(), startFakeBilling(['drop-required-field'])]);
  work = await mkdtemp(join(tmpdir(), 'conform-expect-'));
});
afterAll(async () => {
  await Promise.all([good.close(), broken.close(), rm(work, { recursive: true, force: true })]);
});

const DECLARED = [
  {
    rule: 'SCHEMA.REQUIRED.PRESENT',
    operation: 'getCustomer',
    field: 'validTaxAddress',
    reason: 'tax address check ships in 2027.1 (BILL-412)',
  },
  {
    rule: 'SCHEMA.RESPONSE.MATCHES',
    operation: 'getCustomer',
    field: '/validTaxAddress',
    reason: 'tax address check ships in 2027.1 (BILL-412)',
  },
];

async function runWith(name: string, target: FakeTarget, expectedFailures: unknown) {
  const dir = join(work, name);
  const config = join(work, `${name}.yaml`);
  await writeFile(config, stringify({ baseUrl: target.baseUrl, expectedFailures }));
  const r = await conform(
    ['run', '--config', config, '--suites-dir', SUITES, '--report-dir', dir, '--seed', '3', '--allow-unjudged'],
    work,
  );
  const report = r.code === 2 ? undefined : JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
  return { ...r, report, summary: r.code === 2 ? '' : await readFile(join(dir, 'summary.md'), 'utf8') };
}

describe('expected failures', () => {
  test('without a declaration the dropped field fails the run', async () => {
    const r = await runWith('undeclared', broken, []);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toMatch(/^FAILED \(exit 1\)/m);
  });

  test('declared: the same target is green, the rule reads failed as expected with the reason in every report', async () => {
    const r = await runWith('declared', broken, DECLARED);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      /^PASSED \(exit 0\): judged \d+ of \d+ rules \(\d+ passed, 0 failed, 2 failed as expected/m,
    );
    expect(r.stdout).toMatch(
      /^ {2}SCHEMA.REQUIRED.PRESENT: .*validTaxAddress.* — declared: tax address check ships in 2027.1/m,
    );
    const rule = r.report.rules.find((x: { id: string }) => x.id === 'SCHEMA.REQUIRED.PRESENT');
    expect(rule).toMatchObject({ verdict: 'expected_failure', failureCount: 0 });
    expect(rule.expected[0]).toMatchObject({ expectedReason: 'tax address check ships in 2027.1 (BILL-412)' });
    expect(r.report.expectations.map((e: { status: string }) => e.status)).toEqual(['matched', 'matched']);
    expect(r.summary).toMatch(/### Failed as expected \(2; declared in expectedFailures/);
    const junit = await readFile(join(work, 'declared', 'junit.xml'), 'utf8');
    expect(junit).toMatch(/Failed as expected \(expectedFailures\): .*declared: tax address check/);
  });

  test('a declaration limited to another field covers nothing: the failure stands', async () => {
    const r = await runWith('other-field', broken, [{ ...DECLARED[0], field: 'taxId' }, DECLARED[1]]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.report.rules.find((x: { id: string }) => x.id === 'SCHEMA.REQUIRED.PRESENT').verdict).toBe('failed');
  });

  test('stale: the difference is gone, the run fails naming the entry to remove', async () => {
    const r = await runWith('stale', good, DECLARED);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toMatch(
      /expected failure SCHEMA.REQUIRED.PRESENT on getCustomer \(field validTaxAddress\) no longer happens: .*remove the entry/,
    );
    expect(r.report.summary.expectations).toEqual({ declared: 2, matched: 0, stale: 2, unconfirmed: 0 });
    expect(r.summary).toMatch(/### Stale expected failures \(2; fail the run\)/);
  });

  test('unconfirmed: a part this run did not judge there changes nothing', async () => {
    const r = await runWith('unconfirmed', good, [
      { rule: 'REFUNDS.TOTAL.SUM', operation: 'createInvoiceRefund', reason: 'rounding differs (BILL-9)' },
    ]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.report.expectations[0].status).toBe('unconfirmed');
    expect(r.stdout).toMatch(/expected failure REFUNDS.TOTAL.SUM on createInvoiceRefund: not judged there in this run/);
  });

  test.each([
    [[{ rule: 'SCHEMA.REQUIRED.PRESENT', operation: 'getCustomer' }], /expectedFailures\[0\]: missing 'reason'/],
    [
      [{ rule: 'SCHEMA.REQUIRED.PRESENT', operation: 'getCustomer', reason: '  ' }],
      /expectedFailures\[0\]: give a reason/,
    ],
    [[{ rule: 'SCHEMA.NOPE.PRESENT', operation: 'getCustomer', reason: 'x' }], /unknown rule SCHEMA.NOPE.PRESENT/],
    [[{ rule: 'SCHEMA', operation: 'getCustomer', reason: 'x' }], /expectedFailures\[0\].rule must be one rule id/],
    [[{ rule: 'SCHEMA.REQUIRED.PRESENT', reason: 'x' }], /missing 'operation'/],
    [
      [{ rule: 'SCHEMA.REQUIRED.PRESENT', operation: 'getCustomr', reason: 'x' }],
      /unknown operation getCustomr.*getCustomer/,
    ],
    [[{ rule: 'CUSTOMERS.GET.BY_ID', operation: 'getCustomer', reason: 'x' }], /has several parts: name one/],
    [[{ rule: 'CUSTOMERS.GET.BY_ID#nope', operation: 'getCustomer', reason: 'x' }], /has no part 'nope'/],
    [
      [{ rule: 'CUSTOMERS.GET.BY_ID#unknown-404', operation: 'updateItem', reason: 'x' }],
      /is about getCustomer.*not updateItem/,
    ],
    [[{ ...DECLARED[0], field: 'nosuchfield' }], /getCustomer has no field 'nosuchfield'/],
  ])('refused before the run, one line, exit 2: %j', async (entries, message) => {
    const r = await runWith(`bad-${Math.random().toString(36).slice(2)}`, good, entries);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});
