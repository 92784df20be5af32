/**
 * conform.config.yaml: loading, validation, and merging with CLI flags and the
 * environment. API keys are only ever named by environment variable in files.
 */
import { readFile } from 'node:fs/promises';
import { resolve, dirname } from 'node:path';
import { parse } from 'yaml';
import { didYouMean } from '../messages/did-you-mean.ts';
import { yamlProblem } from '../messages/yaml-error.ts';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { configSchema, LITERAL_KEY_FIELDS } from './schema.ts';
import type { Expectation } from './expectations.ts';

export type Profile = 'quick' | 'full';
export type FixtureStrategyName = 'reference' | 'file' | 'module' | 'command' | 'none';

/** A fixtures program (strategy command): a shell command line or an argument vector, and its folder. */
export interface FixtureCommandRef {
  run: string | string[];
  cwd: string;
}

export interface ConfigFile {
  baseUrl?: string;
  sandbox?: boolean;
  referenceServer?: boolean;
  apiKeyEnv?: string;
  secondKeyEnv?: string;
  otherMerchantKeyEnv?: string;
  merchantId?: string;
  destructive?: boolean;
  fixtures?: { strategy?: FixtureStrategyName; file?: string; module?: string; command?: string | string[] };
  profile?: Profile;
  seed?: number;
  reportDir?: string;
  timeoutMs?: number;
  scenarioTimeoutMs?: number;
  runTimeoutMs?: number;
  concurrency?: number;
  allowUnjudged?: boolean | string[];
  minJudged?: number;
  expectedFailures?: Expectation[];
}

/** Flags of `conform run` that override the file. */
export interface ConfigOverrides {
  baseUrl?: string;
  apiKey?: string;
  /** --sandbox: as `sandbox: true` in the file. */
  sandbox?: boolean;
  profile?: Profile;
  seed?: number;
  reportDir?: string;
  /** true: accept every gap; a list: these rule ids or families. */
  allowUnjudged?: boolean | string[];
  minJudged?: number;
  /** --request-timeout, --scenario-timeout, --run-timeout (milliseconds). */
  timeoutMs?: number;
  scenarioTimeoutMs?: number;
  runTimeoutMs?: number;
}

export interface KeyRef {
  value: string;
  /** The environment variable replays should use. */
  label: string;
  /** Where the key was read from, for messages: `CONFORM_API_KEY`, `BILLING_API_KEY (named by apiKeyEnv)`, `--api-key`. */
  from?: string;
}

