/**
 * One conformance run, from a target to its reports: the target is booted (by the caller's
 * `boot`, for the bundled reference) or taken from the config, probed, and given a fixture
 * strategy, while the suites' workers start (runner/index.ts; the vitest plumbing is
 * scenario/vitest-bridge.ts); every scenario's exchanges go through the check registry and its own
 * judgements; the verdicts per rule part and the exit code come from reporters/ (buildReport),
 * which writes report.json, junit.xml, report.html and summary.md. `conform run`
 * (src/cli/commands/run.ts) parses the flags, calls this and prints.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RuleIndex } from '../contract/index.ts';
import { destructiveAllowed, type RunConfig } from './config/index.ts';
import { HttpClient } from './http/client.ts';
import { redact } from './http/redact.ts';
import { markPhase } from './runner/phases.ts';
import { runSuites, type SuiteFile } from './runner/index.ts';
import type { OutputStyle } from './runner/progress.ts';
import { buildReport, writeReports, type Report } from './reporters/index.ts';
import type { KeptRequest } from './reporters/model.ts';
import { probe } from './target/probe.ts';
import { RunNotStarted, type BootedTarget, type TargetContext } from './target/index.ts';
import { expectationProblems } from './config/expectations.ts';

export { RunNotStarted, type BootedTarget } from './target/index.ts';

export interface RunRequest {
  config: RunConfig;
  /** The suites to run (selected by name, or all of a folder). */
  suites: SuiteFile[];
  /** Some of the suites only, or another folder's: the rules they leave out are not this run's gaps. */
  narrowed: boolean;
  shard?: { index: number; count: number };
  /** Boots the target when the config names no base URL (the CLI boots the bundled reference). */
  boot?: () => Promise<BootedTarget>;
  /** Where the collector writes progress. */
  style: OutputStyle;
  failOnSkip?: boolean;
  maxWorkers: number;
  toolVersion: string;
  /** Told once the target is booted, probed and given its fixtures (the CLI prints the run's header). */
  onTarget?(target: TargetContext, booted: BootedTarget): void;
}

export interface RunOutcome {
  report: Report;
  /** Where the reports were written. */
  dir: string;
}

/** A run id: time stamp, a random tail, the shard. */
export function newRunId(shard?: { index: number; count: number }): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', '-');
  return `${stamp}-${randomBytes(2).toString('hex')}${shard ? `-shard${shard.index}of${shard.count}` : ''}`;
}

/** Runs the suites against the target and writes the reports; throws RunNotStarted when it cannot be done. */
export async function run(req: RunRequest): Promise<RunOutcome> {
  const { config } = req;
  if (!config.baseUrl && !req.boot) throw new RunNotStarted('no target: name its base URL');
  // While the target boots or answers the probe: the fixture strategies, and what the report reads.
  import('./fixtures/index.ts').catch(() => undefined);
  const runId = newRunId(req.shard);
  // Workers list here what their fixtures made and kept because a failure may name it.
  const keptFile = join(tmpdir(), `conform-kept-${runId}.jsonl`);
  // Kept apart from the promise: a target booted for a run that then fails is still let go.
  let booted: BootedTarget | undefined;
  const targetReady = (async (): Promise<TargetContext> => {
    booted = config.baseUrl
      ? {
          baseUrl: config.baseUrl,
          apiKey: config.apiKey!,
          merchantId: config.merchantId,
          bundled: false,
          close: async () => undefined,
        }
      : await req.boot!();
    markPhase('target-ready');
    const target = await prepareTarget(config, booted, runId, keptFile);
    req.onTarget?.(target, booted);
    return target;
  })();
  try {
    // The workers start at once; their scenarios wait for the target (runner/index.ts).
    const running = runSuites({
      target: targetReady,
      suites: req.suites,
      shard: req.shard,
      style: req.style,
      maxWorkers: config.concurrency ?? req.maxWorkers,
      maxConcurrency: config.concurrency,
      scenarioTimeoutMs: config.scenarioTimeoutMs,
    });
    // What the report reads, loaded while the suites run (the contract loader is loaded lazily: ajv is heavy).
    const contract = import('../contract/index.ts').then((c) => Promise.all([c.loadSpec(), c.loadRules()]));
    contract.catch(() => undefined);
    const outcome = await running;
    // A target that could not be booted or probed ends the run here, with its reason.
    const target = await targetReady;
    markPhase('scenarios-done');
    const [spec, rules] = await contract;
    const unknownIds = unknownAccepted(config.acceptance, rules);
    if (unknownIds.length)
      throw new RunNotStarted(
        `allowUnjudged names no known rule id or family: ${unknownIds.join(', ')} (see conform rules)`,
      );
    const report = buildReport({
      kept: await readKept(keptFile),
      runId,
      toolVersion: req.toolVersion,
      startedAt: outcome.startedAt,
      durationMs: outcome.durationMs,
      target: {
        baseUrl: target.baseUrl,
        bundled: target.bundled,
        sandbox: config.sandbox,
        ...(config.referenceServer ? { referenceServer: true } : {}),
        ...(target.merchantId ? { merchantId: target.merchantId } : {}),
      },
      profile: target.profile,
      seed: target.seed,
      shard: req.shard,
      suites: req.suites.map((s) => s.name),
      fixtures: { strategy: target.fixtures.strategy, reason: target.fixtures.reason },
      destructive: target.destructive,
      specVersion: spec.version,
      rules,
      results: outcome.results,
      errors: outcome.errors,
      expectedFailures: config.expectedFailures,
      acceptance: {
        ...config.acceptance,
        ...(req.failOnSkip ? { failOnSkip: true } : {}),
        ...(req.narrowed ? { narrowed: { suites: req.suites.map((x) => x.name) } } : {}),
      },
    });
    const dir = resolve(config.reportDir ?? join('reports', runId));
    await writeReports(report, dir);
    markPhase('reports-written');
    return { report, dir };
  } finally {
    // A run that ended before its target was ready still lets a booted target go.
    await targetReady.catch(() => undefined);
    await booted?.close().catch(() => undefined);
  }
}

