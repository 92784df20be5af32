import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { CliError, wantsHelp, type Command } from '../command.ts';
import { named } from '../../engine/messages/command-name.ts';
import {
  DEFAULT_RULES_PATH,
  DEFAULT_SPEC_PATH,
  lint,
  projectRules,
  rulesChecks,
  type LintFinding,
} from '../../contract/lint/run.ts';

const usage = `Usage: conform lint [--spec PATH] [--rules PATH] [--json] [--quiet]

Lints spec/openapi.yaml with Spectral (the OAS ruleset plus the project ruleset in
src/contract/lint/) and checks spec/rules.yaml. Exits 1 when there are errors, 0 otherwise.

Options:
  --spec PATH    OpenAPI document to lint (default spec/openapi.yaml)
  --rules PATH   rules document to check (default spec/rules.yaml)
  --json         machine output: {errors, warnings, findings}
  --quiet        print errors only
  --list-rules   list the project lint rules and exit
  -h, --help     this help`;

export function formatFindings(findings: LintFinding[]): string {
  const rows = findings.map((f) => [
    f.severity,
    f.code,
    `${f.source}${f.line ? `:${f.line}` : ''}${f.path ? ` ${f.path}` : ''}`,
    f.message,
  ]);
  const w0 = Math.max(0, ...rows.map((r) => r[0].length));
  const w1 = Math.max(0, ...rows.map((r) => r[1].length));
  return rows
    .map((r) => `${r[0].padEnd(w0)}  ${r[1].padEnd(w1)}  ${r[2]}\n${' '.repeat(w0 + w1 + 4)}${r[3]}`)
    .join('\n');
}

const command: Command = {
  name: 'lint',
  summary: 'Lint spec/openapi.yaml and spec/rules.yaml',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    let values: { spec?: string; rules?: string; json?: boolean; quiet?: boolean; 'list-rules'?: boolean };
    try {
      ({ values } = parseArgs({
        args: argv,
        options: {
          spec: { type: 'string' },
          rules: { type: 'string' },
          json: { type: 'boolean' },
          quiet: { type: 'boolean' },
          'list-rules': { type: 'boolean' },
        },
        strict: true,
        allowPositionals: false,
      }));
    } catch (err) {
      throw new CliError(`${(err as Error).message}. Run 'conform lint --help'.`);
    }
    if (values['list-rules']) {
      for (const [code, r] of Object.entries(projectRules))
        console.log(`${code.padEnd(30)} ${r.severity.padEnd(5)} ${r.description}`);
      for (const [code, description] of Object.entries(rulesChecks))
        console.log(`${code.padEnd(30)} ${'error'.padEnd(5)} ${description}`);
      return 0;
    }
    const specPath = values.spec ? resolve(values.spec) : DEFAULT_SPEC_PATH;
    const rulesPath = values.rules ? resolve(values.rules) : DEFAULT_RULES_PATH;
    for (const [what, path] of [
      ['OpenAPI document', specPath],
      ['rules document', rulesPath],
    ]) {
      if (!existsSync(path)) throw new CliError(`the ${what} ${path} does not exist`);
    }
    const result = await lint({ specPath, rulesPath });
    if (values.json) {
      console.log(JSON.stringify(result, null, 2));
      return result.errors > 0 ? 1 : 0;
    }
    const shown = values.quiet ? result.findings.filter((f) => f.severity === 'error') : result.findings;
    if (shown.length) console.log(formatFindings(shown));
    const others = result.findings.length - result.errors - result.warnings;
    console.log(
      `${shown.length ? '\n' : ''}${result.errors} error(s), ${result.warnings} warning(s)${others ? `, ${others} info/hint` : ''}.`,
    );
    return result.errors > 0 ? 1 : 0;
  },
};

export default command;
