/** Per-rule verdicts from scenario results and the rule index. */
import {
  parseRuleKey,
  partsOf,
  WHOLE_PART,
  type Rule,
  type RuleIndex,
  type RuleKind,
  type RulePart,
} from '../../contract/rules.ts';
import type { EngineErrorRecord, Finding, NotJudgedCategory as BaseCategory, NotJudgedMark } from '../types.ts';
import type { ScenarioResult } from '../runner/types.ts';
import { evidence, type RuleFailure } from '../runner/evidence.ts';
import { named } from '../messages/command-name.ts';

export type { EvidenceExchange, RuleFailure } from '../runner/evidence.ts';

/**
 * passed: a condition that could have failed was evaluated on the target and never failed;
 * failed: at least one finding; expected_failure: every finding was covered by a declared
 * expected failure (conform.config.yaml `expectedFailures`, with its reason), none else;
 * not_judged: no judgement, with reasons and categories; engine_error: the tool broke while
 * judging it (never the target's fault).
 */
export type Verdict = 'passed' | 'failed' | 'expected_failure' | 'not_judged' | 'engine_error';

export const VERDICTS: readonly Verdict[] = ['passed', 'failed', 'expected_failure', 'not_judged', 'engine_error'];

/**
 * Rules not judged because nothing of this run covers them (the suite selection or shard
 * left out every scenario that judges them, or no exchange reached their checks).
 */
export type NotJudgedCategory = BaseCategory | 'not-run';

export interface NotJudgedReason {
  reason: string;
  category: NotJudgedCategory;
  /** The part of the rule it concerns, for a rule with several parts. */
  part?: string;
  /** `suite › title` of the scenario that gave it. */
  scenario?: string;
}

export interface RuleEngineError {
  scenario?: string;
  source: string;
  message: string;
  stack?: string;
}

export interface RuleVerdict {
  id: string;
  family: string;
  statement: string;
  section: string;
  kind: RuleKind;
  /**
   * target: a rule about the target, counted in its totals; tool: a rule about the tool itself
   * (restraint, client), held and tested by the project, reported apart.
   */
  scope: 'target' | 'tool';
  verdict: Verdict;
  /** One line each: the failures' titles, the not-judged reasons, or the engine errors. */
  reasons: string[];
  /** Why it was not judged (verdict not_judged), each with a category. */
  notJudged: NotJudgedReason[];
  /** `suite › title` of the scenarios citing or judging the rule. */
  scenarios: string[];
  /** How many times checks and assertions judged it (held or not). */
  judgements: number;
  /** Every finding against it, however many are kept in `failures`. */
  failureCount: number;
  /** How many scenarios (or other sources) had a finding against it: one fault seen by many reads once. */
  failedIn?: number;
  failures: RuleFailure[];
  /** Findings a declared expected failure covered (they fail nothing), and some of them as evidence. */
  expectedCount?: number;
  expected?: RuleFailure[];
  engineErrors: RuleEngineError[];
  /** Each condition of the statement (one for most rules): passed needs every one judged. */
  parts: PartVerdict[];
}

/** One part of a rule as the run judged it. */
export interface PartVerdict {
  id: string;
  statement: string;
  verdict: Verdict;
  judgements: number;
  failureCount: number;
  /** Findings a declared expected failure covered. */
  expectedCount?: number;
  /** Why it was not judged (verdict not_judged). */
  notJudged?: NotJudgedReason[];
}

function failureOf(f: Finding, s: JudgementSource): RuleFailure {
  return {
    source: f.source,
    scenario: s.title,
    suite: s.suite,
    title: f.title,
    message: f.message,
    ...(f.exchange ? { exchange: evidence(f.exchange) } : {}),
    ...(f.replay ? { replay: f.replay } : {}),
    ...(f.replaySequence ? { replaySequence: f.replaySequence } : {}),
    ...(f.seed !== undefined ? { seed: f.seed } : {}),
    ...(f.counterexample !== undefined ? { counterexample: f.counterexample } : {}),
    ...(f.expected !== undefined ? { expected: f.expected } : {}),
  };
}

export const MAX_FAILURES_PER_RULE = 10;
const MAX_ERRORS_PER_RULE = 5;

/**
 * What verdicts are computed from: any source of judgements (a scenario, a passive judge of
 * live traffic) as plain data. Only `ruleIds`, `judged` and `title` are required.
 */
