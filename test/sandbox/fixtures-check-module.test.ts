/**
 * `conform fixtures check` for a fixtures module, against a documented-endpoints-only target
 * (`conform serve --documented-port`, its full port the back office), as a team walks it: the
 * skeleton `conform init` writes names every method not provided yet, with the rules it unlocks
 * (exit 1); the worked example `init --example` writes beside it is ready method by method (exit
 * 0); a module that returns no methods names each; one handing over a wrong id is named broken,
 * and a read whose input no method made is not tried.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startDocumentedOnlyTarget, type DocumentedOnlyTarget } from './harness.ts';
import { FIXTURE_METHODS } from '../../src/engine/fixtures/methods.ts';
import { FIXTURE_UNLOCKS } from '../../src/engine/fixtures/unlocks.ts';

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

/** `conform <args>` in `cwd`, the sandbox's key in BILLING_API_KEY (what init's config names) and CONFORM_API_KEY. */
function conform(args: string[], cwd = work): Promise<{ code: number | null; out: string }> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/conform.js'), ...args], {
    cwd,
    env: {
      ...process.env,
      NO_COLOR: '1',
      CONFORM_API_KEY: target.apiKey,
      BILLING_API_KEY: target.apiKey,
      CONFORM_ADMIN_URL: target.adminUrl,
      CONFORM_ADMIN_KEY: target.apiKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, out })));
}

const check = (module: string, cwd = work) =>
  conform(['fixtures', 'check', '--module', module, '--base-url', target.baseUrl], cwd);

const line = (out: string, method: string) => out.split('\n').find((l) => new RegExp(`^\\S.* {2}${method} `).test(l));

describe('conform fixtures check --module', () => {
  let team: string;

  test('the skeleton init writes: every method not provided yet, with the rules it unlocks (exit 1)', async () => {
    team = join(work, 'team');
    // As an install gives it: the package in the repository's node_modules.
    await mkdir(join(team, 'node_modules'), { recursive: true });
    await symlink(ROOT, join(team, 'node_modules', 'billing-conform'), 'junction');
    const init = await conform(['init', '--base-url', target.baseUrl, '--example'], team);
    expect(init.code, init.out).toBe(0);
    // The module of the config init wrote: the skeleton.
    const r = await conform(['fixtures', 'check'], team);
    expect(r.code, r.out).toBe(1);
    for (const m of FIXTURE_METHODS) {
      const n = FIXTURE_UNLOCKS[m].length;
      expect(line(r.out, m), m).toMatch(
        new RegExp(`^not provided {2}${m} +not provided yet \\(unlocks ${n} rules?: ${FIXTURE_UNLOCKS[m][0]}[,)]`),
      );
    }
    expect(r.out).toMatch(new RegExp(`^0 ready, ${FIXTURE_METHODS.length} not provided, 0 broken$`, 'm'));
    const rules = new Set(Object.values(FIXTURE_UNLOCKS).flat());
    expect(r.out).toMatch(
      new RegExp(`^${rules.size} contract rules have scenarios asking for a method not ready`, 'm'),
    );
  }, 120_000);

  test('the worked example init --example writes beside it: every method ready, each vetted through the documented API (exit 0)', async () => {
    const r = await check('./conform.fixtures.example.mts', team);
    expect(r.code, r.out).toBe(0);
    for (const m of FIXTURE_METHODS) expect(line(r.out, m), m).toMatch(/^ready /);
    expect(line(r.out, 'customer')).toMatch(/GET \/v0\/customers\/\{id\} 200/);
    expect(line(r.out, 'revokedKey')).toMatch(/key refused as expected/);
    expect(r.out).toMatch(new RegExp(`^${FIXTURE_METHODS.length} ready, 0 not provided, 0 broken$`, 'm'));
    expect(r.out).not.toContain(target.apiKey);
  }, 240_000);

  test('a module returning no method: each named not provided by it (exit 1)', async () => {
    const empty = join(work, 'empty.mts');
    await writeFile(empty, 'export default () => ({});\n');
    const r = await check(empty);
    expect(r.code, r.out).toBe(1);
    expect(line(r.out, 'customer')).toMatch(/^not provided {2}customer .*no 'customer' method \(unlocks \d+ rules: /);
    expect(r.out).toMatch(new RegExp(`^0 ready, ${FIXTURE_METHODS.length} not provided, 0 broken$`, 'm'));
  }, 120_000);

  test('a method handing over a wrong id is named broken, with what came back and what was expected', async () => {
    const wrong = join(work, 'wrong.mts');
    // readItem is written but item() is not: it has nothing of the target's to read.
    await writeFile(
      wrong,
      "export default () => ({ customer: async () => ({ customerId: 'cust_1' }), readItem: async (id) => ({ id }) });\n",
    );
    const r = await check(wrong);
    expect(r.code).toBe(1);
    expect(line(r.out, 'readItem')).toMatch(
      /^not tried {5}readItem +it takes what item\(\) makes, and item\(\) handed over nothing/,
    );
    expect(r.out).toMatch(/^0 ready, \d+ not provided, 1 broken, 1 not tried$/m);
    expect(line(r.out, 'customer')).toMatch(
      /^broken {8}customer .*customerId "cust_1" does not match the documented pattern \^cus_\[a-zA-Z0-9\]\+\$/,
    );
  }, 120_000);
});
