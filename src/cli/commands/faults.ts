/**
 * `conform faults`: runs the fault catalog. Each fault sits in a proxy in front of the
 * target while `conform run` goes through it; a fault the run fails on is caught, a benign
 * variant it fails on is a false alarm. With no --base-url every fault gets a fresh
 * bundled reference server (in memory), so no state leaks from one fault to the next.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError, parseProfile, parseSeed, wantsHelp, warnKeyOnCommandLine, type Command } from '../command.ts';
import { commandName, named } from '../../engine/messages/command-name.ts';
import { ConfigError, loadConfigFile, resolveConfig, type ConfigFile } from '../../engine/config/index.ts';
import { registerSecret, redact } from '../../engine/http/redact.ts';
import { DEFAULT_SUITES_DIR, discoverSuites } from '../../engine/runner/index.ts';
import { outputStyle, paint } from '../../engine/runner/progress.ts';
import { CATALOG, FAULT_AREAS, isFaultArea, type CatalogFault } from '../../faults/catalog/index.ts';
import {
  GENERATED_KINDS,
  generatedCatalog,
  sampleFaults,
  type GeneratedFault,
  type GeneratedKind,
} from '../../faults/generated/index.ts';
import { BaselineError, runFaults, type FaultTarget, type StartTarget } from '../../faults/runner.ts';
import {
  baselineLine,
  catalogLines,
  progressLine,
  resultTable,
  summaryLines,
  writeFaultsReport,
} from '../../faults/report.ts';

export const usage = `Usage: conform faults [options]

Runs the fault-injection catalog: for each fault, a proxy in front of the target applies
it while \`conform run\` (the fault's own suites) goes through the proxy. A fault is
caught when the run fails; a benign variant must not make it fail. Writes faults.json
and faults.md. With no --base-url each fault gets a fresh bundled reference server.

Options:
  --catalog NAME         hand (default): the hand-written catalog; generated: the faults and
                         benign variants derived from spec/openapi.yaml; all: the two
  --sample N             a seeded sample of N of the selected faults, spread over the kinds
                         (generated catalog; --sample-seed S, default the --seed)
  --kind K...            generated catalog: only these kinds (${GENERATED_KINDS.join(', ')})
  --base-url URL         the target (default: the bundled reference, one per fault)
  --api-key KEY          its API key (default: $CONFORM_API_KEY, or the variable apiKeyEnv
                         names in the config, which then wins); the flag warns, so
                         prefer the variable: a key on the command line is visible
                         to every user of the machine in the process list
  --config FILE          conform.config.yaml for the target (fixtures, keys), passed to each run
  --fault NAME...        only these faults (repeatable, or comma-separated)
  --area F...          only these areas: ${FAULT_AREAS.join(', ')}
  --benign-only          only the benign variants
  --faults-only          only the faults (no benign variants)
  --suite NAME...        run these suites for every fault instead of each fault's own
  --profile quick|full   suite depth (default quick)
  --seed N               seed for the runs (default 1, so that results repeat)
  --parallel N           faults at a time (default 2; each is a target, a proxy and a run)
  --no-baseline          skip the run without a fault (it tells what the target fails anyway)
  --report-dir DIR       where faults.json, faults.md and each fault's reports go
                         (default reports/faults-<time>)
  --list                 print the catalog and exit
  --plain                plain output (automatic when CI=true or not a TTY)
  -h, --help             this help

Exit codes: 0 every fault caught and no benign variant flagged, 1 otherwise, 2 could not run.`;

export type CatalogName = 'hand' | 'generated' | 'all';

export interface FaultsFlags {
  catalog: CatalogName;
  sample?: number;
  sampleSeed?: number;
  kinds: string[];
  baseUrl?: string;
  apiKey?: string;
  config?: string;
  faults: string[];
  areas: string[];
  benignOnly: boolean;
  faultsOnly: boolean;
  suites?: string[];
  profile: 'quick' | 'full';
  seed: number;
  parallel: number;
  baseline: boolean;
  reportDir?: string;
  list: boolean;
  plain: boolean;
}

const VALUE_FLAGS = new Set([
  '--base-url',
  '--api-key',
  '--config',
  '--profile',
  '--seed',
  '--parallel',
  '--report-dir',
  '--catalog',
  '--sample',
  '--sample-seed',
]);
const LIST_FLAGS = new Set(['--fault', '--faults', '--area', '--areas', '--suite', '--suites', '--kind', '--kinds']);

export function parseFaultsArgs(argv: string[]): FaultsFlags {
  const flags: FaultsFlags = {
    catalog: 'hand',
    kinds: [],
    faults: [],
    areas: [],
    benignOnly: false,
    faultsOnly: false,
    profile: 'quick',
    seed: 1,
    parallel: 2,
    baseline: true,
    list: false,
    plain: false,
  };
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let inline: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === '--plain') flags.plain = true;
    else if (arg === '--list') flags.list = true;
    else if (arg === '--benign-only') flags.benignOnly = true;
    else if (arg === '--faults-only') flags.faultsOnly = true;
    else if (arg === '--no-baseline') flags.baseline = false;
    else if (LIST_FLAGS.has(arg)) {
      const names: string[] = inline !== undefined ? inline.split(',') : [];
      while (inline === undefined && i + 1 < argv.length && !argv[i + 1].startsWith('-'))
        names.push(...argv[++i].split(','));
      const clean = names.map((n) => n.trim()).filter(Boolean);
      if (!clean.length) throw new CliError(`${arg} needs at least one name`);
      if (arg.startsWith('--fault')) flags.faults.push(...clean);
      else if (arg.startsWith('--area')) flags.areas.push(...clean);
      else if (arg.startsWith('--kind')) flags.kinds.push(...clean);
      else flags.suites = [...(flags.suites ?? []), ...clean];
    } else if (VALUE_FLAGS.has(arg)) {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new CliError(`${arg} needs a value`);
      values.set(arg, v);
    } else throw new CliError(`unknown option '${arg}'. Run 'conform faults --help'.`);
  }
  if (flags.benignOnly && flags.faultsOnly) throw new CliError('--benign-only and --faults-only exclude each other');
  flags.profile = parseProfile(values.get('--profile')) ?? flags.profile;
  flags.seed = parseSeed(values.get('--seed')) ?? flags.seed;
  const parallel = values.get('--parallel');
  if (parallel !== undefined && (!/^\d+$/.test(parallel) || Number(parallel) < 1 || Number(parallel) > 8))
    throw new CliError(`--parallel must be an integer in 1..8, got '${parallel}'`);
  if (parallel !== undefined) flags.parallel = Number(parallel);
  const catalog = values.get('--catalog');
  if (catalog !== undefined && !['hand', 'generated', 'all'].includes(catalog))
    throw new CliError(`--catalog must be hand, generated or all, got '${catalog}'`);
  if (catalog !== undefined) flags.catalog = catalog as CatalogName;
  for (const [flag, key] of [
    ['--sample', 'sample'],
    ['--sample-seed', 'sampleSeed'],
  ] as const) {
    const v = values.get(flag);
    if (v === undefined) continue;
    if (!/^\d+$/.test(v) || (flag === '--sample' && Number(v) < 1))
      throw new CliError(`${flag} must be a ${flag === '--sample' ? 'positive ' : ''}whole number, got '${v}'`);
    flags[key] = Number(v);
  }
  const badKinds = flags.kinds.filter((k) => !(GENERATED_KINDS as readonly string[]).includes(k));
  if (badKinds.length)
    throw new CliError(
      `unknown kind${badKinds.length > 1 ? 's' : ''}: ${badKinds.join(', ')}; the kinds are ${GENERATED_KINDS.join(', ')}`,
    );
  if (flags.kinds.length && flags.catalog === 'hand') flags.catalog = 'generated';
  flags.baseUrl = values.get('--base-url');
  if (flags.baseUrl !== undefined && !/^https?:\/\/[^/]+/.test(flags.baseUrl))
    throw new CliError(`--base-url must be an http:// or https:// URL, got '${flags.baseUrl}'`);
  flags.apiKey = values.get('--api-key');
  if (flags.apiKey) registerSecret(flags.apiKey, 'CONFORM_API_KEY', 'the key given with --api-key');
  if (flags.apiKey) warnKeyOnCommandLine();
  flags.config = values.get('--config');
  flags.reportDir = values.get('--report-dir');
  return flags;
}

/** The catalog a run draws from. */
export async function catalogNamed(name: CatalogName): Promise<readonly CatalogFault[]> {
  if (name === 'hand') return CATALOG;
  const { loadSpec } = await import('../../contract/index.ts');
  const generated = generatedCatalog(await loadSpec());
  return name === 'generated' ? generated : [...CATALOG, ...generated];
}

