/**
 * Generated cases against a live target, inside a scenario: each property is checked with
 * fast-check (seeded, shrinking), every exchange goes through the scenario's client (so the
 * check registry judges it), and a failure is recorded once, on the minimal counterexample,
 * with its seed, path and a replay command.
 */
import fc from 'fast-check';
import type { Exchange, Finding } from '../types.ts';
import { replayCommand } from '../http/curl.ts';
import { deriveSeed, formatFailure, type GeneratedFailure } from './seed-replay.ts';
import { describeNegative, requestPath, type NegativeCase, type NegativePlan, type RequestPlan } from './requests.ts';
import { CONSTRAINT_RULE } from './constraints.ts';

/** The part of the scenario context the live runner uses (see src/engine/scenario.ts). */
export interface LiveContext {
  readonly http: {
    request(method: string, path: string, opts?: { body?: unknown; brokenOnPurpose?: boolean }): Promise<Exchange>;
  };
  readonly findings: readonly Finding[];
  readonly target: { seed: number };
  softExpectRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): boolean;
  note(message: string): void;
}

/** Environment variable replaying one property: `<label>|<seed>|<path>`, as printed in a failure. */
export const REPLAY_VARIABLE = 'CONFORM_REPLAY';

export interface LiveOptions {
  /** Names the property; with the run seed it derives the property's own seed. */
  label: string;
  numRuns: number;
  /**
   * Rules this property exercises; the first is cited when the expected status is not met. For
   * negatives, the VALIDATION rule of the constraint is the registry's (checkNegatives).
   */
  rules: string[];
  /** Wall-clock cap on the property, shrinking included (a hanging target must not stall the run). Default 60 s. */
  timeLimitMs?: number;
  /** Extra judgement of a response; returns a problem (and the rule it breaks) or undefined. */
  inspect?: (plan: RequestPlan, exchange: Exchange) => { ruleId: string; problem: string } | undefined;
}

export interface PositiveOptions extends LiveOptions {
  /** Always sent first (e.g. the documented edges: 255 characters, taxRates 0 and 100). */
  examples?: RequestPlan[];
  /**
   * The part a valid case answered with neither a 2xx nor a 400 breaks (the operation on an
   * existing resource succeeds). No response, a 5xx or a success code other than the documented
   * one are the registry's (transport, status-documented): a finding of theirs fails the case.
   */
  accepted?: string;
  /** Rules a refused case also breaks (e.g. CUSTOMERS.TAX_RATES.RANGE when taxRates 100 was refused). */
  citeAlso?: (plan: RequestPlan) => string[];
}

interface Problem {
  ruleId: string;
  problem: string;
}

interface PropertyOptions<T> extends LiveOptions {
  examples?: T[];
  /** Each case is sent broken on purpose (scenario-types.ts: the registry expects the refusal). */
  brokenOnPurpose?: boolean;
  /** The rules the property judges itself, passed when no case fails (default: `rules`). */
  own?: string[];
}

/**
 * Why a valid request's answer breaks what the property judges itself, if it does: a 400, or
 * (with `accepted`) a status other than 2xx. What else the answer breaks is the registry's.
 */
export function positiveProblem(ex: Exchange, accepted?: string): Problem | undefined {
  if (ex.status === 400)
    return {
      ruleId: 'VALIDATION.VALID_REQUEST.NOT_400',
      problem: 'a request meeting every documented constraint was refused with 400',
    };
  if (accepted !== undefined && ex.status !== undefined && (ex.status < 200 || ex.status >= 300))
    return { ruleId: accepted, problem: `a valid request got ${ex.status}` };
  return undefined;
}

/**
 * Why a negative case's status breaks `ruleId` (a family rule the constraint carries), if it
 * does. The VALIDATION rule and the 400 body are the registry's (checks/refusals.ts, error-shape.ts).
 */
export function negativeProblem(c: NegativeCase, ex: Exchange, ruleId: string): Problem | undefined {
  const expected = c.expected.join(' or ');
  if (ex.status === undefined)
    return { ruleId, problem: `expected ${expected}, got no response (${ex.transportError ?? 'unknown'})` };
  if (!c.expected.includes(ex.status))
    return { ruleId, problem: `expected ${expected} for ${describeNegative(c)}, got ${ex.status}` };
  return undefined;
}

/** Sends a plan through the scenario client (`brokenOnPurpose` for a negative case). */
export function send(t: LiveContext, plan: RequestPlan, brokenOnPurpose = false): Promise<Exchange> {
  return t.http.request(plan.method, requestPath(plan), {
    ...(plan.body === undefined ? {} : { body: plan.body }),
    ...(brokenOnPurpose ? { brokenOnPurpose } : {}),
  });
}

function replayOverride(label: string): { seed: number; path: string } | undefined {
  const raw = process.env[REPLAY_VARIABLE];
  if (!raw) return undefined;
  const [l, seed, path] = raw.split('|');
  return l === label && seed !== undefined ? { seed: Number(seed), path: path ?? '' } : undefined;
}

