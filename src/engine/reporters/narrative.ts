/**
 * What every output says after its headline, in one order: the failures first, then what broke
 * in the tool, then what was not judged (one line per reason, with its rules), then whether the
 * gaps are accepted, then the verdict again. The console, summary.md and the junit summary
 * testcase render this; none composes its own.
 */
import { CATEGORY_LABEL, endedEarly, narrowing, unjudgedGroups, type Report } from './model.ts';
import type { NotJudgedCategory } from './verdicts.ts';
import { detailOf } from '../messages/finding-text.ts';

export interface FailedLine {
  id: string;
  /** Rule id, with `#part` when the finding names a part. */
  key: string;
  tool: boolean;
  title: string;
  /** `METHOD /path → status` of the first failure's exchange. */
  evidence?: string;
  /** What the first failure found: the field or value, what the document expects, what came back. */
  detail?: string;
  findings: number;
  /** How many scenarios saw it (one fault many reads meet reads as one finding). */
  scenarios?: number;
  /** The distinct failures kept (by title and what they found), first first. */
  distinct: { title: string; evidence?: string; detail?: string }[];
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
  /** Rules that failed as declared (expectedFailures), each with the declared reason: no failure of the run. */
  expected: { key: string; title: string; reason: string; evidence?: string; findings: number }[];
  /** Declared expected failures whose difference is gone (exit 1): remove the entry. */
  stale: string[];
  /** Declared expected failures this run could not confirm (their part not judged there): nothing to tell. */
  unconfirmed: string[];
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
  /** What the run kept for a failure's replay, and where the requests that remove it are. */
  keptLine?: string;
  /**
   * The target's own refusals (where the document leaves it the choice): a headline and one
   * example per operation. Never failures.
   */
  refusals?: { line: string; examples: string[] };
}

/** `3 findings in 22 scenarios`: how many saw a failed rule, when more than one did. */
export function seenBy(f: Pick<FailedLine, 'findings' | 'scenarios'>): string {
  const scenarios = f.scenarios && f.scenarios > 1 ? ` in ${f.scenarios} scenarios` : '';
  return f.findings > 1 || scenarios ? ` (${f.findings} finding${f.findings > 1 ? 's' : ''}${scenarios})` : '';
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
      const seen = new Set<string>();
      const distinct = r.failures.flatMap((f) => {
        const detail = f.message ? detailOf(f.message) : undefined;
        const k = `${f.title}\u0000${detail ?? ''}`;
        if (seen.has(k)) return [];
        seen.add(k);
        const e = f.exchange;
        return [
          {
            title: f.title,
            ...(e ? { evidence: `${e.method} ${e.path} → ${e.status ?? 'no response'}` } : {}),
            ...(detail ? { detail } : {}),
          },
        ];
      });
      return {
        id: r.id,
        key: first?.part ? `${r.id}#${first.part}` : r.id,
        tool: r.scope === 'tool',
        title: first?.title ?? r.reasons[0] ?? 'failed',
        ...(ex ? { evidence: `${ex.method} ${ex.path} → ${ex.status ?? 'no response'}` } : {}),
        ...(first?.message ? { detail: detailOf(first.message) } : {}),
        findings: r.failureCount,
        ...(r.failedIn ? { scenarios: r.failedIn } : {}),
        distinct,
      };
    });
  const expected = report.rules
    .filter((r) => r.verdict === 'expected_failure')
    .map((r) => {
      const first = r.expected?.[0];
      const ex = first?.exchange;
      return {
        key: first?.part ? `${r.id}#${first.part}` : r.id,
        title: first?.title ?? r.reasons[0] ?? 'failed as expected',
        reason: first?.expectedReason ?? '',
        ...(ex ? { evidence: `${ex.method} ${ex.path} → ${ex.status ?? 'no response'}` } : {}),
        findings: r.expectedCount ?? 0,
      };
    });
  const where = (e: { rule: string; operation: string; field?: string }) =>
    `${e.rule} on ${e.operation}${e.field ? ` (field ${e.field})` : ''}`;
  const stale = (report.expectations ?? [])
    .filter((e) => e.status === 'stale')
    .map(
      (e) =>
        `expected failure ${where(e)} no longer happens: judged ${e.judged} time(s) there, held every time ` +
        `(declared: ${e.reason}); remove the entry from expectedFailures`,
    );
  const unconfirmed = (report.expectations ?? [])
    .filter((e) => e.status === 'unconfirmed')
    .map(
      (e) => `expected failure ${where(e)}: not judged there in this run, nothing to confirm (declared: ${e.reason})`,
    );
  const engineErrors = report.rules
    .filter((r) => r.verdict === 'engine_error')
    .map((r) => ({ id: r.id, reason: r.reasons[0] ?? 'engine error' }));
  const open = new Set(s.gaps.unaccepted);
  const unjudged = sameCause(
    unjudgedGroups(report).map((g) => ({
      category: g.category,
      label: CATEGORY_LABEL[g.category],
      reason: g.reason,
      keys: g.ruleIds,
      accepted: !g.ruleIds.some((k) => open.has(k.split('#')[0])),
    })),
  );
  const apart: string[] = [];
  if (s.rules.notApplicable)
    apart.push(`${s.rules.notApplicable} reference-server rule(s) not applicable to this target`);
  if (s.toolRules.total)
    apart.push(`${s.toolRules.total} rule(s) about the tool itself, judged by the project's own tests`);
  return {
    verdictLine,
    failed,
    expected,
    stale,
    unconfirmed,
    engineErrors,
    runErrors: report.errors.map((e) => `${e.suite ? `${e.suite}: ` : ''}${e.message.split('\n')[0]}`),
    unknownRuleIds: report.unknownRuleIds,
    unjudged,
    ...gapLine(report),
    ...skipLine(report),
    ...(s.rules.judged === 0 ? { nothingJudged: nothingJudged(report) } : {}),
    ...(apart.length ? { notCounted: apart.join('; ') } : {}),
    ...(keptLine(report) ? { keptLine: keptLine(report) } : {}),
    ...refusalLines(report),
  };
}

