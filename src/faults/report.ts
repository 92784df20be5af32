/** The fault-injection report: the console table, faults.json and faults.md. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogFault } from './catalog/index.ts';
import type { FaultResult, FaultsReport, RunRecord } from './runner.ts';

const VERDICT: Record<FaultResult['outcome'], string> = {
  caught: 'yes',
  missed: 'NO',
  'not-exercised': 'not exercised',
  error: 'error',
  flagged: 'FLAGGED',
  passed: 'not flagged',
};

/** The outcome in words; a fault that changed setup requests only says so. */
const verdict = (r: FaultResult): string =>
  r.outcome === 'not-exercised' && r.appliedSetup > 0
    ? `not exercised: changed ${r.appliedSetup} setup request(s) only, which no check judges`
    : VERDICT[r.outcome];

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

/** Expected rules first, then the others. */
function fired(r: FaultResult): string[] {
  return [...r.expectedFired, ...r.rulesFired.filter((id) => !r.expectedFired.includes(id))];
}

/** Rules fired, short enough for a console column. */
export function firedShort(r: FaultResult, width = 64): string {
  const all = fired(r);
  if (!all.length) return r.error ? r.error.slice(0, width) : '-';
  let out = all[0];
  let shown = 1;
  while (shown < all.length && `${out}, ${all[shown]}`.length + ` (+${all.length - shown - 1})`.length <= width)
    out = `${out}, ${all[shown++]}`;
  return shown < all.length ? `${out} (+${all.length - shown})` : out;
}

/** One progress line, printed as each fault finishes. */
export function progressLine(r: FaultResult): string {
  const label = r.indeterminate
    ? r.outcome === 'flagged'
      ? 'OPEN FLAGGED'
      : r.outcome === 'passed'
        ? 'OPEN PASSED'
        : `OPEN ${r.outcome.toUpperCase()}`
    : r.benign
      ? r.outcome === 'flagged'
        ? 'FLAGGED'
        : r.outcome === 'passed'
          ? 'BENIGN '
          : r.outcome.toUpperCase()
      : r.outcome === 'caught'
        ? 'CAUGHT '
        : r.outcome.toUpperCase();
  return `${label.padEnd(13)} ${r.name} [${r.area}] ${firedShort(r)} ${seconds(r.durationMs)}`;
}

export function baselineLine(b: RunRecord): string {
  const what =
    b.exitCode === 0
      ? 'passed'
      : b.exitCode === 1
        ? `failed ${b.failedRules.length} rules without a fault (${b.failedRules.join(', ')}): faults are judged on the rules they add`
        : `could not run: ${b.error ?? `exit ${b.exitCode}`}`;
  return `BASELINE      no fault, suites ${b.suites.length ? b.suites.join(', ') : 'all'}: ${what} ${seconds(b.durationMs)}`;
}

