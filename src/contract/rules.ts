/** The behavioural rules of spec/rules.yaml: types, loading and validation. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseYamlKept } from './parsed-yaml.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';

export const RULE_FAMILIES = [
  'CONV',
  'SCHEMA',
  'STATUS',
  'ERRORS',
  'AUTH',
  'RATE',
  'RETRY',
  'STATE',
  'WEBHOOKS',
  'SCHEDULES',
  'ITEMS',
  'CUSTOMERS',
  'SOURCE_RULES',
  'REFUNDS',
  'PAYMENTS',
  'MERCHANTS',
  'PRODUCTS',
  'PRICES',
  'FEES',
  'ALERTS',
  'WALLETS',
  'MIGRATION',
  'SUBSCRIPTIONS',
  'VALIDATION',
] as const;
export type RuleFamily = (typeof RULE_FAMILIES)[number];

/**
 * contract: judged on any target; reference: a choice of the bundled server that the
 * document does not show (not applicable to other targets); restraint: a constraint on the
 * tool itself (what it must never judge); client: the client's side of the contract (the
 * engine's own client is tested by the project, live clients by `conform proxy`).
 */
export type RuleKind = 'contract' | 'reference' | 'restraint' | 'client';

export const RULE_KINDS: readonly RuleKind[] = ['contract', 'reference', 'restraint', 'client'];

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
export const WHOLE_PART = 'whole';

/** A rule's parts: those it lists, or its whole statement as its one part. */
export function partsOf(rule: Pick<Rule, 'statement' | 'parts'>): RulePart[] {
  return rule.parts?.length ? rule.parts : [{ id: WHOLE_PART, statement: rule.statement }];
}

/**
 * What a judgement, a finding or a not-judged mark names: a rule (`RULE.ID`: every part of it)
 * or one part (`RULE.ID#part-id`).
 */
export function parseRuleKey(key: string): { ruleId: string; part?: string } {
  const at = key.indexOf('#');
  return at < 0 ? { ruleId: key } : { ruleId: key.slice(0, at), part: key.slice(at + 1) };
}

export const ruleKey = (ruleId: string, part?: string): string => (part ? `${ruleId}#${part}` : ruleId);

/**
 * The part a judgement names, or why it names none: a judgement of a rule with several parts
 * must name one (a condition judged is one condition), and the part must exist.
 */
export function judgedPart(
  index: Pick<RuleIndex, 'byId'>,
  key: string,
): { rule: Rule; part: RulePart } | { error: string } {
  const { ruleId, part } = parseRuleKey(key);
  const rule = index.byId(ruleId);
  if (!rule) return { error: `judgement under ${key}: spec/rules.yaml has no rule ${ruleId}` };
  const parts = partsOf(rule);
  if (part === undefined) {
    if (parts.length === 1) return { rule, part: parts[0] };
    return {
      error: `judgement under ${ruleId} names no part; the rule has ${parts.length}: ${parts.map((p) => p.id).join(', ')}`,
    };
  }
  const found = parts.find((p) => p.id === part);
  return found
    ? { rule, part: found }
    : { error: `judgement under ${key}: rule ${ruleId} has no part ${part} (${parts.map((p) => p.id).join(', ')})` };
}

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

export const RULES_PATH = fileURLToPath(new URL('../../spec/rules.yaml', import.meta.url));
export const RULES_SCHEMA_PATH = fileURLToPath(new URL('../../spec/rules.schema.json', import.meta.url));

export class RulesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RulesError';
  }
}

type Validator = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; params?: unknown }[] | null;
};
let validator: Validator | undefined;

async function compileSchema(): Promise<Validator> {
  if (!validator) {
    const schema = JSON.parse(await readFile(RULES_SCHEMA_PATH, 'utf8'));
    // The schema is the project's own, checked against the meta-schema by the rules tests.
    const ajv = new Ajv2020({ strict: true, allErrors: true, validateSchema: false });
    validator = ajv.compile(schema) as Validator;
  }
  return validator;
}

/** One problem of a rules document against spec/rules.schema.json. */
export interface RulesSchemaProblem {
  /** JSON pointer, e.g. /rules/3/section. */
  instancePath: string;
  message: string;
}

/** Schema problems of an already parsed rules document (empty when valid). */
export async function rulesSchemaProblems(doc: unknown): Promise<RulesSchemaProblem[]> {
  const validate = await compileSchema();
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => ({
    instancePath: e.instancePath,
    message: `${e.message}${paramsNote(e.params)}`,
  }));
}

