/**
 * Expected failures: a known difference of a target, declared once in conform.config.yaml
 * (`expectedFailures`), each limited to one rule part on one documented operation (and one field
 * where it applies), with its reason. A finding an expectation covers fails nothing: its rule is
 * reported apart as failed as expected, with the reason. An expectation whose rule part was
 * judged on its operation (and field) without failing is stale: the difference is gone, and
 * the run fails until the entry is removed, so the list cannot rot.
 */
import { parseRuleKey, partsOf, ruleKey, type RuleIndex } from '../../contract/rules.ts';
import type { Spec } from '../../contract/types.ts';
import type { Exchange, Finding } from '../types.ts';
import { didYouMean } from '../messages/did-you-mean.ts';

/** One entry of `expectedFailures`, as written. */
export interface Expectation {
  /** `RULE.ID`, or `RULE.ID#part` for a rule of several parts. */
  rule: string;
  /** The documented operation (operationId) it is limited to. */
  operation: string;
  /** A field of that operation's request or answer (`notifyPeriod`, `/limit/amount`, `limit.amount`). */
  field?: string;
  /** Why the target differs: required, shown beside every failure it covers. */
  reason: string;
}

/** How each expectation fared in a run (reports). */
export interface ExpectationOutcome extends Expectation {
  /** Findings it covered. */
  matched: number;
  /** Judgements of its rule part on its operation (and field). */
  judged: number;
  /**
   * matched: the failure happened, as declared; stale: its part was judged there and held (the
   * difference is gone: the run fails until the entry is removed); unconfirmed: its part was not
   * judged there in this run (nothing to tell).
   */
  status: 'matched' | 'stale' | 'unconfirmed';
}

