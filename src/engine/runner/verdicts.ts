/** Per-rule verdicts from scenario results and the rule index. */
import type { Rule, RuleIndex, RuleKind } from '../../spec/rules.ts';
import type {
  EngineErrorRecord,
  Exchange,
  Finding,
  NotJudgedCategory as BaseCategory,
  NotJudgedMark,
} from '../types.ts';
import type { ScenarioResult } from './types.ts';

/**
 * passed: a condition that could have failed was evaluated on the target and never failed;
 * failed: at least one finding; not_judged: no judgement, with reasons and categories;
 * engine_error: the tool broke while judging it (never the target's fault).
 */
export type Verdict = 'passed' | 'failed' | 'not_judged' | 'engine_error';

export const VERDICTS: readonly Verdict[] = ['passed', 'failed', 'not_judged', 'engine_error'];

/**
 * Rules not judged because nothing of this run covers them (the suite selection or shard
 * left out every scenario that judges them, or no exchange reached their checks).
 */
export type NotJudgedCategory = BaseCategory | 'not-run';

export interface NotJudgedReason {
  reason: string;
  category: NotJudgedCategory;
  /** `suite › title` of the scenario that gave it. */
  scenario?: string;
}

export interface RuleEngineError {
  scenario?: string;
  source: string;
  message: string;
  stack?: string;
}

export interface EvidenceExchange {
  operationId?: string;
  method: string;
  path: string;
  url: string;
  status?: number;
  durationMs: number;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  responseHeaders: Record<string, string>;
  responseBody?: unknown;
  rawBody?: string;
  transportError?: string;
  jsonError?: string;
}

export interface RuleFailure {
  source: string;
  scenario?: string;
  suite?: string;
  title: string;
  message: string;
  exchange?: EvidenceExchange;
  replay?: string;
  /** The whole sequence of requests as a bash script, where one request cannot reproduce the failure (rate limits). */
  replaySequence?: string;
  seed?: number;
  counterexample?: unknown;
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
  failures: RuleFailure[];
  engineErrors: RuleEngineError[];
}

const RELEVANT_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'location',
];
const RELEVANT_REQUEST_HEADERS = ['authorization', 'content-type', 'idempotency-key'];

function pick(h: Record<string, string>, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (h[n] !== undefined) out[n] = h[n];
  return out;
}

export function evidence(ex: Exchange): EvidenceExchange {
  return {
    ...(ex.operationId ? { operationId: ex.operationId } : {}),
    method: ex.method,
    path: ex.path,
    url: ex.url,
    ...(ex.status !== undefined ? { status: ex.status } : {}),
    durationMs: ex.durationMs,
    requestHeaders: pick(ex.requestHeaders, RELEVANT_REQUEST_HEADERS),
    ...(ex.requestBody !== undefined ? { requestBody: ex.requestBody } : {}),
    responseHeaders: pick(ex.responseHeaders, RELEVANT_RESPONSE_HEADERS),
    ...(ex.body !== undefined ? { responseBody: ex.body } : ex.rawBody ? { rawBody: ex.rawBody } : {}),
    ...(ex.transportError ? { transportError: ex.transportError } : {}),
    ...(ex.jsonError ? { jsonError: ex.jsonError } : {}),
  };
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
    const ids = new Set([
      ...s.ruleIds,
      ...Object.keys(s.judged),
      ...Object.keys(failedOf(s)),
      ...(s.notJudged ?? []).flatMap((m) => m.ruleIds),
      ...(s.engineErrors ?? []).flatMap((e) => e.ruleIds),
    ]);
    for (const id of ids) byRule.set(id, [...(byRule.get(id) ?? []), s]);
  }
  return index.rules.map((rule) => verdictFor(rule, byRule.get(rule.id) ?? [], opts));
}

function failedOf(s: JudgementSource): Record<string, number> {
  if (s.failed) return s.failed;
  const out: Record<string, number> = {};
  for (const f of s.findings ?? []) for (const id of new Set(f.ruleIds)) out[id] = (out[id] ?? 0) + 1;
  return out;
}

const label = (s: JudgementSource) => (s.suite ? `${s.suite} › ${s.title}` : s.title);

/** Rules about the tool itself: the tool holds them; the project's own tests judge them. */
export function isToolRule(rule: Pick<Rule, 'kind'>): boolean {
  return rule.kind === 'restraint' || rule.kind === 'client';
}

