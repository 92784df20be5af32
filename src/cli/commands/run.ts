/**
 * `conform run`: runs the scenario suites against a target and writes the reports.
 * With no base URL it boots the bundled reference server in process (run-target.ts, through
 * src/cli/reference.ts, the CLI's one way into src/reference).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { CliError, parseProfile, parseSeed, wantsHelp, warnKeyOnCommandLine, type Command } from '../command.ts';
import { commandName, named } from '../../engine/command-name.ts';
import { toolVersion } from '../version.ts';
import {
  ConfigError,
  destructiveAllowed,
  loadConfigFile,
  resolveConfig,
  type ConfigFile,
  type ConfigOverrides,
  type RunConfig,
} from '../../engine/config/index.ts';
import { HttpClient, closeDefaultAgent } from '../../engine/http/client.ts';
import { registerSecret, redact } from '../../engine/redact.ts';
import {
  DEFAULT_SUITES_DIR,
  SuiteSelectionError,
  discoverSuites,
  preloadVitest,
  runSuites,
  selectSuites,
} from '../../engine/runner/index.ts';
import { outputStyle, type OutputStyle } from '../../engine/runner/progress.ts';
import { buildReport, writeReports } from '../../engine/reporters/index.ts';
import type { RuleIndex } from '../../contract/rules.ts';
import type { TargetContext } from '../../engine/context.ts';
import { bootReference, fixtureChoice, probe, type BootedTarget } from './run-target.ts';
import { summaryLines } from './run-summary.ts';

export const usage = `Usage: conform run [options]

Runs the conformance suites against a target and writes report.json, junit.xml,
report.html and summary.md. With no --base-url (and none in the config) it boots the
bundled reference server in process, on a free loopback port with an in-memory database.

Options:
  --base-url URL         the target (sandbox) base URL, the one its /v0 and /v2 paths hang under
  --api-key KEY          its API key (default: $CONFORM_API_KEY, or the variable apiKeyEnv
                         names in the config, which then wins); the flag warns, so
                         prefer the variable: a key on the command line is visible
                         to every user of the machine in the process list
  --sandbox              the target is a sandbox: destructive scenarios may run (as sandbox: true)
  --config FILE          conform.config.yaml (default: ./conform.config.yaml when present)
  --suite NAME...        run only these suites (names of suites/*.suite.ts)
  --profile quick|full   how deep to go (default quick)
  --seed N               seed for generated cases (repeatable runs)
  --report-dir DIR       where the reports go (default reports/<run-id>)
  --shard i/n            run slice i of n (merge the shards with conform merge)
  --suites-dir DIR       read suites from another folder (default: the package's suites/)
  --plain                plain output for CI logs (automatic when CI=true or not a TTY)
  --allow-unjudged[=IDS] accept rules left unjudged (all of them, or only these rule ids
                         and families, comma-separated)
  --min-judged N         accept such gaps when at least N (>= 1) applicable rules were judged
  --request-timeout MS   one request to the target (default 15000)
  --scenario-timeout MS  one scenario; past it its rules are not judged: target too slow
                         (default 180000)
  --run-timeout MS       the whole run; scenarios past it are not judged (default 1800000)
  --fail-on-skip         also exit 3 when a scenario ended early for any reason but the
                         profile or destructive setting: for targets that offer every
                         fixture, like the bundled reference
  -h, --help             this help

Exit codes: 0 every applicable rule judged and passed (or its gap accepted), 1 a rule
failed, 2 the run could not be done or the engine broke, 3 no failure, but applicable
rules went unjudged and the gap was not accepted, or nothing was judged.`;

export interface RunFlags extends ConfigOverrides {
  config?: string;
  suites?: string[];
  shard?: { index: number; count: number };
  suitesDir?: string;
  plain?: boolean;
  failOnSkip?: boolean;
}

const VALUE_FLAGS = new Set([
  '--base-url',
  '--api-key',
  '--config',
  '--profile',
  '--seed',
  '--report-dir',
  '--shard',
  '--suites-dir',
  '--min-judged',
  '--request-timeout',
  '--scenario-timeout',
  '--run-timeout',
]);

/** A timeout flag in milliseconds, within the bounds the config file allows. */
function parseMs(flag: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new CliError(`${flag} takes milliseconds from ${min} to ${max}, got '${v}'`);
  return Number(v);
}