/** A field as a JSON Pointer: `limit.amount`, `limit/amount` and `/limit/amount` are one field. */
export function fieldPointer(field: string): string {
  const trimmed = field.trim().replace(/^\//, '');
  return `/${trimmed.split(/[./]/).filter(Boolean).join('/')}`;
}

/** Whether a schema (inlined, as the spec gives it) has a property at `pointer`. */
function schemaHas(schema: unknown, segments: string[]): boolean {
  if (!segments.length) return true;
  if (!schema || typeof schema !== 'object') return false;
  const s = schema as Record<string, unknown>;
  const branches = ['oneOf', 'anyOf', 'allOf'].flatMap((k) => (Array.isArray(s[k]) ? (s[k] as unknown[]) : []));
  if (branches.some((b) => schemaHas(b, segments))) return true;
  const [head, ...rest] = segments;
  if (s.items && (/^\d+$/.test(head) || head === '*')) return schemaHas(s.items, rest);
  if (s.items && schemaHas(s.items, segments)) return true;
  const props = s.properties as Record<string, unknown> | undefined;
  if (props && head in props) return schemaHas(props[head], rest);
  const extra = s.additionalProperties;
  return typeof extra === 'object' && extra !== null && schemaHas(extra, rest);
}

/**
 * Problems with the declared expectations, one line each (the run refuses them: exit 2): a rule
 * unknown, a part unknown or missing, a whole family, an operation unknown or not the rule's, a
 * field the operation does not have, a reason missing.
 */
export function expectationProblems(list: readonly Expectation[], rules: RuleIndex, spec: Spec): string[] {
  const problems: string[] = [];
  const ids = rules.rules.map((r) => r.id);
  const documented = [...spec.operations.values()].filter((o) => !o.extension).map((o) => o.operationId);
  list.forEach((e, i) => {
    const at = `expectedFailures[${i}]`;
    if (typeof e.reason !== 'string' || !e.reason.trim())
      problems.push(`${at}: give a reason (why the target differs), required for every expected failure`);
    if (typeof e.operation !== 'string' || !e.operation)
      problems.push(`${at}: name the operation it is limited to (an operationId); a whole rule cannot be declared`);
    const { ruleId, part } = parseRuleKey(String(e.rule ?? ''));
    const rule = rules.byId(ruleId);
    if (!rule) {
      const family = rules.rules.some((r) => r.family === ruleId);
      problems.push(
        family
          ? `${at}: ${ruleId} is a family; declare one rule part on one operation`
          : `${at}: unknown rule ${ruleId}.${didYouMean(ruleId, ids)}`.replace(/\.$/, ''),
      );
      return;
    }
    const parts = partsOf(rule);
    if (part !== undefined && !parts.some((p) => p.id === part))
      problems.push(`${at}: rule ${ruleId} has no part '${part}' (its parts: ${parts.map((p) => p.id).join(', ')})`);
    if (part === undefined && parts.length > 1)
      problems.push(
        `${at}: rule ${ruleId} has several parts: name one (${parts.map((p) => `${ruleId}#${p.id}`).join(', ')})`,
      );
    if (typeof e.operation !== 'string' || !e.operation) return;
    const op = spec.operation(e.operation);
    if (!op || op.extension) {
      problems.push(
        `${at}: unknown operation ${e.operation} (a documented operationId).${didYouMean(e.operation, documented)}`.replace(
          /\.$/,
          '',
        ),
      );
      return;
    }
    if (rule.operations.length && !rule.operations.includes(e.operation))
      problems.push(`${at}: rule ${ruleId} is about ${rule.operations.join(', ')}, not ${e.operation}`);
    if (e.field !== undefined) {
      const segments = fieldPointer(String(e.field)).slice(1).split('/');
      const req = spec.requestSchemas(e.operation);
      const schemas = [req?.path, req?.query, req?.body, ...Object.values(op.responses).map((r) => r.schema)];
      if (!segments[0] || !schemas.some((s) => s && schemaHas(s, segments)))
        problems.push(`${at}: ${e.operation} has no field '${e.field}' in its request or its answers`);
    }
  });
  return problems;
}

/** A value at a pointer (undefined when absent). */
function at(value: unknown, pointer: string): unknown {
  let cur = value;
  for (const seg of pointer.slice(1).split('/')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** Whether an exchange carries the field: in its request body or query, or its answer. */
export function exchangeTouches(ex: Exchange, pointer: string): boolean {
  if (at(ex.requestBody, pointer) !== undefined || at(ex.body, pointer) !== undefined) return true;
  const query = new URLSearchParams(ex.path.split('?')[1] ?? '');
  return pointer.split('/').length === 2 && query.has(pointer.slice(1));
}

/** The fields a finding names (`fields`, as pointers), or none known. */
function findingFields(f: Finding): string[] {
  return (f.fields ?? []).map(fieldPointer);
}

/** Matches judgements and findings against the declared expectations (one scenario's worth). */
export class ExpectationBook {
  private readonly keys: string[];
  private readonly pointers: (string | undefined)[];

  constructor(
    readonly list: readonly Expectation[],
    rules: RuleIndex,
  ) {
    this.keys = list.map((e) => {
      const { ruleId, part } = parseRuleKey(e.rule);
      const rule = rules.byId(ruleId);
      return rule && partsOf(rule).length > 1 ? ruleKey(ruleId, part) : ruleId;
    });
    this.pointers = list.map((e) => (e.field === undefined ? undefined : fieldPointer(e.field)));
  }

  get empty(): boolean {
    return this.list.length === 0;
  }

  /** The expectations a judgement of `key` on `exchange` concerns (its part, its operation, its field). */
  concerned(key: string, exchange: Exchange | undefined): number[] {
    if (!exchange?.operationId) return [];
    const out: number[] = [];
    this.list.forEach((e, i) => {
      if (this.keys[i] !== key || e.operation !== exchange.operationId) return;
      const p = this.pointers[i];
      if (p === undefined || exchangeTouches(exchange, p)) out.push(i);
    });
    return out;
  }

  /** The expectation covering a finding's `key`, if one does: its part and operation, and its field when it names one. */
  covering(key: string, f: Finding): number | undefined {
    const ex = f.exchange;
    if (!ex?.operationId) return undefined;
    const fields = findingFields(f);
    const i = this.list.findIndex((e, j) => {
      if (this.keys[j] !== key || e.operation !== ex.operationId) return false;
      const p = this.pointers[j];
      return p === undefined || fields.some((x) => x === p || x.startsWith(`${p}/`));
    });
    return i < 0 ? undefined : i;
  }
}

/** Each expectation's outcome from the run's tallies (matched and judged, by index). */
export function expectationOutcomes(
  list: readonly Expectation[],
  tallies: readonly { matched: Record<string, number>; judged: Record<string, number> }[],
): ExpectationOutcome[] {
  return list.map((e, i) => {
    const sum = (k: 'matched' | 'judged') => tallies.reduce((n, t) => n + (t[k][String(i)] ?? 0), 0);
    const matched = sum('matched');
    const judged = sum('judged');
    return { ...e, matched, judged, status: matched > 0 ? 'matched' : judged > 0 ? 'stale' : 'unconfirmed' };
  });
}