export interface JudgementSource {
  title: string;
  suite?: string;
  /** Rules it sets out to judge. */
  ruleIds: string[];
  /** Rule id → judgements (conditions evaluated on the target, held or not). */
  judged: Record<string, number>;
  /** Rule id → findings against it (every one); derived from `findings` when absent. */
  failed?: Record<string, number>;
  /** Rule id → findings a declared expected failure covered (they fail nothing). */
  expected?: Record<string, number>;
  /** Findings kept as evidence. */
  findings?: Finding[];
  notJudged?: NotJudgedMark[];
  engineErrors?: EngineErrorRecord[];
  /** How the source ended; `failed` with rules it cites left unjudged says they were stopped by a failure. */
  state?: ScenarioResult['state'];
}

export interface VerdictOptions {
  /** The target is the bundled reference server: its own choices (kind reference) apply. */
  bundled: boolean;
  /** The target is the reference server run apart (conform serve): its own choices apply too. */
  referenceServer?: boolean;
}

export function computeVerdicts(
  index: RuleIndex,
  sources: readonly JudgementSource[],
  opts: VerdictOptions,
): RuleVerdict[] {
  const byRule = new Map<string, JudgementSource[]>();
  for (const s of sources) {
    const keys = [
      ...s.ruleIds,
      ...Object.keys(s.judged),
      ...Object.keys(failedOf(s)),
      ...Object.keys(s.expected ?? {}),
      ...(s.notJudged ?? []).flatMap((m) => m.ruleIds),
      ...(s.engineErrors ?? []).flatMap((e) => e.ruleIds),
    ];
    for (const id of new Set(keys.map((k) => parseRuleKey(k).ruleId))) byRule.set(id, [...(byRule.get(id) ?? []), s]);
  }
  return index.rules.map((rule) => verdictFor(rule, byRule.get(rule.id) ?? [], opts));
}

function failedOf(s: JudgementSource): Record<string, number> {
  if (s.failed) return s.failed;
  const out: Record<string, number> = {};
  for (const f of s.findings ?? [])
    if (f.expected === undefined) for (const id of new Set(f.ruleIds)) out[id] = (out[id] ?? 0) + 1;
  return out;
}

const label = (s: JudgementSource) => (s.suite ? `${s.suite} › ${s.title}` : s.title);

/** Rules about the tool itself: the tool holds them; the project's own tests judge them. */
export function isToolRule(rule: Pick<Rule, 'kind'>): boolean {
  return rule.kind === 'restraint' || rule.kind === 'client';
}

/** Where each part of one rule stands, as the sources tell it. */
class PartTally {
  judgements = 0;
  failureCount = 0;
  expectedCount = 0;
  readonly notJudged: NotJudgedReason[] = [];
  constructor(readonly part: RulePart) {}
}

/**
 * The parts of `rule` a key names: every part for the bare rule id, one for `RULE#part`, none
 * for another rule's key; `invalid` when it names a part the rule does not have.
 */
function partsNamed(rule: Rule, parts: readonly RulePart[], key: string): RulePart[] | 'invalid' | undefined {
  const { ruleId, part } = parseRuleKey(key);
  if (ruleId !== rule.id) return undefined;
  if (part === undefined) return [...parts];
  const found = parts.find((p) => p.id === part);
  return found ? [found] : 'invalid';
}

