/**
 * Edge values: values of a request the document neither allows nor forbids. Where it gives only
 * a type ("`notifyPeriod` integer", "`name` string"), an empty string, zero, a negative number,
 * an empty list or a very long string is the vendor's to accept or refuse. A request carrying
 * one is still sent and judged for what the document does state (no 5xx, a 2xx on its schema, a
 * refusal in Error or ValidationError shape), but a well-formed refusal of it is the target's own
 * rule, never a failure. Documented values (enums, stated bounds such as taxRates 0 and 100, a
 * 255-character externalId, patterns) are never edges.
 */
import { mergeAll } from './valid.ts';
import { isUndocumented, jsonTypeOf, pointerOf, typesOf, type JsonSchema, type Location } from './schema.ts';
import { withValueAt } from './negative.ts';

/** What edges need of an operation and of a request plan (requests.ts's GenOperation and RequestPlan). */
interface EdgeOperation {
  inputs: Partial<Record<Location, JsonSchema>>;
}
interface EdgePlan {
  query: Record<string, unknown>;
  body?: unknown;
}

/** One edge value in a request: where, what, and why the document leaves it to the vendor. */
export interface EdgeValue {
  location: Location;
  pointer: string;
  value: unknown;
  /** E.g. "an empty string where the document gives no minimum length". */
  why: string;
}

/** Beyond this, a string the document gives no maximum length for is long. */
export const LONG_STRING = 100;
/** Beyond this, a number the document gives no maximum for is very large. */
export const LARGE_NUMBER = 1_000_000;
/** Dates outside these years are far: the document states no span, and a vendor may refuse them. */
const NEAR_YEARS = [1970, 2100] as const;

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** The branch of a union the value is an instance of (by JSON type), or the schema itself. */
function branchFor(schema: JsonSchema, value: unknown): JsonSchema {
  const merged = mergeAll(schema);
  const union = merged.oneOf ?? merged.anyOf;
  if (!union) return merged;
  const { oneOf: _o, anyOf: _a, ...rest } = merged;
  const t = jsonTypeOf(value);
  const fits = union
    .map((b) => mergeAll({ allOf: [rest, b] }))
    .find((b) => {
      const ts = typesOf(b);
      return ts.length === 0 || ts.includes(t) || (t === 'integer' && ts.includes('number'));
    });
  return fits ?? merged;
}

function stringEdges(schema: JsonSchema, value: string): string[] {
  const out: string[] = [];
  if (schema.format === 'date-time' || schema.format === 'date') {
    const year = Number(value.slice(0, 4));
    if (Number.isFinite(year) && (year < NEAR_YEARS[0] || year >= NEAR_YEARS[1]))
      out.push(`a date far from today (the document states no span)`);
    return out;
  }
  if (schema.pattern !== undefined || schema.format !== undefined) return out;
  if (value.trim() === '' && schema.minLength === undefined)
    out.push(`${value === '' ? 'an empty' : 'a blank'} string where the document gives no minimum length`);
  else if (value !== value.trim()) out.push('a string with leading or trailing spaces');
  if (schema.maxLength === undefined && [...value].length > LONG_STRING)
    out.push(`a string of ${[...value].length} characters where the document gives no maximum length`);
  if (/[^\x20-\x7e]/.test(value)) out.push('characters outside printable ASCII');
  if (DECIMAL.test(value.trim()) && Number(value) <= 0)
    out.push(`${Number(value) === 0 ? 'a zero' : 'a negative'} amount where the document gives no minimum`);
  return out;
}

function numberEdges(schema: JsonSchema, value: number): string[] {
  const out: string[] = [];
  if (schema.minimum === undefined && schema.exclusiveMinimum === undefined && value <= 0)
    out.push(`${value === 0 ? 'zero' : 'a negative number'} where the document gives no minimum`);
  if (schema.maximum === undefined && schema.exclusiveMaximum === undefined && value > LARGE_NUMBER)
    out.push('a very large number where the document gives no maximum');
  return out;
}

