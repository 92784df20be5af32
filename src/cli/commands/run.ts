/**
 * `conform run`: parses the flags and the config, picks the suites, and calls the engine's run
 * (src/engine/run.ts), which goes from the target to the reports; then prints the verdict.
 * With no base URL the engine is given the bundled reference server to boot, in a child process
 * (src/cli/reference-process.ts).
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CliError,
  didYouMean,
  parseProfile,
  parseSeed,
  wantsHelp,
  warnKeyOnCommandLine,
  type Command,
} from '../command.ts';
import { commandName, named } from '../../engine/messages/command-name.ts';
import { toolVersion } from '../version.ts';
import {
  ConfigError,
  loadConfigFile,
  resolveConfig,
  type ConfigFile,
  type ConfigOverrides,
  type RunConfig,
} from '../../engine/config/index.ts';
import { closeDefaultAgent } from '../../engine/http/client.ts';
import { registerSecret, redact } from '../../engine/http/redact.ts';
import {
  DEFAULT_SUITES_DIR,
  SuiteSelectionError,
  discoverSuites,
  preloadVitest,
  selectSuites,
} from '../../engine/runner/index.ts';
import { outputStyle, type OutputStyle } from '../../engine/runner/progress.ts';
import { unstartedReport, writeReports } from '../../engine/reporters/index.ts';
import { markPhase, printPhases } from '../../engine/runner/phases.ts';
import { inCi } from '../reference-fork.js';
import { bootReference } from '../bundled-target.ts';
import { summaryLines } from '../../engine/reporters/console.ts';
import { newRunId, run, RunNotStarted } from '../../engine/run.ts';

export const usage = `Usage: conform run [options]

Runs the conformance suites against a target and writes report.json, junit.xml,
report.html and summary.md (also when the run cannot start: exit 2, with the reason).
With no --base-url (and none in the config) it boots the bundled reference server (a
child process) on a free loopback port with an in-memory database: a demonstration, not a gate,
which a CI job (CI set) refuses unless --reference says it is meant.

Options:
  --base-url URL         the target (sandbox) base URL, the one its /v0 and /v2 paths hang under
  --reference            test the bundled reference server on purpose (needed when CI is set)
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
  --quiet                print only the verdict, the failures and where the reports are
  --verbose              print a line for every scenario, passed ones too
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

Suites (--suite): SUITES_LIST

Environment:
  CONFORM_API_KEY        the target's API key (or the variable apiKeyEnv names in the config)
  CONFORM_ADMIN_URL      the back office the example fixtures module (conform init) creates
                         resources through
  CONFORM_ADMIN_KEY      its credential (required by that module: the target's key is never
                         sent to the back office by default)
  CONFORM_KEEP_FIXTURES  1: keep what the fixtures created after the run (resources a failure
                         names are kept anyway, and listed in report.json)
  CI                     set: plain output, and a run with no target named is refused
  NO_COLOR               no colour on a terminal

Exit codes: 0 every applicable rule judged and passed (or its gap accepted), 1 a rule
failed, 2 the run could not be done or the engine broke, 3 no failure, but applicable
rules went unjudged and the gap was not accepted, or nothing was judged.
Docs: README.md and docs/ in the package (npm: billing-conform).`;

export interface RunFlags extends ConfigOverrides {
  config?: string;
  suites?: string[];
  shard?: { index: number; count: number };
  suitesDir?: string;
  plain?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  failOnSkip?: boolean;
  /** The bundled reference server is tested on purpose (a run with no target under CI needs it). */
  reference?: boolean;
}

const SWITCHES = [
  '--plain',
  '--quiet',
  '--verbose',
  '--sandbox',
  '--fail-on-skip',
  '--reference',
  '--allow-unjudged',
  '--suite',
];

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
    } else if (arg === '--quiet') {
      flags.quiet = true;
    } else if (arg === '--verbose') {
      flags.verbose = true;
    } else if (arg === '--reference') {
      flags.reference = true;
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
      const known = [...SWITCHES, ...VALUE_FLAGS];
      const hint = arg.startsWith('-') ? didYouMean(arg, known) : '';
      throw new CliError(`unknown option '${arg.startsWith('-') ? arg : argv[i]}'.${hint} Run 'conform run --help'.`);
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
  if (flags.quiet && flags.verbose) throw new CliError('--quiet and --verbose ask for opposite things: give one');
  if (flags.reference && flags.baseUrl)
    throw new CliError('--reference tests the bundled reference server: drop --base-url, or drop --reference');
  if (flags.apiKey) {
    registerSecret(flags.apiKey, 'CONFORM_API_KEY', 'the key given with --api-key');
    warnKeyOnCommandLine();
  }
  return flags;
}