export function verdictFor(rule: Rule, sources: readonly JudgementSource[], opts: VerdictOptions): RuleVerdict {
  const parts = partsOf(rule);
  const multi = parts.length > 1;
  const tallies = new Map(parts.map((p) => [p.id, new PartTally(p)]));
  const failures: RuleFailure[] = [];
  const expected: RuleFailure[] = [];
  const engineErrors: RuleEngineError[] = [];
  let failureCount = 0;
  let expectedCount = 0;
  let failedIn = 0;
  const named = (key: string) => partsNamed(rule, parts, key);
  const badKey = (s: JudgementSource, key: string, message: string) =>
    engineErrors.push({ scenario: label(s), source: 'verdicts', message: `${message} (${key})` });
  for (const s of sources) {
    const judgedHere = new Set<string>();
    for (const [key, n] of Object.entries(s.judged)) {
      const ps = named(key);
      if (!ps || n <= 0) continue;
      if (ps === 'invalid') badKey(s, key, `a judgement names a part rule ${rule.id} does not have`);
      else if (multi && !parseRuleKey(key).part)
        badKey(s, key, `a judgement names no part; rule ${rule.id} has ${parts.map((p) => p.id).join(', ')}`);
      else
        for (const p of ps) {
          tallies.get(p.id)!.judgements += n;
          judgedHere.add(p.id);
        }
    }
    let failedHere = false;
    for (const [key, n] of Object.entries(failedOf(s))) {
      const ps = named(key);
      if (!ps) continue;
      failureCount += n;
      if (n > 0) failedHere = true;
      if (ps !== 'invalid') for (const p of ps) tallies.get(p.id)!.failureCount += n;
    }
    if (failedHere) failedIn += 1;
    for (const [key, n] of Object.entries(s.expected ?? {})) {
      const ps = named(key);
      if (!ps || ps === 'invalid') continue;
      expectedCount += n;
      for (const p of ps) tallies.get(p.id)!.expectedCount += n;
    }
    for (const f of s.findings ?? []) {
      const key = f.ruleIds.find((k) => named(k));
      const kept = f.expected === undefined ? failures : expected;
      if (key && kept.length < MAX_FAILURES_PER_RULE) {
        const part = multi ? parseRuleKey(key).part : undefined;
        kept.push({ ...failureOf(f, s), ...(part ? { part } : {}) });
      }
    }
    const covered = new Set<string>();
    for (const e of s.engineErrors ?? []) {
      const ps = e.ruleIds.map(named).filter((x): x is RulePart[] => Array.isArray(x));
      if (!ps.length) continue;
      for (const p of ps.flat()) covered.add(p.id);
      engineErrors.push({
        scenario: label(s),
        source: e.source,
        message: e.message,
        ...(e.stack ? { stack: e.stack } : {}),
      });
    }
    for (const m of s.notJudged ?? []) {
      for (const p of m.ruleIds
        .map(named)
        .filter((x): x is RulePart[] => Array.isArray(x))
        .flat()) {
        covered.add(p.id);
        tallies.get(p.id)!.notJudged.push({
          reason: m.reason,
          category: m.category,
          scenario: label(s),
          ...(multi ? { part: p.id } : {}),
        });
      }
    }
    // A part the source set out to judge and left without a judgement or a reason.
    const cited = s.ruleIds
      .map(named)
      .filter((x): x is RulePart[] => Array.isArray(x))
      .flat();
    for (const p of cited) {
      if (judgedHere.has(p.id) || covered.has(p.id)) continue;
      covered.add(p.id);
      const cause = Object.keys(failedOf(s)).join(', ');
      tallies.get(p.id)!.notJudged.push({
        reason:
          s.state === 'failed'
            ? `scenario '${s.title}' stopped when ${cause || 'a rule'} failed, before judging it`
            : `scenario '${s.title}' ended without judging it`,
        category: 'target',
        scenario: label(s),
        ...(multi ? { part: p.id } : {}),
      });
    }
  }
  const base = {
    id: rule.id,
    family: rule.family,
    statement: rule.statement,
    section: rule.section,
    kind: rule.kind,
    scope: isToolRule(rule) ? ('tool' as const) : ('target' as const),
    scenarios: [...new Set(sources.map(label))],
    judgements: [...tallies.values()].reduce((n, t) => n + t.judgements, 0),
    failureCount,
  };
  const partList = [...tallies.values()];
  const decided = decide(
    { parts: partList, failureCount, expectedCount, failures, expected, engineErrors },
    rule,
    opts,
  );
  return {
    ...base,
    ...decided,
    parts: partList.map((t) => partVerdict(t, decided.verdict)),
    failures: decided.verdict === 'failed' ? failures : [],
    ...(decided.verdict === 'failed' ? { failedIn } : {}),
    ...(expectedCount ? { expectedCount, expected } : {}),
    engineErrors: engineErrors.slice(0, MAX_ERRORS_PER_RULE),
  };
}

function partVerdict(t: PartTally, ruleVerdict: Verdict): PartVerdict {
  const verdict: Verdict =
    t.failureCount > 0
      ? 'failed'
      : t.expectedCount > 0
        ? 'expected_failure'
        : t.judgements > 0
          ? 'passed'
          : ruleVerdict === 'engine_error'
            ? 'engine_error'
            : 'not_judged';
  return {
    id: t.part.id,
    statement: t.part.statement,
    verdict,
    judgements: t.judgements,
    failureCount: t.failureCount,
    ...(t.expectedCount ? { expectedCount: t.expectedCount } : {}),
    ...(verdict === 'not_judged' ? { notJudged: dedupe(t.notJudged.length ? t.notJudged : [notRun(t)]) } : {}),
  };
}

