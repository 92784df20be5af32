/**
 * npm run faults:passive [-- --fault NAME... --family F... --benign-only --suite S... --parallel N --report-dir DIR]
 *
 * The whole fault catalog (or a part) seen by the passive judge of `conform proxy`: each
 * fault's suites run through the fault proxy with the judge in front, on a fresh bundled
 * reference per fault. Prints, per fault, what the suites caught and what the passive judge
 * caught, and the summary: of the faults the suites catch that show in traffic (one of
 * their rules is one the passive judge can judge), how many it catches too; benign variants
 * it flags. Writes passive-faults.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CATALOG, faultByName } from '../src/engine/faults/catalog/index.ts';
import { bundledTargets } from '../src/cli/commands/faults.ts';
import { runPassiveFaults } from '../src/engine/passive/faults.ts';

function values(flag: string): string[] {
  const out: string[] = [];
  process.argv.forEach((a, i) => {
    if (a === flag)
      for (let j = i + 1; j < process.argv.length && !process.argv[j].startsWith('--'); j++)
        out.push(...process.argv[j].split(','));
  });
  return out;
}

const names = values('--fault');
const families = values('--family');
const suites = values('--suite');
const benignOnly = process.argv.includes('--benign-only');
const parallel = Number(values('--parallel')[0] ?? 2);
const dir = resolve(
  values('--report-dir')[0] ??
    join(
      'reports',
      `passive-faults-${new Date()
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')}`,
    ),
);
const unknown = names.filter((n) => !faultByName(n));
if (unknown.length) throw new Error(`unknown fault(s): ${unknown.join(', ')}`);
const faults = CATALOG.filter(
  (f) =>
    (!names.length || names.includes(f.name)) &&
    (!families.length || families.includes(f.family)) &&
    (!benignOnly || f.benign),
);

await mkdir(dir, { recursive: true });
console.log(
  `${faults.length} catalog entries through the fault proxy and the passive judge, ${parallel} at a time; reports in ${dir}`,
);
const t0 = performance.now();
const { results, summary } = await runPassiveFaults({
  faults,
  startTarget: bundledTargets(),
  reportDir: dir,
  profile: 'quick',
  seed: 1,
  parallel,
  baseline: true,
  target: { bundled: true },
  ...(suites.length ? { suites } : {}),
});
const rows = results.map((r) => {
  const passive = r.passiveRules.length ? 'caught' : r.benign ? 'passed' : r.visible ? 'MISSED' : 'not visible';
  return `| ${r.name} | ${r.benign ? 'benign' : 'fault'} | ${r.suite} | ${r.suiteRules.join(', ') || '-'} | ${passive} | ${r.passiveRules.join(', ') || '-'} | ${r.exchanges} |`;
});
console.log(
  [
    '',
    '| entry | kind | suites | suite rules | passive | passive rules | exchanges |',
    '|---|---|---|---|---|---|---:|',
    ...rows,
  ].join('\n'),
);
const misses = results
  .filter((r) => !r.benign && r.suite === 'caught' && r.visible && !r.passiveRules.length)
  .map((r) => r.name);
console.log(
  `\n${summary.passiveCaught} of ${summary.caughtVisible} faults the suites catch that show in traffic are caught by the passive judge` +
    `${misses.length ? ` (missed: ${misses.join(', ')})` : ''}; ${summary.caughtNotVisible} caught by the suites do not show in traffic; ` +
    `${summary.passiveFlagged} of ${summary.benign} benign variants flagged; ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
const off = results.filter((r) => !r.benign && r.suite === 'caught' && r.offTraffic);
if (off.length)
  console.log(
    `\nOff traffic (their rules are judged passively, but not this wrong answer):\n` +
      off.map((r) => `- ${r.name}: ${r.offTraffic}`).join('\n'),
  );
await writeFile(join(dir, 'passive-faults.json'), `${JSON.stringify({ summary, results }, null, 2)}\n`);
