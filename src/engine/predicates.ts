/**
 * The JSON predicates every judge shares (checks, scenarios, passive units), and the contract
 * constants they read from spec/rules.yaml: written once, so a rule means the same thing in
 * `conform run`, `conform proxy` and `conform judge`. test/architecture/rule-constants.test.ts
 * fails when a rule's constant is copied into code instead.
 */
import type { RuleIndex } from '../contract/rules.ts';

/** A decimal-number string: the document's "Decimal format" and "decimal dollars". */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

export const isDecimalString = (v: unknown): v is string => typeof v === 'string' && DECIMAL.test(v);

/** An ISO 8601 date-time: a date, a time (fractions allowed) and Z or an offset. */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** A string the document's "Timestamps are ISO 8601 date-time strings" allows, and a real instant. */
export const isDateTime = (v: unknown): v is string =>
  typeof v === 'string' && ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v));

function params(rules: Pick<RuleIndex, 'byId'>, ruleId: string): Record<string, unknown> {
  const p = rules.byId(ruleId)?.params;
  if (!p) throw new Error(`spec/rules.yaml: rule ${ruleId} carries no params`);
  return p;
}

/** The values a rule lists (its params.values, or another list of its params), e.g. REFUNDS.STATUS.ENUM. */
export function enumOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string, key = 'values'): readonly string[] {
  const v = params(rules, ruleId)[key];
  if (!Array.isArray(v)) throw new Error(`spec/rules.yaml: rule ${ruleId} lists no ${key}`);
  return v as string[];
}

/** A number a rule states (a bound or a default: params.minimum, params.default...), e.g. ALERTS.LIST.LIMIT_DEFAULT. */
export function numberOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string, key: string): number {
  const v = params(rules, ruleId)[key];
  if (typeof v !== 'number') throw new Error(`spec/rules.yaml: rule ${ruleId} states no number ${key}`);
  return v;
}

/** The id prefix a rule states (its params.prefix), e.g. crn_ for REFUNDS.ID.PREFIX. */
export function prefixOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string): string {
  const v = params(rules, ruleId).prefix;
  if (typeof v !== 'string') throw new Error(`spec/rules.yaml: rule ${ruleId} states no prefix`);
  return v;
}

/** The pattern of an id kind the document gives (CONV.ID.PATTERNS), e.g. organization or fee. */
export function idPattern(rules: Pick<RuleIndex, 'byId'>, kind: string): RegExp {
  const patterns = params(rules, 'CONV.ID.PATTERNS').patterns as Record<string, string> | undefined;
  const source = patterns?.[kind];
  if (!source) throw new Error(`spec/rules.yaml: CONV.ID.PATTERNS gives no pattern for ${kind}`);
  return new RegExp(source);
}
