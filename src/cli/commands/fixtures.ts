/**
 * `conform fixtures init` writes a commented fixtures file (every key, what it must be, how
 * many entries a run needs); `conform fixtures check` asks the target about a fixtures file
 * and says how many runs it has left.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, wantsHelp, warnKeyOnCommandLine, type Command } from '../command.ts';
import { commandName, named } from '../../engine/messages/command-name.ts';
import {
  ConfigError,
  destructiveAllowed,
  loadConfigFile,
  resolveConfig,
  type ConfigFile,
  type FixtureCommandRef,
} from '../../engine/config/index.ts';
import { HttpClient, closeDefaultAgent } from '../../engine/http/client.ts';
import { redact, registerSecret } from '../../engine/http/redact.ts';
import { PACKAGE_ROOT } from '../../engine/runner/index.ts';
import { FileFixtures } from '../../engine/fixtures/file/strategy.ts';
import { checkFixturesFile, fileCheckLines } from '../../engine/fixtures/file/check.ts';
import { fixturesSkeleton } from '../../engine/fixtures/file/skeleton.ts';
import { keyProbe } from '../../engine/fixtures/api.ts';
import { FixtureConfigError } from '../../engine/fixtures/module.ts';

export const usage = `Usage: conform fixtures init [--out FILE] [--runs N] [--force]
       conform fixtures check [--file FILE | --module FILE | --command CMD | --reference] [--config FILE]
                              [--base-url URL] [--api-key KEY]

init   writes a fixtures file (strategy: file) with every key commented out: what each
       entry must be, the suites using it, and how many entries N runs need (default 1)
       and use up. Its first line points YAML editors at the file's JSON Schema.
       Default --out: conform.fixtures.yaml (never overwritten without --force).

check  asks the target about every entry of a fixtures file: still there and in the state
       its scenarios need (where a documented read can tell), keys taken or refused as
       expected; entries found used up are recorded in the ledger, as a run would. Prints
       what is left per key and how many whole runs the file has left.
       The file, target and keys come from conform.config.yaml (fixtures.file, baseUrl,
       apiKeyEnv, else CONFORM_API_KEY), or from the flags. Prefer the environment to
       --api-key (it warns): a key on the command line is visible to every user of the
       machine in the process list.

       With a fixtures module (--module, or fixtures.module in the config), a fixtures
       program (--command "python3 fixtures.py", or fixtures.command) or the reference
       strategy (--reference): calls each fixture method once, as a run would, and vets
       what it hands over through the documented API (ids of the documented patterns, a
       documented read of what it made, keys taken or refused as expected); prints one
       line per method: ready, not provided (with the rules it unlocks), broken (what came
       back, what was expected) or not tried (what it reads was not made). It never runs
       a suite.

Exit codes: 0 done (check: at least one run left, no problem; every method ready), 1 check
found fewer than one run left, a problem, or a method not provided or broken, 2 bad usage,
config or file.`;

/** `./node_modules/...` or a path into this checkout: where the fixtures file's JSON Schema is, from `dir`. */
function schemaRef(dir: string): string {
  const rel = relative(dir, join(PACKAGE_ROOT, 'schemas', 'fixtures.schema.json'))
    .split(sep)
    .join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

async function init(argv: string[]): Promise<number> {
  let values: { out?: string; runs?: string; force?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { out: { type: 'string' }, runs: { type: 'string' }, force: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new CliError(`${(err as Error).message.split('\n')[0]} (see conform fixtures --help)`);
  }
  const runs = values.runs === undefined ? 1 : Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1000)
    throw new CliError(`--runs must be an integer in 1..1000, got '${values.runs}'`);
  const out = resolve(values.out ?? 'conform.fixtures.yaml');
  if (existsSync(out) && !values.force) throw new CliError(`${out} exists; pass --force to overwrite it`);
  const { loadSpec } = await import('../../contract/index.ts');
  await writeFile(out, fixturesSkeleton({ schemaRef: schemaRef(dirname(out)), runs, spec: await loadSpec() }));
  console.log(
    `wrote ${out}: every key commented out, counts for ${runs} run${runs === 1 ? '' : 's'}; ` +
      `fill in your sandbox's ids, then run ${commandName()} fixtures check`,
  );
  return 0;
}

async function check(argv: string[]): Promise<number> {
  let values: {
    file?: string;
    module?: string;
    command?: string;
    reference?: boolean;
    config?: string;
    'base-url'?: string;
    'api-key'?: string;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        file: { type: 'string' },
        module: { type: 'string' },
        command: { type: 'string' },
        reference: { type: 'boolean' },
        config: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new CliError(`${(err as Error).message.split('\n')[0]} (see conform fixtures --help)`);
  }
  if (values['api-key']) {
    registerSecret(values['api-key'], 'CONFORM_API_KEY', 'the key given with --api-key');
    warnKeyOnCommandLine();
  }
  const configPath = values.config ?? (existsSync('conform.config.yaml') ? 'conform.config.yaml' : undefined);
  let config;
  try {
    const file: ConfigFile = configPath ? await loadConfigFile(configPath) : {};
    config = resolveConfig(file, { baseUrl: values['base-url'], apiKey: values['api-key'] }, process.env, configPath);
  } catch (err) {
    if (err instanceof ConfigError)
      throw new CliError(err.problems.length === 1 ? err.message : `${err.origin}: ${err.problems.join('; ')}`);
    throw err;
  }
  if (!config.baseUrl || !config.apiKey)
    throw new CliError(
      'no target: set baseUrl in conform.config.yaml or pass --base-url, the key in CONFORM_API_KEY ' +
        '(or the variable apiKeyEnv names)',
    );
  const given = (['file', 'module', 'command', 'reference'] as const).filter((k) => values[k] !== undefined);
  if (given.length > 1) throw new CliError(`give one of --${given.join(', --')}, not several`);
  const strategy = values.reference
    ? 'reference'
    : values.module
      ? 'module'
      : values.command
        ? 'command'
        : values.file
          ? 'file'
          : (config.fixtures.strategy ??
            (config.fixtures.module ? 'module' : config.fixtures.command ? 'command' : 'file'));
  if (strategy === 'module' || strategy === 'reference' || strategy === 'command')
    return checkMethods(config, {
      strategy,
      module: values.module ? resolve(values.module) : config.fixtures.module,
      command: values.command ? { run: values.command, cwd: process.cwd() } : config.fixtures.command,
    });
  const path = values.file ? resolve(values.file) : config.fixtures.file;
  if (!path) throw new CliError('no fixtures file: pass --file, or set fixtures.file in conform.config.yaml');
  registerSecret(config.apiKey.value, config.apiKey.label);
  const http = new HttpClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey.value,
    apiKeyLabel: config.apiKey.label,
    timeoutMs: config.timeoutMs,
    retry429: true,
  });
  try {
    let fixtures: FileFixtures;
    try {
      fixtures = await FileFixtures.load(path, http);
    } catch (err) {
      if (err instanceof FixtureConfigError) throw new CliError(redact(err.message));
      throw err;
    }
    const { loadSpec } = await import('../../contract/index.ts');
    const reach = await http.get(keyProbe(await loadSpec()));
    if (reach.transportError)
      throw new CliError(`cannot reach the target at ${config.baseUrl}: ${reach.transportError}`);
    if (reach.status === 401)
      throw new CliError(
        `the target at ${config.baseUrl} rejected the API key (401)${config.apiKey.from ? `: check the key in ${config.apiKey.from}` : ''}`,
      );
    const result = await checkFixturesFile(fixtures, { destructive: destructiveAllowed(config, false) });
    const destructive = destructiveAllowed(config, false) ? 'allowed: they use entries up' : 'off: they use nothing up';
    console.log(
      `${commandName()} fixtures check: ${path} against ${config.baseUrl} (destructive scenarios ${destructive})\n`,
    );
    for (const line of fileCheckLines(result, fixtures.pool.ledgerPath)) console.log(redact(line));
    return result.problems.length || (result.runsLeft !== undefined && result.runsLeft < 1) ? 1 : 0;
  } finally {
    await closeDefaultAgent();
  }
}