/** `refused by the target's own rule: 7 request(s) ...` and an example per operation. */
function refusalLines(report: Report): Pick<Narrative, 'refusals'> {
  const r = report.summary.refusals;
  if (!r?.count) return {};
  const ops = r.byOperation.map((o) => `${o.operationId} ${o.count}`).join(', ');
  return {
    refusals: {
      line:
        `refused by the target's own rule, where the document leaves it the choice (never failures): ` +
        `${r.count} request(s) (${ops})`,
      examples: r.byOperation
        .filter((o) => o.examples.length)
        .map((o) => `${o.examples[0].request} with ${o.examples[0].sent} → ${o.examples[0].answer}`),
    },
  };
}

/** What to do about a gap of each category: the user's side only; a target that cannot show a rule is said plainly. */
const REMEDY: Partial<Record<NotJudgedCategory, string>> = {
  fixture: 'give the fixtures they ask for (docs/fixtures.md)',
  credential: 'give the keys they ask for (docs/config.md)',
  'fixture-used-up': 'give fresh fixture entries (conform fixtures check lists the used ones)',
  destructive: 'allow destructive scenarios on a sandbox (sandbox: true)',
  profile: 'run the full profile (--profile full)',
  slow: 'give the target more time (--request-timeout, --scenario-timeout)',
  'not-run': 'run the suites that judge them',
};

function gapLine(report: Report): { gapLine?: string } {
  const s = report.summary;
  if (s.gaps.unaccepted.length) {
    const ids = s.gaps.unaccepted;
    const categories = new Map<string, Set<NotJudgedCategory>>();
    for (const r of report.rules)
      if (ids.includes(r.id)) categories.set(r.id, new Set(r.notJudged.map((n) => n.category)));
    // A rule the target's answers cannot support (category target alone) is no setting of the user's.
    const targetOnly = ids.filter((id) => [...(categories.get(id) ?? [])].every((c) => c === 'target'));
    const settable = ids.filter((id) => !targetOnly.includes(id));
    const remedies = [...new Set(settable.flatMap((id) => [...(categories.get(id) ?? [])]))]
      .map((c) => REMEDY[c])
      .filter(Boolean);
    const list = (x: string[]) => (x.length > 6 ? `${x.slice(0, 6).join(',')},…` : x.join(','));
    const parts = [`${ids.length} applicable rule(s) not judged and not accepted (exit 3)`];
    if (settable.length)
      parts.push(
        `for ${settable.length}: ${remedies.join('; ') || 'remove the reasons above'}; or accept the gap knowingly: ` +
          `--allow-unjudged=${list(settable)} (rule ids or families), or allowUnjudged / minJudged in conform.config.yaml`,
      );
    if (targetOnly.length)
      parts.push(
        `${targetOnly.length} could not be judged because the target's answers do not show what they need ` +
          `(${list(targetOnly)}: see the reasons above); no setting changes that, and accepting the gap leaves them unchecked`,
      );
    return { gapLine: `${parts[0]}: ${parts.slice(1).join('; ')}` };
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

function keptLine(report: Report): string | undefined {
  const k = report.kept;
  if (!k) return undefined;
  const made = k.requests.length
    ? `kept ${k.requests.length} resource(s) the fixtures made, so that a failure's replay finds what it names; ` +
      'report.json `kept` lists the requests that remove them'
    : '';
  const module = k.module
    ? 'the fixtures module has no keep(), so what it made for the failed suites is not listed in report.json `kept`: ' +
      'it was asked to keep it (CONFORM_KEEP_FIXTURES), so remove it through your back office, or add keep() returning ' +
      'the requests that remove it (docs/fixtures.md) to have them listed'
    : '';
  return [made, module].filter(Boolean).join('; ');
}

const FIXTURE_REASON = /^fixture '([^']+)' unavailable: (.*)$/s;

/**
 * Fixtures unavailable for one and the same cause (a back office at a wrong URL answers every
 * call alike) read as one line naming them all, not one line per fixture.
 */
function sameCause(lines: UnjudgedLine[]): UnjudgedLine[] {
  const out: UnjudgedLine[] = [];
  const byCause = new Map<string, { line: UnjudgedLine; fixtures: string[] }>();
  for (const line of lines) {
    const m = FIXTURE_REASON.exec(line.reason);
    if (!m) {
      out.push(line);
      continue;
    }
    const key = `${line.category}\u0000${m[2]}`;
    const same = byCause.get(key);
    if (!same) {
      const entry = { line: { ...line, keys: [...line.keys] }, fixtures: [m[1]] };
      byCause.set(key, entry);
      out.push(entry.line);
      continue;
    }
    if (!same.fixtures.includes(m[1])) same.fixtures.push(m[1]);
    for (const k of line.keys) if (!same.line.keys.includes(k)) same.line.keys.push(k);
    same.line.accepted &&= line.accepted;
    const shown = same.fixtures.slice(0, 2).map((f) => `'${f}'`);
    const names =
      same.fixtures.length > 2 ? `${shown.join(', ')} and ${same.fixtures.length - 2} more` : shown.join(', ');
    same.line.reason = `fixtures ${names} unavailable: ${m[2]}`;
  }
  return out;
}
