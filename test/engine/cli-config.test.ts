/** The CLI's global flags and its refusal of config files that would run the wrong target. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FAKE_KEY, startFakeBilling } from './helpers/fake-billing.ts';
import type { FakeTarget } from './helpers/fake-target.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES = join(ROOT, 'test/engine/fixtures-suites');

function conform(args: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: '' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr });
      },
    );
  });
}

let target: FakeTarget;
let work: string;
beforeAll(async () => {
  target = await startFakeBilling();
  work = await mkdtemp(join(tmpdir(), 'conform-cli-config-'));
});
afterAll(async () => {
  await target?.close();
});

describe('conform --version', () => {
  test('prints the package version and exits 0', async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    const r = await conform(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });
});

describe.concurrent('config files that would silently test the bundled reference are refused', () => {
  test.each([
    ['empty.yaml', '', /^conform run: .*empty\.yaml: the file holds no settings; give at least baseUrl/],
    ['comments.yaml', '# baseUrl: https://sandbox.example\n', /holds no settings/],
    [
      'typo.yaml',
      'baseURL: https://sandbox.example\napiKeyEnv: BILLING_API_KEY\n',
      /typo\.yaml: unknown setting 'baseURL'\. Did you mean 'baseUrl'\?$/,
    ],
  ])('%s: exit 2 with one line, before any request', async (name, text, message) => {
    const path = join(work, name);
    await writeFile(path, text);
    const r = await conform(['run', '--config', path, '--suites-dir', SUITES], work);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stdout).toBe('');
  });

  test('conform.config.yaml picked up from the working directory is held to the same rules', async () => {
    const dir = await mkdtemp(join(work, 'cwd-'));
    await writeFile(join(dir, 'conform.config.yaml'), '\n');
    const r = await conform(['run', '--suites-dir', SUITES], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/conform\.config\.yaml: the file holds no settings/);
  });
});

describe('conform run --sandbox', () => {
  test('allows destructive scenarios, as sandbox: true does', async () => {
    // Without it the destructive scenario is not run on a non-sandbox URL (destructiveAllowed, config.test.ts).
    // The demo suite has a scenario whose fixture the fake target cannot give: that gap is accepted.
    const on = await conform(
      [
        'run',
        '--base-url',
        target.baseUrl,
        '--api-key',
        FAKE_KEY,
        '--suites-dir',
        SUITES,
        '--sandbox',
        '--allow-unjudged',
        '--verbose',
        '--report-dir',
        join(work, 'on'),
      ],
      work,
    );
    expect(on.code, on.stdout).toBe(0);
    expect(on.stdout).toMatch(/ · destructive allowed · /);
    expect(on.stdout).toMatch(/^PASS demo > a destructive scenario/m);
    expect(JSON.parse(await readFile(join(work, 'on', 'report.json'), 'utf8')).run.target.sandbox).toBe(true);
  }, 120_000);
});
