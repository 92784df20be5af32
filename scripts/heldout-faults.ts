/**
 * npm run faults:heldout -- --set set-1|set-2 [--fault NAME,...] [--parallel N] [--seed N] [--report-dir DIR]
 *
 * A held-out fault set of heldout/ (written from the document alone, never tuned against the
 * suites, not shipped with the package) through the fault proxy, every suite, a fresh bundled
 * reference per fault, as `conform faults` runs its catalogs: prints each fault's outcome, the
 * table and the summary, and writes faults.json and faults.md. Its figures are reported apart.
 */
import { resolve, join } from 'node:path';
import { bundledTargets } from '../src/cli/commands/faults.ts';
import { runFaults } from '../src/faults/runner.ts';
import { progressLine, resultTable, summaryLines, writeFaultsReport } from '../src/faults/report.ts';
import type { CatalogFault } from '../src/faults/catalog/types.ts';
import { HELDOUT_SET_1 } from '../heldout/set-1/index.ts';
import { HELDOUT_SET_2 } from '../heldout/set-2/index.ts';

const SETS: Record<string, readonly CatalogFault[]> = { 'set-1': HELDOUT_SET_1, 'set-2': HELDOUT_SET_2 };

function value(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const name = value('--set') ?? 'set-2';
const set = SETS[name];
if (!set) {
  console.error(`no held-out set '${name}': the sets are ${Object.keys(SETS).join(', ')}`);
  process.exit(2);
}
const only = value('--fault');
const faults = only ? set.filter((f) => only.split(',').includes(f.name)) : [...set];
const stamp = new Date()
  .toISOString()
  .replace(/[-:]/g, '')
  .replace(/\.\d+Z$/, 'Z');
const reportDir = resolve(value('--report-dir') ?? join('reports', `heldout-${name}-${stamp}`));
console.log(`held-out ${name}: ${faults.length} entries, reports in ${reportDir}`);
const report = await runFaults({
  faults,
  startTarget: bundledTargets(),
  reportDir,
  profile: 'quick',
  seed: Number(value('--seed') ?? 1),
  parallel: Number(value('--parallel') ?? 2),
  baseline: true,
  target: { bundled: true },
  onResult: (r) => console.log(progressLine(r)),
});
await writeFaultsReport(report, reportDir);
console.log('');
for (const line of resultTable(report)) console.log(line);
console.log('');
for (const line of summaryLines(report)) console.log(line);
