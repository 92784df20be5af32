/**
 * The context a scenario's body gets (`t`): its requests, each through the check registry;
 * its judgements (expectRule, softExpectRule, expectStatus), preconditions and not-judged
 * ends; its fixtures. A request that runs out of time stops it: slowness is the target's, so
 * what it had not judged is not judged. scenario/index.ts runs one as a vitest test.
 */
import { judgementKey, unjudgedKeys, type RuleIndex, type Spec } from '../../contract/index.ts';
import type { Exchange, Finding, NotJudgedCategory } from '../types.ts';
import type { HttpClient } from '../http/client.ts';
import { replayCommand } from '../http/curl.ts';
import { RequestSequence } from '../http/replay-script.ts';
import { redact, redactDeep } from '../http/redact.ts';
import { latencySummary, recordLatency } from '../target/time-limits.ts';
import { checkContextFor } from '../checks/index.ts';
import { CheckStream } from '../checks/stream.ts';
import { learnGiven } from '../checks/resources/given.ts';
import type { CheckOutcome } from '../checks/index.ts';
import type { Fixtures } from '../fixtures/methods.ts';
import { ExpectationBook } from '../config/expectations.ts';
import { noteFailure, workerFixtures, type TargetContext } from './worker.ts';
import {
  ConformanceFailure,
  NotJudged,
  type FindingEvidence,
  type ScenarioContext,
  type ScenarioHttp,
  type ScenarioRecord,
  type ScenarioRequestOptions,
  type TargetInfo,
} from './types.ts';

export type Contract = { spec: Spec; rules: RuleIndex };

/** Findings kept as evidence per scenario; verdicts count every finding (record.failed). */
export const MAX_FINDINGS = 50;
const MAX_STACK = 4000;
/** Rules of one rate-limit scenario whose first finding carries the replay script of its whole sequence. */
const MAX_SEQUENCE_RULES = 8;
const MAX_RAW_BODY = 8 * 1024;
/** Refusals of the target's own kept as examples per scenario and operation (every one is counted). */
const MAX_REFUSAL_EXAMPLES = 3;
const UNKNOWN_OPERATION = '(unknown operation)';

/** A copy of an exchange small enough for the task meta and the reports. */
export function compactExchange(ex: Exchange): Exchange {
  const out = redactDeep({ ...ex });
  if (out.rawBody.length > MAX_RAW_BODY) {
    out.rawBody = `${out.rawBody.slice(0, MAX_RAW_BODY)}… (${ex.rawBody.length} characters, cut)`;
    delete out.body;
  }
  return out;
}

let primaryMerchantPromise: Promise<string | undefined> | undefined;

/**
 * The merchant of the run's key, asked of the worker's fixtures once when the target's config
 * does not name it: the judges of the stream tell the run's resources from another merchant's by
 * it. Undefined when the fixtures cannot tell (those judgements are then not made).
 */
function primaryMerchant(fixtures: Fixtures): Promise<string | undefined> {
  primaryMerchantPromise ??= fixtures.merchant().then(
    (m) => (typeof m?.merchantId === 'string' ? m.merchantId : undefined),
    () => undefined,
  );
  return primaryMerchantPromise;
}

export class Scenario implements ScenarioContext {
  readonly findings: Finding[] = [];
  readonly http: ScenarioHttp;
  readonly target: TargetInfo;
  private retry = true;
  private rateLimited = false;
  /** Every request of a rate-limit scenario: its failures come with a script replaying them all. */
  private sequence?: RequestSequence;
  /** Rules whose first finding already carries the sequence. */
  private readonly sequenceRules = new Set<string>();
  /** Set when the scenario ran out of time: requests after it end the scenario's body. */
  private stopped?: string;
  /** The registry over this scenario's exchanges: checks of one exchange and judges of the stream. */
  private readonly stream = new CheckStream();
  /** The declared expected failures: what they cover fails nothing. */
  private readonly book: ExpectationBook;

  /** Why the scenario's judging ended for good (the target was too slow), if it did. */
  get stoppedBecause(): string | undefined {
    return this.stopped;
  }