/** Everything a run needs to know about its target, resolved. */
export interface RunConfig {
  /** Undefined: boot the bundled reference server. */
  baseUrl?: string;
  sandbox: boolean;
  /** The target is the reference server: rules of kind reference apply (always true when it is bundled). */
  referenceServer: boolean;
  apiKey?: KeyRef;
  secondKey?: KeyRef;
  otherMerchantKey?: KeyRef;
  merchantId?: string;
  /** Explicit setting from the file; undefined means "default for the target". */
  destructive?: boolean;
  /** Requested strategy (undefined: decide after probing the target) and its inputs. */
  fixtures: { strategy?: FixtureStrategyName; file?: string; module?: string; command?: FixtureCommandRef };
  profile: Profile;
  seed: number;
  reportDir?: string;
  /** One request to the target. */
  timeoutMs: number;
  /** One scenario: past it, its rules are not judged (target too slow). */
  scenarioTimeoutMs: number;
  /** The whole run: scenarios past it end not judged (target too slow). */
  runTimeoutMs: number;
  concurrency?: number;
  configPath?: string;
  /** Known differences of the target, declared with their reasons (expectations.ts); checked against the rules before the run. */
  expectedFailures: Expectation[];
  /** Gaps (applicable rules not judged) the user accepts. */
  acceptance: {
    allowUnjudged?: boolean | string[];
    minJudged?: number;
    /** Categories of reasons accepted by the settings, each with why (`destructive` on a declared production target). */
    accepted?: { destructive?: string };
  };
}

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    readonly origin = 'conform.config.yaml',
  ) {
    super(
      problems.length === 1
        ? `${origin}: ${problems[0]}`
        : `${origin} has ${problems.length} problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** Compiled on first use; the schema itself is checked against the meta-schema by the config tests. */
let compiled: ValidateFunction | undefined;
const configValidator = () =>
  (compiled ??= new Ajv2020({ allErrors: true, strict: false, validateSchema: false }).compile(configSchema));

/** The settings the config schema knows at a dotted place ('' for the top). */
function settingsAt(where: string): Record<string, unknown> {
  let node = configSchema as { properties?: Record<string, unknown> };
  for (const key of where ? where.split('.') : []) node = (node.properties?.[key] ?? {}) as typeof node;
  return node.properties ?? {};
}

/** Checks a parsed config document; one clear line per problem. */
export function validateConfig(doc: unknown, origin = 'conform.config.yaml'): ConfigFile {
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new ConfigError(['the file must hold a mapping of settings'], origin);
  const problems: string[] = [];
  const raw = doc as Record<string, unknown>;
  for (const [field, envField] of Object.entries(LITERAL_KEY_FIELDS)) {
    if (field in raw)
      problems.push(
        `'${field}' would hold a literal API key, which config files must never contain; ` +
          `put the key in an environment variable and name it with '${envField}' (e.g. ${envField}: BILLING_API_KEY)`,
      );
  }
  const validateSchema = configValidator();
  if (!validateSchema(doc)) {
    for (const e of validateSchema.errors ?? []) {
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
      const expectation = /^expectedFailures\.(\d+)(?:\.(\w+))?/.exec(where);
      if (expectation) {
        const at = `expectedFailures[${expectation[1]}]`;
        const msg =
          e.keyword === 'required'
            ? `${at}: missing '${(e.params as { missingProperty: string }).missingProperty}' ` +
              '(rule, operation and reason are required; a reason says why the target differs)'
            : e.keyword === 'additionalProperties'
              ? `${at}: unknown key '${(e.params as { additionalProperty: string }).additionalProperty}' ` +
                '(keys: rule, operation, field, reason)'
              : expectation[2] === 'rule'
                ? `${at}.rule must be one rule id (RULE.ID, or RULE.ID#part for a rule of several parts), not a family`
                : expectation[2] === 'reason'
                  ? `${at}: give a reason (why the target differs), required for every expected failure`
                  : `${at}${expectation[2] ? `.${expectation[2]}` : ''} ${e.message}`;
        if (!problems.includes(msg)) problems.push(msg);
      } else if (where === 'expectedFailures') {
        problems.push('expectedFailures must be a list of {rule, operation, field?, reason}');
      } else if (where.startsWith('allowUnjudged')) {
        const msg =
          'allowUnjudged must be true, false or a list of rule ids and families (e.g. [AUTH, RATE.PORTAL.LIMIT])';
        if (!problems.includes(msg)) problems.push(msg);
      } else if (e.keyword === 'additionalProperties') {
        const extra = (e.params as { additionalProperty: string }).additionalProperty;
        if (!where && extra in LITERAL_KEY_FIELDS) continue;
        const known = Object.keys(settingsAt(where));
        problems.push(
          `unknown setting '${where ? `${where}.` : ''}${extra}'.${didYouMean(extra, known)}`.replace(/\.$/, ''),
        );
      } else if (e.keyword === 'pattern' && /KeyEnv$/.test(where)) {
        problems.push(
          `${where} must be the NAME of an environment variable (upper case, e.g. BILLING_API_KEY), not a key; ` +
            'got a value that does not look like one',
        );
      } else if (e.keyword === 'pattern' && where === 'baseUrl') {
        problems.push('baseUrl must be an http:// or https:// URL');
      } else if (e.keyword === 'enum') {
        problems.push(`${where} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`);
      } else {
        problems.push(`${where || '(root)'} ${e.message}`);
      }
    }
  }
  const f = (raw.fixtures ?? {}) as Record<string, unknown>;
  if (f.strategy === 'file' && !f.file)
    problems.push("fixtures.strategy 'file' needs fixtures.file (a YAML file of pre-seeded resource ids)");
  if (f.strategy === 'module' && !f.module)
    problems.push("fixtures.strategy 'module' needs fixtures.module (a TypeScript module exporting the fixtures)");
  if (f.strategy === 'command' && !f.command)
    problems.push("fixtures.strategy 'command' needs fixtures.command (the program serving the fixtures)");
  if (problems.length) throw new ConfigError(problems, origin);
  return doc as ConfigFile;
}