/** The summary table: fault, area, caught?, rules fired, time. */
export function resultTable(report: FaultsReport): string[] {
  const head = ['FAULT', 'FAMILY', 'CAUGHT?', 'RULES FIRED', 'TIME'];
  const rows = report.results.map((r) => [
    r.name,
    r.benign ? `${r.area} (benign)` : r.indeterminate ? `${r.area} (open)` : r.area,
    VERDICT[r.outcome],
    firedShort(r),
    seconds(r.durationMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (row: string[]) =>
    row
      .map((c, i) => (i === 4 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

/** Per kind of generated fault: caught / faults, flagged / benign, flagged / open. */
export function kindRows(report: FaultsReport): Array<{
  kind: string;
  faults: number;
  caught: number;
  benign: number;
  flagged: number;
  open: number;
  openFlagged: number;
}> {
  const kinds = [...new Set(report.results.map((r) => r.kind).filter((k): k is string => !!k))];
  return kinds.map((kind) => {
    const of = report.results.filter((r) => r.kind === kind);
    const faults = of.filter((r) => !r.benign && !r.indeterminate);
    const benign = of.filter((r) => r.benign);
    const open = of.filter((r) => r.indeterminate);
    return {
      kind,
      faults: faults.length,
      caught: faults.filter((r) => r.outcome === 'caught').length,
      benign: benign.length,
      flagged: benign.filter((r) => r.outcome === 'flagged').length,
      open: open.length,
      openFlagged: open.filter((r) => r.outcome === 'flagged').length,
    };
  });
}

export function summaryLines(report: FaultsReport): string[] {
  const s = report.summary;
  const missed = report.results
    .filter((r) => !r.benign && !r.indeterminate && r.outcome !== 'caught')
    .map((r) => `${r.name} (${verdict(r)})`);
  const kinds = kindRows(report);
  const notApplied = report.results.filter(
    (r) => !r.benign && !r.indeterminate && r.outcome === 'not-exercised',
  ).length;
  const flagged = report.results
    .filter((r) => r.benign && r.outcome === 'flagged')
    .map((r) => `${r.name} (${r.rulesFired.join(', ')})`);
  const idle = report.results
    .filter((r) => r.benign && (r.outcome === 'not-exercised' || r.outcome === 'error'))
    .map((r) => `${r.name} (${verdict(r)})`);
  const applied = !notApplied
    ? ''
    : s.faults > notApplied
      ? ` (${s.caught}/${s.faults - notApplied} = ${pct(s.detectionRateApplied)} of the faults that applied)`
      : ' (none applied)';
  const kindCount = (k: (typeof kinds)[number]) =>
    k.faults
      ? `${k.caught}/${k.faults}`
      : k.benign
        ? `${k.flagged}/${k.benign} flagged`
        : `${k.openFlagged}/${k.open} open flagged`;
  return [
    `detection rate: ${s.caught}/${s.faults} = ${pct(s.detectionRate)}${applied}; ` +
      `false-alarm rate: ${s.flagged}/${s.benign} = ${pct(s.falseAlarmRate)}; ` +
      `${seconds(s.durationMs)} in all (${report.parallel} at a time)`,
    ...(s.indeterminate
      ? [
          `indeterminate cases (the document decides neither way; counted in neither rate): ${s.indeterminate}, ` +
            `flagged by the suites: ${s.indeterminateFlagged}`,
        ]
      : []),
    ...(kinds.length ? [`by kind: ${kinds.map((k) => `${k.kind} ${kindCount(k)}`).join(', ')}`] : []),
    ...(missed.length ? [`not caught: ${missed.join(', ')}`] : []),
    ...(flagged.length ? [`flagged benign variants: ${flagged.join(', ')}`] : []),
    ...(idle.length ? [`benign variants that proved nothing: ${idle.join(', ')}`] : []),
  ];
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

export function markdown(report: FaultsReport): string {
  const s = report.summary;
  const out = [
    '# Fault injection',
    '',
    `Target: ${report.target.bundled ? 'the bundled reference server (a fresh one per fault)' : report.target.baseUrl}` +
      ` · profile ${report.profile} · seed ${report.seed} · started ${report.startedAt}` +
      ` · ${seconds(s.durationMs)} (${report.parallel} at a time)`,
    '',
    `- **Detection rate: ${s.caught}/${s.faults} = ${pct(s.detectionRate)}**` +
      (s.faults !== s.caught
        ? ` (${pct(s.detectionRateApplied)} of the faults that changed at least one exchange)`
        : ''),
    `- **False-alarm rate: ${s.flagged}/${s.benign} = ${pct(s.falseAlarmRate)}**`,
    ...(report.baseline
      ? [
          `- Baseline (no fault): exit ${report.baseline.exitCode}` +
            (report.baseline.failedRules.length ? `, failed ${report.baseline.failedRules.join(', ')}` : '') +
            `, ${seconds(report.baseline.durationMs)}`,
        ]
      : []),
    '',
    ...(s.indeterminate
      ? [
          `- Indeterminate cases (the document decides neither way): ${s.indeterminate}, flagged by the suites: ${s.indeterminateFlagged}`,
        ]
      : []),
    '',
  ];
  const kinds = kindRows(report);
  if (kinds.length) {
    out.push('| Kind | Faults caught | Benign flagged | Indeterminate flagged |', '|---|---:|---:|---:|');
    for (const k of kinds)
      out.push(
        `| ${k.kind} | ${k.faults ? `${k.caught}/${k.faults}` : '-'} | ${k.benign ? `${k.flagged}/${k.benign}` : '-'} ` +
          `| ${k.open ? `${k.openFlagged}/${k.open}` : '-'} |`,
      );
    out.push('');
  }
  out.push(
    '| Fault | Area | Caught? | Rules fired | Time | Applied |',
    '|---|---|---|---|---:|---:|',
    ...report.results.map(
      (r) =>
        `| ${r.name} | ${r.area}${r.benign ? ' (benign)' : r.indeterminate ? ' (open)' : ''} | ${VERDICT[r.outcome]} ` +
        `| ${cell(fired(r).join(', ') || (r.error ?? '-'))} | ${seconds(r.durationMs)} ` +
        `| ${r.applied}${r.appliedSetup ? ` (+${r.appliedSetup} setup)` : ''} |`,
    ),
    '',
  );
  const notCaught = report.results.filter((r) => !r.benign && !r.indeterminate && r.outcome !== 'caught');
  if (notCaught.length)
    out.push(
      '## Not caught',
      '',
      ...notCaught.map(
        (r) =>
          `- **${r.name}** (${VERDICT[r.outcome]}): ${r.description}. ` +
          `Expected ${r.expectedRules.join(', ')}.${r.error ? ` ${r.error}` : ''}`,
      ),
      '',
    );
  const flagged = report.results.filter((r) => r.benign && r.outcome === 'flagged');
  if (flagged.length)
    out.push(
      '## Benign variants flagged',
      '',
      ...flagged.map((r) => `- **${r.name}**: ${r.description}. Fired ${r.rulesFired.join(', ')}.`),
      '',
    );
  const open = report.results.filter((r) => r.indeterminate && r.outcome === 'flagged');
  if (open.length)
    out.push(
      '## Indeterminate cases the suites flagged',
      '',
      ...open.map((r) => `- **${r.name}**: ${r.description} (${r.indeterminate}). Fired ${r.rulesFired.join(', ')}.`),
      '',
    );
  return out.join('\n');
}

export async function writeFaultsReport(report: FaultsReport, dir: string): Promise<void> {
  await writeFile(join(dir, 'faults.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(dir, 'faults.md'), markdown(report));
}

/** The catalog as a markdown table (docs/faults.md, `conform faults --list`). */
export function catalogMarkdown(faults: readonly CatalogFault[]): string {
  const rows = faults.map(
    (f) =>
      `| ${f.name} | ${f.area} | ${cell(f.description)} ` +
      `| ${f.benign ? '(benign: none)' : f.rules.join(', ')} | ${f.suites.length ? f.suites.join(', ') : 'all'} |`,
  );
  return ['| Fault | Area | What it does | Rules it should trip | Suites run |', '|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}

/** The catalog as plain lines (`conform faults --list --plain`). */
export function catalogLines(faults: readonly CatalogFault[]): string[] {
  const w = Math.max(...faults.map((f) => f.name.length));
  return faults.map((f) => {
    const area = f.benign ? `${f.area} (benign)` : f.indeterminate ? `${f.area} (open)` : f.area;
    return `${f.name.padEnd(w)}  ${area.padEnd(22)}  ${f.benign ? '-' : f.rules.join(', ')}`;
  });
}
