/** Small helpers shared by the passive units. */
import { isDeepStrictEqual } from 'node:util';
import type { Tally } from '../tally.ts';
import type { Observed } from '../types.ts';

export type Json = Record<string, any>;

export const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
export const is2xx = (o: Observed): boolean =>
  o.record.status !== undefined && o.record.status >= 200 && o.record.status < 300;
export { isDateTime, isDecimalString, DECIMAL } from '../../engine/predicates.ts';
export const sameJson = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);
export const show = (v: unknown): string =>
  v === undefined ? 'nothing' : (JSON.stringify(v)?.slice(0, 120) ?? String(v));

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

/** The query parameters of an exchange's path. */
export function queryOf(o: Observed): URLSearchParams {
  const i = o.record.path.indexOf('?');
  return new URLSearchParams(i < 0 ? '' : o.record.path.slice(i + 1));
}

/** `read` holds what was `sent`: equal primitives, arrays item by item, every key of a sent object held in turn (extra keys allowed). */
export function holds(read: unknown, sent: unknown): boolean {
  if (Array.isArray(sent))
    return Array.isArray(read) && read.length === sent.length && sent.every((v, i) => holds(read[i], v));
  const s = obj(sent);
  if (!s) return sameJson(read, sent);
  const r = obj(read);
  return !!r && Object.entries(s).every(([k, v]) => holds(r[k], v));
}

/** Of `fields`, those the request sent whose answer does not hold the value sent. */
export function notHeld(sent: Json, got: Json, fields: readonly string[], same = sameJson): string[] {
  return fields.filter((k) => sent[k] !== undefined && !same(got[k], sent[k]));
}

/** `k sent X, got Y` for each field. */
export const sentVsGot = (fields: readonly string[], sent: Json, got: Json): string =>
  fields.map((k) => `${k} sent ${show(sent[k])}, got ${show(got[k])}`).join('; ');

/** The path of an exchange without its query string. */
export function pathOf(o: Observed): string {
  return o.record.path.split('?')[0];
}
