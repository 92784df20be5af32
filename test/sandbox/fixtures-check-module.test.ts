/**
 * `conform fixtures check` for a fixtures module, against a documented-endpoints-only target
 * (`conform serve --documented-port`, its full port the back office): the example module is
 * ready method by method (exit 0); a module that provides nothing names every method not
 * provided, with the suites it unlocks (exit 1); one handing over a wrong id is named broken.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startDocumentedOnlyTarget, type DocumentedOnlyTarget } from './harness.ts';
import { FIXTURE_METHODS } from '../../src/engine/fixtures/methods.ts';

let target: DocumentedOnlyTarget;
let work: string;

beforeAll(async () => {
  target = await startDocumentedOnlyTarget();
  work = await mkdtemp(join(tmpdir(), 'conform-fixtures-check-'));
}, 60_000);
afterAll(async () => {
  await target?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function check(module: string): Promise<{ code: number | null; out: string }> {
  const proc = spawn(
    process.execPath,
    [join(ROOT, 'bin/conform.js'), 'fixtures', 'check', '--module', module, '--base-url', target.baseUrl],
    {
      cwd: work,
      env: {
        ...process.env,
        NO_COLOR: '1',
        CONFORM_API_KEY: target.apiKey,
        CONFORM_ADMIN_URL: target.adminUrl,
        CONFORM_ADMIN_KEY: target.apiKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, out })));
}

const line = (out: string, method: string) => out.split('\n').find((l) => new RegExp(`^\\S.* {2}${method} `).test(l));

describe('conform fixtures check --module', () => {
  test('the example module: every method ready, each vetted through the documented API (exit 0)', async () => {
    const r = await check(join(ROOT, 'examples/sandbox/conform.fixtures.ts'));
    expect(r.code, r.out).toBe(0);
    for (const m of FIXTURE_METHODS) expect(line(r.out, m), m).toMatch(/^ready /);
    expect(line(r.out, 'customer')).toMatch(/GET \/v0\/customers\/\{id\} 200/);
    expect(line(r.out, 'revokedKey')).toMatch(/key refused as expected/);
    expect(r.out).toMatch(new RegExp(`^${FIXTURE_METHODS.length} ready, 0 not provided, 0 broken$`, 'm'));
    expect(r.out).not.toContain(target.apiKey);
  }, 240_000);

  test('a module providing nothing: every method not provided, naming the suites it unlocks (exit 1)', async () => {
    const empty = join(work, 'empty.mts');
    await writeFile(empty, 'export default () => ({});\n');
    const r = await check(empty);
    expect(r.code, r.out).toBe(1);
    expect(line(r.out, 'customer')).toMatch(
      /^not provided {2}customer .*no 'customer' method \(leaves unjudged what suites .*customers.* ask it for\)/,
    );
    expect(r.out).toMatch(new RegExp(`^0 ready, ${FIXTURE_METHODS.length} not provided, 0 broken$`, 'm'));
  }, 120_000);

  test('a method handing over a wrong id is named broken, with what came back and what was expected', async () => {
    const wrong = join(work, 'wrong.mts');
    await writeFile(wrong, "export default () => ({ customer: async () => ({ customerId: 'cust_1' }) });\n");
    const r = await check(wrong);
    expect(r.code).toBe(1);
    expect(line(r.out, 'customer')).toMatch(
      /^broken {8}customer .*customerId "cust_1" does not match the documented pattern \^cus_\[a-zA-Z0-9\]\+\$/,
    );
  }, 120_000);
});
