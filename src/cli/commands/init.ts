/**
 * `conform init`: a team's first files. conform.config.yaml (the sandbox, the key named by
 * environment variable, the module strategy) and conform.fixtures.mts, the skeleton a team fills
 * in: every fixture method declared with its contract, throwing "not provided yet". With
 * --example, beside it conform.fixtures.example.mts, a copy of the package's
 * examples/sandbox/conform.fixtures.ts: every method made through the reference's back office.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, wantsHelp, type Command } from '../command.ts';
import { commandName, named } from '../../engine/messages/command-name.ts';
import { PACKAGE_ROOT } from '../../engine/runner/index.ts';
import { fixtureSkeleton } from '../../engine/fixtures/skeleton.ts';

export const usage = `Usage: conform init [--base-url URL] [--example] [--force]

Writes into the current directory (never over a file without --force):
  conform.config.yaml   the sandbox's base URL (--base-url; a placeholder otherwise), its key
                        named by apiKeyEnv (BILLING_API_KEY, never the key itself),
                        sandbox: true and fixtures from the module below
  conform.fixtures.mts  the fixtures module you fill in: every fixture method declared with
                        what it returns, what must hold, what it needs and the rules it
                        unlocks, throwing "not provided yet" until you write it (its scenarios
                        are then not judged, never failed). An ES module (.mts) whatever the
                        repository's "type": it loads, and compiles under tsc --init's
                        defaults, in a CommonJS repository as in an ES one.

and adds reports/ (where conform run writes its reports) to .gitignore, creating it if need be.

  --example   also writes conform.fixtures.example.mts: a worked example, every method made
              through the reference server's back office (conform serve's full port). With
              the two files above already here, it writes only the example.

Then: conform fixtures check (every method: ready, not provided or broken), fill in the
methods, and conform run`;

/** The worked example: the package's own, shipped with it. */
export const EXAMPLE_TEMPLATE = join(PACKAGE_ROOT, 'examples', 'sandbox', 'conform.fixtures.ts');
const CONFIG = 'conform.config.yaml';
/** .mts: an ES module in a CommonJS repository too, where `tsc --init`'s verbatimModuleSyntax refuses import in a .ts. */
const MODULE = 'conform.fixtures.mts';
const EXAMPLE = 'conform.fixtures.example.mts';

/** The config file init writes; `schema` is the path of the config's JSON Schema from the repository. */
export function initConfig(baseUrl: string, schema: string): string {
  return `# yaml-language-server: $schema=${schema}
# Written by ${commandName()} init: the settings are in docs/config.md of the package.
baseUrl: ${baseUrl}   # your sandbox; --base-url overrides it
apiKeyEnv: BILLING_API_KEY   # the variable holding the sandbox merchant's key (a CI secret), never the key
sandbox: true                # a sandbox: destructive scenarios (deletes, refunds) may run
fixtures:
  strategy: module
  module: ./${MODULE}   # the fixtures you write (conform fixtures check tries them)
profile: quick
`;
}

function parseBaseUrl(value: string | undefined): string {
  if (value === undefined) return 'https://sandbox.billing.example.com';
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new CliError(`--base-url '${value}': expected an http:// or https:// URL`);
  return value;
}

/** Adds reports/ to the repository's .gitignore unless a line already ignores it; says what it did. */
export async function ignoreReports(file = '.gitignore'): Promise<'wrote' | 'added to' | undefined> {
  const text = existsSync(file) ? await readFile(file, 'utf8') : undefined;
  const lines = (text ?? '').split(/\r?\n/).map((l) => l.trim());
  if (lines.some((l) => ['reports', 'reports/', '/reports', '/reports/', 'reports/*', '/reports/*'].includes(l)))
    return undefined;
  const lead = text && !text.endsWith('\n') ? '\n' : '';
  await writeFile(file, `${text ?? ''}${lead}# conform run's reports\nreports/\n`);
  return text === undefined ? 'wrote' : 'added to';
}

const init: Command = {
  name: 'init',
  summary: 'Write conform.config.yaml and the fixtures module you fill in (every fixture method, its contract) here',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    let values: { 'base-url'?: string; force?: boolean; example?: boolean };
    try {
      ({ values } = parseArgs({
        args: argv,
        options: { 'base-url': { type: 'string' }, force: { type: 'boolean' }, example: { type: 'boolean' } },
        strict: true,
        allowPositionals: false,
      }));
    } catch (err) {
      throw new CliError(`${(err as Error).message.split('\n')[0]} (see conform init --help)`);
    }
    const baseUrl = parseBaseUrl(values['base-url']);
    // --example in a repository init already set up: only the example is new.
    const exampleOnly = !!values.example && !values.force && [CONFIG, MODULE].every((f) => existsSync(f));
    const files = exampleOnly ? [EXAMPLE] : [CONFIG, MODULE, ...(values.example ? [EXAMPLE] : [])];
    const there = files.filter((f) => existsSync(f));
    if (there.length && !values.force)
      throw new CliError(`${there.join(' and ')} already here; pass --force to overwrite, or move them away first`);
    const lines: string[] = [];
    if (!exampleOnly) {
      const schema = relative(process.cwd(), join(PACKAGE_ROOT, 'schemas', 'config.schema.json'))
        .split(sep)
        .join('/');
      await writeFile(CONFIG, initConfig(baseUrl, schema));
      await writeFile(MODULE, fixtureSkeleton(`npx ${commandName()}`));
      lines.push(
        `wrote ${resolve(CONFIG)}: the sandbox at ${baseUrl}, its key from BILLING_API_KEY, fixtures from ${MODULE}`,
        `wrote ${resolve(MODULE)}: every fixture method with what it must hand over and the rules it`,
        '  unlocks, each throwing "not provided yet" until you write it (its scenarios are not judged, never failed)',
      );
    } else lines.push(`kept ${CONFIG} and ${MODULE} as they are`);
    if (values.example) {
      await writeFile(EXAMPLE, await readFile(EXAMPLE_TEMPLATE, 'utf8'));
      lines.push(
        `wrote ${resolve(EXAMPLE)}: a worked example, every method made through the reference server's`,
        `  back office (to try it: conform serve, then fixtures.module: ./${EXAMPLE} in ${CONFIG})`,
      );
    }
    const ignored = exampleOnly ? undefined : await ignoreReports();
    // The config holds the base URL when --base-url gave it; otherwise its placeholder needs overriding.
    const checkUrl = values['base-url'] || exampleOnly ? '' : ' --base-url https://your-sandbox';
    console.log(
      named(
        [
          ...lines,
          ...(ignored ? [`${ignored} .gitignore: reports/ (the reports of each run) stays out of git`] : []),
          'next:',
          "  export BILLING_API_KEY=...               # the sandbox merchant's key",
          `  npx conform fixtures check${checkUrl}   # per method: ready, not provided (the rules it unlocks) or broken`,
          `  fill in ${MODULE}, method by method, and check again`,
          '  npx conform run',
        ].join('\n'),
      ),
    );
    return 0;
  },
};

export default init;