  constructor(
    private readonly title: string,
    private readonly record: ScenarioRecord,
    private readonly targetCtx: TargetContext,
    private readonly client: HttpClient,
    private readonly contract: Contract,
    private readonly plainClient: HttpClient,
  ) {
    this.target = {
      baseUrl: targetCtx.baseUrl,
      merchantId: targetCtx.merchantId,
      profile: targetCtx.profile,
      seed: targetCtx.seed,
      bundled: targetCtx.bundled,
      referenceServer: targetCtx.bundled || !!targetCtx.referenceServer,
      sandbox: targetCtx.sandbox,
      destructive: targetCtx.destructive,
      fixtureStrategy: targetCtx.fixtures.strategy,
    };
    if (targetCtx.merchantId) this.stream.ledger.merchantOf.set('primary', targetCtx.merchantId);
    this.book = new ExpectationBook(targetCtx.expectedFailures ?? [], contract.rules);
    const request = (method: string, path: string, opts: ScenarioRequestOptions = {}) => this.send(method, path, opts);
    this.http = {
      request,
      get: (path, opts) => request('GET', path, opts),
      post: (path, body, opts) => request('POST', path, { ...opts, body }),
      patch: (path, body, opts) => request('PATCH', path, { ...opts, body }),
      put: (path, body, opts) => request('PUT', path, { ...opts, body }),
      delete: (path, opts) => request('DELETE', path, opts),
    };
  }

  /** Ends the scenario's judging for good (its time ran out); later requests are not sent. */
  stop(reason: string): void {
    this.stopped = reason;
  }

  private async send(method: string, path: string, opts: ScenarioRequestOptions): Promise<Exchange> {
    if (this.stopped) throw new NotJudged(this.stopped, 'slow');
    const unauthenticated =
      opts.unauthenticated ??
      (opts.key === null || opts.headers?.authorization !== undefined || opts.headers?.Authorization !== undefined);
    const { unauthenticated: _, brokenOnPurpose, ...rest } = opts;
    // Which merchant's key sent it: the run's own, a fixture's (the ledger knows its merchant), or none.
    const credential = opts.key === null ? undefined : typeof opts.key === 'string' ? opts.key : 'primary';
    return this.client.request(method, path, {
      ...rest,
      retry429: opts.retry429 ?? this.retry,
      onExchange: (exchange) => {
        if (this.stopped) return;
        this.record.exchanges += 1;
        if (exchange.status !== undefined) recordLatency(exchange.durationMs);
        if (exchange.timedOut) {
          // Slowness is the target's property, not a broken rule: what is left of the scenario is not judged.
          this.stop(
            `target too slow: ${exchange.method} ${exchange.path.split('?')[0]}: ${exchange.transportError}; ` +
              `--request-timeout raises the limit (${latencySummary()})`,
          );
          return;
        }
        this.sequence?.add(exchange);
        const ctx = checkContextFor(this.contract, exchange, {
          rateLimitScenario: this.rateLimited,
          unauthenticated,
          brokenOnPurpose,
        });
        this.recordOutcome(
          this.stream.observe({ exchange, ctx, ...(unauthenticated ? {} : { credential }) }),
          exchange,
        );
        opts.onExchange?.(exchange);
      },
    });
  }

  private recordOutcome(outcome: CheckOutcome, exchange?: Exchange): void {
    for (const r of outcome.judged) this.countJudgement(r, exchange);
    // No usable response (the transport check cites no rule): the scenario's rules fail with it.
    for (const f of outcome.findings)
      this.addFinding(f.ruleIds.length ? f : { ...f, ruleIds: [...this.record.ruleIds] });
    for (const e of outcome.errors) this.engineError(e.message, e.stack, e.source);
  }

  /** The end of the scenario's exchanges: the judges of the stream judge what waited for it. */
  closeStream(): void {
    this.recordOutcome(this.stream.finish());
  }

  /** One judgement of `key` (on `exchange`), and of the expectations it concerns. */
  private countJudgement(key: string, exchange: Exchange | undefined): void {
    this.record.judged[key] = (this.record.judged[key] ?? 0) + 1;
    if (this.book.empty) return;
    for (const i of this.book.concerned(key, exchange)) {
      const e = (this.record.expectations ??= { matched: {}, judged: {} });
      e.judged[i] = (e.judged[i] ?? 0) + 1;
    }
  }

