/** The report: one JSON document (schemas/report.schema.json) from which every file is written. */
import type { NotJudgedCategory, RuleVerdict, Verdict } from './verdicts.ts';
import type { RunError, ScenarioResult } from '../runner/types.ts';
import type { TargetRefusal } from '../scenario/types.ts';
import type { ExpectationOutcome } from '../config/expectations.ts';

/**
 * An applicable rule left unjudged, whatever the reason: exit 0 claims every applicable rule
 * passed, so each gap must be accepted (by id, family, category or minJudged) for it.
 */
export function isGap(r: Pick<RuleVerdict, 'verdict' | 'scope' | 'notJudged'>): boolean {
  return r.verdict === 'not_judged' && isApplicable(r);
}

/** Applies to the target: counted in "judged N of M". */
export function isApplicable(r: Pick<RuleVerdict, 'verdict' | 'scope' | 'notJudged'>): boolean {
  return (
    r.scope === 'target' && !(r.verdict === 'not_judged' && r.notJudged.every((n) => n.category === 'not-applicable'))
  );
}

export const REPORT_SCHEMA_VERSION = 4;

export interface FamilySummary {
  family: string;
  passed: number;
  failed: number;
  expectedFailure: number;
  notJudged: number;
  engineError: number;
}

export interface ReportScenario {
  id: string;
  suite: string;
  title: string;
  state: ScenarioResult['state'];
  durationMs: number;
  ruleIds: string[];
  exchanges: number;
  /** Every finding of the scenario (the rules keep a capped number as evidence). */
  findings: number;
  /** The fixture methods it asked for (what a fixtures module must offer for its rules). */
  fixtures?: string[];
  /** Why it ended early. */
  skipReason?: string;
  notJudged?: ScenarioResult['notJudged'];
  engineErrors?: ScenarioResult['engineErrors'];
  error?: string;
  notes: string[];
  /** Requests the target refused by a rule of its own where the document leaves it the choice. */
  refusals?: ScenarioResult['refusals'];
}

/**
 * Which gaps (applicable rules not judged, whatever the reason) the run accepts. Without an
 * acceptance every gap keeps the exit code from 0: exit 0 says every applicable rule passed.
 */
export interface Acceptance {
  /** true: every gap; a list: these rule ids or families. */
  allowUnjudged?: boolean | string[];
  /** The gaps are accepted when at least this many applicable rules were judged (never fewer than 1). */
  minJudged?: number;
  /**
   * Reasons the run's own settings accept, by category, each with why: `destructive` on a
   * target declared production (sandbox: false). A narrowed run accepts `not-run` itself.
   */
  accepted?: Partial<Record<NotJudgedCategory, string>>;
  /** The run covers only part of the suites (--suite, --shard): the headline says which; rules it left out are accepted. */
  narrowed?: { suites?: string[]; shard?: { index: number; count: number } };
  /** --fail-on-skip: a scenario that ended early for a reason other than the profile or the destructive setting exits 3. */
  failOnSkip?: boolean;
}

export interface KeptRequest {
  method: string;
  path: string;
  body?: unknown;
  otherKey?: boolean;
}

export interface Report {
  schemaVersion: number;
  tool: { name: string; version: string };
  run: {
    id: string;
    startedAt: string;
    finishedAt: string;
    durationMs: number;
    /** referenceServer: the reference server run apart, declared in the config (its own rules apply). */
    target: { baseUrl: string; bundled: boolean; sandbox: boolean; referenceServer?: boolean; merchantId?: string };
    profile: 'quick' | 'full';
    seed: number;
    shard?: { index: number; count: number };
    /** Shard reports merged into this one. */
    mergedFrom?: string[];
    suites: string[];
    fixtures: { strategy: string; reason: string };
    destructive: boolean;
    specVersion?: string;
    acceptance: Acceptance;
    /** A passive judgement (conform proxy, conform judge): the traffic judged; profile, seed and fixtures do not apply. */
    traffic?: { source: string; exchanges: number; clients: number };
  };
  summary: Summary;
  rules: RuleVerdict[];
  scenarios: ReportScenario[];
  errors: RunError[];
  unknownRuleIds: string[];
  /** The declared expected failures (conform.config.yaml) and how each fared: matched, stale or unconfirmed. */
  expectations?: ExpectationOutcome[];
  /**
   * What the fixtures made and the run kept, because a failure may name it (its replay then finds
   * it): the requests that remove it, with the run's key unless `otherKey` (a key the fixtures
   * made, gone with them); `module`: a team's fixtures module was asked to keep what it made.
   */
  kept?: { requests: KeptRequest[]; module?: boolean };
}

