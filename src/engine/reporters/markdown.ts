/** summary.md: short, for a CI job summary or a PR comment. Leads with "judged N of M rules". */
import { CATEGORY_LABEL, unjudgedGroups, type Report } from './model.ts';

const ICON = { passed: '✅', failed: '❌', error: '⚠️', unjudged: '⚠️' } as const;

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function ids(list: string[], max = 12): string {
  const shown = list
    .slice(0, max)
    .map((id) => `\`${id}\``)
    .join(', ');
  return list.length > max ? `${shown} … and ${list.length - max} more` : shown;
}

export function renderMarkdown(report: Report, maxFailures = 15): string {
  const { summary: s, run } = report;
  const lines: string[] = [];
  lines.push(`## ${ICON[s.verdict]} Conformance: ${s.headline} · ${s.verdict} (exit ${s.exitCode})`);
  lines.push('');
  lines.push(
    `Target \`${cell(run.target.baseUrl)}\`${run.target.bundled ? ' (bundled reference)' : ''} · ` +
      (run.traffic
        ? `traffic: ${cell(run.traffic.source)}, ${run.traffic.exchanges} exchanges from ${run.traffic.clients} client(s) `
        : `profile \`${run.profile}\` · seed \`${run.seed}\` · fixtures ` +
          `\`${run.fixtures.strategy}\`${run.shard ? ` · shard ${run.shard.index}/${run.shard.count}` : ''} `) +
      `· ${(run.durationMs / 1000).toFixed(1)} s · run \`${run.id}\``,
  );
  const groups = unjudgedGroups(report);
  if (groups.length) {
    lines.push('', `### Not judged (${s.rules.notJudged} rule${s.rules.notJudged === 1 ? '' : 's'})`, '');
    for (const g of groups.slice(0, 20))
      lines.push(`- **${CATEGORY_LABEL[g.category]}**: ${cell(g.reason)} — ${ids(g.ruleIds)}`);
    if (groups.length > 20) lines.push(`- … and ${groups.length - 20} more reasons (see report.html)`);
  }
  if (s.gaps.unaccepted.length) {
    lines.push(
      '',
      `**${s.gaps.unaccepted.length} rule(s) went unjudged for a missing fixture or credential** ` +
        `(exit 3). Provide the fixtures, or accept the gap with \`--allow-unjudged\`, \`allowUnjudged\` ` +
        `(rule ids or families) or \`minJudged\` in conform.config.yaml.`,
    );
  } else if (s.gaps.accepted.length) {
    lines.push(
      '',
      `${s.gaps.accepted.length} rule(s) unjudged for a missing fixture or credential: gap accepted by the configuration.`,
    );
  }
  const apart: string[] = [];
  if (s.rules.notApplicable)
    apart.push(`${s.rules.notApplicable} reference-server rule(s) not applicable to this target`);
  if (s.toolRules.total)
    apart.push(
      `${s.toolRules.total} rule(s) about the tool itself (restraint, client), held by the engine and judged by the project's own tests`,
    );
  if (apart.length) lines.push('', `Not counted above: ${apart.join('; ')}.`);
  lines.push('');
  lines.push('| Family | Passed | Failed | Not judged | Engine error |');
  lines.push('|---|---:|---:|---:|---:|');
  for (const f of s.families)
    lines.push(`| ${f.family} | ${f.passed} | ${f.failed} | ${f.notJudged} | ${f.engineError} |`);
  const failed = report.rules.filter((r) => r.verdict === 'failed');
  if (failed.length) {
    lines.push('', '### Failed rules', '');
    for (const r of failed.slice(0, maxFailures)) {
      const first = r.failures[0];
      const ev = first?.exchange
        ? ` — \`${first.exchange.method} ${cell(first.exchange.path)}\` → ${first.exchange.status ?? 'no response'}`
        : '';
      lines.push(
        `- **${r.id}**${r.scope === 'tool' ? ' (tool rule)' : ''}: ${cell(first?.title ?? r.reasons[0] ?? 'failed')}` +
          `${ev}${r.failureCount > 1 ? ` (${r.failureCount} findings)` : ''}`,
      );
    }
    if (failed.length > maxFailures) lines.push(`- … and ${failed.length - maxFailures} more (see report.html)`);
  }
  const broken = report.rules.filter((r) => r.verdict === 'engine_error');
  if (broken.length) {
    lines.push('', "### Engine errors (the tool broke; not the target's fault)", '');
    for (const r of broken.slice(0, 10)) lines.push(`- **${r.id}**: ${cell(r.reasons[0] ?? 'engine error')}`);
    if (broken.length > 10) lines.push(`- … and ${broken.length - 10} more (see report.html)`);
  }
  if (report.errors.length) {
    lines.push('', '### Run errors', '');
    for (const e of report.errors.slice(0, 10))
      lines.push(`- ${e.suite ? `\`${e.suite}\`: ` : ''}${cell(e.message.split('\n')[0])}`);
  }
  lines.push('');
  return lines.join('\n');
}
