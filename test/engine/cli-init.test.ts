/**
 * `conform init` writes a team's first two files: conform.config.yaml (a config the CLI accepts:
 * the sandbox, the key by variable, the module strategy) and conform.fixtures.mts, the skeleton
 * the team fills in: every fixture method declared with its contract and the rules it unlocks,
 * throwing "not provided yet". `--example` writes beside it the package's examples/sandbox
 * module, every method made through the reference's back office. The rules each method unlocks
 * are measured (src/engine/fixtures/unlocks.ts); the first-hour packaging test holds them to
 * what its runs of the example show, and this file holds the skeleton, the example's comments
 * and the measured lists to one another.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigFile, resolveConfig } from '../../src/engine/config/index.ts';
import { FIXTURE_DECLARATIONS, FIXTURE_METHODS, type FixtureDeclaration } from '../../src/engine/fixtures/methods.ts';
import { fixtureSkeleton, NOT_PROVIDED_YET } from '../../src/engine/fixtures/skeleton.ts';
import { FIXTURE_UNLOCKS } from '../../src/engine/fixtures/unlocks.ts';
import { loadModuleFixtures } from '../../src/engine/fixtures/module.ts';
import { isFixtureUnavailable } from '../../src/engine/fixtures/types.ts';
import { loadRules } from '../../src/contract/index.ts';
import {
  annotatedUnlocks,
  methodDocs,
  TEMPLATE,
  unlocksFromReports,
  withUnlocks,
} from '../../scripts/fixture-unlocks.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'conform.js');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

function init(cwd: string, args: string[] = []): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'init', ...args], { cwd, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('conform init', () => {
  it('writes conform.config.yaml (a config the CLI takes) and the skeleton module, then says what to do next', async () => {
    dir = await mkdtemp(join(tmpdir(), 'conform-init-'));
    const r = await init(dir, ['--base-url', 'https://sandbox.billing.example.com']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/BILLING_API_KEY/);
    expect(r.out).toMatch(/npx conform fixtures check +#/);
    expect(r.out).toMatch(/npx conform run\n?$/m);
    expect(await readFile(join(dir, 'conform.fixtures.mts'), 'utf8')).toBe(fixtureSkeleton('npx conform'));
    await expect(readFile(join(dir, 'conform.fixtures.example.mts'), 'utf8')).rejects.toThrow(/ENOENT/);
    const path = join(dir, 'conform.config.yaml');
    const config = resolveConfig(await loadConfigFile(path), {}, { BILLING_API_KEY: 'sk_test_init_0123456789' }, path);
    expect(config).toMatchObject({
      baseUrl: 'https://sandbox.billing.example.com',
      sandbox: true,
      apiKey: { value: 'sk_test_init_0123456789', label: 'BILLING_API_KEY' },
      fixtures: { strategy: 'module', module: join(dir, 'conform.fixtures.mts') },
      profile: 'quick',
    });
    expect(await readFile(path, 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\S+schemas\/config\.schema\.json\n/,
    );

    // --example where init already ran: only the worked example is new, the team's files stay.
    await writeFile(join(dir, 'conform.fixtures.mts'), '// mine\n');
    const example = await init(dir, ['--example']);
    expect(example.code, example.out).toBe(0);
    expect(example.out).toMatch(/kept conform\.config\.yaml and conform\.fixtures\.mts as they are/);
    expect(await readFile(join(dir, 'conform.fixtures.example.mts'), 'utf8')).toBe(readFileSync(TEMPLATE, 'utf8'));
    expect(await readFile(join(dir, 'conform.fixtures.mts'), 'utf8')).toBe('// mine\n');
    const again = await init(dir, ['--example']);
    expect(again.code).toBe(2);
    expect(again.out.trim()).toBe(
      'conform init: conform.fixtures.example.mts already here; pass --force to overwrite, or move them away first',
    );
  });

  it('never overwrites a file without --force (exit 2, one line naming it)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'conform-init-'));
    await writeFile(join(dir, 'conform.config.yaml'), 'baseUrl: https://mine.example.com\n');
    const r = await init(dir);
    expect(r.code).toBe(2);
    expect(r.out.trim()).toBe(
      'conform init: conform.config.yaml already here; pass --force to overwrite, or move them away first',
    );
    expect(await readFile(join(dir, 'conform.config.yaml'), 'utf8')).toBe('baseUrl: https://mine.example.com\n');
    await expect(readFile(join(dir, 'conform.fixtures.mts'), 'utf8')).rejects.toThrow(/ENOENT/);
    const forced = await init(dir, ['--force']);
    expect(forced.code, forced.out).toBe(0);
    expect(await readFile(join(dir, 'conform.config.yaml'), 'utf8')).toMatch(
      /^baseUrl: https:\/\/sandbox\.billing\.example\.com {3}#/m,
    );
    const bad = await init(dir, ['--base-url', 'ftp://x']);
    expect(bad.code).toBe(2);
    expect(bad.out.trim()).toBe("conform init: --base-url 'ftp://x': expected an http:// or https:// URL");
  });
});

describe('the skeleton init writes', () => {
  const text = fixtureSkeleton();

  it('declares every fixture method with its contract and the rules it unlocks, each throwing "not provided yet"', async () => {
    const docs = methodDocs(text);
    for (const method of FIXTURE_METHODS) {
      const { contract } = FIXTURE_DECLARATIONS[method] as FixtureDeclaration;
      expect(text, method).toContain(
        `    async ${contract.signature} {\n      throw notProvided('${method}');\n    },`,
      );
      expect(docs[method], method).toMatch(/^\s*\* Returns: \S/m);
      expect(docs[method], method).toMatch(/^\s*\* Must hold:/m);
      if (contract.needs) expect(docs[method], method).toMatch(/^\s*\* Needs: \S/m);
    }
    expect(annotatedUnlocks(text)).toEqual(FIXTURE_UNLOCKS);
  });

  it('loads as a fixtures module whose every method is not provided yet: its scenarios not judged, never failed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'conform-skeleton-'));
    await mkdir(join(dir, 'node_modules'), { recursive: true });
    await symlink(ROOT, join(dir, 'node_modules', 'billing-conform'), 'junction');
    await writeFile(join(dir, 'conform.fixtures.mts'), text);
    const fixtures = await loadModuleFixtures(join(dir, 'conform.fixtures.mts'), {
      baseUrl: 'http://sandbox.invalid',
      apiKey: 'sk_test_skeleton_0123456789',
      http: {} as never,
      registerSecret: () => undefined,
    });
    const calls = FIXTURE_METHODS.map((m) =>
      (fixtures[m] as (...a: unknown[]) => Promise<unknown>)('x').then(
        () => `${m}: resolved`,
        (err: unknown) => (isFixtureUnavailable(err) ? `${m}: ${err.fixture} ${err.reason}` : `${m}: ${String(err)}`),
      ),
    );
    expect(await Promise.all(calls)).toEqual(FIXTURE_METHODS.map((m) => `${m}: ${m} ${NOT_PROVIDED_YET}`));
    await expect(fixtures.close()).resolves.toBeUndefined();
  });
});

describe('the worked example init --example writes (examples/sandbox/conform.fixtures.ts)', () => {
  const text = readFileSync(TEMPLATE, 'utf8');

  it('has every fixture method, each saying what it is, its back-office calls and the contract rules it unlocks', async () => {
    const rules = await loadRules();
    const docs = methodDocs(text);
    const unlocks = annotatedUnlocks(text);
    for (const method of FIXTURE_METHODS) {
      expect(docs[method], method).toBeDefined();
      const lines = docs[method].split('\n').map((l) => l.replace(/^\s*\*\s?/, '').trim());
      expect(lines.filter(Boolean)[0], method).toMatch(/^[A-Z].+/);
      expect(docs[method], method).toMatch(/\n\s*\* Back office: \S/);
      expect(unlocks[method]?.length, method).toBeGreaterThan(0);
      for (const id of unlocks[method]) expect(rules.byId(id)?.kind, `${method}: ${id}`).toBe('contract');
    }
    // The example's comments are the measured lists the skeleton and the docs show.
    expect(unlocks).toEqual(FIXTURE_UNLOCKS);
    expect(text).toMatch(/THE PART YOU REPLACE: the back office/);
    expect(text).toMatch(/THE BACK OFFICE \(replace it\)/);
  });

  it('the Unlocks lists come from reports: what scenarios asked for which fixture, contract rules only', () => {
    const report = {
      rules: [
        { id: 'A.B.C', kind: 'contract' },
        { id: 'A.B.D', kind: 'contract' },
        { id: 'R.E.F', kind: 'reference' },
      ],
      scenarios: [
        { ruleIds: ['A.B.C', 'R.E.F'], fixtures: ['customer', 'wallet'] },
        { ruleIds: ['A.B.D#some-part'], fixtures: ['customer'] },
        { ruleIds: ['A.B.D'] },
      ],
    };
    const map = unlocksFromReports([report]);
    expect(map).toEqual({ customer: ['A.B.C', 'A.B.D'], wallet: ['A.B.C'] });
    const rewritten = withUnlocks(text, map);
    expect(annotatedUnlocks(rewritten).customer).toEqual(['A.B.C', 'A.B.D']);
    expect(annotatedUnlocks(rewritten).wallet).toEqual(['A.B.C']);
    expect(annotatedUnlocks(rewritten).payment).toEqual([]);
    expect(withUnlocks(text, annotatedUnlocks(text))).toBe(text);
  });

  it('ships in the package, and the docs send a team to the installed copy', () => {
    expect(PKG.files).toContain('examples/');
    for (const doc of ['README.md', 'docs/fixtures.md']) {
      const body = readFileSync(join(ROOT, doc), 'utf8');
      expect(body, doc).toContain('node_modules/billing-conform/examples/sandbox');
      expect(body, doc).toMatch(/billing-conform init/);
    }
  });
});
