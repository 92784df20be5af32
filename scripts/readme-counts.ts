/**
 * npm run readme:counts — rewrites README.md's counts block (rules by kind, families,
 * operations, suites, checks, fault catalogs) from their sources: spec/rules.yaml as
 * `conform rules --json` lists it, spec/openapi.yaml, suites/, the check registry and the fault
 * catalogs. test/packaging/readme-counts.test.ts keeps the block equal to what this renders.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../src/contract/index.ts';
import { loadRules, RULE_FAMILIES } from '../src/contract/rules.ts';
import { CHECKS } from '../src/engine/checks/index.ts';
import { CATALOG } from '../src/faults/catalog/index.ts';
import { generatedCatalog } from '../src/faults/generated/index.ts';

export const README = fileURLToPath(new URL('../README.md', import.meta.url));
const SUITES = fileURLToPath(new URL('../suites/', import.meta.url));
export const BEGIN = '<!-- counts: npm run readme:counts writes this block; a test keeps it current -->';
export const END = '<!-- /counts -->';

/** The counts block, rendered from the sources. */
export async function renderCounts(): Promise<string> {
  const spec = await loadSpec();
  const { rules } = await loadRules();
  const kinds = (k: string) => rules.filter((r) => r.kind === k).length;
  const ops = [...spec.operations.values()];
  const documented = ops.filter((o) => !o.extension).length;
  const suites = readdirSync(SUITES).filter((f) => f.endsWith('.suite.ts')).length;
  const faults = CATALOG.filter((f) => !f.benign && !f.indeterminate).length;
  const benign = CATALOG.filter((f) => f.benign).length;
  return [
    BEGIN,
    `**${rules.length} rules** in ${RULE_FAMILIES.length} families (spec/rules.yaml): ` +
      `${kinds('contract')} about any deployment (contract), ${kinds('reference')} about the reference ` +
      `server's own choices, ${kinds('restraint') + kinds('client')} about the tool itself; ` +
      `**${documented} documented operations** and ${ops.length - documented} reference extensions ` +
      `(spec/openapi.yaml); ${suites} scenario suites, ${CHECKS.length} checks on every exchange; fault ` +
      `catalogs of ${faults} hand-written faults with ${benign} benign variants and ` +
      `${generatedCatalog(spec).length} generated entries.`,
    END,
  ].join('\n');
}

/** README text with its counts block replaced; throws when the block is missing. */
export function withCounts(readme: string, block: string): string {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no counts block (${BEGIN} ... ${END})`);
  return readme.slice(0, start) + block + readme.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(README, withCounts(readFileSync(README, 'utf8'), await renderCounts()));
  console.log('wrote the counts block of README.md');
}