/** Parses and validates a rules document; `origin` names it in errors. */
export async function parseRules(text: string, origin = 'rules.yaml'): Promise<RuleIndex> {
  let doc: unknown;
  try {
    doc = parseYamlKept(text);
  } catch (err) {
    throw new RulesError(`${origin}: not valid YAML: ${(err as Error).message}`);
  }
  const schemaProblems = await rulesSchemaProblems(doc);
  if (schemaProblems.length) {
    const rules = (doc as { rules?: { id?: unknown }[] })?.rules;
    const problems = schemaProblems.map((e) => {
      const m = /^\/rules\/(\d+)(.*)$/.exec(e.instancePath);
      if (m) {
        const id = rules?.[Number(m[1])]?.id;
        const who = typeof id === 'string' ? `rule ${id} (entry ${m[1]})` : `entry ${m[1]}`;
        return `${who}${m[2] ? ` at ${m[2]}` : ''}: ${e.message}`;
      }
      return `${e.instancePath || '(root)'}: ${e.message}`;
    });
    throw new RulesError(`${origin} is invalid:\n  ${problems.join('\n  ')}`);
  }
  const rules = (doc as { rules: Rule[] }).rules;
  const seen = new Map<string, number>();
  rules.forEach((r, i) => {
    if (seen.has(r.id))
      throw new RulesError(`${origin} is invalid: rule ${r.id} (entry ${i}) repeats the id of entry ${seen.get(r.id)}`);
    seen.set(r.id, i);
    const partIds = (r.parts ?? []).map((p) => p.id);
    const repeated = partIds.find((p, j) => partIds.indexOf(p) !== j);
    if (repeated) throw new RulesError(`${origin} is invalid: rule ${r.id} (entry ${i}) repeats the part ${repeated}`);
    if (!r.id.startsWith(`${r.family}.`))
      throw new RulesError(
        `${origin} is invalid: rule ${r.id} (entry ${i}) has family ${r.family} but its id does not start with ${r.family}.`,
      );
  });
  return makeIndex(rules);
}

function paramsNote(params: unknown): string {
  if (!params || typeof params !== 'object') return '';
  const p = params as Record<string, unknown>;
  if (p.additionalProperty) return ` (${String(p.additionalProperty)})`;
  if (p.allowedValues) return ` (${(p.allowedValues as unknown[]).join(', ')})`;
  return '';
}

function makeIndex(rules: Rule[]): RuleIndex {
  const ids = new Map(rules.map((r) => [r.id, r]));
  return {
    rules,
    byId: (id) => ids.get(id),
    byFamily() {
      const out = new Map<RuleFamily, Rule[]>();
      for (const r of rules) {
        const list = out.get(r.family) ?? [];
        list.push(r);
        out.set(r.family, list);
      }
      return out;
    },
  };
}

/**
 * The document's Limits table as spec/rules.yaml carries it (the params of the RATE.*.LIMIT
 * rules), by the operationId each rule cites. The drift test compares it with the document.
 */
export function limitsTable(
  index: RuleIndex,
): Record<string, Pick<RateLimitParams, 'limit' | 'windowSeconds' | 'bucket'>> {
  const out: Record<string, Pick<RateLimitParams, 'limit' | 'windowSeconds' | 'bucket'>> = {};
  for (const r of index.rules) {
    if (r.family !== 'RATE' || !r.id.endsWith('.LIMIT') || r.operations.length !== 1) continue;
    const { limit, windowSeconds, bucket } = r.params as unknown as RateLimitParams;
    out[r.operations[0]] = { limit, windowSeconds, bucket };
  }
  return out;
}

/**
 * The key a judgement is recorded under: the bare rule id for a rule of one part, `RULE#part`
 * for a rule of several. A judgement that names no part of a rule of several, or a part or
 * rule spec/rules.yaml lacks, is the tool's own bug (thrown: an engine error).
 */
export function judgementKey(rules: RuleIndex, key: string): string {
  const found = judgedPart(rules, key);
  if ('error' in found) throw new Error(found.error);
  return ruleKey(found.rule.id, partsOf(found.rule).length > 1 ? found.part.id : undefined);
}

/** The parts a record cites (a bare rule id cites every part) that it has not judged. */
export function unjudgedKeys(
  rules: RuleIndex,
  record: { ruleIds: readonly string[]; judged: Readonly<Record<string, number>> },
): string[] {
  const out: string[] = [];
  for (const key of record.ruleIds) {
    const { ruleId, part } = parseRuleKey(key);
    const rule = rules.byId(ruleId);
    const parts = rule ? partsOf(rule) : [];
    const keys =
      parts.length > 1 ? parts.filter((p) => !part || p.id === part).map((p) => ruleKey(ruleId, p.id)) : [ruleId];
    for (const k of keys) if (!record.judged[k] && !out.includes(k)) out.push(k);
  }
  return out;
}

/** Reads a rules file from any path (lint and tests use broken copies). */
export async function loadRulesFrom(path: string): Promise<RuleIndex> {
  return parseRules(await readFile(path, 'utf8'), path);
}

let memo: Promise<RuleIndex> | undefined;

/** The project's spec/rules.yaml, loaded once. */
export function loadRules(): Promise<RuleIndex> {
  memo ??= loadRulesFrom(RULES_PATH).catch((err) => {
    memo = undefined;
    throw err;
  });
  return memo;
}
