/**
 * Where the primary key comes from, as the messages say it: the environment first, one
 * precedence (--api-key, else the variable apiKeyEnv names, else CONFORM_API_KEY), the
 * variable that was read named when the key is missing or refused, and --api-key warned once.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/engine/config/index.ts';
import { FAKE_KEY, startFakeBilling } from './helpers/fake-billing.ts';
import type { FakeTarget } from './helpers/fake-target.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES = join(ROOT, 'test/engine/fixtures-suites');

function conform(args: string[], env: Record<string, string>, cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: '', ...env }, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr }),
    );
  });
}

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

let target: FakeTarget;
let work: string;
beforeAll(async () => {
  target = await startFakeBilling();
  work = await mkdtemp(join(tmpdir(), 'conform-keys-'));
});
afterAll(async () => {
  await target?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the primary key', () => {
  test('one precedence: --api-key, else the variable apiKeyEnv names (CONFORM_API_KEY then unread), else CONFORM_API_KEY', () => {
    const env = { CONFORM_API_KEY: 'sk_from_conform_var', BILLING_KEY: 'sk_from_named_var' };
    const base = { baseUrl: 'https://sandbox.example' };
    expect(resolveConfig({ ...base, apiKeyEnv: 'BILLING_KEY' }, { apiKey: 'sk_from_the_flag' }, env).apiKey).toEqual({
      value: 'sk_from_the_flag',
      label: 'CONFORM_API_KEY',
      from: '--api-key',
    });
    expect(resolveConfig({ ...base, apiKeyEnv: 'BILLING_KEY' }, {}, env).apiKey).toEqual({
      value: 'sk_from_named_var',
      label: 'BILLING_KEY',
      from: 'BILLING_KEY (named by apiKeyEnv)',
    });
    expect(resolveConfig(base, {}, env).apiKey).toEqual({
      value: 'sk_from_conform_var',
      label: 'CONFORM_API_KEY',
      from: 'CONFORM_API_KEY',
    });
  });

  test('apiKeyEnv naming an unset variable: the one message names that variable, not CONFORM_API_KEY to set', () => {
    const found = problems(() =>
      resolveConfig(
        { baseUrl: 'https://sandbox.example', apiKeyEnv: 'BILLING_KEY' },
        {},
        { CONFORM_API_KEY: 'sk_set_but_unread' },
      ),
    );
    expect(found).toEqual([
      'apiKeyEnv names the environment variable BILLING_KEY, which is not set: set BILLING_KEY to the key ' +
        '(CONFORM_API_KEY is set, but not read while apiKeyEnv names BILLING_KEY)',
    ]);
  });

  test('no key at all: the message names the environment first and never recommends --api-key', () => {
    const [message] = problems(() => resolveConfig({ baseUrl: 'https://sandbox.example' }, {}, {}));
    expect(message).toMatch(/^no API key: set CONFORM_API_KEY, or name the variable that holds it with apiKeyEnv/);
    expect(message).not.toContain('--api-key');
  });

  test('--api-key works, and says once on stderr that the process list shows it; the key itself appears nowhere', async () => {
    // One scenario that sends the key: what the run judges is not the point here.
    const suites = join(work, 'suites');
    await mkdir(suites, { recursive: true });
    await writeFile(
      join(suites, 'one.suite.ts'),
      `import { scenario } from ${JSON.stringify(join(ROOT, 'src/engine/scenario/index.ts'))};\n` +
        "scenario(['STATUS.404.UNKNOWN_RESOURCE'], 'an unknown customer gets 404', async (t) => {\n" +
        "  t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', await t.http.get('/v0/customers/cus_nope'), 404);\n" +
        '});\n',
    );
    const r = await conform(
      [
        'run',
        '--base-url',
        target.baseUrl,
        '--api-key',
        FAKE_KEY,
        '--suites-dir',
        suites,
        '--allow-unjudged',
        '--report-dir',
        join(work, 'flag'),
      ],
      {},
      work,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      'warning: --api-key shows the key to every user of this machine in the process list; ' +
        'set CONFORM_API_KEY (or the variable apiKeyEnv names) instead',
    ]);
    expect(r.stdout + r.stderr).not.toContain(FAKE_KEY);
  }, 120_000);

  test('a refused key, or an unset apiKeyEnv variable: exit 2, one line naming the variable the key was read from', async () => {
    const config = join(work, 'named.yaml');
    await writeFile(config, `baseUrl: ${target.baseUrl}\napiKeyEnv: BILLING_KEY\n`);
    const args = ['run', '--config', config, '--suites-dir', SUITES, '--report-dir', join(work, 'x')];
    const [refused, unset] = await Promise.all([
      conform(args, { BILLING_KEY: 'sk_wrong_key_00000000', CONFORM_API_KEY: FAKE_KEY }, work),
      conform(args, { CONFORM_API_KEY: FAKE_KEY }, work),
    ]);
    expect([refused.code, refused.stderr.trim().split('\n')]).toEqual([
      2,
      [
        `conform run: the target at ${target.baseUrl} rejected the API key (401 on GET /v0/customers/{id}): ` +
          'check the key in BILLING_KEY (named by apiKeyEnv)',
      ],
    ]);
    expect([unset.code, unset.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(unset.stderr).toMatch(/apiKeyEnv names the environment variable BILLING_KEY, which is not set/);
    expect(unset.stderr).not.toMatch(/set CONFORM_API_KEY|--api-key/);
    expect(refused.stderr + unset.stderr).not.toMatch(/sk_wrong_key|sk_fake/);
  }, 120_000);
});