  /**
   * A finding, less the rule keys a declared expected failure covers: those are counted apart
   * (record.expected) and fail nothing; a finding they cover whole is kept as evidence only.
   */
  private addFinding(f: Finding): void {
    if (!this.book.empty) {
      const covered = new Map<string, number>();
      for (const k of f.ruleIds) {
        const i = this.book.covering(k, f);
        if (i !== undefined) covered.set(k, i);
      }
      if (covered.size) {
        const e = (this.record.expectations ??= { matched: {}, judged: {} });
        const expected = (this.record.expected ??= {});
        for (const [k, i] of covered) {
          expected[k] = (expected[k] ?? 0) + 1;
          e.matched[i] = (e.matched[i] ?? 0) + 1;
        }
        if (this.record.findings.length < MAX_FINDINGS)
          this.record.findings.push(
            redactDeep({
              ...f,
              ruleIds: [...covered.keys()],
              expected: [...covered.values()][0],
              exchange: f.exchange ? compactExchange(f.exchange) : undefined,
            }),
          );
        const rest = f.ruleIds.filter((k) => !covered.has(k));
        if (!rest.length) return;
        f = { ...f, ruleIds: rest };
      }
    }
    noteFailure();
    this.findings.push(f);
    this.record.findingCount += 1;
    for (const id of new Set(f.ruleIds)) this.record.failed[id] = (this.record.failed[id] ?? 0) + 1;
    if (this.record.findings.length < MAX_FINDINGS) {
      // A rate limit is broken by a sequence, not by its last request: the first finding of each rule carries the whole of it.
      const fresh = f.ruleIds.filter((id) => !this.sequenceRules.has(id));
      const sequence =
        this.sequence && fresh.length && this.sequenceRules.size < MAX_SEQUENCE_RULES
          ? this.sequence.script(this.title)
          : undefined;
      if (sequence) for (const id of fresh) this.sequenceRules.add(id);
      this.record.findings.push(
        redactDeep({
          ...f,
          exchange: f.exchange ? compactExchange(f.exchange) : undefined,
          ...(sequence && !f.replaySequence ? { replaySequence: sequence } : {}),
        }),
      );
    }
  }

  hasUnjudged(): boolean {
    return this.unjudged().length > 0;
  }

  /** The parts the scenario cites and has not judged yet, as judgement keys. */
  private unjudged(): string[] {
    return unjudgedKeys(this.contract.rules, this.record);
  }

  /** The tool broke: recorded with its stack against the rules cited and not judged yet. */
  engineError(message: string, stack?: string, source = 'scenario'): void {
    const ruleIds = this.unjudged();
    this.record.engineErrors.push({
      source,
      message: redact(message).slice(0, MAX_STACK),
      ...(stack ? { stack: redact(stack).slice(0, MAX_STACK) } : {}),
      ruleIds,
    });
  }

