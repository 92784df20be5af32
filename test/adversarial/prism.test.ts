/**
 * A Prism mock of spec/openapi.yaml (static placeholders, and --dynamic random values) as a
 * target: it answers every declared route, the reference extensions included, yet it is not the
 * reference server. The probe must not take it for the reference, no fixture may be built from
 * its placeholders, and no placeholder ("string") may be learnt as a secret and redacted.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { probe } from '../../src/engine/target/probe.ts';
import {
  createFixtures,
  isFixtureUnavailable,
  probeReferenceExtensions,
  ReferenceFixtures,
} from '../../src/engine/fixtures/index.ts';
import { HttpClient } from '../../src/engine/http/index.ts';
import { clearSecrets, redact } from '../../src/engine/http/redact.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'sk_test_prism_target_key_93e1f0';

interface Mock {
  baseUrl: string;
  child: ChildProcess;
}

/** Prism on 127.0.0.1, a free port, against spec/openapi.yaml; resolves once it listens. */
function startPrism(dynamic: boolean): Promise<Mock> {
  const args = [
    'mock',
    '-h',
    '127.0.0.1',
    '-p',
    '0',
    ...(dynamic ? ['--dynamic'] : []),
    join(ROOT, 'spec/openapi.yaml'),
  ];
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/.bin/prism'), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ baseUrl: m[1], child });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`prism exited (${code}) before listening:\n${out.slice(-2000)}`)));
  });
}

async function stop(mock: Mock | undefined): Promise<void> {
  if (!mock || mock.child.exitCode !== null) return;
  const exited = new Promise((r) => mock.child.once('exit', r));
  mock.child.kill('SIGTERM');
  await exited;
}

function conform(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: KEY }, timeout: 240_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    ),
  );
}

const client = (baseUrl: string) => new HttpClient({ baseUrl, apiKey: KEY, apiKeyLabel: 'CONFORM_API_KEY' });
/** Rules that only a fixture could let pass on this suite: states and webhook configurations. */
const needsFixture = (id: string) => id.startsWith('STATE.') || id === 'WEBHOOKS.CONFIG.SHAPE';

let mocks: Record<'static' | 'dynamic', Mock>;
let work: string;
beforeAll(async () => {
  const [s, d] = await Promise.all([startPrism(false), startPrism(true)]);
  mocks = { static: s, dynamic: d };
  work = await mkdtemp(join(tmpdir(), 'conform-prism-'));
}, 120_000);
afterAll(async () => {
  await Promise.all([stop(mocks?.static), stop(mocks?.dynamic)]);
  if (work) await rm(work, { recursive: true, force: true });
});

describe.each(['static', 'dynamic'] as const)('a Prism mock (%s) of spec/openapi.yaml', (kind) => {
  test('answers the handshake route, but cannot sign: not the reference; its base URL is not refused', async () => {
    const c = client(mocks[kind].baseUrl);
    const p = await probeReferenceExtensions(c);
    expect(p).toEqual({
      answers: false,
      detail: ['POST /v0/referenceHandshake -> 200, no valid signature of the challenge (a mock?)'],
    });
    await expect(probe(c)).resolves.toBeUndefined();
    expect((await createFixtures({ fixtures: {} }, c)).strategy).toBe('none');
  });

  test('the reference strategy forced on it builds no fixture from placeholders and learns no secret', async () => {
    clearSecrets();
    const f = new ReferenceFixtures(client(mocks[kind].baseUrl));
    const asks = [
      () => f.merchant(),
      () => f.secondKeySameMerchant(),
      () => f.customer(),
      () => f.payment(),
      () => f.subscription(),
      () => f.webhooksEnabled(),
    ];
    for (const ask of asks) {
      const err = await ask().then(
        (got) => new Error(`a fixture from a mock: ${JSON.stringify(got)}`),
        (e: unknown) => e,
      );
      expect(isFixtureUnavailable(err), String(err)).toBe(true);
      expect((err as { reason: string }).reason).toMatch(/^the target looks like a mock, not the reference server: /);
    }
    await f.close();
    expect(redact('"string" "pay_" "string"')).toBe('"string" "pay_" "string"');
  });

  test('conform run: fixtures none by itself; forced to reference, every fixture unavailable as a mock; "string" never redacted', async () => {
    const forced = join(work, `${kind}.yaml`);
    await writeFile(forced, `baseUrl: ${mocks[kind].baseUrl}\nfixtures:\n  strategy: reference\n`);
    const [auto, ref] = await Promise.all([
      conform([
        'run',
        '--base-url',
        mocks[kind].baseUrl,
        '--suite',
        'webhooks',
        '--report-dir',
        join(work, `${kind}-auto`),
      ]),
      conform(['run', '--config', forced, '--suite', 'webhooks', '--report-dir', join(work, `${kind}-ref`)]),
    ]);
    expect(auto.stdout).toMatch(/ · fixtures none · /);
    expect(ref.stdout).toMatch(/ · fixtures reference · /);
    for (const [run, dir] of [
      [auto, `${kind}-auto`],
      [ref, `${kind}-ref`],
    ] as const) {
      expect(run.code, run.stdout.slice(-1500)).not.toBe(0);
      const report = JSON.parse(await readFile(join(work, dir, 'report.json'), 'utf8'));
      const passed = report.rules
        .filter((r: { verdict: string }) => r.verdict === 'passed')
        .map((r: { id: string }) => r.id);
      expect(passed.filter(needsFixture)).toEqual([]);
      for (const name of await readdir(join(work, dir)))
        expect(await readFile(join(work, dir, name), 'utf8'), name).not.toContain('***');
    }
    const reasons = JSON.parse(await readFile(join(work, `${kind}-ref`, 'report.json'), 'utf8')).rules.flatMap(
      (r: { notJudged: { reason: string }[] }) => r.notJudged.map((n) => n.reason),
    );
    expect(reasons.some((r: string) => /looks like a mock, not the reference server/.test(r))).toBe(true);
    // The placeholder the mock answered is shown as it is, never blotted out as a key.
    if (kind === 'static') expect(reasons.some((r: string) => r.includes('answered id "string"'))).toBe(true);
  }, 240_000);
});