/** The faults the flags select, in catalog order (then the sample, when asked for). */
export function selectFaults(
  flags: Pick<FaultsFlags, 'faults' | 'areas' | 'benignOnly' | 'faultsOnly'> &
    Partial<Pick<FaultsFlags, 'kinds' | 'sample' | 'sampleSeed' | 'seed'>>,
  catalog: readonly CatalogFault[] = CATALOG,
): CatalogFault[] {
  const unknown = flags.faults.filter((n) => !catalog.some((f) => f.name === n));
  if (unknown.length)
    throw new CliError(
      `unknown fault${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Run 'conform faults --list'.`,
    );
  const badAreas = flags.areas.filter((f) => !isFaultArea(f));
  if (badAreas.length)
    throw new CliError(
      `unknown area${badAreas.length > 1 ? 's' : ''}: ${badAreas.join(', ')}; the areas are ${FAULT_AREAS.join(', ')}`,
    );
  const kinds = flags.kinds ?? [];
  const chosen = catalog.filter(
    (f) =>
      (!flags.faults.length || flags.faults.includes(f.name)) &&
      (!flags.areas.length || flags.areas.includes(f.area)) &&
      (!kinds.length || (f.kind !== undefined && kinds.includes(f.kind))) &&
      !(flags.benignOnly && !f.benign) &&
      !(flags.faultsOnly && f.benign),
  );
  if (!chosen.length) throw new CliError('no fault matches the selection');
  if (flags.sample === undefined) return chosen;
  const generated = chosen.filter((f): f is GeneratedFault => f.kind !== undefined);
  const hand = chosen.filter((f) => f.kind === undefined);
  // Hand-written faults have no kind: they form one stratum of their own.
  const strata = [...generated, ...hand.map((f) => ({ ...f, kind: 'hand' as GeneratedKind }) as GeneratedFault)];
  const picked = new Set(sampleFaults(strata, flags.sample, flags.sampleSeed ?? flags.seed ?? 1).map((f) => f.name));
  return chosen.filter((f) => picked.has(f.name));
}