export async function loadConfigFile(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      [`cannot read the config file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`],
      path,
    );
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new ConfigError([yamlProblem(err, text)], path);
  }
  // An empty file (or comments only) would silently test the bundled reference instead of the target.
  if (doc === null || doc === undefined)
    throw new ConfigError(
      ['the file holds no settings; give at least baseUrl (or remove the file to test the bundled reference server)'],
      path,
    );
  return validateConfig(doc, path);
}

function keyFromEnv(
  envName: string | undefined,
  field: string,
  env: NodeJS.ProcessEnv,
  problems: string[],
): KeyRef | undefined {
  if (!envName) return undefined;
  const value = env[envName];
  if (value === undefined || value === '') {
    // The primary key is read from this variable alone: CONFORM_API_KEY, set or not, is not read then.
    const unread = field === 'apiKeyEnv' && envName !== 'CONFORM_API_KEY' && env.CONFORM_API_KEY;
    problems.push(
      `${field} names the environment variable ${envName}, which is not set: set ${envName} to the key` +
        (unread ? ` (CONFORM_API_KEY is set, but not read while apiKeyEnv names ${envName})` : ''),
    );
    return undefined;
  }
  return { value, label: envName, from: `${envName} (named by ${field})` };
}

/** Merges the file, the flags and the environment into a RunConfig. */
export function resolveConfig(
  file: ConfigFile,
  flags: ConfigOverrides,
  env: NodeJS.ProcessEnv = process.env,
  configPath?: string,
): RunConfig {
  const problems: string[] = [];
  const baseDir = configPath ? dirname(resolve(configPath)) : process.cwd();
  // The primary key: --api-key, else the variable apiKeyEnv names, else CONFORM_API_KEY (docs/config.md).
  let apiKey: KeyRef | undefined;
  if (flags.apiKey) apiKey = { value: flags.apiKey, label: 'CONFORM_API_KEY', from: '--api-key' };
  else if (file.apiKeyEnv) apiKey = keyFromEnv(file.apiKeyEnv, 'apiKeyEnv', env, problems);
  else if (env.CONFORM_API_KEY)
    apiKey = { value: env.CONFORM_API_KEY, label: 'CONFORM_API_KEY', from: 'CONFORM_API_KEY' };
  const secondKey = keyFromEnv(file.secondKeyEnv, 'secondKeyEnv', env, problems);
  const otherMerchantKey = keyFromEnv(file.otherMerchantKeyEnv, 'otherMerchantKeyEnv', env, problems);
  const baseUrl = flags.baseUrl ?? file.baseUrl;
  if (flags.baseUrl !== undefined && !/^https?:\/\/[^/]+/.test(flags.baseUrl))
    problems.push(`--base-url must be an http:// or https:// URL, got '${flags.baseUrl}'`);
  if (baseUrl && !apiKey && !file.apiKeyEnv)
    problems.push(
      'no API key: set CONFORM_API_KEY, or name the variable that holds it with apiKeyEnv in conform.config.yaml',
    );
  const targetKeys = TARGET_KEYS.filter((k) => file[k] !== undefined);
  if (!baseUrl && targetKeys.length)
    problems.push(
      `${targetKeys.join(', ')} ${targetKeys.length > 1 ? 'describe' : 'describes'} a target, but no baseUrl is given: ` +
        'set baseUrl or pass --base-url (without one the run would test the bundled reference server)',
    );
  if (problems.length) throw new ConfigError(problems, configPath ?? 'configuration');
  const fixtures = {
    strategy: file.fixtures?.strategy,
    file: file.fixtures?.file ? resolve(baseDir, file.fixtures.file) : undefined,
    module: file.fixtures?.module ? resolve(baseDir, file.fixtures.module) : undefined,
    command: file.fixtures?.command ? { run: file.fixtures.command, cwd: baseDir } : undefined,
  };
  return {
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    sandbox: flags.sandbox || (file.sandbox ?? false),
    referenceServer: file.referenceServer ?? false,
    apiKey,
    secondKey,
    otherMerchantKey,
    merchantId: file.merchantId,
    destructive: file.destructive,
    fixtures,
    profile: flags.profile ?? file.profile ?? 'quick',
    seed: flags.seed ?? file.seed ?? defaultSeed(),
    reportDir: flags.reportDir ?? (file.reportDir ? resolve(baseDir, file.reportDir) : undefined),
    timeoutMs: flags.timeoutMs ?? file.timeoutMs ?? DEFAULT_TIMEOUTS.requestMs,
    scenarioTimeoutMs: flags.scenarioTimeoutMs ?? file.scenarioTimeoutMs ?? DEFAULT_TIMEOUTS.scenarioMs,
    runTimeoutMs: flags.runTimeoutMs ?? file.runTimeoutMs ?? DEFAULT_TIMEOUTS.runMs,
    concurrency: file.concurrency,
    configPath,
    expectedFailures: file.expectedFailures ?? [],
    acceptance: acceptanceOf(file, flags),
  };
}

