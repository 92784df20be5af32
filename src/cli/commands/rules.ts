import { parseArgs } from 'node:util';
import { CliError, wantsHelp, type Command } from '../command.ts';
import { named } from '../../engine/messages/command-name.ts';
import { loadRules, loadRulesFrom, RULE_FAMILIES, type Rule } from '../../contract/rules.ts';

const usage = `Usage: conform rules [--family NAME] [--json] [--rules PATH]

Prints the rule index of spec/rules.yaml: id, statement and source section.

Options:
  --family NAME  only the rules of one family (${RULE_FAMILIES.join(', ')})
  --json         machine output: a JSON array of the rules
  --rules PATH   read another rules file instead of spec/rules.yaml
  -h, --help     this help`;

/** Aligned plain-text table; the statement column comes last so long lines stay readable. */
export function formatRuleTable(rules: Rule[]): string {
  const idWidth = Math.max(2, ...rules.map((r) => r.id.length));
  const sectionWidth = Math.max(7, ...rules.map((r) => r.section.length));
  const row = (id: string, section: string, statement: string) =>
    `${id.padEnd(idWidth)}  ${section.padEnd(sectionWidth)}  ${statement}`;
  const lines = [row('ID', 'SECTION', 'STATEMENT'), row('-'.repeat(idWidth), '-'.repeat(sectionWidth), '-'.repeat(9))];
  for (const r of rules)
    lines.push(row(r.id, r.section, r.kind === 'reference' ? `[reference] ${r.statement}` : r.statement));
  return lines.join('\n');
}

const command: Command = {
  name: 'rules',
  summary: 'Print the rule index: id, statement, source section',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    let values: { family?: string; json?: boolean; rules?: string };
    try {
      ({ values } = parseArgs({
        args: argv,
        options: { family: { type: 'string' }, json: { type: 'boolean' }, rules: { type: 'string' } },
        strict: true,
        allowPositionals: false,
      }));
    } catch (err) {
      throw new CliError(`${(err as Error).message}. Run 'conform rules --help'.`);
    }
    let index;
    try {
      index = values.rules ? await loadRulesFrom(values.rules) : await loadRules();
    } catch (err) {
      throw new CliError(
        String((err as Error).message)
          .split('\n')
          .join(' '),
      );
    }
    let rules = index.rules;
    if (values.family !== undefined) {
      const family = values.family.toUpperCase();
      if (!(RULE_FAMILIES as readonly string[]).includes(family))
        throw new CliError(`unknown family '${values.family}'; known: ${RULE_FAMILIES.join(', ')}`);
      rules = rules.filter((r) => r.family === family);
    }
    if (values.json) {
      console.log(JSON.stringify(rules, null, 2));
      return 0;
    }
    console.log(formatRuleTable(rules));
    const reference = rules.filter((r) => r.kind === 'reference').length;
    console.log(
      `\n${rules.length} rules${reference ? ` (${reference} reference-only, never judged on a target)` : ''}.`,
    );
    return 0;
  },
};

export default command;
