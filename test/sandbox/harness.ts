/**
 * The documented-endpoints-only target for end-to-end tests: `conform serve --documented-port`
 * in a child process (a correct server whose reference extensions answer 404 on the
 * documented-only port, as a vendor's sandbox would), and `conform run` against it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/conform.js');

export interface DocumentedOnlyTarget {
  /** The server itself, extensions included: the example's back office (CONFORM_ADMIN_URL). */
  adminUrl: string;
  /** The same server with only the documented endpoints: the suites' baseUrl. */
  baseUrl: string;
  apiKey: string;
  merchantId: string;
  close(): Promise<void>;
}

export async function startDocumentedOnlyTarget(): Promise<DocumentedOnlyTarget> {
  const apiKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--documented-port', '0', '--api-key', apiKey], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const up = await new Promise<RegExpExecArray[]>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const server = /listening on (http:\/\/\S+) \(sandbox merchant (org_[a-zA-Z0-9]+)\)/.exec(out);
      const documented = /documented endpoints only on (http:\/\/\S+)/.exec(out);
      if (server && documented) resolve([server, documented]);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`conform serve exited before listening:\n${out}`)));
  });
  return {
    adminUrl: up[0][1],
    merchantId: up[0][2],
    baseUrl: up[1][1],
    apiKey,
    async close() {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

export interface RunOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  report: {
    rules: Array<{
      id: string;
      verdict: string;
      kind?: string;
      reasons?: string[];
      notJudged?: Array<{ reason: string; category: string }>;
      informational?: boolean;
    }>;
    summary: Record<string, any>;
  };
}

/** `conform run ...args` from `cwd`, reading back report.json from `reportDir`. */
export async function conformRun(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; reportDir: string },
): Promise<RunOutcome> {
  const proc = spawn(process.execPath, [BIN, 'run', '--plain', '--report-dir', opts.reportDir, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (c) => (stdout += c));
  proc.stderr!.on('data', (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  const report = JSON.parse(
    await readFile(join(opts.reportDir, 'report.json'), 'utf8').catch(() => '{"rules":[],"summary":{}}'),
  );
  return { code, stdout, stderr, report };
}

/** Rule ids by verdict, and the line for the measured table. */
export function tally(o: RunOutcome): { passed: number; failed: string[]; notJudged: string[]; line: string } {
  const by = (v: (x: string) => boolean) => o.report.rules.filter((r) => v(r.verdict)).map((r) => r.id);
  const passed = by((v) => v === 'passed').length;
  const failed = by((v) => v === 'failed');
  const notJudged = by((v) => v !== 'passed' && v !== 'failed');
  return {
    passed,
    failed,
    notJudged,
    line: `passed ${passed}, failed ${failed.length}, not judged ${notJudged.length}, exit ${o.code}`,
  };
}