/** Parses argv; `--suite a b` and `--suite a --suite b` and `--suite=a,b` all work. */
export function parseRunArgs(argv: string[]): RunFlags {
  const flags: RunFlags = {};
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let inline: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === '--plain') {
      flags.plain = true;
    } else if (arg === '--sandbox') {
      flags.sandbox = true;
    } else if (arg === '--fail-on-skip') {
      flags.failOnSkip = true;
    } else if (arg === '--allow-unjudged') {
      if (inline === undefined) flags.allowUnjudged = true;
      else {
        const ids = inline
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
        if (!ids.length)
          throw new CliError('--allow-unjudged= needs rule ids or families (or no value: accept every gap)');
        if (flags.allowUnjudged !== true) flags.allowUnjudged = [...(flags.allowUnjudged || []), ...ids];
      }
    } else if (arg === '--suite' || arg === '--suites') {
      const names: string[] = inline !== undefined ? inline.split(',') : [];
      while (inline === undefined && i + 1 < argv.length && !argv[i + 1].startsWith('-'))
        names.push(...argv[++i].split(','));
      if (!names.filter(Boolean).length) throw new CliError('--suite needs at least one suite name');
      flags.suites = [...(flags.suites ?? []), ...names.filter(Boolean)];
    } else if (VALUE_FLAGS.has(arg)) {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new CliError(`${arg} needs a value`);
      values.set(arg, v);
    } else {
      throw new CliError(`unknown option '${arg.startsWith('-') ? arg : argv[i]}'. Run 'conform run --help'.`);
    }
  }
  flags.profile = parseProfile(values.get('--profile'));
  flags.seed = parseSeed(values.get('--seed'));
  const shard = values.get('--shard');
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard);
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 1 || Number(m[1]) > Number(m[2]))
      throw new CliError(`--shard must be i/n with 1 <= i <= n, got '${shard}'`);
    flags.shard = { index: Number(m[1]), count: Number(m[2]) };
  }
  flags.baseUrl = values.get('--base-url');
  flags.apiKey = values.get('--api-key');
  flags.config = values.get('--config');
  flags.reportDir = values.get('--report-dir');
  flags.suitesDir = values.get('--suites-dir');
  const minJudged = values.get('--min-judged');
  if (minJudged !== undefined) {
    if (!/^\d+$/.test(minJudged))
      throw new CliError(`--min-judged must be a whole number of rules, got '${minJudged}'`);
    flags.minJudged = Number(minJudged);
  }
  flags.timeoutMs = parseMs('--request-timeout', values.get('--request-timeout'), 100, 600_000);
  flags.scenarioTimeoutMs = parseMs('--scenario-timeout', values.get('--scenario-timeout'), 1000, 3_600_000);
  flags.runTimeoutMs = parseMs('--run-timeout', values.get('--run-timeout'), 10_000, 86_400_000);
  if (flags.apiKey) {
    registerSecret(flags.apiKey, 'CONFORM_API_KEY', 'the key given with --api-key');
    warnKeyOnCommandLine();
  }
  return flags;
}

/** One worker per core, at most 4: on 2 cores, 2 workers measured faster and ~200 MB lighter than 4. */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

function newRunId(shard?: { index: number; count: number }): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', '-');
  return `${stamp}-${randomBytes(2).toString('hex')}${shard ? `-shard${shard.index}of${shard.count}` : ''}`;
}

async function loadConfig(flags: RunFlags): Promise<RunConfig> {
  const path = flags.config ?? (existsSync('conform.config.yaml') ? 'conform.config.yaml' : undefined);
  try {
    const file: ConfigFile = path ? await loadConfigFile(path) : {};
    const config = resolveConfig(file, flags, process.env, path);
    for (const k of [config.apiKey, config.secondKey, config.otherMerchantKey]) if (k) registerSecret(k.value, k.label);
    return config;
  } catch (err) {
    if (err instanceof ConfigError)
      throw new CliError(err.problems.length === 1 ? err.message : `${err.origin}: ${err.problems.join('; ')}`);
    throw err;
  }
}

/** Rule ids and families named by the acceptance that rules.yaml does not know: a config mistake. */
function unknownAccepted(acceptance: RunConfig['acceptance'], rules: RuleIndex): string[] {
  if (!Array.isArray(acceptance.allowUnjudged)) return [];
  const families = new Set(rules.rules.map((r) => r.family));
  return acceptance.allowUnjudged.filter((x) => !rules.byId(x) && !families.has(x as never));
}

