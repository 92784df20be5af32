/**
 * The JSON predicates every judge shares (checks, scenarios, passive units), and the contract
 * constants they read from spec/rules.yaml: written once, so a rule means the same thing in
 * `conform run`, `conform proxy` and `conform judge`. test/architecture/rule-constants.test.ts
 * fails when a rule's constant is copied into code instead. The values of the document's enums
 * the engine and the suites name (a pinned subscription, a read-only key...) are read here from
 * spec/openapi.yaml, by meaning; test/architecture/contract-literals.test.ts fails on a copy.
 */
import { isDeepStrictEqual } from 'node:util';
import type { RuleIndex } from '../contract/rules.ts';
import { schemaConst, schemaDefault, schemaEnum, type SchemaSource } from '../contract/schema-values.ts';

/** A JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A decimal-number string: the document's "Decimal format" and "decimal dollars". */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

export const isDecimalString = (v: unknown): v is string => typeof v === 'string' && DECIMAL.test(v);

/** An ISO 8601 date-time: a date, a time (fractions allowed) and Z or an offset. */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** A string the document's "Timestamps are ISO 8601 date-time strings" allows, and a real instant. */
export const isDateTime = (v: unknown): v is string =>
  typeof v === 'string' && ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v));

/** An instant and how many fraction digits its text gave (a coarser text is compared at its own precision). */
function instant(v: unknown): { ms: number; digits: number } | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return undefined;
  const fraction = /T\d{2}:\d{2}:\d{2}(?:[.,](\d+))?/.exec(v)?.[1] ?? '';
  return { ms, digits: Math.min(3, fraction.length) };
}

/** a − b in units of the coarser of their precisions; undefined when either is no date-time. */
export function compareInstants(a: unknown, b: unknown): number | undefined {
  const x = instant(a);
  const y = instant(b);
  if (!x || !y) return undefined;
  const unit = 10 ** (3 - Math.min(x.digits, y.digits));
  return Math.floor(x.ms / unit) - Math.floor(y.ms / unit);
}

/** A rule's params; a part's key (`RULE#part`) reads its rule's. */
function params(rules: Pick<RuleIndex, 'byId'>, ruleId: string): Record<string, unknown> {
  const p = rules.byId(ruleId.split('#')[0])?.params;
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

/** `read` memoised per object it reads from (a rules index, a spec): read once per object. */
function perObject<K extends object, T>(read: (from: K) => T): (from: K) => T {
  const memo = new WeakMap<K, T>();
  return (from) => {
    if (!memo.has(from)) memo.set(from, read(from));
    return memo.get(from)!;
  };
}

/** `read` memoised per rules index: a check reads its constants from the context's rules, once per index. */
export const perRules = <T>(read: (rules: Pick<RuleIndex, 'byId'>) => T) => perObject(read);

/** A pattern a rule states (its params.pattern), e.g. the error code's UPPER_SNAKE_CASE of ERRORS.CODE.UPPER_SNAKE. */
export function patternOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string): RegExp {
  const v = params(rules, ruleId).pattern;
  if (typeof v !== 'string') throw new Error(`spec/rules.yaml: rule ${ruleId} states no pattern`);
  return new RegExp(v);
}

/** A name a rule states (a header, a category...): its params[key] as a string, e.g. RATE.RETRY_AFTER.ON_429's header. */
export function nameOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string, key: string): string {
  const v = params(rules, ruleId)[key];
  if (typeof v !== 'string') throw new Error(`spec/rules.yaml: rule ${ruleId} states no ${key}`);
  return v;
}

/** The error category ERRORS.CATEGORY.MATCHES_STATUS gives a status (rate_limit_exceeded for 429). */
export function categoryOf(rules: Pick<RuleIndex, 'byId'>, status: number): string {
  const found = Object.entries(tableOf(rules, 'ERRORS.CATEGORY.MATCHES_STATUS', 'categories')).filter(
    ([, s]) => s === status,
  );
  if (found.length !== 1)
    throw new Error(`spec/rules.yaml: ERRORS.CATEGORY.MATCHES_STATUS names ${found.length} categories for ${status}`);
  return found[0]![0];
}