  async fixture<T>(fn: (f: Fixtures) => Promise<T>): Promise<T> {
    const fixtures = await workerFixtures(this.targetCtx, this.plainClient);
    const asked = (this.record.fixtures ??= []);
    const ledger = this.stream.ledger;
    const resources = this.contract.spec.resources;
    return fn(
      new Proxy(fixtures, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as unknown;
          if (typeof value !== 'function') return value;
          if (typeof prop === 'string' && prop !== 'close' && !asked.includes(prop)) asked.push(prop);
          const method = (value as (...a: unknown[]) => unknown).bind(target);
          if (typeof prop !== 'string') return method;
          // What a fixture hands out is what the run was given: the stream's judges know it from here on.
          return (...args: unknown[]) => {
            const out = method(...args);
            if (out instanceof Promise)
              return out.then(async (result: unknown) => {
                // Whose the resources handed out are is known beside the run's own merchant only.
                if (!ledger.merchantOf.has('primary')) {
                  const merchant = await primaryMerchant(target);
                  if (merchant) learnGiven(ledger, { merchantId: merchant }, { method: 'merchant', resources });
                }
                learnGiven(ledger, result, { method: prop, resources });
                return result;
              });
            return out;
          };
        },
      }),
    );
  }

  private judge(
    key: string,
    condition: unknown,
    message: string,
    exchange?: Exchange,
    extra?: FindingEvidence,
  ): boolean {
    if (this.stopped) throw new NotJudged(this.stopped, 'slow');
    const ruleId = judgementKey(this.contract.rules, key);
    this.countJudgement(ruleId, exchange);
    if (condition) return true;
    const detail = exchange
      ? `${exchange.method} ${exchange.path} → ${exchange.status ?? exchange.transportError ?? 'no response'}`
      : '';
    this.addFinding({
      source: 'scenario',
      ruleIds: [ruleId],
      title: message,
      message: detail ? `${message} (${detail})` : message,
      exchange,
      replay: exchange ? replayCommand(exchange) : undefined,
      ...extra,
    });
    return false;
  }

  expectRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): void {
    if (!this.judge(ruleId, condition, message, exchange)) throw new ConformanceFailure(this.findings);
  }

  softExpectRule(
    ruleId: string,
    condition: unknown,
    message: string,
    exchange?: Exchange,
    extra?: FindingEvidence,
  ): boolean {
    return this.judge(ruleId, condition, message, exchange, extra);
  }

  expectStatus(ruleIds: string | string[], exchange: Exchange, expected: number | number[]): void {
    const ids = Array.isArray(ruleIds) ? ruleIds : [ruleIds];
    const list = Array.isArray(expected) ? expected : [expected];
    const got = exchange.status ?? `no response (${exchange.transportError ?? 'unknown'})`;
    const ok = exchange.status !== undefined && list.includes(exchange.status);
    const message = `expected ${list.join(' or ')}, got ${got}`;
    for (const id of ids.slice(0, -1)) this.judge(id, ok, message, exchange);
    this.expectRule(ids[ids.length - 1], ok, message, exchange);
  }

  rateLimitScenario(): void {
    this.retry = false;
    this.rateLimited = true;
    this.sequence ??= new RequestSequence();
  }

  notJudged(reason: string, category: NotJudgedCategory = 'target'): never {
    throw new NotJudged(reason, category);
  }

  precondition(condition: unknown, what: string, exchange?: Exchange): asserts condition {
    if (condition) return;
    throw new NotJudged(`precondition not met: ${what}${exchange ? ` (${answerOf(exchange)})` : ''}`, 'target');
  }

  ruleNotJudged(ruleIds: string | string[], reason: string, category: NotJudgedCategory = 'target'): void {
    const ids = Array.isArray(ruleIds) ? ruleIds : [ruleIds];
    this.record.notJudged.push({ reason: redact(reason), category, ruleIds: [...ids] });
  }

  /** Ends the scenario's judging: every cited rule not judged yet is marked with `reason`. */
  endNotJudged(reason: string, category: NotJudgedCategory): void {
    const ruleIds = this.unjudged();
    this.record.notJudged.push({ reason: redact(reason), category, ruleIds, endedScenario: true });
  }

  note(message: string): void {
    this.record.notes.push(redact(message));
  }

  targetRefusal(exchange: Exchange, sent: string): void {
    const r = (this.record.refusals ??= { count: 0, byOperation: {}, examples: [] });
    const op = exchange.operationId ?? UNKNOWN_OPERATION;
    r.count += 1;
    r.byOperation[op] = (r.byOperation[op] ?? 0) + 1;
    // The first examples of each operation: one busy operation does not hide another.
    if (r.examples.filter((e) => (e.operationId ?? UNKNOWN_OPERATION) === op).length < MAX_REFUSAL_EXAMPLES)
      r.examples.push(
        redactDeep({
          ...(exchange.operationId ? { operationId: exchange.operationId } : {}),
          request: `${exchange.method} ${exchange.path.split('?')[0]}`,
          sent,
          answer: refusalAnswer(exchange),
        }),
      );
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/** `400 validation_error: notifyPeriod must be positive (notifyPeriod)`: a refusal in one line. */
export function refusalAnswer(ex: Exchange): string {
  const b = (ex.body ?? {}) as { error?: unknown; code?: unknown; message?: unknown; errors?: unknown };
  const label = [b.error, b.code].filter((x) => typeof x === 'string').join(' ');
  const fields = Array.isArray(b.errors)
    ? b.errors.map((e) => (e as { field?: unknown })?.field).filter((f): f is string => typeof f === 'string')
    : [];
  const message = typeof b.message === 'string' ? b.message.slice(0, 120) : '';
  return [
    `${ex.status ?? 'no answer'}${label ? ` ${label}` : ''}${message ? `: ${message}` : ''}`,
    fields.length ? `(${fields.join(', ')})` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** One line on what a target answered: the status and what its body says. */
export function answerOf(ex: Exchange): string {
  if (ex.status === undefined) return `${ex.method} ${ex.path}: no answer (${ex.transportError ?? 'unknown'})`;
  const body = ex.body as { message?: unknown } | undefined;
  const said =
    body && typeof body === 'object' && typeof body.message === 'string'
      ? `: ${JSON.stringify(body.message.slice(0, 120))}`
      : ex.rawBody
        ? `: ${JSON.stringify(ex.rawBody.slice(0, 80))}`
        : '';
  return `${ex.method} ${ex.path.split('?')[0]} answered ${ex.status}${said}`;
}