/** The whole command; returns the exit code. */
export async function conformRun(argv: string[], io: { style?: OutputStyle } = {}): Promise<number> {
  const flags = parseRunArgs(argv);
  const config = await loadConfig(flags);
  const style = io.style ?? outputStyle({ plain: flags.plain });
  const suitesDir = flags.suitesDir ? resolve(flags.suitesDir) : DEFAULT_SUITES_DIR;
  const all = await discoverSuites(suitesDir);
  if (!all.length) throw new CliError(`no scenario suites to run: ${suitesDir} holds no *.suite.ts files yet`);
  let suites;
  try {
    suites = selectSuites(all, flags.suites);
  } catch (err) {
    if (err instanceof SuiteSelectionError) throw new CliError(err.message);
    throw err;
  }

  preloadVitest().catch(() => undefined);
  const booted: BootedTarget = config.baseUrl
    ? {
        baseUrl: config.baseUrl,
        apiKey: config.apiKey!,
        merchantId: config.merchantId,
        bundled: false,
        close: async () => undefined,
      }
    : await bootReference();
  try {
    const client = new HttpClient({
      baseUrl: booted.baseUrl,
      apiKey: booted.apiKey.value,
      apiKeyLabel: booted.apiKey.label,
      timeoutMs: 10_000,
      retry429: false,
    });
    await probe(client, booted.apiKey.from);
    const runId = newRunId(flags.shard);
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
    };
    const fixtures = await fixtureChoice(config, booted.bundled, client, base);
    const target: TargetContext = { ...base, fixtures };
    style.write(
      `${commandName()} run ${runId}: ${booted.baseUrl}${booted.bundled ? ' (bundled reference)' : ''}` +
        ` · profile ${target.profile} · seed ${target.seed}` +
        `${flags.shard ? ` · shard ${flags.shard.index}/${flags.shard.count}` : ''} · fixtures ${fixtures.strategy}` +
        ` · destructive ${target.destructive ? 'allowed' : 'off'} · suites ${suites.map((s) => s.name).join(', ')}`,
    );
    const outcome = await runSuites({
      target,
      suites,
      shard: flags.shard,
      style,
      maxWorkers: config.concurrency ?? defaultWorkers(),
      maxConcurrency: config.concurrency,
      scenarioTimeoutMs: config.scenarioTimeoutMs,
    });
    const { loadSpec } = await import('../../contract/index.ts');
    const [spec, rules] = await Promise.all([loadSpec(), (await import('../../contract/rules.ts')).loadRules()]);
    const unknownIds = unknownAccepted(config.acceptance, rules);
    if (unknownIds.length)
      throw new CliError(
        `allowUnjudged names no known rule id or family: ${unknownIds.join(', ')} (see conform rules)`,
      );
    const report = buildReport({
      runId,
      toolVersion: toolVersion(),
      startedAt: outcome.startedAt,
      durationMs: outcome.durationMs,
      target: {
        baseUrl: booted.baseUrl,
        bundled: booted.bundled,
        sandbox: config.sandbox,
        ...(config.referenceServer ? { referenceServer: true } : {}),
        ...(target.merchantId ? { merchantId: target.merchantId } : {}),
      },
      profile: target.profile,
      seed: target.seed,
      shard: flags.shard,
      suites: suites.map((s) => s.name),
      fixtures: { strategy: fixtures.strategy, reason: fixtures.reason },
      destructive: target.destructive,
      specVersion: spec.version,
      rules,
      results: outcome.results,
      errors: outcome.errors,
      acceptance: {
        ...config.acceptance,
        ...(flags.failOnSkip ? { failOnSkip: true } : {}),
        // Some of the suites, or suites of another folder: the rules they leave out are not this run's gaps.
        ...(suites.length < all.length || flags.suitesDir ? { narrowed: { suites: suites.map((x) => x.name) } } : {}),
      },
    });
    const dir = resolve(config.reportDir ?? join('reports', runId));
    await writeReports(report, dir);
    style.write('');
    for (const line of summaryLines(style, report, dir)) style.write(line);
    const s = report.summary;
    return s.exitCode;
  } finally {
    await booted.close().catch(() => undefined);
    await closeDefaultAgent();
  }
}

const command: Command = {
  name: 'run',
  summary: 'Run the conformance suites against a target (default: the bundled reference server)',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    try {
      return await conformRun(argv);
    } catch (err) {
      if (err instanceof CliError) throw err;
      // Anything else kept the run from being done: one line, exit 2, no key.
      throw new CliError(
        `the run could not be completed: ${redact(String((err as Error)?.message ?? err)).split('\n')[0]}`,
      );
    }
  },
};

export default command;
