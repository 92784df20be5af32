/**
 * bin/conform.js runs the CLI compiled once to JavaScript (src/cli/compiled.js): the compiled
 * copy answers as the sources do, finds the files beside its sources, and is rebuilt when a
 * source changes.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { compiledEntry, sourcesKey } from '../../src/cli/compiled.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'conform.js');

function conform(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...process.env, CI: '', NO_COLOR: '1', ...env }, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let scratch: string | undefined;
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the compiled CLI', () => {
  test('is built for the current sources, inside the package’s node_modules/.cache', async () => {
    const url = await compiledEntry('main');
    expect(url).toMatch(/\/node_modules\/\.cache\/conform-js\/[0-9a-f]{16}\/main\.js$/);
    expect(url).toContain(`/${sourcesKey()}/`);
  });

  test('answers as the sources do: the rules it reads from spec/ beside its sources, the version from package.json', async () => {
    const [compiled, sources] = await Promise.all([
      conform(['rules', '--json']),
      conform(['rules', '--json'], { CONFORM_FROM_SOURCES: '1' }),
    ]);
    expect(compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
    expect(JSON.parse(compiled.stdout).length).toBeGreaterThan(100);
    expect(compiled.stdout).toBe(sources.stdout);
    const [v1, v2] = await Promise.all([conform(['--version']), conform(['--version'], { CONFORM_FROM_SOURCES: '1' })]);
    expect(v1.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(v1.stdout).toBe(v2.stdout);
  }, 60_000);

  test('an edited source, an added one or another package.json gives another key (a new bundle)', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'conform-compiled-'));
    await mkdir(join(scratch, 'src', 'cli'), { recursive: true });
    await writeFile(join(scratch, 'package.json'), '{"name":"x","version":"1.0.0"}');
    const file = join(scratch, 'src', 'cli', 'main.ts');
    await writeFile(file, 'export const a = 1;\n');
    const first = sourcesKey(scratch);
    expect(sourcesKey(scratch)).toBe(first);
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    const touched = sourcesKey(scratch);
    expect(touched).not.toBe(first);
    await writeFile(join(scratch, 'src', 'cli', 'more.ts'), 'export {};\n');
    const added = sourcesKey(scratch);
    expect(added).not.toBe(touched);
    await writeFile(join(scratch, 'package.json'), '{"name":"x","version":"1.0.1"}');
    expect(sourcesKey(scratch)).not.toBe(added);
  });
});
