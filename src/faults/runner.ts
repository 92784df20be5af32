/**
 * Runs catalog faults: for each one, a target (a fresh one per fault where the caller can
 * make one), the fault proxy in front of it, and `conform run` through the proxy in a
 * child process, limited to the suites relevant to the fault. Records whether the run
 * failed (caught), the rules that fired, the time, and whether the fault ever applied.
 * A baseline run without a fault says what the target fails anyway.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../engine/runner/index.ts';
import { redact } from '../engine/http/redact.ts';
import { startProxy } from './fault-proxy.ts';
import { judge, summarize, type Applied, type FaultResult, type FaultsReport, type RunRecord } from './results.ts';
import type { CatalogFault } from './catalog/index.ts';

export interface FaultTarget {
  baseUrl: string;
  apiKey: string;
  merchantId?: string;
  /** The bundled reference: the runner writes the child's config (reference fixtures, destructive). */
  bundled: boolean;
  close(): Promise<void>;
}

/** Makes the target one run goes to (`fault` undefined: the baseline). */
export type StartTarget = (fault: CatalogFault | undefined) => Promise<FaultTarget>;

export type { Applied, FaultResult, FaultsReport, FaultsSummary, Outcome, RunRecord } from './results.ts';

export interface RunFaultsOptions {
  faults: CatalogFault[];
  startTarget: StartTarget;
  reportDir: string;
  /** Overrides each fault's own suites. */
  suites?: string[];
  profile: 'quick' | 'full';
  seed: number;
  /** Faults run at once (each is a target, a proxy and a `conform run`). */
  parallel: number;
  /** Run the suites once without a fault first (default true). */
  baseline?: boolean;
  /** A conform.config.yaml for the child runs (another target's fixtures, keys...). */
  configFile?: string;
  timeoutMs?: number;
  /** Target description for the report. */
  target: { baseUrl?: string; bundled: boolean };
  onBaseline?(r: RunRecord): void;
  onResult?(r: FaultResult): void;
  /**
   * Puts something in front of the fault proxy for each run (e.g. the passive judge of
   * `conform proxy`, which must see what clients see): `conform run` goes to its URL.
   */
  front?(proxyUrl: string, fault: CatalogFault | undefined): Promise<{ url: string; close(): Promise<unknown> }>;
}

export class BaselineError extends Error {}

const BIN = join(PACKAGE_ROOT, 'bin', 'conform.js');

/** The suites a fault's run covers ([] means every suite). */
export function suitesFor(
  fault: CatalogFault | undefined,
  override: string[] | undefined,
  all: CatalogFault[],
): string[] {
  if (override?.length) return override;
  if (fault) return fault.suites;
  const union = new Set<string>();
  for (const f of all) {
    if (!f.suites.length) return [];
    for (const s of f.suites) union.add(s);
  }
  return [...union].sort();
}

/**
 * The child run's config. Behind a benign variant the target is another conforming server,
 * not the reference: the reference's own choices (rules of kind reference) do not apply.
 */
function configYaml(target: FaultTarget, referenceServer: boolean): string {
  return [
    '# Written by conform faults: the bundled reference behind the fault proxy.',
    'sandbox: true',
    `referenceServer: ${referenceServer}`,
    'destructive: true',
    ...(target.merchantId ? [`merchantId: ${target.merchantId}`] : []),
    'fixtures:',
    '  strategy: reference',
    '',
  ].join('\n');
}

interface ChildOutcome {
  exitCode: number | null;
  error?: string;
}

