/**
 * What a team staking a release on the exit code needs of the CLI around the run itself: a CI
 * job with no target named is refused (the bundled reference gates nothing), a run that cannot
 * start still writes its four reports with the reason, a mistyped command, option or setting
 * gets a suggestion, a reader closing the pipe early is no failure, and `init` keeps the
 * reports out of git.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { ignoreReports } from '../../src/cli/commands/init.ts';
import { inCi } from '../../src/cli/commands/run.ts';
import { boundForReference } from '../../src/cli/reference-fork.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'conform.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function conform(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; shell?: string } = {}): Promise<Ran> {
  const env = { ...process.env, CONFORM_API_KEY: '', CI: '', ...opts.env };
  return new Promise((resolve) => {
    const done = (err: (Error & { code?: unknown }) | null, stdout: string, stderr: string) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr });
    if (opts.shell) execFile('/bin/bash', ['-c', opts.shell], { cwd: opts.cwd ?? ROOT, env, timeout: 120_000 }, done);
    else execFile(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, env, timeout: 120_000 }, done);
  });
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a CI job with no target named', () => {
  test('CI counts as set for any value but empty, 0 or false', () => {
    expect(inCi({ CI: 'true' })).toBe(true);
    expect(inCi({ CI: '1' })).toBe(true);
    expect(inCi({ CI: 'woodpecker' })).toBe(true);
    for (const v of ['', '0', 'false', 'FALSE']) expect(inCi({ CI: v }), v).toBe(false);
    expect(inCi({})).toBe(false);
  });

  test('the bundled reference is forked early only for a run bound for it', () => {
    expect(existsSync('conform.config.yaml'), 'this test reads the repository root, which has no config').toBe(false);
    expect(boundForReference([], {})).toBe(true);
    expect(boundForReference(['--suites', 'auth'], { CI: 'false' })).toBe(true);
    expect(boundForReference(['--reference'], { CI: 'true' })).toBe(true);
    for (const args of [
      ['--base-url', 'http://x'],
      ['--base-url=http://x'],
      ['--config', 'c.yaml'],
      ['--help'],
      ['-h'],
    ])
      expect(boundForReference(args, {}), args.join(' ')).toBe(false);
    expect(boundForReference([], { CI: 'true' }), 'refused under CI: nothing to fork').toBe(false);
  });

  test('is refused with exit 2 and one line naming --base-url and --reference, and its reports say why', async () => {
    dir = await mkdtemp(join(tmpdir(), 'conform-gate-'));
    const reports = join(dir, 'reports');
    const r = await conform(['run', '--report-dir', reports], { cwd: dir, env: { CI: 'true' } });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/no target named, and CI is set.*--base-url.*--reference/);
    for (const f of ['report.json', 'junit.xml', 'summary.md', 'report.html'])
      expect(existsSync(join(reports, f)), f).toBe(true);
    const report = JSON.parse(await readFile(join(reports, 'report.json'), 'utf8'));
    expect(report.summary).toMatchObject({ verdict: 'error', exitCode: 2 });
    expect(report.errors[0].message).toMatch(/the run could not start: no target named/);
    expect(await readFile(join(reports, 'summary.md'), 'utf8')).toMatch(/no target named/);
    expect(await readFile(join(reports, 'junit.xml'), 'utf8')).toMatch(/no target named/);
  });

  test('a run that cannot reach its target writes the reports too (exit 2)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'conform-gate-'));
    const reports = join(dir, 'out');
    const r = await conform(['run', '--base-url', 'http://127.0.0.1:9', '--report-dir', reports], {
      cwd: dir,
      env: { CONFORM_API_KEY: 'sk_test_gate_0123456789' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const report = JSON.parse(await readFile(join(reports, 'report.json'), 'utf8'));
    expect(report.run.target.baseUrl).toBe('http://127.0.0.1:9');
    expect(report.summary.exitCode).toBe(2);
    expect(JSON.stringify(report)).not.toContain('sk_test_gate_0123456789');
  });
});

describe('a mistyped name gets a suggestion', () => {
  test('a command, an option of run, and a setting of conform.config.yaml', async () => {
    expect((await conform(['rnu'])).stderr).toMatch(/unknown command 'rnu'\. Did you mean 'run'\?/);
    const option = await conform(['run', '--base-ur', 'http://x']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/unknown option '--base-ur'\. Did you mean '--base-url'\?/);
    dir = await mkdtemp(join(tmpdir(), 'conform-gate-'));
    await writeFile(join(dir, 'conform.config.yaml'), 'baseUrl: http://127.0.0.1:9\nsandbx: true\n');
    const setting = await conform(['run'], { cwd: dir });
    expect(setting.stderr).toMatch(/unknown setting 'sandbx'\. Did you mean 'sandbox'\?/);
    expect((await conform(['run', '--nothing-like-it'])).stderr).not.toMatch(/Did you mean/);
  });

  test('a YAML mistake names its line', async () => {
    dir = await mkdtemp(join(tmpdir(), 'conform-gate-'));
    await writeFile(
      join(dir, 'conform.config.yaml'),
      'baseUrl: http://x\nfixtures:\n  strategy: [file\nprofile: quick\n',
    );
    const r = await conform(['run'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not valid YAML at line \d+, column \d+/);
  });
});

describe('output read by another program', () => {
  test('conform rules | head -1 exits 0: a reader that stops early is no failure', async () => {
    for (const pipe of [`node ${BIN} rules | head -1 >/dev/null`, `node ${BIN} rules --json | head -c 10 >/dev/null`]) {
      const r = await conform([], { shell: `set -o pipefail; ${pipe}` });
      expect(r.stderr, pipe).not.toMatch(/EPIPE/);
      expect(r.code, pipe).toBe(0);
    }
  });
});

describe('conform init keeps the reports out of git', () => {
  test('adds reports/ to .gitignore once, creating the file when there is none', async () => {
    dir = await mkdtemp(join(tmpdir(), 'conform-gate-'));
    const file = join(dir, '.gitignore');
    expect(await ignoreReports(file)).toBe('wrote');
    expect(readFileSync(file, 'utf8')).toMatch(/^reports\/$/m);
    expect(await ignoreReports(file)).toBeUndefined();
    await writeFile(file, 'node_modules');
    expect(await ignoreReports(file)).toBe('added to');
    expect(readFileSync(file, 'utf8')).toBe("node_modules\n# conform run's reports\nreports/\n");
  });
});