function walk(schema: JsonSchema, value: unknown, segments: string[], location: Location, out: EdgeValue[]): void {
  if (value === undefined || value === null) return;
  const s = branchFor(schema, value);
  // Documented values: a const or an enum member is valid by the document itself.
  if (s.const !== undefined || s.enum !== undefined) return;
  const add = (why: string) => out.push({ location, pointer: pointerOf(segments), value, why });
  if (typeof value === 'string') stringEdges(s, value).forEach(add);
  else if (typeof value === 'number') numberEdges(s, value).forEach(add);
  else if (Array.isArray(value)) {
    if (value.length === 0 && s.minItems === undefined) add('an empty list where the document gives no minimum');
    value.forEach((v, i) => walk(s.items ?? {}, v, [...segments, String(i)], location, out));
  } else if (typeof value === 'object') {
    const props = s.properties ?? {};
    const free = Object.keys(props).length === 0;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const child = props[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      if (child) walk(child, v, [...segments, k], location, out);
      else if (free && !(typeof v === 'string' && v.trim() !== '' && v === v.trim()))
        // A free-form map (metadata): what its values may be is not shown; words are ordinary.
        out.push({
          location,
          pointer: pointerOf([...segments, k]),
          value: v,
          why: 'a value other than a word in a map whose contents the document does not show',
        });
    }
  }
}

/** Every edge value of a plan's query and body (path ids are real resources, never edges). */
export function edgeValues(op: EdgeOperation, plan: EdgePlan): EdgeValue[] {
  const out: EdgeValue[] = [];
  if (op.inputs.query) walk(op.inputs.query, plan.query, [], 'query', out);
  if (op.inputs.body && plan.body !== undefined) walk(op.inputs.body, plan.body, [], 'body', out);
  return out;
}

/** One line naming a plan's edges: `body /notifyPeriod = -1 (a negative number where ...)`. */
export function describeEdges(edges: readonly EdgeValue[]): string {
  return edges
    .map((e) => `${e.location} ${e.pointer || '/'} = ${JSON.stringify(e.value)?.slice(0, 60)} (${e.why})`)
    .join('; ');
}

/** The edge values worth trying for a field of this schema, none when the document bounds it. */
function edgeCandidates(schema: JsonSchema): unknown[] {
  const s = mergeAll(schema);
  if (s.const !== undefined || s.enum !== undefined || s.oneOf || s.anyOf) return [];
  const types = typesOf(s);
  const out: unknown[] = [];
  if (types.includes('string') && s.pattern === undefined) {
    if (s.format === 'date-time') out.push('1900-01-01T00:00:00.000Z', '2999-12-31T00:00:00.000Z');
    else if (s.format === undefined) {
      if (s.minLength === undefined) out.push('');
      if (s.maxLength === undefined) out.push('x'.repeat(LONG_STRING * 10));
      out.push('Grüße ✓ 名前');
    }
  }
  if (types.includes('integer') || types.includes('number')) {
    if (s.minimum === undefined && s.exclusiveMinimum === undefined) out.push(0, -1);
    if (s.maximum === undefined && s.exclusiveMaximum === undefined) out.push(LARGE_NUMBER * 1000);
  }
  if (types.includes('array') && s.minItems === undefined) out.push([]);
  // A free-form map (metadata): values other than words, which a vendor may refuse or must keep as sent.
  if (types.includes('object') && !s.properties && s.additionalProperties !== false) out.push({ count: 3, flag: true });
  return out;
}

/**
 * Requests carrying one edge value each, on `base` (a valid plan): for every documented field
 * of the query and body left free (not pinned, shaped or omitted by the scenario), each edge
 * candidate of its type. Fields the document does not show are left alone.
 */
export function edgeRequests<P extends EdgePlan>(
  op: EdgeOperation,
  base: P,
  leaveAlone: (location: Location, pointer: string) => boolean,
): { plan: P; edge: EdgeValue }[] {
  const out: { plan: P; edge: EdgeValue }[] = [];
  const visit = (schema: JsonSchema, segments: string[], location: 'query' | 'body') => {
    const s = mergeAll(schema);
    for (const [key, prop] of Object.entries(s.properties ?? {})) {
      const path = [...segments, key];
      const pointer = pointerOf(path);
      if (isUndocumented(prop) || leaveAlone(location, pointer)) continue;
      const p = mergeAll(prop);
      if (typesOf(p).includes('object') && p.properties) visit(p, path, location);
      for (const value of edgeCandidates(p)) {
        const plan: P =
          location === 'query'
            ? { ...base, query: withValueAt(base.query, pointer, value) as Record<string, unknown> }
            : { ...base, body: withValueAt(base.body ?? {}, pointer, value) };
        // A map's edge is a value inside it (`/metadata/count`).
        const edges = edgeValues(op, plan).filter((e) => e.pointer === pointer || e.pointer.startsWith(`${pointer}/`));
        if (edges.length) out.push({ plan, edge: edges[0] });
      }
    }
  };
  if (op.inputs.query) visit(op.inputs.query, [], 'query');
  if (op.inputs.body) visit(op.inputs.body, [], 'body');
  return out;
}