/** Published limits raised `factor` times, so that an emulated bucket is the only one that binds. */
async function raisedLimits(factor: number | undefined): Promise<Record<string, number> | undefined> {
  if (!factor) return undefined;
  const { loadSpec } = await import('../../contract/index.ts');
  const spec = await loadSpec();
  const out: Record<string, number> = {};
  for (const op of spec.operations.values()) if (op.rateLimit) out[op.operationId] = op.rateLimit.limit * factor;
  return out;
}

/** A fresh bundled reference per run: in memory, its own key, loopback only. */
export function bundledTargets(): StartTarget {
  return async (fault) => {
    const key = `sk_test_${randomBytes(12).toString('hex')}`;
    registerSecret(key, 'CONFORM_API_KEY');
    const { startReferenceServer } = await import('../reference.ts');
    const ref = await startReferenceServer({
      host: '127.0.0.1',
      port: 0,
      database: 'memory',
      apiKey: key,
      rateLimits: await raisedLimits(fault?.target?.raiseRateLimits),
    });
    return {
      baseUrl: ref.baseUrl,
      apiKey: key,
      merchantId: ref.merchantId,
      bundled: true,
      close: () => ref.close(),
    } satisfies FaultTarget;
  };
}

async function externalTarget(flags: FaultsFlags): Promise<{ start: StartTarget; baseUrl: string } | undefined> {
  const path = flags.config ?? (existsSync('conform.config.yaml') ? 'conform.config.yaml' : undefined);
  let file: ConfigFile = {};
  try {
    if (path) file = await loadConfigFile(path);
    const config = resolveConfig(file, { baseUrl: flags.baseUrl, apiKey: flags.apiKey }, process.env, path);
    if (!config.baseUrl) {
      if (flags.config)
        throw new CliError(
          `${flags.config} names no baseUrl: pass --base-url, or leave --config out to use the bundled reference`,
        );
      return undefined;
    }
    const apiKey = config.apiKey!;
    registerSecret(apiKey.value, apiKey.label);
    const target: FaultTarget = {
      baseUrl: config.baseUrl,
      apiKey: apiKey.value,
      merchantId: config.merchantId,
      bundled: false,
      close: async () => undefined,
    };
    return { start: async () => target, baseUrl: config.baseUrl };
  } catch (err) {
    if (err instanceof ConfigError)
      throw new CliError(err.problems.length === 1 ? err.message : `${err.origin}: ${err.problems.join('; ')}`);
    throw err;
  }
}