/** The verdict each exit code stands for. */
export const verdictOf = (exitCode: 0 | 1 | 2 | 3): Summary['verdict'] =>
  (['passed', 'failed', 'error', 'unjudged'] as const)[exitCode];

export interface Summary {
  /** passed (exit 0), failed (1), error (2: the run or the engine broke), unjudged (3: gaps not accepted). */
  verdict: 'passed' | 'failed' | 'error' | 'unjudged';
  exitCode: 0 | 1 | 2 | 3;
  /** "judged N of M rules": the first line of every output. */
  headline: string;
  /** Rules about the target (scope target). `total` counts those that apply; not applicable ones apart. */
  rules: {
    total: number;
    judged: number;
    passed: number;
    failed: number;
    /** Failed as declared (expectedFailures): every finding covered, with its reason; no failure of the run. */
    expectedFailure: number;
    notJudged: number;
    engineError: number;
    notApplicable: number;
  };
  /** Applicable rules not judged, by category (a rule may count under several). */
  notJudgedByCategory: Partial<Record<NotJudgedCategory, number>>;
  /** Applicable rules not judged: accepted (by id, family, category or minJudged) or not. */
  gaps: { unaccepted: string[]; accepted: string[] };
  /** Rules about the tool itself (restraint, client): reported apart, outside the target's totals. */
  toolRules: { total: number; passed: number; failed: number; notJudged: number };
  scenarios: { total: number; passed: number; failed: number; skipped: number; error: number };
  families: FamilySummary[];
  /**
   * Requests the target refused by a rule of its own, where the document leaves it the choice (an
   * edge value, a second create on one parent, a refusal of open status): counted, never failures.
   */
  refusals: { count: number; byOperation: { operationId: string; count: number; examples: TargetRefusal[] }[] };
  /** The declared expected failures by outcome; a stale one (its difference gone) fails the run (exit 1). */
  expectations?: { declared: number; matched: number; stale: number; unconfirmed: number };
}

export function toReportScenario(s: ScenarioResult): ReportScenario {
  return {
    id: s.id,
    suite: s.suite,
    title: s.title,
    state: s.state,
    durationMs: Math.round(s.durationMs),
    ruleIds: s.ruleIds,
    exchanges: s.exchanges,
    findings: s.findingCount,
    ...(s.fixtures?.length ? { fixtures: s.fixtures } : {}),
    ...(s.skipReason ? { skipReason: s.skipReason } : {}),
    ...(s.notJudged.length ? { notJudged: s.notJudged } : {}),
    ...(s.engineErrors.length ? { engineErrors: s.engineErrors } : {}),
    ...(s.error ? { error: s.error } : {}),
    notes: s.notes,
    ...(s.refusals?.count ? { refusals: s.refusals } : {}),
  };
}

/** Examples of the target's own refusals kept per operation in the summary. */
const REFUSAL_EXAMPLES = 3;

/** The target's own refusals of the run, by operation (most first): never failures, shown apart. */
export function refusalsOf(scenarios: readonly ReportScenario[]): Summary['refusals'] {
  const byOp = new Map<string, { operationId: string; count: number; examples: TargetRefusal[] }>();
  let count = 0;
  for (const s of scenarios) {
    if (!s.refusals) continue;
    count += s.refusals.count;
    for (const [op, n] of Object.entries(s.refusals.byOperation)) {
      const g = byOp.get(op) ?? { operationId: op, count: 0, examples: [] };
      g.count += n;
      for (const e of s.refusals.examples)
        if ((e.operationId ?? '(unknown operation)') === op && g.examples.length < REFUSAL_EXAMPLES) g.examples.push(e);
      byOp.set(op, g);
    }
  }
  return { count, byOperation: [...byOp.values()].sort((a, b) => b.count - a.count) };
}

