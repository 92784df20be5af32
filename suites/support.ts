/** Helpers shared by the scenario suites (not a suite itself: only *.suite.ts files are run). */
import type { Exchange } from '../src/engine/types.ts';
import type { ScenarioContext } from '../src/engine/scenario/index.ts';

import { is2xx } from '../src/engine/checks/types.ts';
import { loadRules, loadSpec } from '../src/contract/index.ts';
import { keptFields } from '../src/engine/predicates.ts';
import { edgesOfExchange } from '../src/engine/generators/live.ts';
import { describeEdges } from '../src/engine/generators/edges.ts';

const RULES = await loadRules();
const SPEC = await loadSpec();

export { is2xx };
export { DECIMAL, isDateTime } from '../src/engine/predicates.ts';
/** Whether an error is a missing fixture (the one test for it; see src/engine/fixtures/types.ts). */
export { isFixtureUnavailable } from '../src/engine/fixtures/types.ts';

/** Options of a scenario that works on resources of its own, so it may run beside the others. */
export const concurrent = { concurrent: true } as const;

/** A JSON object as the suites read it. */
export type Json = Record<string, any>;

/** The JSON object of a value, or undefined when it is not one. */
export function obj(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** The body of an answer as an object (empty when there is none). */
export function bodyOf(ex: Exchange): Json {
  return ex.body && typeof ex.body === 'object' ? (ex.body as Json) : {};
}

/** A short tag no other run shares, for names and metadata of the resources a scenario creates. */
export function uniqueTag(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/** Deep equality of JSON values; object key order does not matter. */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => same((a as Json)[k], (b as Json)[k]));
}

/** `actual` carries every value of `sent` (objects may hold more properties: extra fields are allowed). */
export function holds(actual: unknown, sent: unknown): boolean {
  if (Array.isArray(sent))
    return Array.isArray(actual) && actual.length === sent.length && sent.every((x, i) => holds(actual[i], x));
  if (sent && typeof sent === 'object')
    return (
      !!actual && typeof actual === 'object' && Object.entries(sent).every(([k, v]) => holds((actual as Json)[k], v))
    );
  return actual === sent;
}

/**
 * A precondition: the request succeeded (any 2xx, for the operations whose success code the
 * document does not show). It judges nothing; when it fails the scenario ends with its parts
 * not judged and the answer as the reason. Returns the body.
 */
export function requireSuccess(t: ScenarioContext, ex: Exchange, what = 'the request'): Json {
  t.precondition(is2xx(ex), `${what} succeeds`, ex);
  return bodyOf(ex);
}

/**
 * A request of values the document makes valid: a 400 fails VALIDATION.VALID_REQUEST.NOT_400;
 * any other answer but a success ends the scenario (a precondition). Returns the body.
 */
export function requireAccepted(t: ScenarioContext, ex: Exchange, what: string): Json {
  notRefused(t, ex);
  return requireSuccess(t, ex, what);
}

/**
 * A request of values the document makes valid is not refused with 400. Judged on an answer
 * that says something about the request (2xx to 4xx): a 5xx or no answer at all shows
 * nothing about its validation, and other rules judge those. A request carrying a value the
 * document neither allows nor forbids (an empty string, zero...: generators/edges.ts) judges
 * nothing: its refusal is the target's own rule, counted apart.
 */
export function notRefused(t: ScenarioContext, ex: Exchange): void {
  if (ex.status === undefined || ex.status >= 500) return;
  const edges = edgesOfExchange(SPEC, ex);
  if (edges.length) {
    if (ex.status >= 400) t.targetRefusal(ex, describeEdges(edges));
    return;
  }
  t.softExpectRule(
    'VALIDATION.VALID_REQUEST.NOT_400',
    ex.status !== 400,
    `a request of values the document makes valid got 400`,
    ex,
  );
}

/**
 * The updates that show a PATCH changing only what it sends (`ruleId`'s params.keeps in
 * spec/rules.yaml): `send(first)` sets every field the rule keeps, then each body of `singles`
 * (one field each) is sent once the answer before it came. Each answer against the one before is
 * the partial-updates check's (src/engine/checks/partial-updates.ts); here each is a precondition.
 */
export async function updateInTurn(
  t: ScenarioContext,
  ruleId: string,
  send: (body: Json) => Promise<Exchange>,
  first: Json,
  singles: Json[],
): Promise<void> {
  requireAccepted(t, await send(first), `the update setting ${keptFields(RULES, ruleId).join(', ')}`);
  for (const single of singles) requireAccepted(t, await send(single), `the update ${JSON.stringify(single)}`);
}
