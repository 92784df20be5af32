/**
 * npm run fixtures:unlocks -- REPORT.json... — writes, above each fixture method of
 * examples/sandbox/conform.fixtures.ts (the module `billing-conform init` copies), the contract
 * rules whose scenarios asked for it ("Unlocks:"), from the reports of runs of that module
 * (report.json lists per scenario the fixtures it asked for). The first-hour packaging test
 * holds the comments equal to what its own runs of the module show.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const TEMPLATE = fileURLToPath(new URL('../examples/sandbox/conform.fixtures.ts', import.meta.url));

interface ReportLike {
  rules: Array<{ id: string; kind: string }>;
  scenarios: Array<{ ruleIds: string[]; fixtures?: string[] }>;
}

/** Fixture method → the contract rules cited by the scenarios that asked for it, over every report. */
export function unlocksFromReports(reports: ReportLike[]): Record<string, string[]> {
  const sets: Record<string, Set<string>> = {};
  for (const report of reports) {
    const contract = new Set(report.rules.filter((r) => r.kind === 'contract').map((r) => r.id));
    for (const s of report.scenarios)
      for (const method of s.fixtures ?? [])
        for (const id of s.ruleIds) if (contract.has(id)) (sets[method] ??= new Set()).add(id);
  }
  return Object.fromEntries(Object.entries(sets).map(([m, ids]) => [m, [...ids].sort()]));
}

const DOC_BEFORE_METHOD = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\n\s*(?:async\s+)?(\w+)\s*[:(]/g;

/** Method → the rule ids its doc comment lists after "Unlocks:" (methods whose comment has none are left out). */
export function annotatedUnlocks(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [, doc, method] of text.matchAll(DOC_BEFORE_METHOD)) {
    const at = doc.indexOf('Unlocks:');
    if (at < 0) continue;
    out[method] = doc
      .slice(at + 'Unlocks:'.length)
      .split(/[\s,*]+/)
      .filter((w) => /^[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)+$/.test(w));
  }
  return out;
}

/** Method → the text of its doc comment (for the recipe checks). */
export function methodDocs(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(DOC_BEFORE_METHOD)].map(([, doc, method]) => [method, doc]));
}

/** The template with each "Unlocks:" comment rewritten from `unlocks` (wrapped to the file's width). */
export function withUnlocks(text: string, unlocks: Record<string, string[]>): string {
  return text.replace(DOC_BEFORE_METHOD, (whole: string, doc: string, method: string) => {
    const at = doc.indexOf('Unlocks:');
    if (at < 0) return whole;
    const indent = /\n(\s*)\*/.exec(doc)?.[1] ?? '     ';
    const ids = unlocks[method] ?? [];
    const lines: string[] = [];
    let line = `${indent}* Unlocks:`;
    if (!ids.length) line += ' no contract rule in the runs measured';
    for (const [i, id] of ids.entries()) {
      const word = ` ${id}${i < ids.length - 1 ? ',' : ''}`;
      if (line.length + word.length > 116) {
        lines.push(line);
        line = `${indent}*  `;
      }
      line += word;
    }
    lines.push(line);
    const head = doc.slice(0, doc.lastIndexOf('\n', at));
    return whole.replace(doc, `${head}\n${lines.join('\n')}\n${indent}`);
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = process.argv.slice(2);
  if (!files.length) {
    console.error('usage: npm run fixtures:unlocks -- REPORT.json... (reports of runs of examples/sandbox)');
    process.exit(2);
  }
  const unlocks = unlocksFromReports(files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as ReportLike));
  writeFileSync(TEMPLATE, withUnlocks(readFileSync(TEMPLATE, 'utf8'), unlocks));
  console.log(`wrote the Unlocks comments of ${Object.keys(unlocks).length} fixture methods into ${TEMPLATE}`);
}
