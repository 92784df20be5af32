/**
 * The closing block of a run (and of a merge) on the terminal: the verdict first and last, the
 * failures, then what was not judged (one line per reason), then the family table.
 */
import { paint, type OutputStyle } from '../runner/progress.ts';
import { narrative, seenBy } from './narrative.ts';
import type { Report } from './model.ts';

function summaryTable(report: Report): string[] {
  const rows = report.summary.families.map((f) => [
    f.family,
    String(f.passed),
    String(f.failed),
    String(f.notJudged),
    String(f.engineError),
  ]);
  const head = ['FAMILY', 'PASSED', 'FAILED', 'NOT JUDGED', 'ENGINE ERROR'];
  const s = report.summary.rules;
  const total = ['TOTAL', String(s.passed), String(s.failed), String(s.notJudged), String(s.engineError)];
  const widths = head.map((h, i) => Math.max(h.length, ...[...rows, total].map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(head), rule, ...rows.map(line), rule, line(total)];
}

const list = (ids: string[], max = 8) =>
  ids.length > max ? `${ids.slice(0, max).join(', ')} … and ${ids.length - max} more` : ids.join(', ');

/** The closing block: verdict, failures, engine errors, not judged by reason, gaps, table, verdict again. */
export function summaryLines(style: OutputStyle, report: Report, dir?: string): string[] {
  const n = narrative(report);
  const s = report.summary;
  const colour = s.exitCode === 0 ? 'green' : s.exitCode === 1 ? 'red' : 'yellow';
  const out = [paint(style, 'bold', paint(style, colour, n.verdictLine)), ''];
  if (n.failed.length) {
    out.push(paint(style, 'red', `failed: ${n.failed.length} rule(s)`));
    for (const f of n.failed) {
      out.push(`  ${paint(style, 'red', f.key)}${f.tool ? ' (tool rule)' : ''}: ${f.title}${seenBy(f)}`);
      if (f.evidence || f.detail) out.push(`      ${[f.evidence, f.detail].filter(Boolean).join(': ')}`);
    }
  }
  for (const line of n.stale) out.push(paint(style, 'red', line));
  if (n.expected.length) {
    out.push(`failed as expected (declared in expectedFailures; no failure of the run): ${n.expected.length} rule(s)`);
    for (const e of n.expected)
      out.push(
        `  ${e.key}: ${e.title}${e.findings > 1 ? ` (${e.findings} findings)` : ''}` +
          `${e.reason ? ` — declared: ${e.reason}` : ''}`,
      );
  }
  if (n.keptLine) out.push(n.keptLine);
  if (style.detail === 'quiet') {
    for (const e of n.runErrors) out.push(paint(style, 'yellow', `error: ${e}`));
    if (n.gapLine && s.gaps.unaccepted.length) out.push(paint(style, 'yellow', n.gapLine));
    if (dir) out.push(`reports: ${dir}/{report.json,junit.xml,report.html,summary.md}`);
    return out;
  }
  if (n.engineErrors.length) {
    out.push(
      paint(style, 'yellow', `engine errors (the tool broke, not the target): ${n.engineErrors.length} rule(s)`),
    );
    for (const e of n.engineErrors.slice(0, 5)) out.push(`  ${e.id}: ${e.reason}`);
  }
  for (const e of n.runErrors) out.push(paint(style, 'yellow', `error: ${e}`));
  if (n.unknownRuleIds.length)
    out.push(
      paint(
        style,
        'yellow',
        `judgements under rule ids spec/rules.yaml lacks (exit 2): ${n.unknownRuleIds.join(', ')}`,
      ),
    );
  if (n.unjudged.length) {
    out.push(`not judged: ${s.rules.notJudged} rule(s), by reason`);
    for (const g of n.unjudged) {
      const reason = g.reason.length > 200 ? `${g.reason.slice(0, 200)}…` : g.reason;
      out.push(`  [${g.label}${g.accepted ? ', accepted' : ''}] ${reason} — ${list(g.keys)}`);
    }
  }
  for (const line of n.unconfirmed) out.push(line);
  if (n.refusals) {
    out.push(n.refusals.line);
    for (const e of n.refusals.examples.slice(0, 5)) out.push(`  e.g. ${e.length > 220 ? `${e.slice(0, 220)}…` : e}`);
  }
  if (n.nothingJudged) out.push(paint(style, 'yellow', `nothing was judged: ${n.nothingJudged}`));
  if (n.gapLine) out.push(s.gaps.unaccepted.length ? paint(style, 'yellow', n.gapLine) : n.gapLine);
  if (n.skipLine) out.push(paint(style, 'yellow', n.skipLine));
  out.push('', ...summaryTable(report), '');
  if (n.notCounted) out.push(`not counted: ${n.notCounted}`);
  const seconds = (report.run.durationMs / 1000).toFixed(1);
  out.push(paint(style, 'bold', `${n.verdictLine}; ${s.scenarios.total} scenarios in ${seconds} s`));
  if (dir) out.push(`reports: ${dir}/{report.json,junit.xml,report.html,summary.md}`);
  return out;
}
