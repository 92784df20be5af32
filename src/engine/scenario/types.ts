/** The types and errors of the scenario API (src/engine/scenario/index.ts). */
import type { EngineErrorRecord, Exchange, Finding, NotJudgedCategory, NotJudgedMark } from '../types.ts';
import { redact } from '../http/redact.ts';
import type { RequestOptions } from '../http/client.ts';
import type { Fixtures } from '../fixtures/methods.ts';

export interface ScenarioOptions {
  /** Deletes, refunds...: not judged unless the target allows destructive scenarios. */
  destructive?: boolean;
  /** Only in the full profile (e.g. waits for per-minute windows). */
  profile?: 'full';
  timeoutMs?: number;
  /** Runs concurrently with the other concurrent scenarios of its file. */
  concurrent?: boolean;
}

/** What the reporters read back from each scenario (task meta `conform`); plain JSON. */
export interface ScenarioRecord {
  ruleIds: string[];
  /** Rule id → number of judgements (checks on exchanges, expectRule, softExpectRule, expectStatus), passed or failed. */
  judged: Record<string, number>;
  /** Rule id → number of findings against it: every one, however many findings are kept as evidence. */
  failed: Record<string, number>;
  /** The findings kept as evidence (at most MAX_FINDINGS). */
  findings: Finding[];
  /** Every finding of the scenario, kept or not. */
  findingCount: number;
  notes: string[];
  exchanges: number;
  /** Rules the scenario could not judge, each mark with its reason and category. */
  notJudged: NotJudgedMark[];
  /** The tool broke while running the scenario (never the target's fault). */
  engineErrors: EngineErrorRecord[];
  /** The fixture methods it asked for, in order of first use: what a team's fixtures must offer for its rules. */
  fixtures?: string[];
  /** Rule key → findings a declared expected failure covered (they fail nothing). */
  expected?: Record<string, number>;
  /** By expectation index: findings it covered, and judgements of its part on its operation (and field). */
  expectations?: { matched: Record<string, number>; judged: Record<string, number> };
  /** Requests the target refused by a rule of its own where the document leaves it the choice (never failures). */
  refusals?: { count: number; byOperation: Record<string, number>; examples: TargetRefusal[] };
}

/**
 * A request the target refused by a rule of its own, where the document leaves the choice to it:
 * a value the document neither allows nor forbids (an empty name, a negative period, a second
 * schedule for one order), or a refusal whose status the document does not give. Counted and
 * reported apart, never a failure: its answer was still judged (no 5xx, Error shape).
 */
export interface TargetRefusal {
  operationId?: string;
  /** `PATCH /v0/alerts/al_1`. */
  request: string;
  /** What the document leaves open in it: `body /notifyPeriod = -1 (a negative number where ...)`. */
  sent: string;
  /** `400 validation_error: notifyPeriod must be positive`. */
  answer: string;
}

/** Evidence a finding carries beyond its exchange. */
export type FindingEvidence = Pick<Finding, 'replaySequence' | 'seed' | 'counterexample' | 'fields'>;

export interface ScenarioRequestOptions extends RequestOptions {
  /** Sent without valid credentials on purpose (checks then expect no rate headers, etc.). */
  unauthenticated?: boolean;
  /**
   * Breaks a documented constraint (or is not JSON) on purpose, everything else set up validly:
   * the registry then expects the documented refusal and no other answer (checks/refusals.ts).
   */
  brokenOnPurpose?: boolean;
}

export interface ScenarioHttp {
  request(method: string, path: string, opts?: ScenarioRequestOptions): Promise<Exchange>;
  get(path: string, opts?: ScenarioRequestOptions): Promise<Exchange>;
  post(path: string, body?: unknown, opts?: ScenarioRequestOptions): Promise<Exchange>;
  patch(path: string, body?: unknown, opts?: ScenarioRequestOptions): Promise<Exchange>;
  put(path: string, body?: unknown, opts?: ScenarioRequestOptions): Promise<Exchange>;
  delete(path: string, opts?: ScenarioRequestOptions): Promise<Exchange>;
}