export function verdictFor(rule: Rule, sources: readonly JudgementSource[], opts: VerdictOptions): RuleVerdict {
  const failures: RuleFailure[] = [];
  const engineErrors: RuleEngineError[] = [];
  const notJudged: NotJudgedReason[] = [];
  let judgements = 0;
  let failureCount = 0;
  for (const s of sources) {
    const judged = s.judged[rule.id] ?? 0;
    judgements += judged;
    failureCount += failedOf(s)[rule.id] ?? 0;
    for (const f of s.findings ?? [])
      if (f.ruleIds.includes(rule.id) && failures.length < MAX_FAILURES_PER_RULE) failures.push(failureOf(f, s));
    for (const e of s.engineErrors ?? []) {
      if (e.ruleIds.includes(rule.id))
        engineErrors.push({
          scenario: label(s),
          source: e.source,
          message: e.message,
          ...(e.stack ? { stack: e.stack } : {}),
        });
    }
    for (const m of s.notJudged ?? [])
      if (m.ruleIds.includes(rule.id)) notJudged.push({ reason: m.reason, category: m.category, scenario: label(s) });
    const explained =
      judged > 0 ||
      (s.notJudged ?? []).some((m) => m.ruleIds.includes(rule.id)) ||
      (s.engineErrors ?? []).some((e) => e.ruleIds.includes(rule.id));
    if (!explained && s.ruleIds.includes(rule.id)) {
      notJudged.push(
        s.state === 'failed'
          ? {
              reason: `scenario '${s.title}' stopped on a failure before judging it`,
              category: 'target',
              scenario: label(s),
            }
          : { reason: `scenario '${s.title}' ended without judging it`, category: 'target', scenario: label(s) },
      );
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
    judgements,
    failureCount,
  };
  const decided = decide({ judgements, failureCount, failures, engineErrors, notJudged }, rule, opts);
  return {
    ...base,
    ...decided,
    failures: decided.verdict === 'failed' ? failures : [],
    engineErrors: engineErrors.slice(0, MAX_ERRORS_PER_RULE),
  };
}

interface Tally {
  judgements: number;
  failureCount: number;
  failures: RuleFailure[];
  engineErrors: RuleEngineError[];
  notJudged: NotJudgedReason[];
}

const TOOL_REASON: Record<string, string> = {
  restraint:
    "a rule about the tool itself (restraint): the engine holds it and the project's own tests judge it; nothing on the target can show it",
  client:
    "a rule for clients: the engine's own client is judged by the project's own tests; live clients by conform proxy",
};

/** failed > engine_error > passed > not_judged; rules that do not apply are not judged whatever was seen. */
function decide(
  t: Tally,
  rule: Pick<Rule, 'kind'>,
  opts: VerdictOptions,
): Pick<RuleVerdict, 'verdict' | 'reasons' | 'notJudged'> {
  if (rule.kind === 'reference' && !opts.bundled && !opts.referenceServer) {
    const reason = 'a choice of the reference server that the document does not show: not applicable to this target';
    return { verdict: 'not_judged', reasons: [reason], notJudged: [{ reason, category: 'not-applicable' }] };
  }
  if (isToolRule(rule) && t.judgements === 0 && t.failureCount === 0) {
    const reason = TOOL_REASON[rule.kind];
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
  if (t.judgements > 0) return { verdict: 'passed', reasons: [], notJudged: [] };
  const reasons = dedupe(t.notJudged);
  const list = reasons.length
    ? reasons
    : [{ reason: 'no scenario or check of this run judged it', category: 'not-run' as const }];
  return { verdict: 'not_judged', reasons: [...new Set(list.map((r) => r.reason))], notJudged: list };
}

function dedupe(list: NotJudgedReason[]): NotJudgedReason[] {
  const seen = new Set<string>();
  return list.filter((r) => {
    const k = `${r.category}\u0000${r.reason}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Categories of a not-judged rule that a user must accept for the run to pass: a missing fixture or credential. */
export const GAP_CATEGORIES: readonly NotJudgedCategory[] = ['fixture', 'credential', 'fixture-used-up'];

/** An applicable rule left unjudged for a missing fixture or credential. */
export function isGap(r: Pick<RuleVerdict, 'verdict' | 'scope' | 'notJudged'>): boolean {
  return (
    r.verdict === 'not_judged' && r.scope === 'target' && r.notJudged.some((n) => GAP_CATEGORIES.includes(n.category))
  );
}

/** Applies to the target: counted in "judged N of M". */
export function isApplicable(r: Pick<RuleVerdict, 'verdict' | 'scope' | 'notJudged'>): boolean {
  return (
    r.scope === 'target' && !(r.verdict === 'not_judged' && r.notJudged.every((n) => n.category === 'not-applicable'))
  );
}

/** Rule ids cited by scenarios or findings that rules.yaml does not know. */
export function unknownRuleIds(index: RuleIndex, results: readonly JudgementSource[]): string[] {
  const ids = new Set<string>();
  for (const s of results) {
    for (const id of s.ruleIds) ids.add(id);
    for (const id of Object.keys(s.judged)) ids.add(id);
    for (const f of s.findings ?? []) for (const id of f.ruleIds) ids.add(id);
  }
  return [...ids].filter((id) => !index.byId(id)).sort();
}