/**
 * Runs one property: `judge` returns the problem of one case (or undefined). The run is
 * seeded from the target's seed and the label; a failure is shrunk, then recorded once.
 */
async function runProperty<T extends RequestPlan>(
  t: LiveContext,
  arbitrary: fc.Arbitrary<T>,
  opts: PropertyOptions<T>,
  judge: (value: T, ex: Exchange) => Problem | undefined,
  citeFor: (value: T, problem: Problem, found: string[]) => string[] = (_, p) => [p.ruleId],
): Promise<GeneratedFailure | undefined> {
  const override = replayOverride(opts.label);
  const seed = override?.seed ?? deriveSeed(t.target.seed, opts.label);
  let last: { exchange: Exchange; problem: Problem; found: string[] } | undefined;
  const property = fc.asyncProperty(arbitrary, async (plan) => {
    const before = t.findings.length;
    const exchange = await send(t, plan, opts.brokenOnPurpose);
    let problem = judge(plan, exchange) ?? (opts.inspect?.(plan, exchange) as Problem | undefined);
    // A check finding on this exchange (schema, error shape, refusal...) fails the case too.
    const fresh = t.findings.slice(before);
    if (!problem && fresh.length)
      problem = { ruleId: fresh[0].ruleIds[0] ?? opts.rules[0], problem: `${fresh[0].title}: ${fresh[0].message}` };
    if (problem) last = { exchange, problem, found: fresh.flatMap((f) => f.ruleIds) };
    return problem === undefined;
  });
  const details = await fc.check(property, {
    seed,
    // fast-check counts the examples in numRuns: the random runs come on top of them.
    numRuns: override ? 1 : opts.numRuns + (opts.examples?.length ?? 0),
    interruptAfterTimeLimit: opts.timeLimitMs ?? 60_000,
    ...(override?.path ? { path: override.path } : {}),
    // Examples come first and count in the path, so a replayed path needs them too.
    ...(opts.examples?.length ? { examples: opts.examples.map((e) => [e] as [T]) } : {}),
  });
  if (!details.failed) {
    for (const r of opts.own ?? opts.rules) t.softExpectRule(r, true, opts.label);
    if (details.interrupted) t.note(`${opts.label}: interrupted after ${details.numRuns} run(s)`);
    return undefined;
  }
  const value = details.counterexample?.[0] as T | undefined;
  // No case was judged failing: the property threw (the tool broke, or the target ran out of time).
  if (!last || value === undefined) throw details.errorInstance;
  const failure: GeneratedFailure = {
    title: opts.label,
    seed: details.seed,
    path: details.counterexamplePath ?? '',
    counterexample: value,
    replay: replayCommand(last.exchange),
    reason:
      last.problem.problem +
      (details.interrupted
        ? ` (shrinking stopped at the ${((opts.timeLimitMs ?? 60_000) / 1000).toFixed(0)} s limit: the case may not be minimal)`
        : ''),
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
  };
  const message =
    `${formatFailure(failure)}\n  rerun only this case: ${REPLAY_VARIABLE}='${opts.label}|${failure.seed}|${failure.path}'` +
    ` (or the whole run with --seed ${t.target.seed})`;
  for (const ruleId of new Set(citeFor(value, last.problem, last.found)))
    t.softExpectRule(ruleId, false, message, last.exchange);
  return failure;
}

/** Valid requests must not get 400 or 5xx, and their responses must conform. */
export function checkPositives(
  t: LiveContext,
  arbitrary: fc.Arbitrary<RequestPlan>,
  opts: PositiveOptions,
): Promise<GeneratedFailure | undefined> {
  return runProperty(
    t,
    arbitrary,
    opts,
    (_, ex) => positiveProblem(ex, opts.accepted),
    (plan, p) =>
      p.ruleId === 'VALIDATION.VALID_REQUEST.NOT_400' ? [p.ruleId, ...(opts.citeAlso?.(plan) ?? [])] : [p.ruleId],
  );
}

/**
 * Each documented constraint broken alone gets 400 (Error or ValidationError), or one of the case's
 * allowed statuses. Each case is sent broken on purpose: the registry judges its VALIDATION rule
 * and its 400 body (checks/refusals.ts, error-shape.ts), and a finding of theirs fails the case;
 * the family rules the constraint carries besides (CUSTOMERS.TAX_RATES.RANGE...) are judged here,
 * on the status. The shrunk case is cited under both.
 */
export function checkNegatives(
  t: LiveContext,
  plan: NegativePlan,
  opts: LiveOptions,
): Promise<GeneratedFailure | undefined> {
  const seed = deriveSeed(t.target.seed, `${opts.label} edges`);
  const validation = CONSTRAINT_RULE[plan.constraint.kind];
  const own = opts.rules.filter((r) => r !== validation);
  return runProperty(
    t,
    plan.arbitrary,
    { ...opts, examples: plan.examples(seed), brokenOnPurpose: true, own },
    (c, ex) => (own.length ? negativeProblem(c, ex, own[0]) : undefined),
    (_, p, found) => [...found.filter((r) => r === validation), ...(p.ruleId === own[0] ? own : [p.ruleId])],
  );
}
