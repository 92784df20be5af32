export declare const RULE_FAMILIES: readonly ["CONV", "SCHEMA", "STATUS", "ERRORS", "AUTH", "RATE", "RETRY", "STATE", "WEBHOOKS", "SCHEDULES", "ITEMS", "CUSTOMERS", "SOURCE_RULES", "REFUNDS", "PAYMENTS", "MERCHANTS", "PRODUCTS", "PRICES", "FEES", "ALERTS", "WALLETS", "MIGRATION", "SUBSCRIPTIONS", "VALIDATION"];
export type RuleFamily = (typeof RULE_FAMILIES)[number];
/**
 * contract: judged on any target; reference: a choice of the bundled server that the
 * document does not show (not applicable to other targets); restraint: a constraint on the
 * tool itself (what it must never judge); client: the client's side of the contract (the
 * engine's own client is tested by the project, live clients by `conform proxy`).
 */
export type RuleKind = 'contract' | 'reference' | 'restraint' | 'client';
export declare const RULE_KINDS: readonly RuleKind[];
export interface Rule {
    /** Stable id FAMILY.SUBJECT.ASPECT, e.g. RATE.CUSTOMERS_LIST.LIMIT. */
    id: string;
    family: RuleFamily;
    /** One line. */
    statement: string;
    /** Section of the interface document, e.g. "Limits" or "Endpoints > Customers". */
    section: string;
    /** operationIds of spec/openapi.yaml; empty for global rules. */
    operations: string[];
    kind: RuleKind;
    notes?: string;
    /** Machine-readable data, e.g. {limit, windowSeconds, bucket} for rate limits. */
    params?: Record<string, unknown>;
    /** The conditions the statement makes, when it makes more than one (see partsOf). */
    parts?: RulePart[];
}
/** One condition of a rule's statement: the rule passes only when each of its parts was judged and held. */
export interface RulePart {
    /** kebab-case, unique within the rule; judgements name it as `RULE.ID#part-id`. */
    id: string;
    statement: string;
}
/** The part of a rule whose statement makes one condition: the statement itself. */
export declare const WHOLE_PART = "whole";
/** A rule's parts: those it lists, or its whole statement as its one part. */
export declare function partsOf(rule: Pick<Rule, 'statement' | 'parts'>): RulePart[];
/**
 * What a judgement, a finding or a not-judged mark names: a rule (`RULE.ID`: every part of it)
 * or one part (`RULE.ID#part-id`).
 */
export declare function parseRuleKey(key: string): {
    ruleId: string;
    part?: string;
};
export declare const ruleKey: (ruleId: string, part?: string) => string;
/**
 * The part a judgement names, or why it names none: a judgement of a rule with several parts
 * must name one (a condition judged is one condition), and the part must exist.
 */
export declare function judgedPart(index: Pick<RuleIndex, 'byId'>, key: string): {
    rule: Rule;
    part: RulePart;
} | {
    error: string;
};
/** params of RATE.*.LIMIT rules. */
export interface RateLimitParams {
    limit: number;
    windowSeconds: number;
    bucket: 'merchant' | 'subscription';
    method: string;
    path: string;
}
export interface RuleIndex {
    /** In file order. */
    rules: Rule[];
    byId(id: string): Rule | undefined;
    /** Family name to its rules, in file order. */
    byFamily(): Map<RuleFamily, Rule[]>;
}
export declare const RULES_PATH: string;
export declare const RULES_SCHEMA_PATH: string;
export declare class RulesError extends Error {
    constructor(message: string);
}
/** One problem of a rules document against spec/rules.schema.json. */
export interface RulesSchemaProblem {
    /** JSON pointer, e.g. /rules/3/section. */
    instancePath: string;
    message: string;
}
/** Schema problems of an already parsed rules document (empty when valid). */
export declare function rulesSchemaProblems(doc: unknown): Promise<RulesSchemaProblem[]>;
/** Parses and validates a rules document; `origin` names it in errors. */
export declare function parseRules(text: string, origin?: string): Promise<RuleIndex>;
/**
 * The document's Limits table as spec/rules.yaml carries it (the params of the RATE.*.LIMIT
 * rules), by the operationId each rule cites. The drift test compares it with the document.
 */
export declare function limitsTable(index: RuleIndex): Record<string, Pick<RateLimitParams, 'limit' | 'windowSeconds' | 'bucket'>>;
/**
 * The key a judgement is recorded under: the bare rule id for a rule of one part, `RULE#part`
 * for a rule of several. A judgement that names no part of a rule of several, or a part or
 * rule spec/rules.yaml lacks, is the tool's own bug (thrown: an engine error).
 */
export declare function judgementKey(rules: RuleIndex, key: string): string;
/** The parts a record cites (a bare rule id cites every part) that it has not judged. */
export declare function unjudgedKeys(rules: RuleIndex, record: {
    ruleIds: readonly string[];
    judged: Readonly<Record<string, number>>;
}): string[];
/** Reads a rules file from any path (lint and tests use broken copies). */
export declare function loadRulesFrom(path: string): Promise<RuleIndex>;
/** The project's spec/rules.yaml, loaded once. */
export declare function loadRules(): Promise<RuleIndex>;