/** A table a rule states from names to numbers (e.g. ERRORS.CATEGORY.MATCHES_STATUS's categories to statuses). */
export function tableOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string, key: string): Readonly<Record<string, number>> {
  const v = params(rules, ruleId)[key];
  if (!isObject(v) || !Object.values(v).every((n) => typeof n === 'number'))
    throw new Error(`spec/rules.yaml: rule ${ruleId} states no table ${key} of numbers`);
  return v as Record<string, number>;
}

/** The rate-limit headers RATE.HEADERS.PRESENT names: its `headers` list the limit, remaining and reset, in that order. */
export interface RateHeaderNames {
  limit: string;
  remaining: string;
  reset: string;
  /** All three, in that order. */
  all: readonly string[];
  /** Those written as non-negative integers (counts of requests). */
  integers: readonly string[];
  /** Those written as seconds (a non-negative number, a fraction allowed). */
  seconds: readonly string[];
}

export function rateHeaderNames(rules: Pick<RuleIndex, 'byId'>): RateHeaderNames {
  const all = enumOf(rules, 'RATE.HEADERS.PRESENT', 'headers');
  const integers = enumOf(rules, 'RATE.HEADERS.PRESENT', 'integers');
  const seconds = enumOf(rules, 'RATE.HEADERS.PRESENT', 'seconds');
  const [limit, remaining, reset] = all;
  if (all.length !== 3 || !integers.includes(limit) || !integers.includes(remaining) || !seconds.includes(reset))
    throw new Error(
      'spec/rules.yaml: RATE.HEADERS.PRESENT must list headers [limit, remaining, reset], ' +
        'the first two among integers, the third among seconds',
    );
  return { limit, remaining, reset, all, integers, seconds };
}

/** null read as absent: the document does not tell the two apart for an optional field. */
export const norm = (v: unknown): unknown => (v === null ? undefined : v);

/** Two JSON values are the same (object key order aside; null and absent alike). */
export const sameValue = (a: unknown, b: unknown): boolean => isDeepStrictEqual(norm(a), norm(b));

/** The fields a PATCH rule says an update keeps when it does not send them (its params.keeps). */
export function keptFields(rules: Pick<RuleIndex, 'byId'>, ruleId: string): readonly string[] {
  return enumOf(rules, ruleId, 'keeps');
}

/** One field a PATCH did not send, as two answers of the target show it. */
export interface UnsentField {
  /** The field as answers show it (`archivedAt` for a sent `archived`). */
  field: string;
  kept: boolean;
  was: unknown;
  now: unknown;
}

/**
 * A PATCH rule's "changes only what it is sent" (params.keeps, e.g. CUSTOMERS.UPDATE.PARTIAL),
 * judged between two answers of the target: one entry per field of the rule the update did not
 * send and the earlier answer showed (a field never shown cannot show whether it was kept). Two
 * answers of the target are compared, so the form a field takes stays the target's own. A field
 * answered under another name (params.shownAs: archived as archivedAt) is kept when it is set or
 * unset alike, its value (a time) being the target's own. Fields inside one object field
 * (params.within: the flags of notificationSettings) are judged only on an update sending that object.
 * A list of objects whose items the document shows with some properties (params.documented: a
 * source rule's conditions as {type, operator, value}) is compared on those alone.
 */
export function unsentFields(
  rules: Pick<RuleIndex, 'byId'>,
  ruleId: string,
  sent: Record<string, unknown>,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): UnsentField[] {
  const p = params(rules, ruleId);
  const shownAs = (p.shownAs ?? {}) as Record<string, string>;
  const documented = (p.documented ?? {}) as Record<string, string[]>;
  if (typeof p.within === 'string') {
    if (!(p.within in sent)) return [];
    const inside = (v: unknown) => (isObject(v) ? v : {});
    [sent, before, after] = [inside(sent[p.within]), inside(before[p.within]), inside(after[p.within])];
  }
  const out: UnsentField[] = [];
  for (const key of keptFields(rules, ruleId)) {
    if (key in sent) continue;
    const field = shownAs[key] ?? key;
    const was = before[field];
    if (was === undefined) continue;
    const now = after[field];
    const shown = (v: unknown) => documentedPart(v, documented[field]);
    const kept = field === key ? sameValue(shown(was), shown(now)) : (was == null) === (now == null);
    out.push({ field, kept, was, now });
  }
  return out;
}

