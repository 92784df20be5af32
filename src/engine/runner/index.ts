/** Runs the scenario suites through vitest's Node API with the target injected. */
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join, relative, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TargetContext } from '../scenario/worker.ts';
import { provideTarget, SETUP_FILES } from '../scenario/vitest-bridge.ts';
import { Collector, suiteName } from './collector.ts';
import type { OutputStyle } from './progress.ts';
import { settleProfileMarks } from './profile-marks.ts';
import type { RunError, ScenarioResult } from './types.ts';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DEFAULT_SUITES_DIR = join(PACKAGE_ROOT, 'suites');
const CACHE_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'conform-vite');

export interface SuiteFile {
  name: string;
  file: string;
}

/** The `*.suite.ts` files of a folder, by name. */
export async function discoverSuites(dir: string): Promise<SuiteFile[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return [];
  }
  return entries
    .filter((f) => /\.suite\.ts$/.test(f))
    .sort()
    .map((f) => ({ name: suiteName(f), file: join(dir, f) }));
}

export class SuiteSelectionError extends Error {}

/** Picks suites by name; an unknown name is an error listing the known ones. */
export function selectSuites(all: SuiteFile[], names: string[] | undefined): SuiteFile[] {
  if (!names?.length) return all;
  const unknown = names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length)
    throw new SuiteSelectionError(
      `unknown suite${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `'${n}'`).join(', ')}; ` +
        `available: ${all.map((s) => s.name).join(', ') || 'none'}`,
    );
  return all.filter((s) => names.includes(s.name));
}

export interface RunSuitesOptions {
  /**
   * The target, or its promise: the workers then start at once and their scenarios wait for it
   * (target/channel.ts). When the promise rejects, the run is cancelled, prints nothing more,
   * and runSuites resolves; the caller reports the reason.
   */
  target: TargetContext | Promise<TargetContext>;
  suites: SuiteFile[];
  shard?: { index: number; count: number };
  style?: OutputStyle;
  maxWorkers?: number;
  /** Scenarios of one suite running at once (vitest's maxConcurrency; default 5). */
  maxConcurrency?: number;
  /** One scenario's time (the scenario ends itself then); vitest's own limits sit a grace period above it. */
  scenarioTimeoutMs?: number;
}

/** What vitest waits beyond a scenario's own deadline, before it calls the scenario hung (an engine error). */
const GRACE_MS = 30_000;

export interface SuitesOutcome {
  results: ScenarioResult[];
  errors: RunError[];
  startedAt: string;
  durationMs: number;
}

let vitestModule: Promise<typeof import('vitest/node')> | undefined;

/** Starts loading vitest's Node API (over a second) while the caller boots or probes the target. */
export function preloadVitest(): Promise<typeof import('vitest/node')> {
  vitestModule ??= import('vitest/node');
  return vitestModule;
}

export async function runSuites(opts: RunSuitesOptions): Promise<SuitesOutcome> {
  const { startVitest } = await preloadVitest();
  const collector = new Collector(PACKAGE_ROOT, opts.style, opts.shard ? undefined : opts.suites.length);
  const startedAt = new Date();
  const t0 = performance.now();
  const exitCodeBefore = process.exitCode;
  const files = opts.suites.map((s) => resolve(s.file));
  const late = opts.target instanceof Promise ? opts.target : undefined;
  const offer = provideTarget(opts.target, `billing-conform-target-${randomBytes(6).toString('hex')}`);
  late?.catch(() => collector.abandon());
  const vitest = await startVitest(
    'test',
    files.map((f) => relative(PACKAGE_ROOT, f)),
    {
      config: false,
      root: PACKAGE_ROOT,
      dir: PACKAGE_ROOT,
      watch: false,
      // The project's own include pattern must not hide suite files living elsewhere.
      include: files.map((f) => relative(PACKAGE_ROOT, f)),
      reporters: [collector],
      // Each suite file releases its fixtures when it is done (not when its first describe block is).
      setupFiles: SETUP_FILES,
      provide: offer.provide,
      pool: 'threads',
      // Suites share no module state that matters between files; sharing the loaded spec
      // (YAML parse, ajv compile) per worker instead of per file saves seconds.
      isolate: false,
      maxWorkers: opts.maxWorkers ?? 4,
      ...(opts.maxConcurrency ? { maxConcurrency: opts.maxConcurrency } : {}),
      fileParallelism: true,
      testTimeout: (opts.scenarioTimeoutMs ?? 180_000) + GRACE_MS,
      hookTimeout: (opts.scenarioTimeoutMs ?? 180_000) + GRACE_MS,
      passWithNoTests: true,
      shard: opts.shard ? `${opts.shard.index}/${opts.shard.count}` : undefined,
      silent: true,
      // Suite and engine modules transformed once and kept on disk: the workers start sooner and
      // hold no transform results in memory (about 150 MB less over a run; npm run bench:run).
      experimental: { fsModuleCache: true, fsModuleCachePath: join(CACHE_DIR, 'modules') },
    } as Parameters<typeof startVitest>[2],
    { logLevel: 'silent', cacheDir: CACHE_DIR },
  );
  await vitest.close();
  offer.close();
  // vitest sets a failure exit code itself; the CLI decides the exit code from the verdicts.
  process.exitCode = exitCodeBefore;
  return {
    results: settleProfileMarks(collector.results),
    errors: collector.errors,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - t0),
  };
}

export type { ScenarioResult, RunError } from './types.ts';
