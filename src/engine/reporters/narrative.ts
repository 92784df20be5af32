/**
 * What every output says after its headline, in one order: the failures first, then what broke
 * in the tool, then what was not judged (one line per reason, with its rules), then whether the
 * gaps are accepted, then the verdict again. The console, summary.md and the junit summary
 * testcase render this; none composes its own.
 */
import { CATEGORY_LABEL, endedEarly, narrowing, unjudgedGroups, type Report } from './model.ts';
import type { NotJudgedCategory } from '../runner/verdicts.ts';

export interface FailedLine {
  id: string;
  /** Rule id, with `#part` when the finding names a part. */
  key: string;
  tool: boolean;
  title: string;
  /** `METHOD /path → status` of the first failure's exchange. */
  evidence?: string;
  findings: number;
}

export interface UnjudgedLine {
  category: NotJudgedCategory;
  label: string;
  reason: string;
  /** Rule ids, with `#part` where the reason concerns one part. */
  keys: string[];
  /** Accepted by the run's settings or the configuration. */
  accepted: boolean;
}

export interface Narrative {
  /** `FAILED (exit 1): judged 3 of 5 rules (...)`: the first and the last line. */
  verdictLine: string;
  failed: FailedLine[];
  engineErrors: { id: string; reason: string }[];
  runErrors: string[];
  unknownRuleIds: string[];
  unjudged: UnjudgedLine[];
  /** What to do about the gaps, or that they are accepted; undefined when there are none. */
  gapLine?: string;
  /** --fail-on-skip: the scenarios that ended early, when they set the exit code. */
  skipLine?: string;
  /** Why nothing was judged, when nothing was. */
  nothingJudged?: string;
  /** Rules reported apart from the target's totals. */
  notCounted?: string;
}

export function narrative(report: Report): Narrative {
  const s = report.summary;
  const verdictLine = `${s.verdict.toUpperCase()} (exit ${s.exitCode}): ${s.headline}`;
  const failed = report.rules
    .filter((r) => r.verdict === 'failed')
    .sort((a, b) => Number(a.scope === 'tool') - Number(b.scope === 'tool'))
    .map((r) => {
      const first = r.failures[0];
      const ex = first?.exchange;
      return {
        id: r.id,
        key: first?.part ? `${r.id}#${first.part}` : r.id,
        tool: r.scope === 'tool',
        title: first?.title ?? r.reasons[0] ?? 'failed',
        ...(ex ? { evidence: `${ex.method} ${ex.path} → ${ex.status ?? 'no response'}` } : {}),
        findings: r.failureCount,
      };
    });
  const engineErrors = report.rules
    .filter((r) => r.verdict === 'engine_error')
    .map((r) => ({ id: r.id, reason: r.reasons[0] ?? 'engine error' }));
  const open = new Set(s.gaps.unaccepted);
  const unjudged = unjudgedGroups(report).map((g) => ({
    category: g.category,
    label: CATEGORY_LABEL[g.category],
    reason: g.reason,
    keys: g.ruleIds,
    accepted: !g.ruleIds.some((k) => open.has(k.split('#')[0])),
  }));
  const apart: string[] = [];
  if (s.rules.notApplicable)
    apart.push(`${s.rules.notApplicable} reference-server rule(s) not applicable to this target`);
  if (s.toolRules.total)
    apart.push(`${s.toolRules.total} rule(s) about the tool itself, judged by the project's own tests`);
  return {
    verdictLine,
    failed,
    engineErrors,
    runErrors: report.errors.map((e) => `${e.suite ? `${e.suite}: ` : ''}${e.message.split('\n')[0]}`),
    unknownRuleIds: report.unknownRuleIds,
    unjudged,
    ...gapLine(report),
    ...skipLine(report),
    ...(s.rules.judged === 0 ? { nothingJudged: nothingJudged(report) } : {}),
    ...(apart.length ? { notCounted: apart.join('; ') } : {}),
  };
}

function gapLine(report: Report): { gapLine?: string } {
  const s = report.summary;
  if (s.gaps.unaccepted.length) {
    const ids = s.gaps.unaccepted;
    const shown = ids.length > 6 ? `${ids.slice(0, 6).join(',')},…` : ids.join(',');
    return {
      gapLine:
        `${ids.length} applicable rule(s) not judged and not accepted (exit 3): remove the reasons above ` +
        `(fixtures: docs/fixtures.md), or accept the gap knowingly: --allow-unjudged=${shown} ` +
        `(rule ids or families), or allowUnjudged / minJudged in conform.config.yaml`,
    };
  }
  if (s.gaps.accepted.length)
    return { gapLine: `${s.gaps.accepted.length} rule(s) not judged, gap accepted by the run's settings` };
  return {};
}

function skipLine(report: Report): { skipLine?: string } {
  if (!report.run.acceptance?.failOnSkip) return {};
  const ended = endedEarly(report.scenarios);
  if (!ended.length) return {};
  const first = ended.slice(0, 3).map((r) => `${r.suite} > ${r.title}: ${r.skipReason ?? 'no reason given'}`);
  return {
    skipLine:
      `--fail-on-skip: ${ended.length} scenario(s) ended early (exit 3): ` +
      `${first.join('; ')}${ended.length > 3 ? '; ...' : ''}`,
  };
}

function nothingJudged(report: Report): string {
  const narrowed = narrowing(report.run.acceptance ?? {});
  if (report.run.traffic) return `no exchange of ${report.run.traffic.source} judged a rule about the target`;
  if (!report.scenarios.length)
    return narrowed
      ? `the selection (${narrowed}) holds no scenario: choose other suites or fewer shards`
      : 'the run holds no scenario';
  return 'no scenario judged a rule about the target: see the reasons above';
}