export { inCi } from '../reference-fork.js';

/** One worker per core, at most 4: on 2 cores, 2 workers measured faster and ~200 MB lighter than 4. */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
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

/** The whole command; returns the exit code. */
export async function conformRun(argv: string[], io: { style?: OutputStyle } = {}): Promise<number> {
  markPhase('cli-ready');
  const flags = parseRunArgs(argv);
  const config = await loadConfig(flags);
  markPhase('config-read');
  if (!config.baseUrl && !flags.reference && inCi())
    throw new CliError(
      'no target named, and CI is set: a run of the bundled reference server gates nothing. ' +
        'Name your deployment with --base-url URL (or baseUrl in conform.config.yaml), ' +
        'or pass --reference to test the bundled server on purpose',
    );
  const style = io.style ?? outputStyle({ plain: flags.plain, quiet: flags.quiet, verbose: flags.verbose });
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
  try {
    const { report, dir } = await run({
      config,
      suites,
      narrowed: suites.length < all.length || !!flags.suitesDir,
      shard: flags.shard,
      boot: config.baseUrl ? undefined : bootReference,
      style,
      failOnSkip: flags.failOnSkip,
      maxWorkers: defaultWorkers(),
      toolVersion: toolVersion(),
      onTarget(target, booted) {
        if (style.detail === 'quiet') return;
        style.write(
          `${commandName()} run ${target.runId}: ${booted.baseUrl}${booted.bundled ? ' (bundled reference)' : ''}` +
            ` · profile ${target.profile} · seed ${target.seed}` +
            `${flags.shard ? ` · shard ${flags.shard.index}/${flags.shard.count}` : ''} · fixtures ${target.fixtures.strategy}` +
            ` · destructive ${target.destructive ? 'allowed' : 'off'} · suites ${suites.map((s) => s.name).join(', ')}`,
        );
      },
    });
    if (style.detail !== 'quiet') style.write('');
    for (const line of summaryLines(style, report, dir)) style.write(line);
    return report.summary.exitCode;
  } catch (err) {
    if (err instanceof RunNotStarted) throw new CliError(err.message);
    throw err;
  } finally {
    await closeDefaultAgent();
    markPhase('closed');
    printPhases();
  }
}

/** Words wrapped at 90 columns, lines after the first indented by `indent`. */
function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > 90) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** Where a run that could not start writes its reports: --report-dir, else the config's reportDir, else reports/<id>. */
async function writeUnstartedReports(argv: string[], reason: string): Promise<void> {
  const valueOf = (flag: string) => {
    const i = argv.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    if (i < 0) return undefined;
    return argv[i].includes('=') ? argv[i].slice(argv[i].indexOf('=') + 1) : argv[i + 1];
  };
  const configPath = valueOf('--config') ?? (existsSync('conform.config.yaml') ? 'conform.config.yaml' : undefined);
  const file: ConfigFile = configPath ? await loadConfigFile(configPath).catch(() => ({})) : {};
  const runId = newRunId();
  const dir = resolve(valueOf('--report-dir') ?? file.reportDir ?? join('reports', runId));
  const { loadRules } = await import('../../contract/rules.ts');
  const baseUrl = valueOf('--base-url') ?? file.baseUrl;
  const report = unstartedReport({
    runId,
    toolVersion: toolVersion(),
    reason,
    rules: await loadRules(),
    target: { baseUrl: baseUrl ?? '(none named)', bundled: false },
  });
  await writeReports(report, dir);
}

const command: Command = {
  name: 'run',
  summary: 'Run the conformance suites against a target (default: the bundled reference server)',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      const names = (await discoverSuites(DEFAULT_SUITES_DIR)).map((x) => x.name);
      console.log(named(usage.replace('SUITES_LIST', wrap(names.join(', '), 'Suites (--suite): '.length))));
      return 0;
    }
    try {
      return await conformRun(argv);
    } catch (err) {
      // Anything else kept the run from being done: one line, exit 2, no key.
      const error =
        err instanceof CliError
          ? err
          : new CliError(
              `the run could not be completed: ${redact(String((err as Error)?.message ?? err)).split('\n')[0]}`,
            );
      // A CI job's report steps get the reason too: the four reports, verdict error.
      if (error.exitCode === 2) await writeUnstartedReports(argv, error.message).catch(() => undefined);
      throw error;
    }
  },
};

export default command;
