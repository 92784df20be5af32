/**
 * `conform init`: a team's first files. conform.config.yaml (the sandbox, the key named by
 * environment variable, the module strategy) and conform.fixtures.mts, a copy of the package's
 * examples/sandbox/conform.fixtures.ts: every fixture method with its recipe through a back
 * office, the calls the team replaces, and the rules each one unlocks.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, wantsHelp, type Command } from '../command.ts';
import { commandName, named } from '../../engine/command-name.ts';
import { PACKAGE_ROOT } from '../../engine/runner/index.ts';

export const usage = `Usage: conform init [--base-url URL] [--force]

Writes into the current directory (never over a file without --force):
  conform.config.yaml   the sandbox's base URL (--base-url; a placeholder otherwise), its key
                        named by apiKeyEnv (BILLING_API_KEY, never the key itself),
                        sandbox: true and fixtures from the module below
  conform.fixtures.mts  a fixtures module with every fixture method: what it is, its recipe
                        through your back office at CONFORM_ADMIN_URL (the calls you replace)
                        and the rules it unlocks. As written, the reference server's full
                        port (conform serve) is that back office. An ES module (.mts)
                        whatever the repository's "type": it loads, and compiles under
                        tsc --init's defaults, in a CommonJS repository as in an ES one.

and adds reports/ (where conform run writes its reports) to .gitignore, creating it if need be.

Then set BILLING_API_KEY, CONFORM_ADMIN_URL and CONFORM_ADMIN_KEY and run: conform run`;

/** Where the module comes from: the package's own example, shipped with it. */
export const MODULE_TEMPLATE = join(PACKAGE_ROOT, 'examples', 'sandbox', 'conform.fixtures.ts');
const CONFIG = 'conform.config.yaml';
/** .mts: an ES module in a CommonJS repository too, where `tsc --init`'s verbatimModuleSyntax refuses import in a .ts. */
const MODULE = 'conform.fixtures.mts';

/** The config file init writes; `schema` is the path of the config's JSON Schema from the repository. */
export function initConfig(baseUrl: string, schema: string): string {
  return `# yaml-language-server: $schema=${schema}
# Written by ${commandName()} init: the settings are in docs/config.md of the package.
baseUrl: ${baseUrl}   # your sandbox; --base-url overrides it
apiKeyEnv: BILLING_API_KEY   # the variable holding the sandbox merchant's key (a CI secret), never the key
sandbox: true                # a sandbox: destructive scenarios (deletes, refunds) may run
fixtures:
  strategy: module
  module: ./${MODULE}   # every fixture through your back office (CONFORM_ADMIN_URL)
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
  summary: 'Write conform.config.yaml and a fixtures module (every fixture, through your back office) here',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    let values: { 'base-url'?: string; force?: boolean };
    try {
      ({ values } = parseArgs({
        args: argv,
        options: { 'base-url': { type: 'string' }, force: { type: 'boolean' } },
        strict: true,
        allowPositionals: false,
      }));
    } catch (err) {
      throw new CliError(`${(err as Error).message.split('\n')[0]} (see conform init --help)`);
    }
    const baseUrl = parseBaseUrl(values['base-url']);
    const there = [CONFIG, MODULE].filter((f) => existsSync(f));
    if (there.length && !values.force)
      throw new CliError(`${there.join(' and ')} already here; pass --force to overwrite, or move them away first`);
    const schema = relative(process.cwd(), join(PACKAGE_ROOT, 'schemas', 'config.schema.json'))
      .split(sep)
      .join('/');
    await writeFile(CONFIG, initConfig(baseUrl, schema));
    await writeFile(MODULE, await readFile(MODULE_TEMPLATE, 'utf8'));
    const ignored = await ignoreReports();
    console.log(
      named(
        [
          `wrote ${resolve(CONFIG)}: the sandbox at ${baseUrl}, its key from BILLING_API_KEY, fixtures from ${MODULE}`,
          `wrote ${resolve(MODULE)}: every fixture method, its recipe through the back office at CONFORM_ADMIN_URL`,
          '  (the calls you replace: each method says which) and the rules it unlocks',
          ...(ignored ? [`${ignored} .gitignore: reports/ (the reports of each run) stays out of git`] : []),
          'next:',
          "  export BILLING_API_KEY=...     # the sandbox merchant's key",
          "  export CONFORM_ADMIN_URL=...   # your back office (to try it: conform serve's full port)",
          '  export CONFORM_ADMIN_KEY=...   # its credential (the sandbox key is never sent there unless you set it here)',
          `  npx conform run${values['base-url'] ? '' : ' --base-url https://your-sandbox'}`,
        ].join('\n'),
      ),
    );
    return 0;
  },
};

export default init;
