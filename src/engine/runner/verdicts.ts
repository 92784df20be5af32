/** Per-rule verdicts from scenario results and the rule index. */
import type { Rule, RuleIndex } from '../../spec/rules.ts';
import type { Exchange, Finding } from '../types.ts';
import type { ScenarioResult } from './types.ts';

export type Verdict = 'passed' | 'failed' | 'skipped' | 'not_exercised';

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
  seed?: number;
  counterexample?: unknown;
}

export interface RuleVerdict {
  id: string;
  family: string;
  statement: string;
  section: string;
  kind: 'contract' | 'reference';
  /** Reference rules on a target other than the bundled server: reported, never failing the run. */
  informational: boolean;
  verdict: Verdict;
  reasons: string[];
  /** Titles of the scenarios citing or judging the rule. */
  scenarios: string[];
  /** How many times checks and assertions judged it. */
  judgements: number;
  failures: RuleFailure[];
}

const RELEVANT_RESPONSE_HEADERS = ['content-type', 'content-length', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'location'];
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

function failureOf(f: Finding, s: ScenarioResult): RuleFailure {
  return {
    source: f.source,
    scenario: s.title,
    suite: s.suite,
    title: f.title,
    message: f.message,
    ...(f.exchange ? { exchange: evidence(f.exchange) } : {}),
    ...(f.replay ? { replay: f.replay } : {}),
    ...(f.seed !== undefined ? { seed: f.seed } : {}),
    ...(f.counterexample !== undefined ? { counterexample: f.counterexample } : {}),
  };
}

const MAX_FAILURES_PER_RULE = 10;

export interface VerdictOptions {
  bundled: boolean;
}

export function computeVerdicts(index: RuleIndex, results: ScenarioResult[], opts: VerdictOptions): RuleVerdict[] {
  return index.rules.map((rule) => verdictFor(rule, results, opts));
}

function verdictFor(rule: Rule, results: ScenarioResult[], opts: VerdictOptions): RuleVerdict {
  const failures: RuleFailure[] = [];
  const scenarios = new Set<string>();
  const skipReasons = new Set<string>();
  const notReached: string[] = [];
  let judgements = 0;
  let passedEvidence = false;
  for (const s of results) {
    const cites = s.ruleIds.includes(rule.id);
    const judged = s.judged[rule.id] ?? 0;
    if (!cites && !judged && !s.findings.some((f) => f.ruleIds.includes(rule.id))) continue;
    scenarios.add(`${s.suite} › ${s.title}`);
    if (s.state === 'skipped') {
      if (cites) skipReasons.add(s.skipReason ?? 'skipped');
      continue;
    }
    judgements += judged;
    for (const f of s.findings) if (f.ruleIds.includes(rule.id)) failures.push(failureOf(f, s));
    if (s.state === 'failed' && s.error && cites) {
      failures.push({ source: 'scenario', scenario: s.title, suite: s.suite, title: 'scenario stopped on an error', message: s.error });
    }
    if (s.state === 'passed' && cites) passedEvidence = true;
    else if (judged > 0) passedEvidence = true;
    else if (s.state === 'failed' && cites) notReached.push(s.title);
  }
  const informational = rule.kind === 'reference' && !opts.bundled;
  let verdict: Verdict;
  let reasons: string[];
  if (failures.length) {
    verdict = 'failed';
    reasons = [...new Set(failures.map((f) => f.title))];
  } else if (passedEvidence) {
    verdict = 'passed';
    reasons = [];
  } else if (skipReasons.size) {
    verdict = 'skipped';
    reasons = [...skipReasons];
  } else {
    verdict = 'not_exercised';
    reasons = notReached.length ? notReached.map((t) => `scenario '${t}' failed before judging it`) : ['no scenario or check in this run exercised it'];
  }
  if (informational) reasons = [...reasons, 'reference rule: informational on this target'];
  return {
    id: rule.id,
    family: rule.family,
    statement: rule.statement,
    section: rule.section,
    kind: rule.kind,
    informational,
    verdict,
    reasons,
    scenarios: [...scenarios],
    judgements,
    failures: failures.slice(0, MAX_FAILURES_PER_RULE),
  };
}

/** Rule ids cited by scenarios or findings that rules.yaml does not know. */
export function unknownRuleIds(index: RuleIndex, results: ScenarioResult[]): string[] {
  const ids = new Set<string>();
  for (const s of results) {
    for (const id of s.ruleIds) ids.add(id);
    for (const id of Object.keys(s.judged)) ids.add(id);
    for (const f of s.findings) for (const id of f.ruleIds) ids.add(id);
  }
  return [...ids].filter((id) => !index.byId(id)).sort();
}