/** The target as the suites get it: probed, with the run's settings and its fixture strategy. */
async function prepareTarget(
  config: RunConfig,
  booted: BootedTarget,
  runId: string,
  keptFile: string,
): Promise<TargetContext> {
  const client = new HttpClient({
    baseUrl: booted.baseUrl,
    apiKey: booted.apiKey.value,
    apiKeyLabel: booted.apiKey.label,
    timeoutMs: 10_000,
    retry429: false,
  });
  // Declared expected failures are checked against the rules and the spec before anything is judged.
  if (config.expectedFailures.length) {
    const c = await import('../contract/index.ts');
    const [spec, rules] = await Promise.all([c.loadSpec(), c.loadRules()]);
    const problems = expectationProblems(config.expectedFailures, rules, spec);
    if (problems.length)
      throw new RunNotStarted(
        `${config.configPath ?? 'conform.config.yaml'}: ${problems[0]}` +
          (problems.length > 1 ? ` (and ${problems.length - 1} more problem(s) in expectedFailures)` : ''),
      );
  }
  await probe(client, booted.apiKey.from);
  markPhase('target-probed');
  const base = {
    runId,
    baseUrl: booted.baseUrl,
    bundled: booted.bundled,
    referenceServer: booted.bundled || config.referenceServer,
    sandbox: config.sandbox,
    apiKey: booted.apiKey,
    secondKey: config.secondKey,
    otherMerchantKey: config.otherMerchantKey,
    merchantId: booted.merchantId ?? config.merchantId,
    profile: config.profile,
    seed: config.seed,
    destructive: destructiveAllowed(config, booted.bundled),
    timeoutMs: config.timeoutMs,
    scenarioTimeoutMs: config.scenarioTimeoutMs,
    runDeadline: Date.now() + config.runTimeoutMs,
    ...(config.expectedFailures.length ? { expectedFailures: config.expectedFailures } : {}),
  };
  const fixtures = await fixtureChoice(config, booted.bundled, client, base);
  markPhase('fixtures-chosen');
  return { ...base, fixtures, keptFile };
}

/**
 * Chooses the fixture strategy through the fixtures module: explicit config > bundled
 * reference > configured file/module > extension probe (fixtures/probe.ts; never a documented
 * route) > none. Then checks a file or module loads: a configuration problem stops the run
 * here, not every scenario in the workers.
 */
async function fixtureChoice(
  config: RunConfig,
  bundled: boolean,
  client: HttpClient,
  target: Omit<TargetContext, 'fixtures'>,
): Promise<TargetContext['fixtures']> {
  const fx = await import('./fixtures/index.ts');
  const choice = await fx.resolveFixtureStrategy({ bundled, fixtures: config.fixtures }, client);
  if (choice.strategy === 'file' || choice.strategy === 'module' || choice.strategy === 'command') {
    try {
      const fixtures = await fx.createFixtures({ ...target, fixtures: choice }, client);
      await fixtures.close();
    } catch (err) {
      if ((err as Error)?.name === 'FixtureConfigError' || err instanceof fx.FixtureConfigError)
        throw new RunNotStarted(
          redact(
            String((err as Error).message)
              .split('\n')
              .join('; '),
          ),
        );
      throw err;
    }
  }
  return choice;
}

/** Rule ids and families named by the acceptance that rules.yaml does not know: a config mistake. */
function unknownAccepted(acceptance: RunConfig['acceptance'], rules: RuleIndex): string[] {
  if (!Array.isArray(acceptance.allowUnjudged)) return [];
  const families = new Set(rules.rules.map((r) => r.family));
  return acceptance.allowUnjudged.filter((x) => !rules.byId(x) && !families.has(x as never));
}

/** What the workers kept (kept.jsonl lines), then the file is gone. */
async function readKept(file: string): Promise<Report['kept']> {
  const text = await readFile(file, 'utf8').catch(() => '');
  await rm(file, { force: true }).catch(() => undefined);
  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as KeptRequest & { module?: boolean });
  const requests = lines.filter((l) => !l.module).map(({ module: _m, ...r }) => r);
  return { requests, ...(lines.some((l) => l.module) ? { module: true } : {}) };
}