/** The fixture methods of a module or of the reference strategy, each called once and vetted. */
async function checkMethods(
  config: ReturnType<typeof resolveConfig>,
  choice: {
    strategy: 'module' | 'reference' | 'command';
    module?: string | undefined;
    command?: FixtureCommandRef | undefined;
  },
): Promise<number> {
  const { strategy, module: modulePath, command } = choice;
  if (strategy === 'module' && !modulePath)
    throw new CliError('no fixtures module: pass --module, or set fixtures.module in conform.config.yaml');
  if (strategy === 'command' && !command)
    throw new CliError('no fixtures command: pass --command, or set fixtures.command in conform.config.yaml');
  registerSecret(config.apiKey!.value, config.apiKey!.label);
  const http = new HttpClient({
    baseUrl: config.baseUrl!,
    apiKey: config.apiKey!.value,
    apiKeyLabel: config.apiKey!.label,
    timeoutMs: config.timeoutMs,
    retry429: true,
  });
  const { loadSpec } = await import('../../contract/index.ts');
  const reach = await http.get(keyProbe(await loadSpec()));
  if (reach.transportError) throw new CliError(`cannot reach the target at ${config.baseUrl}: ${reach.transportError}`);
  if (reach.status === 401)
    throw new CliError(
      `the target at ${config.baseUrl} rejected the API key (401)${config.apiKey!.from ? `: check the key in ${config.apiKey!.from}` : ''}`,
    );
  const [fx, { checkFixtureMethods, methodCheckLines }, { FixtureApi }] = await Promise.all([
    import('../../engine/fixtures/index.ts'),
    import('../../engine/fixtures/method-check.ts'),
    import('../../engine/fixtures/api.ts'),
  ]);
  let fixtures;
  try {
    fixtures =
      strategy === 'reference'
        ? new fx.ReferenceFixtures(http, { merchantId: config.merchantId })
        : strategy === 'command'
          ? await fx.loadCommandFixtures(command!, {
              baseUrl: config.baseUrl!,
              apiKey: config.apiKey!.value,
              registerSecret: (v) => registerSecret(v),
            })
          : await fx.loadModuleFixtures(modulePath!, {
              baseUrl: config.baseUrl!,
              apiKey: config.apiKey!.value,
              http,
              registerSecret: (v) => registerSecret(v),
            });
  } catch (err) {
    if (err instanceof FixtureConfigError) throw new CliError(redact(err.message));
    throw err;
  }
  try {
    const checks = await checkFixtureMethods(fixtures, new FixtureApi(http), await loadSpec());
    console.log(
      `${commandName()} fixtures check: ${
        strategy === 'module'
          ? modulePath
          : strategy === 'command'
            ? `the fixtures command '${fx.commandLabel(command!)}'`
            : 'the reference strategy'
      } against ${config.baseUrl}\n`,
    );
    for (const line of methodCheckLines(checks)) console.log(redact(line));
    return checks.every((x) => x.status === 'ready') ? 0 : 1;
  } finally {
    await fixtures.close().catch(() => undefined);
    await closeDefaultAgent();
  }
}

const command: Command = {
  name: 'fixtures',
  summary: 'Write a fixtures file skeleton (init), or check one against the target (check)',
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (!sub || sub === '--help' || sub === '-h' || wantsHelp(rest)) {
      console.log(named(usage));
      return sub ? 0 : 2;
    }
    if (sub === 'init') return init(rest);
    if (sub === 'check') return check(rest);
    throw new CliError(`unknown subcommand '${sub}': init or check (see conform fixtures --help)`);
  },
};

export default command;
