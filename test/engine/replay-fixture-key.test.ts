/**
 * A failure found with a key the fixtures module made is replayed from report.json: the
 * replay names the variable to read the key from and the fixture that made it (never the
 * key, never `***`); pasted into a shell with that variable set, it gets the same broken
 * answer from the target; without it, the shell stops and says which key it needs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from '../../src/faults/fault-proxy.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BROKEN = { detail: 'forbidden' };

// A team's fixtures module: its back office (here the reference's extensions) makes a
// read-only key and a customer; the key is written where the team keeps it, as a back office would.
const MODULE = `
import { appendFileSync } from 'node:fs';
export default (ctx) => {
  const admin = ctx.http.with({ baseUrl: process.env.ADMIN_URL });
  return {
    async forbiddenAction() {
      const key = (await admin.post('/v0/apiKeys', { name: 'replay test', scope: 'read_only' })).body.secret;
      ctx.registerSecret(key);
      appendFileSync(process.env.KEYS_FILE, key + '\\n');
      const customer = (await admin.post('/v0/customers', { name: 'replay test' })).body.id;
      return { key, method: 'PATCH', path: '/v0/customers/' + customer, body: { externalId: 'replay' } };
    },
  };
};
`;

let ref: RunningReference;
let proxy: RunningProxy;
let work: string;

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory' });
  // The target breaks one rule: its 403 answers lose the Error shape (AUTH.403.SHAPE).
  proxy = await startProxy({
    upstream: ref.baseUrl,
    fault: {
      name: 'broken-403',
      onResponse(_req, res, ctx) {
        if (res.status !== 403) return;
        ctx.applied();
        res.json = BROKEN;
      },
    },
  });
  work = await mkdtemp(join(tmpdir(), 'conform-replay-'));
});
afterAll(async () => {
  await proxy?.close();
  await ref?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function run(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: work, NO_COLOR: '1', ...env }, timeout: 180_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr }),
    );
  });
}

test('the replay of a failure seen with a fixture-made key names its variable and reproduces the failure', async () => {
  await writeFile(join(work, 'fixtures.mjs'), MODULE);
  await writeFile(
    join(work, 'conform.config.yaml'),
    `baseUrl: ${proxy.url}\napiKeyEnv: BILLING_API_KEY\nfixtures:\n  strategy: module\n  module: fixtures.mjs\n`,
  );
  const keysFile = join(work, 'keys.txt');
  const conform = await run(
    process.execPath,
    [join(ROOT, 'bin/conform.js'), 'run', '--suite', 'auth', '--plain', '--report-dir', 'reports'],
    { BILLING_API_KEY: ref.apiKey, ADMIN_URL: ref.baseUrl, KEYS_FILE: keysFile },
  );
  expect(conform.code, conform.stdout + conform.stderr).toBe(1);
  const keys = (await readFile(keysFile, 'utf8')).trim().split('\n');
  const report = await readFile(join(work, 'reports', 'report.json'), 'utf8');
  for (const key of [ref.apiKey, ...keys]) expect(report).not.toContain(key);
  const rule = (
    JSON.parse(report) as { rules: { id: string; verdict: string; failures: { replay?: string }[] }[] }
  ).rules.find((r) => r.id === 'AUTH.403.SHAPE');
  expect(rule?.verdict).toBe('failed');
  const replay = rule!.failures.find((f) => f.replay?.includes('PATCH'))?.replay ?? '';
  expect(replay).toContain('"Authorization: Bearer ${CONFORM_KEY_FORBIDDEN:?key made by fixture forbiddenAction}"');
  expect(replay).not.toContain('***');

  // Pasted into a shell with the variable set: the same 403 without the Error shape.
  const replayed = await run('bash', ['-c', replay], { CONFORM_KEY_FORBIDDEN: keys[keys.length - 1] });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(replayed.stdout).toMatch(/^HTTP\/1\.1 403 /);
  expect(replayed.stdout.trim().endsWith(JSON.stringify(BROKEN))).toBe(true);
  // Without it, the shell says which key it needs and sends nothing.
  const unset = await run('bash', ['-c', replay], {});
  expect(unset.code).not.toBe(0);
  expect(unset.stderr).toMatch(/CONFORM_KEY_FORBIDDEN: key made by fixture forbiddenAction/);
}, 240_000);
