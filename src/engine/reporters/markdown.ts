/** summary.md: short, for a CI job summary or a PR comment. Leads with "judged N of M rules". */
import type { Report } from './model.ts';
import { narrative, seenBy } from './narrative.ts';

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
  const n = narrative(report);
  const lines: string[] = [];
  lines.push(`## ${ICON[s.verdict]} Conformance: ${n.verdictLine}`);
  lines.push('');
  lines.push(
    `Target \`${cell(run.target.baseUrl)}\`${run.target.bundled ? ' (bundled reference)' : ''} · ` +
      (run.traffic
        ? `traffic: ${cell(run.traffic.source)}, ${run.traffic.exchanges} exchanges from ${run.traffic.clients} client(s) `
        : `profile \`${run.profile}\` · seed \`${run.seed}\` · fixtures ` +
          `\`${run.fixtures.strategy}\`${run.shard ? ` · shard ${run.shard.index}/${run.shard.count}` : ''} `) +
      `· ${(run.durationMs / 1000).toFixed(1)} s · run \`${run.id}\``,
  );
  if (n.failed.length) {
    lines.push('', `### Failed rules (${n.failed.length})`, '');
    // Each failed rule with every distinct finding kept: the first three in full, each field on its own line.
    for (const f of n.failed.slice(0, maxFailures)) {
      lines.push(`- **${f.key}**${f.tool ? ' (tool rule)' : ''}: ${cell(f.title)}${seenBy(f)}`);
      for (const d of f.distinct.slice(0, 3)) {
        if (f.distinct.length > 1 || d.title !== f.title) lines.push(`  - ${cell(d.title)}`);
        if (d.evidence) lines.push(`    - request: \`${cell(d.evidence)}\``);
        if (d.detail) lines.push(`    - found: ${cell(d.detail)}`);
      }
      if (f.distinct.length > 3) lines.push(`  - … and ${f.distinct.length - 3} more distinct findings (report.json)`);
    }
    if (n.failed.length > maxFailures) lines.push(`- … and ${n.failed.length - maxFailures} more (see report.html)`);
  }
  if (n.stale.length) {
    lines.push('', `### Stale expected failures (${n.stale.length}; fail the run)`, '');
    for (const line of n.stale) lines.push(`- ${cell(line)}`);
  }
  if (n.expected.length) {
    lines.push(
      '',
      `### Failed as expected (${n.expected.length}; declared in expectedFailures, no failure of the run)`,
      '',
    );
    for (const e of n.expected)
      lines.push(
        `- **${e.key}**: ${cell(e.title)}${e.evidence ? ` — \`${cell(e.evidence)}\`` : ''}` +
          `${e.findings > 1 ? ` (${e.findings} findings)` : ''}${e.reason ? `; declared: ${cell(e.reason)}` : ''}`,
      );
  }
  if (n.unconfirmed.length) {
    lines.push('');
    for (const line of n.unconfirmed) lines.push(`- ${cell(line)}`);
  }
  if (n.engineErrors.length) {
    lines.push('', "### Engine errors (the tool broke; not the target's fault)", '');
    for (const e of n.engineErrors.slice(0, 10)) lines.push(`- **${e.id}**: ${cell(e.reason)}`);
    if (n.engineErrors.length > 10) lines.push(`- … and ${n.engineErrors.length - 10} more (see report.html)`);
  }
  if (n.runErrors.length || n.unknownRuleIds.length) {
    lines.push('', '### Run errors', '');
    for (const e of n.runErrors.slice(0, 10)) lines.push(`- ${cell(e)}`);
    if (n.unknownRuleIds.length)
      lines.push(`- judgements under rule ids spec/rules.yaml lacks: ${ids(n.unknownRuleIds)}`);
  }
  if (n.unjudged.length) {
    lines.push('', `### Not judged (${s.rules.notJudged} rule${s.rules.notJudged === 1 ? '' : 's'}), by reason`, '');
    for (const g of n.unjudged.slice(0, 20))
      lines.push(`- **${g.label}**${g.accepted ? ' (accepted)' : ''}: ${cell(g.reason)} — ${ids(g.keys)}`);
    if (n.unjudged.length > 20) lines.push(`- … and ${n.unjudged.length - 20} more reasons (see report.html)`);
  }
  if (n.refusals) {
    lines.push(
      '',
      `### Refused by the target's own rule (${s.refusals.count}; never failures)`,
      '',
      cell(n.refusals.line),
    );
    lines.push('');
    for (const e of n.refusals.examples.slice(0, 10)) lines.push(`- ${cell(e)}`);
  }
  if (n.nothingJudged) lines.push('', `**Nothing was judged**: ${cell(n.nothingJudged)}.`);
  if (n.gapLine) lines.push('', s.gaps.unaccepted.length ? `**${cell(n.gapLine)}**` : cell(n.gapLine));
  if (n.skipLine) lines.push('', `**${cell(n.skipLine)}**`);
  lines.push('');
  const withExpected = s.rules.expectedFailure > 0;
  lines.push(`| Family | Passed | Failed |${withExpected ? ' Failed as expected |' : ''} Not judged | Engine error |`);
  lines.push(`|---|---:|---:|${withExpected ? '---:|' : ''}---:|---:|`);
  for (const f of s.families)
    lines.push(
      `| ${f.family} | ${f.passed} | ${f.failed} |${withExpected ? ` ${f.expectedFailure} |` : ''} ${f.notJudged} | ${f.engineError} |`,
    );
  if (n.notCounted) lines.push('', `Not counted above: ${n.notCounted}.`);
  if (n.keptLine) lines.push('', `${cell(n.keptLine)}.`);
  lines.push('', `**${n.verdictLine}**`, '');
  return lines.join('\n');
}
