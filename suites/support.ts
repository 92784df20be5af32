/** Helpers shared by the scenario suites (not a suite itself: only *.suite.ts files are run). */
import type { Exchange } from '../src/engine/types.ts';
import type { ScenarioContext } from '../src/engine/scenario.ts';

/**
 * A request meeting every documented constraint is not refused with 400. Judged on an answer
 * that says something about the request (2xx to 4xx): a 5xx or no answer at all shows
 * nothing about its validation, and other rules judge those.
 */
export function notRefused(t: ScenarioContext, ex: Exchange): void {
  if (ex.status === undefined || ex.status >= 500) return;
  t.checkRule('VALIDATION.VALID_REQUEST.NOT_400', ex.status !== 400, `a request meeting every documented constraint got 400`, ex);
}

type Json = Record<string, unknown>;

/** JSON with object keys sorted: two answers compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Json)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/**
 * A PATCH changes only what it sends. `send(first)` sets every field of `fields`; then each
 * body of `singles` (one field each) is sent in turn, and every field it did not send must
 * answer as the previous answer had it. The comparison is between two answers of the same
 * target, so the form a field takes (a decimal's digits, a map's shape) is the target's own.
 */
export async function keepsUnsent(
  t: ScenarioContext,
  ruleId: string,
  send: (body: Json) => Promise<Exchange>,
  first: Json,
  singles: Json[],
  fields: string[],
): Promise<void> {
  const answer = (ex: Exchange, what: string): Json => {
    t.expectRule(ruleId, ex.status !== undefined && ex.status >= 200 && ex.status < 300, `${what} succeeds (got ${ex.status ?? ex.transportError})`, ex);
    return (ex.body && typeof ex.body === 'object' ? ex.body : {}) as Json;
  };
  let before = answer(await send(first), `the update setting ${fields.join(', ')}`);
  for (const single of singles) {
    const ex = await send(single);
    const after = answer(ex, `the update ${JSON.stringify(single)}`);
    for (const f of fields.filter((k) => !(k in single))) {
      t.checkRule(ruleId, canonical(after[f]) === canonical(before[f]), `${f}, not sent in ${JSON.stringify(single)}, is kept (${canonical(before[f])} before, ${canonical(after[f])} after)`, ex);
    }
    before = after;
  }
}
