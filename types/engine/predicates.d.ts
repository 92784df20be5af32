import type { RuleIndex } from '../contract/rules.ts';
import { type SchemaSource } from '../contract/schema-values.ts';
/** A JSON object (not an array, not null). */
export declare function isObject(v: unknown): v is Record<string, unknown>;
/** A decimal-number string: the document's "Decimal format" and "decimal dollars". */
export declare const DECIMAL: RegExp;
export declare const isDecimalString: (v: unknown) => v is string;
/** An ISO 8601 date-time: a date, a time (fractions allowed) and Z or an offset. */
export declare const ISO_DATE_TIME: RegExp;
/** A string the document's "Timestamps are ISO 8601 date-time strings" allows, and a real instant. */
export declare const isDateTime: (v: unknown) => v is string;
/** a − b in units of the coarser of their precisions; undefined when either is no date-time. */
export declare function compareInstants(a: unknown, b: unknown): number | undefined;
/** The values a rule lists (its params.values, or another list of its params), e.g. REFUNDS.STATUS.ENUM. */
export declare function enumOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string, key?: string): readonly string[];
/** A number a rule states (a bound or a default: params.minimum, params.default...), e.g. ALERTS.LIST.LIMIT_DEFAULT. */
export declare function numberOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string, key: string): number;
/** The id prefix a rule states (its params.prefix), e.g. crn_ for REFUNDS.ID.PREFIX. */
export declare function prefixOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string): string;
/** The pattern of an id kind the document gives (CONV.ID.PATTERNS), e.g. organization or fee. */
export declare function idPattern(rules: Pick<RuleIndex, 'byId'>, kind: string): RegExp;
/** `read` memoised per rules index: a check reads its constants from the context's rules, once per index. */
export declare const perRules: <T>(read: (rules: Pick<RuleIndex, "byId">) => T) => (from: Pick<RuleIndex, "byId">) => T;
/** A pattern a rule states (its params.pattern), e.g. the error code's UPPER_SNAKE_CASE of ERRORS.CODE.UPPER_SNAKE. */
export declare function patternOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string): RegExp;
/** A name a rule states (a header, a category...): its params[key] as a string, e.g. RATE.RETRY_AFTER.ON_429's header. */
export declare function nameOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string, key: string): string;
/** The error category ERRORS.CATEGORY.MATCHES_STATUS gives a status (rate_limit_exceeded for 429). */
export declare function categoryOf(rules: Pick<RuleIndex, 'byId'>, status: number): string;
/** A table a rule states from names to numbers (e.g. ERRORS.CATEGORY.MATCHES_STATUS's categories to statuses). */
export declare function tableOf(rules: Pick<RuleIndex, 'byId'>, ruleId: string, key: string): Readonly<Record<string, number>>;
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
export declare function rateHeaderNames(rules: Pick<RuleIndex, 'byId'>): RateHeaderNames;
/** null read as absent: the document does not tell the two apart for an optional field. */
export declare const norm: (v: unknown) => unknown;
/** Two JSON values are the same (object key order aside; null and absent alike). */
export declare const sameValue: (a: unknown, b: unknown) => boolean;
/** The fields a PATCH rule says an update keeps when it does not send them (its params.keeps). */
export declare function keptFields(rules: Pick<RuleIndex, 'byId'>, ruleId: string): readonly string[];
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
export declare function unsentFields(rules: Pick<RuleIndex, 'byId'>, ruleId: string, sent: Record<string, unknown>, before: Record<string, unknown>, after: Record<string, unknown>): UnsentField[];
/** `read` memoised per spec (the loader's Spec, a check's SpecView): a document's values read once. */
export declare const perSpec: <T>(read: (spec: SchemaSource) => T) => (from: SchemaSource) => T;
/**
 * A subscription's versionPolicy (floating: following the plan's default version; pinned: on its
 * version), as the document's VersionPolicy enum lists it. A type is written, not read: a team's
 * fixtures module is compiled against it (src/engine/fixtures/types.ts gives it them). Its values
 * at run time are read from spec/openapi.yaml (versionPolicies, below);
 * test/architecture/contract-literals.test.ts checks that this union is that enum.
 */
export type VersionPolicy = 'floating' | 'pinned';
/** A subscription's versionPolicy values, VersionPolicy's two in the document's order: pinned (a migration pins), floating. */
export declare const versionPolicies: (from: SchemaSource) => {
    pinned: VersionPolicy;
    floating: VersionPolicy;
};
/** An API key's scopes: full, createApiKey's default, and the other, read-only. */
export declare const apiKeyScopes: (from: SchemaSource) => {
    full: string;
    readOnly: string;
};
/** A price's payment terms: in arrears, createPrice's default, and the other, in advance. */
export declare const paymentTerms: (from: SchemaSource) => {
    inArrears: string;
    inAdvance: string;
};
/** What a price's unitPrice means: an amount, createPrice's default, or the other, a proportion. */
export declare const unitBases: (from: SchemaSource) => {
    amount: string;
    proportion: string;
};
/** Price models: the two createPrice takes, in the document's order (standard, volume), and the legacy rest of PriceModel. */
export declare const priceModels: (from: SchemaSource) => {
    standard: string;
    volume: string;
    legacy: string[];
};
/** A subscription's statuses, in the document's order: active (live), cancelled, ended. */
export declare const subscriptionStatuses: (from: SchemaSource) => {
    active: string;
    cancelled: string;
    ended: string;
};
/** An invoice's statuses, in the document's order: draft, open, paid, void. */
export declare const invoiceStatuses: (from: SchemaSource) => {
    draft: string;
    open: string;
    paid: string;
    void: string;
};
/** The one value an enum of one value allows (the alert type, the resource PATCH /v0/alerts/{id} takes...). */
export declare function onlyValue(spec: SchemaSource, ref: string): string;
/**
 * A resource's object name, the const its component schema's `object` states (`list` for
 * ListEnvelope, `subscription` for Subscription...): what a body's `object` is compared with.
 * Read once per spec and schema; throws naming the schema when it states no object name.
 */
export declare function objectNameOf(spec: SchemaSource, schema: string): string;