/** Documented defaults: a request, a scenario, the whole run (milliseconds). */
export const DEFAULT_TIMEOUTS = { requestMs: 15_000, scenarioMs: 180_000, runMs: 1_800_000 } as const;

/** Flags add to the file: --allow-unjudged alone accepts every gap. */
function acceptanceOf(file: ConfigFile, flags: ConfigOverrides): RunConfig['acceptance'] {
  const lists = [file.allowUnjudged, flags.allowUnjudged];
  const allowUnjudged = lists.includes(true) ? true : [...new Set(lists.flatMap((l) => (Array.isArray(l) ? l : [])))];
  const minJudged = flags.minJudged ?? file.minJudged;
  // A target declared production never runs deletes or refunds: leaving them unjudged is its choice.
  const production = !flags.sandbox && (file.sandbox === false || file.destructive === false);
  return {
    ...(allowUnjudged === true || allowUnjudged.length ? { allowUnjudged } : {}),
    ...(minJudged !== undefined ? { minJudged } : {}),
    ...(production
      ? {
          accepted: {
            destructive: `the configuration declares a production target (${file.sandbox === false ? 'sandbox' : 'destructive'}: false)`,
          },
        }
      : {}),
  };
}

/** Settings that only make sense for a target of your own. */
const TARGET_KEYS = ['apiKeyEnv', 'secondKeyEnv', 'otherMerchantKeyEnv', 'merchantId'] as const;

function defaultSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/** Destructive scenarios (deletes, refunds) run by default only on the bundled reference and sandbox-marked URLs. */
export function destructiveAllowed(config: RunConfig, bundled: boolean): boolean {
  if (config.destructive !== undefined) return config.destructive;
  return bundled || config.sandbox;
}

/**
 * The fixture strategy: the configured one, else `reference` when the target is the
 * bundled server or signs the reference handshake (fixtures/probe.ts), else file or module
 * when given, else none (scenarios needing fixtures are skipped, naming what is missing).
 */
export function chooseFixtureStrategy(
  config: RunConfig,
  bundled: boolean,
  signedHandshake: boolean,
): { strategy: FixtureStrategyName; file?: string; module?: string; command?: FixtureCommandRef; reason: string } {
  const { file, module, command } = config.fixtures;
  if (config.fixtures.strategy)
    return { strategy: config.fixtures.strategy, file, module, command, reason: 'set in the config file' };
  if (bundled) return { strategy: 'reference', reason: 'the target is the bundled reference server' };
  if (signedHandshake)
    return { strategy: 'reference', reason: 'the target signed the reference handshake: it is the reference server' };
  if (file) return { strategy: 'file', file, reason: 'fixtures.file is given' };
  if (module) return { strategy: 'module', module, reason: 'fixtures.module is given' };
  if (command) return { strategy: 'command', command, reason: 'fixtures.command is given' };
  return {
    strategy: 'none',
    reason: 'no fixtures configured and the target is not the reference server',
  };
}