export interface TargetInfo {
  baseUrl: string;
  merchantId?: string;
  profile: 'quick' | 'full';
  seed: number;
  bundled: boolean;
  /** The target is the reference server (bundled or declared): rules about its own choices apply. */
  referenceServer: boolean;
  sandbox: boolean;
  destructive: boolean;
  fixtureStrategy: string;
}

export interface ScenarioContext {
  readonly http: ScenarioHttp;
  readonly target: TargetInfo;
  /** Resolves a fixture; a FixtureUnavailable ends the scenario, its unjudged rules not judged (category fixture or credential). */
  fixture<T>(fn: (f: Fixtures) => Promise<T>): Promise<T>;
  /**
   * Judges `ruleId` on `condition`; when it is false, records a finding and stops the scenario.
   * For a rule of several parts, `ruleId` names the part judged: `RULE.ID#part`.
   */
  expectRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): void;
  /**
   * Like expectRule, but a false condition does not stop the scenario (as vitest's expect.soft): returns the condition.
   * `extra` is evidence a failure carries beyond its exchange (a replay script of a whole sequence, a generation seed).
   */
  softExpectRule(
    ruleId: string,
    condition: unknown,
    message: string,
    exchange?: Exchange,
    extra?: FindingEvidence,
  ): boolean;
  /** expectRule on the status code (one value or a list); with several rule ids, a wrong status fails each of them. */
  expectStatus(ruleIds: string | string[], exchange: Exchange, expected: number | number[]): void;
  /**
   * What must hold before the scenario can judge anything more (a setup request succeeding, a
   * field being exposed). It judges nothing: when it does not hold, the scenario ends and every
   * part it cites that it has not judged yet is not judged, with `what` and the answer as the
   * reason. The checks on that answer still judge it (a status the document does not give, a
   * body off its schema fail their own rules).
   */
  precondition(condition: unknown, what: string, exchange?: Exchange): asserts condition;
  /** Turns off the client's automatic 429 retry for the rest of this scenario. */
  rateLimitScenario(): void;
  /**
   * Ends the scenario: the rules it cites that it has not judged yet are not judged, with
   * `reason` (what kept them from being judged) and its category. What was judged stands.
   */
  notJudged(reason: string, category?: NotJudgedCategory): never;
  /** Records that `ruleIds` were not judged here (with the reason) and carries on; a later judgement still counts. */
  ruleNotJudged(ruleIds: string | string[], reason: string, category?: NotJudgedCategory): void;
  /** An advisory note (never a failure, never a judgement): shown in the reports. */
  note(message: string): void;
  /**
   * The target refused `exchange` by a rule of its own where the document leaves the choice open
   * (`sent` says what); counted and shown apart, never a failure, never a judgement.
   */
  targetRefusal(exchange: Exchange, sent: string): void;
  sleep(ms: number): Promise<void>;
  readonly findings: readonly Finding[];
}

/** Thrown by t.notJudged: ends the scenario without a failure. */
export class NotJudged extends Error {
  constructor(
    readonly reason: string,
    readonly category: NotJudgedCategory,
  ) {
    super(`not judged (${category}): ${reason}`);
    this.name = 'NotJudged';
  }
}

/** Thrown when a scenario has findings: the test fails, and the reporters read the findings from the meta. */
export class ConformanceFailure extends Error {
  constructor(findings: Finding[]) {
    super(describeFindings(findings));
    this.name = 'ConformanceFailure';
  }
}

function describeFindings(findings: Finding[]): string {
  const lines = findings.slice(0, 20).map((f) => `[${f.ruleIds.join(', ') || 'scenario'}] ${f.title}: ${f.message}`);
  if (findings.length > 20) lines.push(`... and ${findings.length - 20} more`);
  return redact(`${findings.length} finding${findings.length === 1 ? '' : 's'}:\n${lines.join('\n')}`);
}

/** The scenario stopped because the tool broke (a check or the scenario code threw). */
export class EngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineError';
  }
}