function stamp(): string {
  return new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', '-');
}

export async function conformFaults(argv: string[]): Promise<number> {
  const flags = parseFaultsArgs(argv);
  const style = outputStyle({ plain: flags.plain });
  const faults = selectFaults(flags, await catalogNamed(flags.catalog));
  const indeterminate = faults.filter((f) => f.indeterminate).length;
  const counts =
    `${faults.filter((f) => !f.benign && !f.indeterminate).length} faults, ` +
    `${faults.filter((f) => f.benign).length} benign variants` +
    (indeterminate ? `, ${indeterminate} indeterminate cases` : '');
  if (flags.list) {
    for (const line of catalogLines(faults)) style.write(line);
    style.write(counts);
    return 0;
  }
  if (flags.suites) {
    const known = new Set((await discoverSuites(DEFAULT_SUITES_DIR)).map((s) => s.name));
    const bad = flags.suites.filter((s) => !known.has(s));
    if (bad.length)
      throw new CliError(
        `unknown suite${bad.length > 1 ? 's' : ''}: ${bad.join(', ')}; the suites are ${[...known].sort().join(', ')}`,
      );
  }
  const external =
    flags.baseUrl || flags.config || existsSync('conform.config.yaml') ? await externalTarget(flags) : undefined;
  const reportDir = resolve(flags.reportDir ?? join('reports', `faults-${stamp()}`));
  const configFile =
    external && (flags.config ?? (existsSync('conform.config.yaml') ? 'conform.config.yaml' : undefined));
  const sample =
    flags.sample !== undefined ? ` (sample of ${flags.sample}, seed ${flags.sampleSeed ?? flags.seed})` : '';
  const where = external ? external.baseUrl : 'bundled reference (fresh per fault)';
  style.write(
    `${commandName()} faults: ${flags.catalog} catalog${sample}: ${counts} · ${where} · ` +
      `profile ${flags.profile} · seed ${flags.seed} · ${flags.parallel} at a time`,
  );
  let report;
  try {
    report = await runFaults({
      faults,
      startTarget: external?.start ?? bundledTargets(),
      reportDir,
      suites: flags.suites,
      profile: flags.profile,
      seed: flags.seed,
      parallel: flags.parallel,
      baseline: flags.baseline,
      configFile: configFile ? resolve(configFile) : undefined,
      target: external ? { baseUrl: external.baseUrl, bundled: false } : { bundled: true },
      onBaseline: (b) => style.write(b.exitCode === 0 ? baselineLine(b) : paint(style, 'red', baselineLine(b))),
      onResult: (r) =>
        style.write(
          r.outcome === 'caught' || r.outcome === 'passed' ? progressLine(r) : paint(style, 'red', progressLine(r)),
        ),
    });
  } catch (err) {
    if (err instanceof BaselineError) throw new CliError(`${err.message}; the reports are in ${reportDir}/_baseline`);
    throw err;
  }
  await writeFaultsReport(report, reportDir);
  style.write('');
  for (const line of resultTable(report)) style.write(line);
  style.write('');
  for (const line of summaryLines(report)) style.write(line);
  style.write(`reports: ${reportDir}/{faults.json,faults.md} and one folder per fault`);
  return report.summary.exitCode;
}

const command: Command = {
  name: 'faults',
  summary: 'Run the fault-injection catalog through a proxy in front of a target',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    try {
      return await conformFaults(argv);
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw new CliError(
        `the fault run could not be completed: ${redact(String((err as Error)?.message ?? err)).split('\n')[0]}`,
      );
    }
  },
};

export default command;
