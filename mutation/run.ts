/**
 * npm run mutation [-- stryker options]: runs StrykerJS with mutation/stryker.config.mjs,
 * then checks its report against the reviewed survivors (mutation/survivors.yaml).
 * Exit 0 when every surviving mutant is reviewed; 1 when some are not (they are listed);
 * Stryker's own exit code when it failed.
 *
 * `-- --report-only` skips Stryker and only reads the last report.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadReviews, reportedMutants, summarize } from './survivors.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REPORT = join(ROOT, 'reports/mutation/mutation.json');
const REVIEWS = join(ROOT, 'mutation/survivors.yaml');

const args = process.argv.slice(2);
const reportOnly = args.includes('--report-only');
if (!reportOnly) {
  const started = Date.now();
  const stryker = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run', 'mutation/stryker.config.mjs', ...args],
    { cwd: ROOT, stdio: 'inherit' },
  );
  console.log(`stryker: exit ${stryker.status}, ${((Date.now() - started) / 60_000).toFixed(1)} min wall`);
  if (stryker.status !== 0) process.exit(stryker.status ?? 2);
}
if (!existsSync(REPORT)) {
  console.error(`mutation: no report at ${REPORT}; run npm run mutation first`);
  process.exit(2);
}

const summary = summarize(reportedMutants(JSON.parse(readFileSync(REPORT, 'utf8'))), loadReviews(REVIEWS));
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
console.log(
  `mutation score ${pct(summary.score)}: ${summary.detected} detected (killed or timed out), ${summary.undetected} undetected (survived or no coverage), ${summary.ignored} ignored, of ${summary.total} mutants`,
);
const equivalent = summary.reviewed.filter((m) => m.review.verdict === 'equivalent').length;
console.log(
  `reviewed survivors: ${summary.reviewed.length} (${equivalent} equivalent, ${summary.reviewed.length - equivalent} unobservable through the API); unreviewed: ${summary.unreviewed.length}`,
);
for (const m of summary.unreviewed)
  console.log(
    `  UNREVIEWED ${m.status} ${m.file}:${m.line} ${m.mutator}: ${JSON.stringify(m.original).slice(0, 120)} -> ${JSON.stringify(m.replacement).slice(0, 80)}${m.twins > 1 ? ` (occurrence ${m.occurrence} of ${m.twins})` : ''}`,
  );
for (const r of summary.stale)
  console.log(
    `  stale review (no such survivor now): ${r.file} ${r.mutator}: ${JSON.stringify(r.original).slice(0, 100)} -> ${JSON.stringify(r.replacement).slice(0, 40)}${r.occurrence ? ` #${r.occurrence}` : ''}`,
  );
process.exitCode = summary.unreviewed.length ? 1 : 0;
