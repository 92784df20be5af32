/** summary.md: short, for a CI job summary or a PR comment. */
import type { Report } from './model.ts';

const ICON = { passed: '✅', failed: '❌', error: '⚠️' } as const;

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderMarkdown(report: Report, maxFailures = 15): string {
  const { summary: s, run } = report;
  const lines: string[] = [];
  lines.push(`## ${ICON[s.verdict]} Conformance: ${s.verdict} (${s.rules.failed} failed, ${s.rules.passed} passed, ${s.rules.skipped} skipped, ${s.rules.notExercised} not exercised of ${s.rules.total} rules)`);
  lines.push('');
  lines.push(`Target \`${cell(run.target.baseUrl)}\`${run.target.bundled ? ' (bundled reference)' : ''} · profile \`${run.profile}\` · seed \`${run.seed}\`${run.shard ? ` · shard ${run.shard.index}/${run.shard.count}` : ''} · ${(run.durationMs / 1000).toFixed(1)} s · run \`${run.id}\``);
  lines.push('');
  lines.push('| Family | Passed | Failed | Skipped | Not exercised |');
  lines.push('|---|---:|---:|---:|---:|');
  for (const f of s.families) lines.push(`| ${f.family} | ${f.passed} | ${f.failed} | ${f.skipped} | ${f.notExercised} |`);
  const failed = report.rules.filter((r) => r.verdict === 'failed');
  if (failed.length) {
    lines.push('', '### Failed rules', '');
    for (const r of failed.slice(0, maxFailures)) {
      const first = r.failures[0];
      const ev = first?.exchange ? ` — \`${first.exchange.method} ${cell(first.exchange.path)}\` → ${first.exchange.status ?? 'no response'}` : '';
      lines.push(`- **${r.id}**${r.informational ? ' (informational)' : ''}: ${cell(first?.title ?? r.reasons[0] ?? 'failed')}${ev}`);
    }
    if (failed.length > maxFailures) lines.push(`- … and ${failed.length - maxFailures} more (see report.html)`);
  }
  const skipped = report.rules.filter((r) => r.verdict === 'skipped');
  if (skipped.length) {
    const reasons = new Map<string, number>();
    for (const r of skipped) for (const why of r.reasons) reasons.set(why, (reasons.get(why) ?? 0) + 1);
    lines.push('', '<details><summary>Skipped rules: reasons</summary>', '');
    for (const [why, n] of [...reasons.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10)) lines.push(`- ${n} × ${cell(why)}`);
    lines.push('', '</details>');
  }
  if (report.errors.length) {
    lines.push('', '### Run errors', '');
    for (const e of report.errors.slice(0, 10)) lines.push(`- ${e.suite ? `\`${e.suite}\`: ` : ''}${cell(e.message.split('\n')[0])}`);
  }
  lines.push('');
  return lines.join('\n');
}
