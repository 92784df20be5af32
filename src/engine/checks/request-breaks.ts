/**
 * Which documented constraints a request breaks: the same constraints the generators break
 * on purpose (constraints.ts: types, required fields, enums, patterns, bounds, as the document
 * states them; nothing the document leaves open), read off a real request: a scenario's or
 * recorded traffic's, the same way. Path and query values travel as text and are read as their schema's type.
 */
import { documentedConstraints, type Constraint } from '../generators/constraints.ts';
import { hasType, regexOf, segmentsOf, typesOf, type JsonSchema, type Location } from '../generators/schema.ts';
import { statedFor } from '../generators/stated.ts';
import type { Spec } from '../../contract/index.ts';

export interface Broken {
  constraint: Constraint;
  /** One line: where, what the document states, what was sent. */
  what: string;
}

interface Inputs {
  constraints: Constraint[];
  schemas: Partial<Record<Location, JsonSchema>>;
  bodyRequired: boolean;
}

const cache = new WeakMap<Spec, Map<string, Inputs>>();

function inputsOf(spec: Spec, operationId: string): Inputs | undefined {
  let byOp = cache.get(spec);
  if (!byOp) cache.set(spec, (byOp = new Map()));
  let inputs = byOp.get(operationId);
  if (!inputs) {
    const s = spec.requestSchemas(operationId);
    if (!s) return undefined;
    const schemas: Inputs['schemas'] = {
      path: s.path as JsonSchema,
      query: s.query as JsonSchema,
      body: s.body as JsonSchema,
    };
    const constraints = (['path', 'query', 'body'] as const).flatMap((l) =>
      documentedConstraints(schemas[l], l, statedFor(operationId, l)),
    );
    inputs = { constraints, schemas, bodyRequired: s.bodyRequired };
    byOp.set(operationId, inputs);
  }
  return inputs;
}

/** A text parameter read as its schema's type, as a server reading the schema would. */
function coerce(value: string, schema: JsonSchema | undefined): unknown {
  const types = schema ? typesOf(schema) : [];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value.trim()))
    return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function textParams(
  values: Record<string, string | string[]>,
  schema: JsonSchema | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    const prop = schema?.properties?.[k];
    out[k] = Array.isArray(v) ? v.map((x) => coerce(x, prop)) : coerce(v, prop);
  }
  return out;
}

/** Every value at a pointer; `0` stands for each item of an array. */
function valuesAt(root: unknown, segments: string[]): unknown[] {
  let current: unknown[] = [root];
  for (const seg of segments) {
    const next: unknown[] = [];
    for (const v of current) {
      if (Array.isArray(v) && seg === '0') next.push(...v);
      else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, seg))
        next.push((v as Record<string, unknown>)[seg]);
    }
    current = next;
  }
  return current;
}

/** Parents (objects) that lack the property the `required` constraint names. */
function missing(root: unknown, segments: string[]): boolean {
  const key = segments[segments.length - 1];
  return valuesAt(root, segments.slice(0, -1)).some(
    (p) => p !== null && typeof p === 'object' && !Array.isArray(p) && !Object.hasOwn(p, key),
  );
}

function breaks(c: Constraint, value: unknown): boolean {
  const s = c.schema;
  switch (c.kind) {
    case 'type':
      return !hasType(value, typesOf(s));
    case 'enum': {
      const allowed = s.const !== undefined ? [s.const] : (s.enum ?? []);
      return !allowed.some((a) => JSON.stringify(a) === JSON.stringify(value));
    }
    case 'pattern':
      return typeof value === 'string' && !regexOf(s.pattern!).test(value);
    case 'maxLength':
      return typeof value === 'string' && [...value].length > s.maxLength!;
    case 'minimum':
      return typeof value === 'number' && value < s.minimum!;
    case 'maximum':
      return typeof value === 'number' && value > s.maximum!;
    case 'exclusiveMinimum':
      return typeof value === 'number' && value <= s.exclusiveMinimum!;
    case 'exclusiveMaximum':
      return typeof value === 'number' && value >= s.exclusiveMaximum!;
    default:
      return false;
  }
}

/** What `brokenConstraints` reads of a request (a request sent, as checks/request.ts reads it, or a plan about to be sent). */
export interface RequestParts {
  operationId: string;
  /** Decoded path parameters. */
  params: Record<string, string>;
  /** The query string as sent, without `?`. */
  queryString: string;
  /** The JSON body, parsed; undefined when none. */
  body: unknown;
}

/** What `requestBreaks` reads of a request sent (checks/request.ts's SentRequest fits it). */
export interface SentParts extends Omit<RequestParts, 'operationId'> {
  operation?: { operationId: string; extension?: boolean };
  /** A body travelled as text that does not parse as JSON. */
  bodyNotJson: boolean;
}

export interface RequestJudgement {
  /** The operation takes inputs the document constrains (so the request could break one). */
  constrained: boolean;
  broken: Broken[];
}

/** The documented constraints `req` breaks. */
export function brokenConstraints(spec: Spec, req: RequestParts): RequestJudgement {
  const inputs = inputsOf(spec, req.operationId);
  if (!inputs) return { constrained: false, broken: [] };
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(req.queryString))
    query[k] = query[k] === undefined ? v : [...([] as string[]).concat(query[k]), v];
  const roots: Record<Location, unknown> = {
    path: textParams(req.params, inputs.schemas.path),
    query: textParams(query, inputs.schemas.query),
    // An absent optional body breaks nothing; an absent required one misses its required fields.
    body: req.body === undefined && inputs.bodyRequired ? {} : req.body,
  };
  const broken: Broken[] = [];
  for (const c of inputs.constraints) {
    const root = roots[c.location];
    if (root === undefined) continue;
    const segments = segmentsOf(c.pointer);
    if (c.kind === 'required') {
      if (missing(root, segments))
        broken.push({ constraint: c, what: `${c.location} ${c.pointer} is required and was left out` });
      continue;
    }
    for (const v of valuesAt(root, segments)) {
      if (v === undefined || !breaks(c, v)) continue;
      broken.push({
        constraint: c,
        what: `${c.location} ${c.pointer} breaks ${c.label}: ${JSON.stringify(v)?.slice(0, 80)}`,
      });
      break;
    }
  }
  return { constrained: inputs.constraints.length > 0 || !!inputs.schemas.body, broken };
}

/** What a request sent breaks: its body does not parse as JSON, or the documented constraints it breaks. */
export interface RequestBreaks extends RequestJudgement {
  notJson: boolean;
}

/**
 * What the request of an exchange on a documented operation breaks (nothing on another
 * operation): a scenario sent it broken on purpose, or traffic holds it so. A body that does
 * not parse is read as nothing else. Only the validation rules judge the answer to a broken one.
 */
export function requestBreaks(spec: Spec, request: SentParts): RequestBreaks {
  const op = request.operation;
  if (!op || op.extension) return { notJson: false, constrained: false, broken: [] };
  if (request.bodyNotJson) return { notJson: true, constrained: true, broken: [] };
  return { notJson: false, ...brokenConstraints(spec, { ...request, operationId: op.operationId }) };
}
