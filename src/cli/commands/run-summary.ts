/** The closing block of a run (and of a merge) on the terminal: the verdict table and what it means. */
import { paint, type OutputStyle } from '../../engine/runner/progress.ts';
import { CATEGORY_LABEL, unjudgedGroups, type Report } from '../../engine/reporters/index.ts';

function summaryTable(style: OutputStyle, report: Report): string[] {
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
  return [
    line(head),
    rule,
    ...rows.map((r) => (Number(r[2]) > 0 ? paint(style, 'red', line(r)) : line(r))),
    rule,
    line(total),
  ];
}

/** The closing block: the headline first, then what was not judged and why, then the verdict. */
export function summaryLines(style: OutputStyle, report: Report, dir?: string): string[] {
  const s = report.summary;
  const out = [paint(style, 'bold', s.headline), '', ...summaryTable(style, report), ''];
  const groups = unjudgedGroups(report);
  if (groups.length) {
    out.push(`not judged: ${s.rules.notJudged} rule(s)`);
    for (const g of groups) {
      const ids =
        g.ruleIds.length > 8
          ? `${g.ruleIds.slice(0, 8).join(', ')} … and ${g.ruleIds.length - 8} more`
          : g.ruleIds.join(', ');
      const reason = g.reason.length > 240 ? `${g.reason.slice(0, 240)}…` : g.reason;
      out.push(`  ${CATEGORY_LABEL[g.category]}: ${reason} (${g.ruleIds.length}): ${ids}`);
    }
  }
  const apart: string[] = [];
  if (s.rules.notApplicable)
    apart.push(`${s.rules.notApplicable} reference-server rule(s) not applicable to this target`);
  if (s.toolRules.total)
    apart.push(`${s.toolRules.total} rule(s) about the tool itself, judged by the project's own tests`);
  if (apart.length) out.push(`not counted: ${apart.join('; ')}`);
  for (const e of report.errors) out.push(`error: ${e.suite ? `${e.suite}: ` : ''}${e.message.split('\n')[0]}`);
  if (report.unknownRuleIds.length)
    out.push(
      `warning: scenarios cite rule ids that spec/rules.yaml does not have: ${report.unknownRuleIds.join(', ')}`,
    );
  const failed = report.rules.filter((r) => r.verdict === 'failed' && r.scope === 'target');
  if (failed.length) out.push(paint(style, 'red', `failed rules: ${failed.map((r) => r.id).join(', ')}`));
  const broken = report.rules.filter((r) => r.verdict === 'engine_error');
  if (broken.length)
    out.push(
      paint(
        style,
        'yellow',
        `engine errors (the tool broke, not the target): ${broken.map((r) => r.id).join(', ')}; first: ${broken[0].reasons[0] ?? ''}`,
      ),
    );
  if (s.gaps.unaccepted.length) {
    out.push(
      paint(
        style,
        'yellow',
        `unjudged for a missing fixture or credential, not accepted: ${s.gaps.unaccepted.join(', ')}`,
      ),
      'provide the fixtures (docs/fixtures.md), or accept the gap: --allow-unjudged, or allowUnjudged / minJudged in conform.config.yaml',
    );
  } else if (s.gaps.accepted.length)
    out.push(`accepted gaps (unjudged for a missing fixture or credential): ${s.gaps.accepted.length} rule(s)`);
  const seconds = (report.run.durationMs / 1000).toFixed(1);
  out.push(
    `${s.verdict.toUpperCase()} (exit ${s.exitCode}): ${s.headline}; ${s.scenarios.total} scenarios in ${seconds} s`,
  );
  if (dir) out.push(`reports: ${dir}/{report.json,junit.xml,report.html,summary.md}`);
  return out;
}
