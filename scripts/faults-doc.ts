/**
 * npx tsx scripts/faults-doc.ts reports/faults-<time>/faults.json
 *
 * Rewrites the catalog section of docs/faults.md (from "## The hand-written catalog" up to
 * "## Adding a fault") from a whole-catalog `conform faults` run: the per-area counts,
 * then one row per fault and per benign variant with what the run measured.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FAULT_AREAS } from '../src/faults/catalog/types.ts';

interface Result {
  name: string;
  area: string;
  benign: boolean;
  description: string;
  expectedRules: string[];
  suites: string[];
  outcome: string;
  rulesFired: string[];
  expectedFired: string[];
  durationMs: number;
}

const DOC = fileURLToPath(new URL('../docs/faults.md', import.meta.url));
const START = '## The hand-written catalog';
const END = '## Adding a fault';

const cell = (s: string) => s.replace(/\|/g, '\\|');
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function verdict(r: Result): string {
  if (r.outcome === (r.benign ? 'passed' : 'caught')) return r.benign ? 'not flagged' : 'yes';
  return `**${r.outcome.toUpperCase()}**`;
}

function row(r: Result): string {
  const fired = [...r.expectedFired, ...r.rulesFired.filter((x) => !r.expectedFired.includes(x))];
  const should = r.benign ? '-' : r.expectedRules.join(', ');
  const suites = r.suites.length ? r.suites.join(', ') : 'all';
  return `| ${r.name} | ${r.area} | ${cell(r.description)} | ${should} | ${suites} | ${verdict(r)} | ${fired.join(', ') || '-'} | ${secs(r.durationMs)} |`;
}

export function catalogSection(results: Result[]): string {
  const faults = results.filter((r) => !r.benign);
  const benign = results.filter((r) => r.benign);
  const count = (list: Result[], f: string) => list.filter((r) => r.area === f).length;
  const lines = [START, '', '| Area | Faults | Benign variants |', '|---|---:|---:|'];
  for (const f of FAULT_AREAS) lines.push(`| ${f} | ${count(faults, f)} | ${count(benign, f)} |`);
  lines.push(`| **total** | **${faults.length}** | **${benign.length}** |`, '', '### Faults', '');
  lines.push(
    '"Should trip" are the rules a fault is meant to break; "Rules fired" are the failed',
    'rules of the measured run (the expected ones first).',
    '',
  );
  const head = (what: string) => [
    `| Fault | Area | What it does | Should trip | Suites | ${what} | Rules fired | Time |`,
    '|---|---|---|---|---|---|---|---:|',
  ];
  lines.push(
    ...head('Caught?'),
    ...faults.map(row),
    '',
    '### Benign variants',
    '',
    ...head('Flagged?'),
    ...benign.map(row),
    '',
    '',
  );
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: tsx scripts/faults-doc.ts <faults.json of a whole-catalog run>');
    process.exit(2);
  }
  const { results } = JSON.parse(readFileSync(file, 'utf8')) as { results: Result[] };
  const doc = readFileSync(DOC, 'utf8');
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) {
    console.error(`docs/faults.md: no "${START}" ... "${END}" section to replace`);
    process.exit(2);
  }
  writeFileSync(DOC, doc.slice(0, a) + catalogSection(results) + doc.slice(b));
  console.log(`docs/faults.md: catalog section rewritten from ${file} (${results.length} entries)`);
}
