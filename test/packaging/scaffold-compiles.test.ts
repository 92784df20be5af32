/**
 * The fixtures modules `billing-conform init --example` writes (the skeleton, whose explicit
 * signatures the Fixtures interface must accept, and the worked example) compile, unedited, in a team's repository
 * set up by TypeScript's own `tsc --init` (TypeScript 5.9: strict, verbatimModuleSyntax,
 * noUncheckedIndexedAccess, exactOptionalPropertyTypes, isolatedModules, module nodenext): in an
 * ES-module package, in a CommonJS package, and with "types": ["node"] as well. The module sees
 * the package's declarations (types/) as an install gives them: node_modules/billing-conform
 * links to this repository, node_modules/@types/node to its own @types/node.
 */
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { run } from './support.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'conform.js');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

/** `tsc <args>` in `cwd`, with this repository's TypeScript. */
const tsc = (args: string[], cwd: string) => run(process.execPath, [TSC, ...args], cwd, {}, 120_000);

/**
 * A fresh repository: a package.json of that `type` (none: CommonJS), `tsc --init` (with
 * `initArgs`), the links an install gives, then `billing-conform init`. Returns the repository
 * and the fixtures module init wrote there.
 */
async function repository(type: 'module' | undefined, initArgs: string[]): Promise<{ dir: string; module: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'conform-scaffold-'));
  made.push(dir);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'team-repo', version: '1.0.0', type }));
  const initialised = await tsc(['--init', ...initArgs], dir);
  expect(initialised.code, `tsc --init:\n${initialised.stdout}${initialised.stderr}`).toBe(0);
  await mkdir(join(dir, 'node_modules', '@types'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules', 'billing-conform'), 'junction');
  await symlink(join(ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'junction');
  const scaffolded = await run(process.execPath, [BIN, 'init', '--example'], dir, {}, 60_000);
  expect(scaffolded.code, `billing-conform init:\n${scaffolded.stdout}${scaffolded.stderr}`).toBe(0);
  const modules = (await readdir(dir)).filter((f) => /^conform\.fixtures\.(example\.)?[cm]?ts$/.test(f)).sort();
  expect(modules, 'the fixtures modules billing-conform init --example writes').toEqual([
    'conform.fixtures.example.mts',
    'conform.fixtures.mts',
  ]);
  return { dir, module: modules.join(' and ') };
}

const CASES = [
  { name: 'in an ES-module package ("type": "module")', type: 'module', initArgs: [] },
  { name: 'in a CommonJS package (no "type")', type: undefined, initArgs: [] },
  { name: 'in an ES-module package with "types": ["node"]', type: 'module', initArgs: ['--types', 'node'] },
] as const;

describe('the fixtures module billing-conform init writes compiles with tsc --init defaults', () => {
  test.each(CASES)('$name', async ({ type, initArgs }) => {
    const { dir, module } = await repository(type, [...initArgs]);

    // What tsc --init turned on, so that a later TypeScript with laxer defaults cannot make this pass for less.
    const shown = await tsc(['--showConfig', '-p', '.'], dir);
    expect(shown.code, shown.stdout + shown.stderr).toBe(0);
    const options = JSON.parse(shown.stdout).compilerOptions as Record<string, unknown>;
    for (const flag of [
      'strict',
      'verbatimModuleSyntax',
      'noUncheckedIndexedAccess',
      'exactOptionalPropertyTypes',
      'isolatedModules',
    ])
      expect(options[flag], `tsc --init turns on ${flag}`).toBe(true);
    expect(options.module).toBe('nodenext');
    expect(options.types).toEqual(initArgs.length ? ['node'] : []);

    const checked = await tsc(['--noEmit', '-p', '.'], dir);
    expect(checked.code, `tsc --noEmit -p . in ${dir} (checking ${module}):\n${checked.stdout}${checked.stderr}`).toBe(
      0,
    );
  });
});
