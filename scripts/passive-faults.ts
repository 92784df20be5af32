/**
 * npm run faults:passive [-- --catalog hand|generated|all --kind K... --sample N --sample-seed S
 *   --fault NAME... --area F... --benign-only --suite S... --parallel N --report-dir DIR]
 *
 * The whole fault catalog (or a part, selected as `conform faults` selects) seen by the
 * passive judge of `conform proxy`: each
 * fault's suites run through the fault proxy with the judge in front, on a fresh bundled
 * reference per fault. Prints, per fault, what the suites caught and what the passive judge
 * caught, and the summary: of the faults the suites catch that show in traffic (one of
 * their rules is one the passive judge can judge), how many it catches too; benign variants
 * it flags. Writes passive-faults.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { bundledTargets, catalogNamed, selectFaults, type CatalogName } from '../src/cli/commands/faults.ts';
import { isGenerated, type GeneratedKind } from '../src/faults/generated/index.ts';
import { runPassiveFaults, summarizePassiveFaults } from '../src/faults/passive.ts';

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
const areas = values('--area');
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
const catalog = (values('--catalog')[0] ?? 'hand') as CatalogName;
const sample = values('--sample')[0];
const sampleSeed = values('--sample-seed')[0];
const faults = selectFaults(
  {
    faults: names,
    areas,
    benignOnly,
    faultsOnly: false,
    kinds: values('--kind') as GeneratedKind[],
    ...(sample ? { sample: Number(sample) } : {}),
    ...(sampleSeed ? { sampleSeed: Number(sampleSeed) } : {}),
  },
  await catalogNamed(catalog),
);
const generatedNames = new Set(faults.filter(isGenerated).map((f) => f.name));
const generated = generatedNames.size;

await mkdir(dir, { recursive: true });
console.log(
  `${faults.length} catalog entries (${faults.length - generated} hand-written, ${generated} generated) through the fault proxy and the passive judge, ${parallel} at a time; reports in ${dir}`,
);
const t0 = performance.now();
const { results } = await runPassiveFaults({
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
  const open = r.benign || r.indeterminate;
  const passive = r.passiveRules.length
    ? open
      ? 'flagged'
      : 'caught'
    : open
      ? 'passed'
      : r.visible
        ? 'MISSED'
        : 'not visible';
  return `| ${r.name} | ${r.benign ? 'benign' : r.indeterminate ? 'open' : 'fault'} | ${r.suite} | ${r.suiteRules.join(', ') || '-'} | ${passive} | ${r.passiveRules.join(', ') || '-'} | ${r.exchanges} |`;
});
console.log(
  [
    '',
    '| entry | kind | suites | suite rules | passive | passive rules | exchanges |',
    '|---|---|---|---|---|---|---:|',
    ...rows,
  ].join('\n'),
);
const seconds = ((performance.now() - t0) / 1000).toFixed(0);
// Hand-written faults were written beside the scenarios (and the passive units tuned on them);
// generated ones were not: each is summed up apart.
const parts = {
  handWritten: results.filter((r) => !generatedNames.has(r.name)),
  generated: results.filter((r) => generatedNames.has(r.name)),
};
for (const [label, part] of [
  ['hand-written', parts.handWritten],
  ['generated', parts.generated],
] as const) {
  if (!part.length) continue;
  const s = summarizePassiveFaults(part);
  const open = part.filter((r) => r.indeterminate);
  const misses = part
    .filter((r) => !r.benign && !r.indeterminate && r.suite === 'caught' && r.visible && !r.passiveRules.length)
    .map((r) => r.name);
  const passiveOnly = part
    .filter((r) => !r.benign && !r.indeterminate && r.suite !== 'caught' && r.passiveRules.length)
    .map((r) => `${r.name}: suites ${r.suite}`);
  console.log(
    `\n${label}: ${s.passiveCaught} of ${s.caughtVisible} faults the suites catch that show in traffic are caught by the passive judge` +
      `${misses.length ? ` (missed: ${misses.join(', ')})` : ''}; ${s.caughtNotVisible} caught by the suites do not show in traffic; ` +
      `${passiveOnly.length} caught by the passive judge and not counted caught by the suites${passiveOnly.length ? ` (${passiveOnly.join(', ')})` : ''}; ` +
      `${s.passiveFlagged} of ${s.benign} benign variants flagged; indeterminate cases (the document decides neither way): ` +
      `${open.filter((r) => r.passiveRules.length).length} of ${open.length} flagged by the judge, ` +
      `${open.filter((r) => r.suite === 'flagged').length} by the suites`,
  );
}
console.log(`${results.length} entries in ${seconds} s`);
const off = results.filter((r) => !r.benign && r.suite === 'caught' && r.offTraffic);
if (off.length)
  console.log(
    `\nOff traffic (their rules are judged passively, but not this wrong answer):\n` +
      off.map((r) => `- ${r.name}: ${r.offTraffic}`).join('\n'),
  );
await writeFile(
  join(dir, 'passive-faults.json'),
  `${JSON.stringify({ handWritten: summarizePassiveFaults(parts.handWritten), generated: summarizePassiveFaults(parts.generated), results }, null, 2)}\n`,
);