const notRun = (t: PartTally): NotJudgedReason => ({
  reason: 'no scenario or check of this run judged it',
  category: 'not-run',
  ...(t.part.id !== WHOLE_PART ? { part: t.part.id } : {}),
});

interface Tally {
  parts: PartTally[];
  failureCount: number;
  expectedCount: number;
  failures: RuleFailure[];
  expected: RuleFailure[];
  engineErrors: RuleEngineError[];
}

const TOOL_REASON: Record<string, string> = {
  restraint:
    "a rule about the tool itself (restraint): the engine holds it and the project's own tests judge it; nothing on the target can show it",
  client:
    "a rule for clients: the engine's own client is judged by the project's own tests; live clients by conform proxy",
};

/**
 * failed > engine_error > expected_failure > passed > not_judged. Passed needs every part judged: a part left
 * without a judgement keeps the rule not judged, with that part's reasons. Rules that do not
 * apply are not judged whatever was seen.
 */
function decide(
  t: Tally,
  rule: Pick<Rule, 'kind'>,
  opts: VerdictOptions,
): Pick<RuleVerdict, 'verdict' | 'reasons' | 'notJudged'> {
  const judgements = t.parts.reduce((n, p) => n + p.judgements, 0);
  if (rule.kind === 'reference' && !opts.bundled && !opts.referenceServer) {
    const reason = 'a choice of the reference server that the document does not show: not applicable to this target';
    return { verdict: 'not_judged', reasons: [reason], notJudged: [{ reason, category: 'not-applicable' }] };
  }
  if (isToolRule(rule) && judgements === 0 && t.failureCount === 0) {
    const reason = named(TOOL_REASON[rule.kind]);
    return { verdict: 'not_judged', reasons: [reason], notJudged: [{ reason, category: 'not-applicable' }] };
  }
  if (t.failureCount > 0) {
    const titles = [...new Set(t.failures.map((f) => f.title))];
    return { verdict: 'failed', reasons: titles.length ? titles : [`${t.failureCount} finding(s)`], notJudged: [] };
  }
  if (t.engineErrors.length)
    return {
      verdict: 'engine_error',
      reasons: [
        ...new Set(t.engineErrors.map((e) => `engine error in ${e.scenario ?? e.source}: ${e.message.split('\n')[0]}`)),
      ],
      notJudged: [],
    };
  // Every finding covered by a declared expected failure: known and explained, failing nothing.
  if (t.expectedCount > 0) {
    const titles = [...new Set(t.expected.map((f) => f.title))];
    return {
      verdict: 'expected_failure',
      reasons: titles.length ? titles : [`${t.expectedCount} expected finding(s)`],
      notJudged: [],
    };
  }
  const open = t.parts.filter((p) => p.judgements === 0);
  if (!open.length) return { verdict: 'passed', reasons: [], notJudged: [] };
  const list = dedupe(open.flatMap((p) => (p.notJudged.length ? p.notJudged : [notRun(p)])));
  const reasons = list.map((r) => (r.part ? `part ${r.part}: ${r.reason}` : r.reason));
  return { verdict: 'not_judged', reasons: [...new Set(reasons)], notJudged: list };
}

function dedupe(list: NotJudgedReason[]): NotJudgedReason[] {
  const seen = new Set<string>();
  return list.filter((r) => {
    const k = `${r.part ?? ''}\u0000${r.category}\u0000${r.reason}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Rule ids cited by scenarios or findings that rules.yaml does not know. */
export function unknownRuleIds(index: RuleIndex, results: readonly JudgementSource[]): string[] {
  const ids = new Set<string>();
  const add = (key: string) => ids.add(parseRuleKey(key).ruleId);
  for (const s of results) {
    for (const id of s.ruleIds) add(id);
    for (const id of Object.keys(s.judged)) add(id);
    for (const f of s.findings ?? []) for (const id of f.ruleIds) add(id);
    for (const m of s.notJudged ?? []) for (const id of m.ruleIds) add(id);
  }
  return [...ids].filter((id) => !index.byId(id)).sort();
}
