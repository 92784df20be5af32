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
import {
  describeNegative,
  requestPath,
  withInput,
  type GenOperation,
  type NegativeCase,
  type NegativePlan,
  type RequestPlan,
} from './requests.ts';
import { CONSTRAINT_RULE } from './constraints.ts';
import { describeEdges, edgeValues, type EdgeValue } from './edges.ts';
import { valueAt } from './negative.ts';
import { typesOf, type Location } from './schema.ts';
import { fromSpec } from './spec.ts';
import type { Spec } from '../../contract/index.ts';
import { fieldPointer } from '../config/expectations.ts';

/** The part of the scenario context the live runner uses (see src/engine/scenario/index.ts). */
export interface LiveContext {
  readonly http: {
    request(method: string, path: string, opts?: { body?: unknown; brokenOnPurpose?: boolean }): Promise<Exchange>;
  };
  readonly findings: readonly Finding[];
  readonly target: { seed: number };
  softExpectRule(
    ruleId: string,
    condition: unknown,
    message: string,
    exchange?: Exchange,
    extra?: { fields?: string[] },
  ): boolean;
  note(message: string): void;
  targetRefusal(exchange: Exchange, sent: string): void;
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

/**
 * A create under a parent (a schedule for an order): each case takes a parent no earlier case
 * created under, where the fixtures hand out a fresh one; a case left on a parent already used
 * is a repeated create, which the document neither allows nor forbids (an edge).
 */
export interface FreshParent {
  location: Location;
  pointer: string;
  /** A parent from the fixtures (undefined or an error: none fresh to be had). */
  fresh(): Promise<unknown>;
  /** Why a repeat is the vendor's choice, e.g. "a second schedule for one order (may an order have several? not said)". */
  why: string;
}

export interface PositiveOptions extends LiveOptions {
  /** The operation: its schemas tell the values the document makes valid from the edges. */
  op: GenOperation;
  /** Always sent first (e.g. the documented edges: 255 characters, taxRates 0 and 100). */
  examples?: RequestPlan[];
  parent?: FreshParent;
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
  /** Each case is sent broken on purpose (scenario/types.ts: the registry expects the refusal). */
  brokenOnPurpose?: boolean;
  /** The rules the property judges itself, passed when no case fails (default: `rules`). */
  own?: string[];
}

/** Statuses the document gives a meaning of its own: a refusal with any other 4xx is one whose status it leaves open. */
const MEANINGFUL_4XX = new Set([400, 401, 403, 404, 429]);

/** What a valid case's answer says: nothing wrong, a problem, or a refusal by the target's own rule. */
export type PositiveOutcome = { problem: Problem } | { refusal: string } | undefined;

/**
 * Why a valid request's answer breaks what the property judges itself, if it does: a 400 to a
 * request of documented values, or (with `accepted`) a status other than 2xx. A 4xx to a request
 * carrying an edge value is the target's own rule, and so is (where the document says errors exist
 * but not their status: `statusOpen`) a 4xx without a meaning of its own (409, 422...). What else
 * the answer breaks (5xx, its shape) is the registry's.
 */
export function positiveOutcome(
  ex: Exchange,
  edges: readonly EdgeValue[],
  accepted?: string,
  statusOpen = false,
): PositiveOutcome {
  const s = ex.status;
  if (s === undefined || s < 400 || s >= 500) {
    if (accepted !== undefined && s !== undefined && (s < 200 || s >= 300))
      return { problem: { ruleId: accepted, problem: `a valid request got ${s}` } };
    return undefined;
  }
  if (edges.length) return { refusal: describeEdges(edges) };
  if (s === 400)
    return {
      problem: {
        ruleId: 'VALIDATION.VALID_REQUEST.NOT_400',
        problem: 'a request of values the document makes valid was refused with 400',
      },
    };
  if (statusOpen && !MEANINGFUL_4XX.has(s))
    return { refusal: `a refusal whose status the document does not give (${s}) of a valid request` };
  if (accepted !== undefined) return { problem: { ruleId: accepted, problem: `a valid request got ${s}` } };
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

/**
 * The edge values (edges.ts) a request of a documented operation carries, read from its exchange:
 * its query (numbers written as numbers where the schema types them so) and its JSON body.
 */
export function edgesOfExchange(spec: Pick<Spec, 'operation' | 'requestSchemas'>, ex: Exchange): EdgeValue[] {
  const known = ex.operationId ? spec.operation(ex.operationId) : undefined;
  if (!known || known.extension) return [];
  const op = fromSpec(spec, known.operationId);
  const query: Record<string, unknown> = {};
  const props = op.inputs.query?.properties ?? {};
  for (const [k, v] of new URLSearchParams(ex.path.split('?')[1] ?? '')) {
    const types = props[k] ? typesOf(props[k]) : [];
    query[k] =
      (types.includes('integer') || types.includes('number')) && v.trim() !== '' && !isNaN(Number(v)) ? Number(v) : v;
  }
  return edgeValues(op, { query, body: ex.requestBody });
}

/** The fields a refusal names (ValidationError `errors[].field`), as JSON Pointers. */
export function refusedFields(ex: Exchange): string[] {
  const errors = (ex.body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .map((e) => (e as { field?: unknown })?.field)
    .filter((f): f is string => typeof f === 'string' && f !== '')
    .map(fieldPointer);
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
/** A case as sent: a plan may be re-pinned before it goes (a fresh parent), and carry edges beyond its values. */
interface Prepared<T> {
  plan: T;
  edges: EdgeValue[];
}

async function runProperty<T extends RequestPlan>(
  t: LiveContext,
  arbitrary: fc.Arbitrary<T>,
  opts: PropertyOptions<T>,
  judge: (value: Prepared<T>, ex: Exchange) => Problem | undefined,
  citeFor: (value: T, problem: Problem, found: string[]) => string[] = (_, p) => [p.ruleId],
  prepare: (plan: T) => Promise<Prepared<T>> = async (plan) => ({ plan, edges: [] }),
): Promise<GeneratedFailure | undefined> {
  const override = replayOverride(opts.label);
  const seed = override?.seed ?? deriveSeed(t.target.seed, opts.label);
  let last: { exchange: Exchange; problem: Problem; found: string[] } | undefined;
  const runCase = async (generated: T) => {
    const prepared = await prepare(generated);
    const plan = prepared.plan;
    const before = t.findings.length;
    const exchange = await send(t, plan, opts.brokenOnPurpose);
    let problem = judge(prepared, exchange) ?? (opts.inspect?.(plan, exchange) as Problem | undefined);
    // A check finding on this exchange (schema, error shape, refusal...) fails the case too.
    const fresh = t.findings.slice(before);
    if (!problem && fresh.length)
      problem = { ruleId: fresh[0].ruleIds[0] ?? opts.rules[0], problem: `${fresh[0].title}: ${fresh[0].message}` };
    return { exchange, problem, found: fresh.flatMap((f) => f.ruleIds) };
  };
  const property = fc.asyncProperty(arbitrary, async (generated) => {
    const c = await runCase(generated);
    if (c.problem) last = { exchange: c.exchange, problem: c.problem, found: c.found };
    return c.problem === undefined;
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
  const fields = refusedFields(last.exchange);
  for (const ruleId of new Set(citeFor(value, last.problem, last.found)))
    t.softExpectRule(ruleId, false, message, last.exchange, fields.length ? { fields } : undefined);
  if (!override) await moreCounterexamples(t, arbitrary, opts, seed, last, runCase, citeFor);
  return failure;
}

/** Other counterexamples of one property, besides the shrunk one, recorded as findings of their own. */
const MAX_MORE_COUNTEREXAMPLES = 5;

/** What tells counterexamples apart: the part broken, and the fields the refusal names (else what it says, or its status). */
function counterexampleKind(c: { exchange: Exchange; problem: Problem }): string {
  const fields = refusedFields(c.exchange).sort().join(',');
  const message = (c.exchange.body as { message?: unknown } | undefined)?.message;
  return `${c.problem.ruleId}|${fields || (typeof message === 'string' ? message : String(c.exchange.status))}`;
}

/**
 * After a property failed, the rest of its cases (another seeded sample) are tried too: each
 * counterexample of a kind not seen yet (another field refused...) is recorded as a finding of its
 * own, not shrunk, so one run shows every distinct way the operation fails, not only the first.
 * What the registry found on a case is recorded by the scenario already.
 */
async function moreCounterexamples<T extends RequestPlan>(
  t: LiveContext,
  arbitrary: fc.Arbitrary<T>,
  opts: PropertyOptions<T>,
  seed: number,
  first: { exchange: Exchange; problem: Problem },
  runCase: (v: T) => Promise<{ exchange: Exchange; problem?: Problem; found: string[] }>,
  citeFor: (value: T, problem: Problem, found: string[]) => string[],
): Promise<void> {
  const seen = new Set([counterexampleKind(first)]);
  const cases = [
    ...(opts.examples ?? []),
    ...fc.sample(arbitrary, { seed: deriveSeed(seed, 'more'), numRuns: opts.numRuns }),
  ];
  for (const v of cases) {
    if (seen.size > MAX_MORE_COUNTEREXAMPLES) return;
    const c = await runCase(v);
    if (!c.problem || c.found.length) continue;
    const kind = counterexampleKind({ exchange: c.exchange, problem: c.problem });
    if (seen.has(kind)) continue;
    seen.add(kind);
    const fields = refusedFields(c.exchange);
    for (const ruleId of new Set(citeFor(v, c.problem, c.found)))
      t.softExpectRule(
        ruleId,
        false,
        `${opts.label}: another counterexample (not shrunk): ${c.problem.problem}`,
        c.exchange,
        fields.length ? { fields } : undefined,
      );
  }
}

/** Takes a fresh parent for a case whose parent an earlier case created under, where one is to be had. */
function parentTaker(parent: FreshParent | undefined) {
  const used = new Set<string>();
  const key = (v: unknown) => JSON.stringify(v);
  const at = (plan: RequestPlan) =>
    valueAt(
      parent!.location === 'body' ? plan.body : parent!.location === 'query' ? plan.query : plan.pathParams,
      parent!.pointer,
    );
  return {
    async prepare(plan: RequestPlan): Promise<Prepared<RequestPlan>> {
      if (!parent || !used.has(key(at(plan)))) return { plan, edges: [] };
      const next = await parent.fresh().catch(() => undefined);
      if (next !== undefined && !used.has(key(next)))
        return { plan: withInput(plan, parent.location, parent.pointer, next), edges: [] };
      return {
        plan,
        edges: [{ location: parent.location, pointer: parent.pointer, value: at(plan), why: parent.why }],
      };
    },
    created(plan: RequestPlan, ex: Exchange): void {
      if (parent && ex.status !== undefined && ex.status >= 200 && ex.status < 300) used.add(key(at(plan)));
    },
  };
}

/**
 * Valid requests must not get 400 or 5xx, and their responses must conform. Acceptance is
 * judged on requests of values the document makes valid (valid.ts); a case carrying an edge
 * value (edges.ts), or a refusal whose status the document leaves open, that the target refuses
 * in a well-formed 4xx is its own rule: counted apart (t.targetRefusal), never a failure.
 */
export function checkPositives(
  t: LiveContext,
  arbitrary: fc.Arbitrary<RequestPlan>,
  opts: PositiveOptions,
): Promise<GeneratedFailure | undefined> {
  const parents = parentTaker(opts.parent);
  const statusOpen = !!opts.op.statusOpen;
  return runProperty(
    t,
    arbitrary,
    opts,
    ({ plan, edges }, ex) => {
      parents.created(plan, ex);
      const outcome = positiveOutcome(ex, [...edgeValues(opts.op, plan), ...edges], opts.accepted, statusOpen);
      if (outcome && 'refusal' in outcome) {
        t.targetRefusal(ex, outcome.refusal);
        return undefined;
      }
      return outcome?.problem;
    },
    (plan, p) =>
      p.ruleId === 'VALIDATION.VALID_REQUEST.NOT_400' ? [p.ruleId, ...(opts.citeAlso?.(plan) ?? [])] : [p.ruleId],
    (plan) => parents.prepare(plan),
  );
}

/**
 * Requests carrying one edge value each (edges.ts), sent after the property: what the document
 * does state is the registry's on each answer (no 5xx, a 2xx on its schema, a refusal in Error or
 * ValidationError shape); a well-formed 4xx is the target's own rule, counted apart. A create under
 * a parent takes a fresh one for each where the fixtures offer one, so that its refusal is the
 * edge's; else the case is also a repeated create, and says so.
 */
export async function sendEdges(
  t: LiveContext,
  cases: readonly { plan: RequestPlan; edge: EdgeValue }[],
  parent?: FreshParent,
): Promise<void> {
  for (const c of cases) {
    let plan = c.plan;
    const edges = [c.edge];
    if (parent) {
      const next = await parent.fresh().catch(() => undefined);
      if (next !== undefined) plan = withInput(plan, parent.location, parent.pointer, next);
      else edges.push({ location: parent.location, pointer: parent.pointer, value: undefined, why: parent.why });
    }
    const before = t.findings.length;
    const ex = await send(t, plan);
    if (t.findings.length === before && ex.status !== undefined && ex.status >= 400 && ex.status < 500)
      t.targetRefusal(ex, describeEdges(edges));
  }
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
    ({ plan: c }, ex) => (own.length ? negativeProblem(c, ex, own[0]) : undefined),
    (_, p, found) => [...found.filter((r) => r === validation), ...(p.ruleId === own[0] ? own : [p.ruleId])],
  );
}