/** The items of a list cut to the properties the document shows (`keys`); anything else as it is. */
function documentedPart(v: unknown, keys: readonly string[] | undefined): unknown {
  if (!keys || !Array.isArray(v)) return v;
  return v.map((item) => (isObject(item) ? Object.fromEntries(keys.map((k) => [k, item[k]])) : item));
}

/** `read` memoised per spec (the loader's Spec, a check's SpecView): a document's values read once. */
export const perSpec = <T>(read: (spec: SchemaSource) => T) => perObject(read);

/** The two values of the enum `ref` names: the one its schema states as default, and the other. */
function defaultAndOther(spec: SchemaSource, ref: string): [byDefault: string, other: string] {
  const values = schemaEnum(spec, ref, 2);
  const byDefault = schemaDefault(spec, ref);
  if (typeof byDefault !== 'string' || !values.includes(byDefault))
    throw new Error(`${ref}: default ${JSON.stringify(byDefault)} is none of [${values.join(', ')}]`);
  return [byDefault, values.find((v) => v !== byDefault)!];
}

/**
 * A subscription's versionPolicy (floating: following the plan's default version; pinned: on its
 * version), as the document's VersionPolicy enum lists it. A type is written, not read: a team's
 * fixtures module is compiled against it (src/engine/fixtures/types.ts gives it them). Its values
 * at run time are read from spec/openapi.yaml (versionPolicies, below);
 * test/architecture/contract-literals.test.ts checks that this union is that enum.
 */
export type VersionPolicy = 'floating' | 'pinned';

/** A subscription's versionPolicy values, VersionPolicy's two in the document's order: pinned (a migration pins), floating. */
export const versionPolicies = perSpec((spec) => {
  const [pinned, floating] = schemaEnum(spec, 'VersionPolicy', 2) as VersionPolicy[];
  return { pinned, floating };
});

/** An API key's scopes: full, createApiKey's default, and the other, read-only. */
export const apiKeyScopes = perSpec((spec) => {
  const [full, readOnly] = defaultAndOther(spec, 'createApiKey:body.scope');
  return { full, readOnly };
});

/** A price's payment terms: in arrears, createPrice's default, and the other, in advance. */
export const paymentTerms = perSpec((spec) => {
  const [inArrears, inAdvance] = defaultAndOther(spec, 'createPrice:body.paymentTerm');
  return { inArrears, inAdvance };
});

/** What a price's unitPrice means: an amount, createPrice's default, or the other, a proportion. */
export const unitBases = perSpec((spec) => {
  const [amount, proportion] = defaultAndOther(spec, 'createPrice:body.unitBasis');
  return { amount, proportion };
});

/** Price models: the two createPrice takes, in the document's order (standard, volume), and the legacy rest of PriceModel. */
export const priceModels = perSpec((spec) => {
  const creatable = schemaEnum(spec, 'createPrice:body.model', 2);
  const [standard, volume] = creatable;
  return { standard, volume, legacy: schemaEnum(spec, 'PriceModel').filter((m) => !creatable.includes(m)) };
});

/** A subscription's statuses, in the document's order: active (live), cancelled, ended. */
export const subscriptionStatuses = perSpec((spec) => {
  const [active, cancelled, ended] = schemaEnum(spec, 'ReferenceSubscription.status', 3);
  return { active, cancelled, ended };
});

/** An invoice's statuses, in the document's order: draft, open, paid, void. */
export const invoiceStatuses = perSpec((spec) => {
  const [draft, open, paid, voided] = schemaEnum(spec, 'Invoice.status', 4);
  return { draft, open, paid, void: voided };
});

/** The one value an enum of one value allows (the alert type, the resource PATCH /v0/alerts/{id} takes...). */
export function onlyValue(spec: SchemaSource, ref: string): string {
  return schemaEnum(spec, ref, 1)[0];
}

const objectNames = new WeakMap<object, Map<string, string>>();

/**
 * A resource's object name, the const its component schema's `object` states (`list` for
 * ListEnvelope, `subscription` for Subscription...): what a body's `object` is compared with.
 * Read once per spec and schema; throws naming the schema when it states no object name.
 */
export function objectNameOf(spec: SchemaSource, schema: string): string {
  let names = objectNames.get(spec);
  if (!names) objectNames.set(spec, (names = new Map()));
  let name = names.get(schema);
  if (name === undefined) names.set(schema, (name = schemaConst(spec, `${schema}.object`)));
  return name;
}
