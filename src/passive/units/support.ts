/** Small helpers shared by the passive units. */
import type { Tally } from '../tally.ts';
import type { Observed } from '../types.ts';
import type { Json } from '../../engine/checks/answer.ts';

export { holds, sameJson, show, type Json } from '../../engine/checks/answer.ts';

export const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
export const is2xx = (o: Observed): boolean =>
  o.record.status !== undefined && o.record.status >= 200 && o.record.status < 300;
export { isDateTime } from '../../engine/predicates.ts';

/** `METHOD /path/template → status` of an exchange. */
export function where(o: Observed): string {
  return `${o.record.method} ${o.operation?.pathTemplate ?? o.record.path.split('?')[0]} → ${o.record.status ?? 'no response'}`;
}

/** The operation id of the exchange, when it is a documented one. */
export function opId(o: Observed): string | undefined {
  return o.documented ? o.operation?.operationId : undefined;
}

/**
 * Judges one condition of `ruleIds` on this exchange; on failure the finding says
 * `title` and `problem` with the exchange as evidence.
 */
export function expect(
  tally: Tally,
  unit: string,
  o: Observed,
  ruleIds: string | string[],
  ok: boolean,
  title: string,
  problem: () => string,
): boolean {
  return tally.check(Array.isArray(ruleIds) ? ruleIds : [ruleIds], ok, () => ({
    source: `passive:${unit}`,
    title,
    message: `${where(o)}: ${problem()}`,
    exchange: o.exchange,
  }));
}

/** The path of an exchange without its query string. */
export function pathOf(o: Observed): string {
  return o.record.path.split('?')[0];
}
