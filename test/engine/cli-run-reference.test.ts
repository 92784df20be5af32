/**
 * End to end: `conform run` with no target, as the README's first command runs it. It runs
 * every suite, the rate-limit windows included, so it runs alone (vitest.config.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'conform-cli-reference-'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function conform(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), ...args],
      // A developer's machine, where the README's first command runs: no CI (a CI job must name its target).
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: '', CI: '' }, timeout: 280_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr });
      },
    );
  });
}

describe('the bundled reference', () => {
  test('`conform run` with no target boots the reference, runs every suite and exits 0', async () => {
    const dir = join(work, 'reference');
    const r = await conform(['run', '--report-dir', dir]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/\(bundled reference\)/);
    expect(r.stdout).not.toMatch(/^FAIL /m);
    expect(r.code).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(report.run.target.bundled).toBe(true);
    expect(report.summary.rules.failed).toBe(0);
    expect(report.summary.rules.judged).toBe(report.summary.rules.total);
    expect(r.stdout).toMatch(
      /^PASSED \(exit 0\): judged (\d+) of \1 rules .* — of the bundled reference server, not a deployment/m,
    );
    expect(report.scenarios.length).toBeGreaterThan(0);
    expect(report.run.fixtures.strategy).toBe('reference');
  }, 300_000);
});