/** Whether the acceptance covers a gap on rule `r`: its id or family named, its reasons' categories, or enough judged. */
function accepted(r: RuleVerdict, a: Acceptance, judged: number): boolean {
  if (a.allowUnjudged === true) return true;
  if (Array.isArray(a.allowUnjudged) && a.allowUnjudged.some((x) => x === r.id || x === r.family)) return true;
  const ok = (c: NotJudgedCategory) => a.accepted?.[c] !== undefined || (c === 'not-run' && !!narrowing(a));
  if (r.notJudged.length && r.notJudged.every((n) => ok(n.category))) return true;
  return a.minJudged !== undefined && judged >= Math.max(1, a.minJudged);
}

/** What a narrowed run covered, in words; undefined for a whole run. */
export function narrowing(a: Acceptance): string | undefined {
  const n = a.narrowed;
  const words = [
    n?.suites?.length ? `suites ${n.suites.join(', ')}` : '',
    n?.shard ? `shard ${n.shard.index}/${n.shard.count}` : '',
  ].filter(Boolean);
  return words.length ? words.join(', ') : undefined;
}

/** Scenarios --fail-on-skip counts: ended early for a reason other than the profile or the destructive setting. */
export function endedEarly(scenarios: readonly ReportScenario[]): ReportScenario[] {
  return scenarios.filter(
    (r) =>
      r.state === 'skipped' &&
      !(r.notJudged ?? []).some((m) => m.endedScenario && (m.category === 'profile' || m.category === 'destructive')),
  );
}

/**
 * Summary and exit code: 1 when an applicable rule failed (or a scenario failed citing only
 * unknown rules), else 2 when the run had errors, the engine broke or a judgement cited a rule
 * spec/rules.yaml lacks, else 3 when nothing was judged, gaps are not accepted or (with
 * --fail-on-skip) a scenario ended early, else 0.
 */
export function summarize(
  rules: RuleVerdict[],
  scenarios: ReportScenario[],
  errors: RunError[],
  unknown: string[],
  acceptance: Acceptance = {},
  expectations?: readonly ExpectationOutcome[],
): Summary {
  const target = rules.filter((r) => r.scope === 'target');
  const applicable = target.filter(isApplicable);
  const count = (v: Verdict, list = applicable) => list.filter((r) => r.verdict === v).length;
  const judged = count('passed') + count('failed') + count('expected_failure');
  const stale = (expectations ?? []).filter((e) => e.status === 'stale').length;
  const families = new Map<string, FamilySummary>();
  for (const r of applicable) {
    const f = families.get(r.family) ?? {
      family: r.family,
      passed: 0,
      failed: 0,
      expectedFailure: 0,
      notJudged: 0,
      engineError: 0,
    };
    if (r.verdict === 'passed') f.passed++;
    else if (r.verdict === 'failed') f.failed++;
    else if (r.verdict === 'expected_failure') f.expectedFailure++;
    else if (r.verdict === 'engine_error') f.engineError++;
    else f.notJudged++;
    families.set(r.family, f);
  }
  const byCategory: Partial<Record<NotJudgedCategory, number>> = {};
  for (const r of applicable.filter((x) => x.verdict === 'not_judged'))
    for (const c of new Set(r.notJudged.map((n) => n.category))) byCategory[c] = (byCategory[c] ?? 0) + 1;
  const gaps = applicable.filter(isGap);
  const gapsAccepted = gaps.filter((r) => accepted(r, acceptance, judged)).map((r) => r.id);
  const gapsOpen = gaps.filter((r) => !gapsAccepted.includes(r.id)).map((r) => r.id);
  // A failed scenario whose findings cite only unknown rule ids still fails the run.
  const orphanFailure = scenarios.some(
    (s) => s.state === 'failed' && s.ruleIds.length > 0 && s.ruleIds.every((id) => unknown.includes(id)),
  );
  const broken = errors.length > 0 || count('engine_error') > 0 || unknown.length > 0;
  const skipped = acceptance.failOnSkip ? endedEarly(scenarios).length : 0;
  // A stale expectation (its difference gone) fails the run: the list of known differences cannot rot.
  const exitCode =
    count('failed') > 0 || orphanFailure || stale > 0
      ? 1
      : broken
        ? 2
        : gapsOpen.length || judged === 0 || skipped
          ? 3
          : 0;
  const tool = rules.filter((r) => r.scope === 'tool');
  const rulesSummary = {
    total: applicable.length,
    judged,
    passed: count('passed'),
    failed: count('failed'),
    expectedFailure: count('expected_failure'),
    notJudged: count('not_judged'),
    engineError: count('engine_error'),
    notApplicable: target.length - applicable.length,
  };
  return {
    verdict: verdictOf(exitCode),
    exitCode,
    headline: headline(rulesSummary, narrowing(acceptance)),
    rules: rulesSummary,
    notJudgedByCategory: byCategory,
    gaps: { unaccepted: gapsOpen, accepted: gapsAccepted },
    toolRules: {
      total: tool.length,
      passed: count('passed', tool),
      failed: count('failed', tool),
      notJudged: tool.length - count('passed', tool) - count('failed', tool),
    },
    scenarios: {
      total: scenarios.length,
      passed: scenarios.filter((s) => s.state === 'passed').length,
      failed: scenarios.filter((s) => s.state === 'failed').length,
      skipped: scenarios.filter((s) => s.state === 'skipped').length,
      error: scenarios.filter((s) => s.state === 'error').length,
    },
    families: [...families.values()],
    refusals: refusalsOf(scenarios),
    ...(expectations?.length
      ? {
          expectations: {
            declared: expectations.length,
            matched: expectations.filter((e) => e.status === 'matched').length,
            stale,
            unconfirmed: expectations.filter((e) => e.status === 'unconfirmed').length,
          },
        }
      : {}),
  };
}

