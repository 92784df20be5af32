/**
 * npm run bench:sandbox — examples/sandbox run after run against one `conform serve
 * --documented-port`: how many runs are green (exit 0), and each run's wall time and exit code.
 *
 * The server runs as its own process, started once: the reference with its extensions hidden
 * on the documented port (the suites' base URL), its full port the example's back office
 * (CONFORM_ADMIN_URL). Each run is `bin/conform.js run` from examples/sandbox, as a team runs
 * it, with its own seed. The server logs every API key created, revoked and refused (`--log`):
 * a run that is not green prints its failed rules, and any run prints the keys refused with
 * 401 other than the revoked-key fixtures' (which key, which fixture made it, when it was
 * created and revoked, by which request), so a false red can be traced to its cause.
 * BENCH_RUNS=n changes the number of runs (default 10). Exit 1 unless every run is green.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(ROOT, 'bin/conform.js');
const EXAMPLE = join(ROOT, 'examples/sandbox');
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
/** Keys the example makes to be refused (revokedKey) or revokes at once (the merchant lookup). */
const REFUSED_ON_PURPOSE = new Set(['conform revoked key', 'conform merchant lookup']);
if (!Number.isInteger(RUNS) || RUNS < 1) {
  console.error(
    `bench:sandbox: BENCH_RUNS must be a whole number of runs, at least 1 (got '${process.env.BENCH_RUNS}')`,
  );
  process.exit(2);
}

interface KeyEvent {
  at: number;
  reqId?: string;
  name?: string;
  revokedAt?: string | null;
}

/** What the server's log said about each key, by key id, and the refusals in order. */
class KeyLog {
  readonly created = new Map<string, KeyEvent>();
  readonly revoked = new Map<string, KeyEvent>();
  readonly refused: Array<KeyEvent & { keyId: string }> = [];
  unknownRefused = 0;

  line(text: string): void {
    if (!text.includes('"api key ')) return;
    let l: Record<string, any>;
    try {
      l = JSON.parse(text);
    } catch {
      return;
    }
    const at = Number(l.time);
    if (l.msg === 'api key created') this.created.set(l.apiKey.keyId, { at, reqId: l.reqId, name: l.apiKey.name });
    // The first revocation is the one that counts (a later DELETE of the same key, the cleanup's, changes nothing).
    else if (l.msg === 'api key revoked' && !this.revoked.has(l.apiKey.keyId))
      this.revoked.set(l.apiKey.keyId, { at, reqId: l.reqId });
    else if (l.msg === 'api key refused' && l.refusedKey === 'unknown') this.unknownRefused += 1;
    else if (l.msg === 'api key refused') this.refused.push({ at, reqId: l.reqId, ...l.refusedKey });
  }

  /** Refusals since `from` of keys the example did not make to be refused. */
  unexpected(from: number): string[] {
    const clock = (t?: number) => (t === undefined ? 'never' : new Date(t).toISOString().slice(11, 23));
    return this.refused
      .filter((r) => r.at >= from && !REFUSED_ON_PURPOSE.has(this.created.get(r.keyId)?.name ?? ''))
      .map((r) => {
        const made = this.created.get(r.keyId);
        const gone = this.revoked.get(r.keyId);
        return (
          `401 at ${clock(r.at)} (${r.reqId}) for key ${r.keyId} '${made?.name ?? '?'}': created ${clock(made?.at)}` +
          ` (${made?.reqId ?? '?'}), revoked ${clock(gone?.at)}${gone ? ` (${gone.reqId})` : ''}`
        );
      });
  }
}

interface Server {
  adminUrl: string;
  baseUrl: string;
  proc: ChildProcess;
  keys: KeyLog;
}

/** `conform serve --log` on free ports, the key from the environment (never on the command line). */
function startServer(apiKey: string): Promise<Server> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--documented-port', '0', '--log'], {
    cwd: ROOT,
    env: { ...process.env, CONFORM_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keys = new KeyLog();
  createInterface({ input: proc.stderr! }).on('line', (l) => keys.line(l));
  let out = '';
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const admin = /listening on (http:\/\/\S+)/.exec(out);
      const documented = /documented endpoints only on (http:\/\/\S+)/.exec(out);
      if (admin && documented) resolve({ adminUrl: admin[1], baseUrl: documented[1], proc, keys });
    });
    proc.once('exit', (code) => reject(new Error(`conform serve exited (${code}) before listening:\n${out}`)));
  });
}

interface Run {
  code: number;
  wallMs: number;
  headline: string;
}

function runExample(n: number, server: Server, apiKey: string, reportDir: string): Promise<Run> {
  const args = [BIN, 'run', '--plain', '--base-url', server.baseUrl, '--seed', String(n), '--report-dir', reportDir];
  const env = { ...process.env, BILLING_API_KEY: apiKey, CONFORM_ADMIN_URL: server.adminUrl, CONFORM_API_KEY: '' };
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: EXAMPLE, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const lines = out.trim().split('\n');
      const headline = lines.find((l) => /^[A-Z ]+\(exit \d\):/.test(l)) ?? lines[lines.length - 1] ?? '';
      resolve({ code: code ?? -1, wallMs: performance.now() - t0, headline });
    });
  });
}

/** The rules a run failed, with their first finding, from its report.json. */
function failedRules(reportDir: string): string[] {
  try {
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as {
      rules: Array<{ id: string; verdict: string; failures?: Array<{ message?: string }>; reasons?: string[] }>;
    };
    return report.rules
      .filter((r) => r.verdict === 'failed' || r.verdict === 'engine_error')
      .map((r) => `${r.id} ${r.verdict}: ${(r.failures?.[0]?.message ?? r.reasons?.[0] ?? '').slice(0, 200)}`);
  } catch {
    return ['no report.json'];
  }
}

const apiKey = `sk_test_${randomBytes(12).toString('hex')}`;
const work = mkdtempSync(join(tmpdir(), 'conform-bench-sandbox-'));
console.log(
  `bench:sandbox — examples/sandbox ${RUNS} times in a row against conform serve --documented-port; ` +
    `node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()[0].toFixed(1)}`,
);
const server = await startServer(apiKey);
const runs: Run[] = [];
try {
  for (let n = 1; n <= RUNS; n++) {
    const from = Date.now();
    const reportDir = join(work, `run-${n}`);
    const r = await runExample(n, server, apiKey, reportDir);
    runs.push(r);
    const odd = server.keys.unexpected(from);
    console.log(
      `run ${String(n).padStart(2)}  exit ${r.code}  ${(r.wallMs / 1000).toFixed(1)} s  ` +
        `unexpected 401s ${odd.length}  ${r.headline}`,
    );
    if (r.code !== 0) for (const p of failedRules(reportDir)) console.log(`        ${p}`);
    for (const o of odd) console.log(`        ${o}`);
  }
} finally {
  server.proc.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
const green = runs.filter((r) => r.code === 0).length;
const walls = runs.map((r) => r.wallMs / 1000).sort((a, b) => a - b);
console.log(
  `green ${green} of ${runs.length}; wall min ${walls[0].toFixed(1)} s, median ${walls[Math.floor(walls.length / 2)].toFixed(1)} s, ` +
    `max ${walls[walls.length - 1].toFixed(1)} s; keys created ${server.keys.created.size}, refused ${server.keys.refused.length} ` +
    `(+${server.keys.unknownRefused} unknown keys, sent on purpose); load average ${loadavg()[0].toFixed(1)}`,
);
process.exitCode = green === runs.length ? 0 : 1;
