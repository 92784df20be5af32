/**
 * A suite file's fixtures are released when the whole file is done: a file whose scenarios sit
 * in several describe blocks must not have them closed after its first block and made anew.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startFakeBilling, FAKE_KEY } from './helpers/fake-billing.ts';
import type { FakeTarget } from './helpers/fake-target.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES = join(ROOT, 'test/engine/fixtures-suites/cleanup');

let target: FakeTarget;
let work: string;
beforeAll(async () => {
  [target, work] = await Promise.all([startFakeBilling(), mkdtemp(join(tmpdir(), 'conform-cleanup-'))]);
});
afterAll(async () => {
  await target?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

test('fixtures created for a file with two describe blocks are closed once, after the last block', async () => {
  const log = join(work, 'fixtures.log');
  const config = join(work, 'conform.config.yaml');
  await writeFile(
    config,
    `baseUrl: ${target.baseUrl}\nfixtures:\n  strategy: module\n  module: ${join(SUITES, 'log-fixtures.mjs')}\n`,
  );
  const code = await new Promise<number>((resolve) =>
    execFile(
      process.execPath,
      [
        join(ROOT, 'bin/conform.js'),
        'run',
        '--config',
        config,
        '--suites-dir',
        SUITES,
        '--report-dir',
        join(work, 'r'),
      ],
      { cwd: work, env: { ...process.env, CONFORM_API_KEY: FAKE_KEY, CLEANUP_LOG: log }, timeout: 120_000 },
      (err) => resolve(err ? Number((err as { code?: number }).code ?? 99) : 0),
    ),
  );
  expect(code).toBe(0);
  const lines = (await readFile(log, 'utf8')).trim().split('\n');
  // The CLI loads the module once before the run to check it (create, close); then the worker's instance.
  expect(lines.slice(lines.indexOf('use') - 1)).toEqual(['create', 'use', 'use', 'close']);
  expect(lines.filter((l) => l === 'close')).toHaveLength(lines.filter((l) => l === 'create').length);
});
