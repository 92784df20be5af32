/** Small helpers shared by the passive units. */
import type { Tally } from '../tally.ts';
import type { Observed } from '../types.ts';
import type { Json } from '../../engine/checks/answer.ts';
import { loadRules } from '../../contract/rules.ts';
import { numberOf, patternOf } from '../../engine/predicates.ts';

export { holds, sameJson, show, type Json } from '../../engine/checks/answer.ts';

export const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
export const is2xx = (o: Observed): boolean =>
  o.record.status !== undefined && o.record.status >= 200 && o.record.status < 300;
export { isDateTime } from '../../engine/predicates.ts';

const rules = await loadRules();
/** The error code's form (ERRORS.CODE.UPPER_SNAKE). */
export const UPPER_SNAKE = patternOf(rules, 'ERRORS.CODE.UPPER_SNAKE');
/** The range of targetVersionNumber (MIGRATION.400.TARGET_RANGE), e.g. "1..2147483647". */
export const TARGET_VERSION = {
  minimum: numberOf(rules, 'MIGRATION.400.TARGET_RANGE', 'minimum'),
  maximum: numberOf(rules, 'MIGRATION.400.TARGET_RANGE', 'maximum'),
  toString(): string {
    return `${this.minimum}..${this.maximum}`;
  },
};
/** An integer within TARGET_VERSION. */
export const targetVersionInRange = (v: unknown): boolean =>
  Number.isInteger(v) && (v as number) >= TARGET_VERSION.minimum && (v as number) <= TARGET_VERSION.maximum;

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
