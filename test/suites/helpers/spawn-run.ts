/**
 * Shared harness for the suite tests that spawn `conform run --suite SUITE` against the
 * reference behind a fault proxy and read back report.json.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer, type RunningReference } from '../../../src/reference/index.ts';
import { startProxy, type Fault, type ProxyResponse } from '../../../src/faults/fault-proxy.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const RUN_TIMEOUT_MS = 150_000;

export type Json = Record<string, any>;

export interface Outcome {
  code: number;
  stdout: string;
  verdicts: Map<string, string>;
  scenarios: Array<{ title: string; state: string }>;
  applied: number;
}

/**
 * Registers beforeAll/afterAll that start the reference (with a fresh API key) and a work
 * directory, and returns `runThrough`: `conform run --suite SUITE` against the reference
 * behind `fault` (none: passes everything through).
 */
export function useSpawnRun(suite: string): {
  runThrough: (fault: Fault | undefined, name: string) => Promise<Outcome>;
} {
  let ref: RunningReference;
  let work: string;

  beforeAll(async () => {
    ref = await startReferenceServer({
      host: '127.0.0.1',
      port: 0,
      database: 'memory',
      apiKey: `sk_test_${randomBytes(12).toString('hex')}`,
    });
    work = await mkdtemp(join(tmpdir(), `conform-${suite}-`));
    await writeFile(join(work, 'conform.config.yaml'), 'destructive: true\nreferenceServer: true\n');
  }, 60_000);

  afterAll(async () => {
    await ref?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function runThrough(fault: Fault | undefined, name: string): Promise<Outcome> {
    const proxy = await startProxy({ upstream: ref.baseUrl, fault });
    const dir = join(work, name);
    try {
      const args = [
        join(ROOT, 'bin/conform.js'),
        'run',
        '--base-url',
        proxy.url,
        '--suite',
        suite,
        '--report-dir',
        dir,
        '--config',
        join(work, 'conform.config.yaml'),
        '--plain',
        '--seed',
        '1',
      ];
      const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          args,
          {
            cwd: ROOT,
            env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: ref.apiKey },
            timeout: RUN_TIMEOUT_MS,
            maxBuffer: 16 * 1024 * 1024,
          },
          (err, out) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout: out }),
        );
      });
      const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      expect(stdout).not.toContain(ref.apiKey);
      return {
        code,
        stdout,
        verdicts: new Map(report.rules.map((r: { id: string; verdict: string }) => [r.id, r.verdict])),
        scenarios: report.scenarios.filter((s: { suite: string }) => s.suite === suite),
        applied: proxy.stats.applied,
      };
    } finally {
      await proxy.close();
    }
  }

  return { runThrough };
}

export function expectVerdicts(o: Outcome, failed: string[], passed: string[]): void {
  const of = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, o.verdicts.get(id)]));
  expect(o.applied, 'the fault altered at least one exchange').toBeGreaterThan(0);
  expect(o.code, o.stdout.slice(-3000)).toBe(1);
  expect(of(failed)).toEqual(Object.fromEntries(failed.map((id) => [id, 'failed'])));
  expect(of(passed)).toEqual(Object.fromEntries(passed.map((id) => [id, 'passed'])));
  // The console lists each failed rule (or rule part) on a line of its own under "failed: N rule(s)".
  for (const id of failed)
    expect(o.stdout).toMatch(new RegExp(`^ {2}${id.replace(/\./g, '\\.')}(#[a-z0-9-]+)?: `, 'm'));
}

export function json(status: number, body: unknown): ProxyResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(JSON.stringify(body)),
    json: body,
  };
}