/** `judged 120 of 149 rules (118 passed, 2 failed; 29 not judged)`, and what a narrowed run covered. */
export function headline(s: Summary['rules'], narrowed?: string): string {
  const parts = [
    `${s.passed} passed`,
    `${s.failed} failed`,
    ...(s.expectedFailure ? [`${s.expectedFailure} failed as expected`] : []),
  ];
  const rest = [
    s.notJudged ? `${s.notJudged} not judged` : '',
    s.engineError ? `${s.engineError} engine error${s.engineError > 1 ? 's' : ''}` : '',
  ].filter(Boolean);
  const head = `judged ${s.judged} of ${s.total} rules (${parts.join(', ')}${rest.length ? `; ${rest.join(', ')}` : ''})`;
  return narrowed ? `${head} — narrowed run: ${narrowed}` : head;
}

export const CATEGORY_LABEL: Record<NotJudgedCategory, string> = {
  fixture: 'missing fixture',
  credential: 'missing credential',
  'fixture-used-up': 'fixture used up',
  profile: 'profile',
  destructive: 'destructive scenarios off',
  target: 'not judgeable on this target',
  slow: 'target too slow',
  'not-applicable': 'not applicable',
  'not-run': 'not in this run',
};

/**
 * The applicable rules not judged, grouped by category then reason: what every output names.
 * A reason about one part of a rule lists `RULE.ID#part`.
 */
export function unjudgedGroups(
  report: Pick<Report, 'rules'>,
): { category: NotJudgedCategory; reason: string; ruleIds: string[] }[] {
  const groups = new Map<string, { category: NotJudgedCategory; reason: string; ruleIds: string[] }>();
  for (const r of report.rules.filter((x) => x.scope === 'target' && isApplicable(x) && x.verdict === 'not_judged')) {
    for (const n of r.notJudged) {
      const key = `${n.category}\u0000${n.reason}`;
      const g = groups.get(key) ?? { category: n.category, reason: n.reason, ruleIds: [] };
      const id = n.part ? `${r.id}#${n.part}` : r.id;
      if (!g.ruleIds.includes(id)) g.ruleIds.push(id);
      groups.set(key, g);
    }
  }
  const order = Object.keys(CATEGORY_LABEL);
  return [...groups.values()].sort(
    (a, b) => order.indexOf(a.category) - order.indexOf(b.category) || b.ruleIds.length - a.ruleIds.length,
  );
}