function runChild(args: string[], env: NodeJS.ProcessEnv, logFile: string, timeoutMs: number): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const log = createWriteStream(logFile);
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: PACKAGE_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      log.end();
      resolve({ exitCode: null, error: `could not start conform run: ${err.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      log.end();
      resolve(
        timedOut
          ? { exitCode: null, error: `conform run took longer than ${Math.round(timeoutMs / 1000)} s and was stopped` }
          : { exitCode: code },
      );
    });
  });
}

interface ReportRule {
  id: string;
  verdict: string;
  kind: string;
  scope: string;
}

/** One `conform run` through a proxy applying `fault` (none: the baseline). */
async function runOnce(
  fault: CatalogFault | undefined,
  opts: RunFaultsOptions,
  suites: string[],
  dir: string,
): Promise<RunRecord & Applied> {
  const t0 = performance.now();
  await mkdir(dir, { recursive: true });
  const base = {
    failedRules: [],
    informationalFailed: [],
    suites,
    reportDir: dir,
    applied: 0,
    appliedSetup: 0,
    exchanges: 0,
  };
  let target: FaultTarget;
  try {
    target = await opts.startTarget(fault);
  } catch (err) {
    return {
      ...base,
      exitCode: null,
      durationMs: Math.round(performance.now() - t0),
      error: `could not start the target: ${redact(String((err as Error)?.message ?? err)).split('\n')[0]}`,
    };
  }
  try {
    const proxy = await startProxy({ upstream: target.baseUrl, fault });
    try {
      let config = opts.configFile;
      if (target.bundled) {
        config = join(dir, 'conform.config.yaml');
        await writeFile(config, configYaml(target, !fault?.benign));
      }
      const front = opts.front ? await opts.front(proxy.url, fault) : undefined;
      const args = [
        'run',
        '--base-url',
        front?.url ?? proxy.url,
        '--report-dir',
        dir,
        '--plain',
        '--seed',
        String(opts.seed),
        '--profile',
        opts.profile,
        ...(config ? ['--config', config] : []),
        ...(suites.length ? ['--suite', ...suites] : []),
      ];
      // The key goes through the environment only: it never appears on a command line.
      // CONFORM_MARK_SETUP: fixture setup requests carry a marker the proxy strips, so a fault that changed only those is told apart.
      const env = {
        ...process.env,
        CONFORM_API_KEY: target.apiKey,
        CONFORM_MARK_SETUP: '1',
        NO_COLOR: '1',
        FORCE_COLOR: '0',
      };
      const child = await runChild(
        args,
        env,
        join(dir, 'run.log'),
        opts.timeoutMs ?? (opts.profile === 'full' ? 1_800_000 : 600_000),
      ).finally(() => front?.close());
      const stats = {
        applied: proxy.stats.applied,
        appliedSetup: proxy.stats.appliedSetup,
        exchanges: proxy.stats.exchanges,
      };
      if (child.error)
        return {
          ...base,
          ...stats,
          exitCode: child.exitCode,
          durationMs: Math.round(performance.now() - t0),
          error: child.error,
        };
      let rules: ReportRule[];
      try {
        rules = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')).rules;
      } catch {
        const tail =
          (await readFile(join(dir, 'run.log'), 'utf8').catch(() => '')).trim().split('\n').slice(-1)[0] ?? '';
        return {
          ...base,
          ...stats,
          exitCode: child.exitCode,
          durationMs: Math.round(performance.now() - t0),
          error: `no report.json (exit ${child.exitCode}): ${redact(tail)}`,
        };
      }
      return {
        ...base,
        ...stats,
        exitCode: child.exitCode,
        failedRules: rules.filter((r) => r.verdict === 'failed' && r.scope === 'target').map((r) => r.id),
        informationalFailed: rules.filter((r) => r.verdict === 'failed' && r.kind === 'reference').map((r) => r.id),
        durationMs: Math.round(performance.now() - t0),
        ...(child.exitCode === 2 ? { error: 'conform run could not complete (exit 2); see run.log' } : {}),
      };
    } finally {
      await proxy.close();
    }
  } finally {
    await target.close().catch(() => undefined);
  }
}

/** Runs the baseline, then every fault, `parallel` at a time. Results come back in catalog order. */
export async function runFaults(opts: RunFaultsOptions): Promise<FaultsReport> {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  await mkdir(opts.reportDir, { recursive: true });
  const results: Array<FaultResult | undefined> = new Array(opts.faults.length);
  let baseline: RunRecord | undefined;
  let baselineDone: Promise<void> = Promise.resolve();
  if (opts.baseline !== false) {
    baselineDone = runOnce(
      undefined,
      opts,
      suitesFor(undefined, opts.suites, opts.faults),
      join(opts.reportDir, '_baseline'),
    ).then(({ applied: _a, appliedSetup: _s, exchanges: _e, ...record }) => {
      baseline = record;
      opts.onBaseline?.(record);
    });
  }
  const broken = () => !!baseline && (baseline.exitCode === null || baseline.exitCode === 2);
  let next = 0;
  // The baseline takes one of the lanes; a baseline that cannot run stops the faults (nothing could be judged).
  const lanes = Math.max(1, opts.parallel);
  const worker = async (lane: number) => {
    if (lane === 0) await baselineDone;
    while (next < opts.faults.length && !broken()) {
      const i = next++;
      const fault = opts.faults[i];
      const run = await runOnce(
        fault,
        opts,
        suitesFor(fault, opts.suites, opts.faults),
        join(opts.reportDir, fault.name),
      );
      await baselineDone;
      if (broken()) return;
      results[i] = judge(fault, run, baseline);
      opts.onResult?.(results[i]!);
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, lane) => worker(lane)));
  await baselineDone;
  if (broken())
    throw new BaselineError(
      `the baseline run (no fault) could not complete: ${baseline!.error ?? `exit ${baseline!.exitCode}`}`,
    );
  const done = results.filter((r): r is FaultResult => !!r);
  return {
    startedAt,
    target: opts.target,
    profile: opts.profile,
    seed: opts.seed,
    parallel: lanes,
    ...(baseline ? { baseline } : {}),
    results: done,
    summary: summarize(done, Math.round(performance.now() - t0), baseline),
  };
}
