/** Request plans per operation: valid ones, and ones breaking exactly one documented constraint. */
import fc from 'fast-check';
import { documentedConstraints, type Constraint, type ConstraintKind } from './constraints.ts';
import { edgeBreakingValues, edgeValidValues } from './breakers.ts';
import { breakingArbitrary, valueAt, withValueAt } from './negative.ts';
import type { JsonSchema, Location } from './schema.ts';
import { statedFor } from './stated.ts';
import { edgeRequests, type EdgeValue } from './edges.ts';
import { arbitraryFromSchema, type ValueOptions } from './valid.ts';

/** What the generators need to know of an operation (see `fromSpec` for the adapter). */
export interface GenOperation {
  operationId: string;
  method: string;
  /** Path template, e.g. /v0/items/{id}. */
  path: string;
  /** `x-extension: reference`: never generated against a target. */
  extension?: boolean;
  /** Object schemas whose properties are the parameters (path, query), and the body schema. */
  inputs: Partial<Record<Location, JsonSchema>>;
  /** The document says errors exist but not their status (a `default` response): any 4xx may carry one. */
  statusOpen?: boolean;
}

export interface RequestPlan {
  operationId: string;
  method: string;
  pathTemplate: string;
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  /** Absent when the operation takes no body. */
  body?: unknown;
}

export interface NegativeCase extends RequestPlan {
  location: Location;
  pointer: string;
  constraint: ConstraintKind;
  /** The constraint as written, e.g. "maxLength 255". */
  label: string;
  /** The breaking value; undefined for `required` (the input is left out). */
  value: unknown;
  /** Acceptable statuses. */
  expected: number[];
  /** Why the expectation is a set, when it is. */
  why?: string;
}

/** Shaping per location: pins (real ids), custom arbitraries, omitted optional inputs. Pointers are inside the location. */
export type PlanOptions = Partial<Record<Location, ValueOptions>>;

export const PATH_EXPECTATION_WHY =
  'a path parameter outside its pattern names no resource: ' +
  'the document lets the target answer 400 (request not understood) or 404 (resource not found)';

export class GeneratorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GeneratorError';
  }
}

/** Whether the generators may target this operation at all. */
export function isGeneratable(op: GenOperation): boolean {
  return !op.extension;
}

function withIds(op: GenOperation, ids: Record<string, unknown>, options: PlanOptions): PlanOptions {
  const missing = Object.keys(op.inputs.path?.properties ?? {}).filter((name) => ids[name] === undefined);
  if (missing.length) throw new GeneratorError(`${op.operationId}: no id for path parameter(s) ${missing.join(', ')}`);
  const pin = { ...(options.path?.pin ?? {}) };
  for (const [name, value] of Object.entries(ids)) pin[`/${name}`] = value;
  return { ...options, path: { ...(options.path ?? {}), pin } };
}

function locationArbitrary(op: GenOperation, location: Location, options: PlanOptions): fc.Arbitrary<unknown> {
  const schema = op.inputs[location];
  if (!schema) return fc.constant(location === 'body' ? undefined : {});
  return arbitraryFromSchema(schema, options[location] ?? {});
}

function assemble(op: GenOperation, [pathParams, query, body]: unknown[]): RequestPlan {
  const plan: RequestPlan = {
    operationId: op.operationId,
    method: op.method.toUpperCase(),
    pathTemplate: op.path,
    pathParams: pathParams as Record<string, unknown>,
    query: query as Record<string, unknown>,
  };
  if (op.inputs.body) plan.body = body;
  return plan;
}

/**
 * Valid requests for an operation. `ids` gives every path parameter a real resource id
 * (a random well-formed id would just get 404).
 */
export function positiveRequests(
  op: GenOperation,
  ids: Record<string, unknown>,
  options: PlanOptions = {},
): fc.Arbitrary<RequestPlan> {
  if (!isGeneratable(op))
    throw new GeneratorError(`${op.operationId} is a reference extension: never generated against a target`);
  const opts = withIds(op, ids, options);
  return fc
    .tuple(
      locationArbitrary(op, 'path', opts),
      locationArbitrary(op, 'query', opts),
      locationArbitrary(op, 'body', opts),
    )
    .map((parts) => assemble(op, parts));
}

export interface NegativePlan {
  constraint: Constraint;
  /** Same request shape as the positives, with this one constraint broken. */
  arbitrary: fc.Arbitrary<NegativeCase>;
  /**
   * The documented edge values of a bound (e.g. 256 characters, -1, 100.01), as whole cases built
   * on a seeded base; empty for other kinds.
   */
  examples(seed: number): NegativeCase[];
}

const LOCATION_KEY = { path: 'pathParams', query: 'query', body: 'body' } as const;

/**
 * The plan with only the required, pinned and shaped top-level inputs kept (and the one at
 * `keep`): the base of the edge examples, which are not shrunk, so they start minimal.
 */
function minimalPlan<P extends RequestPlan>(
  op: GenOperation,
  opts: PlanOptions,
  plan: P,
  keep?: { location: Location; pointer: string },
): P {
  const trim = (location: Location, value: unknown) => {
    const schema = op.inputs[location];
    if (!value || typeof value !== 'object' || Array.isArray(value) || !schema?.properties) return value;
    const o = opts[location] ?? {};
    const required = new Set(schema.required ?? []);
    const kept = keep?.location === location ? keep.pointer.split('/')[1] : undefined;
    return Object.fromEntries(
      Object.entries(value).filter(
        ([k]) =>
          k === kept || required.has(k) || o.pin?.[`/${k}`] !== undefined || o.arbitraries?.[`/${k}`] !== undefined,
      ),
    );
  };
  const out: P = { ...plan, query: trim('query', plan.query) as Record<string, unknown> };
  if (op.inputs.body) out.body = trim('body', plan.body);
  return out;
}

/** The plan with `value` at `pointer` of `location`. */
export function withInput<P extends RequestPlan>(plan: P, location: Location, pointer: string, value: unknown): P {
  const key = LOCATION_KEY[location];
  return { ...plan, [key]: withValueAt(plan[key], pointer, value) };
}

/** Every documented constraint of the operation's inputs, with its negative-case arbitrary. */
export function negativeRequests(
  op: GenOperation,
  ids: Record<string, unknown>,
  options: PlanOptions = {},
): NegativePlan[] {
  if (!isGeneratable(op)) return [];
  const opts = withIds(op, ids, options);
  const plans: NegativePlan[] = [];
  for (const location of ['path', 'query', 'body'] as const) {
    const schema = op.inputs[location];
    for (const c of documentedConstraints(
      schema,
      location,
      statedFor(op.operationId, location, opts[location]?.stated),
    )) {
      const parts = (['path', 'query', 'body'] as const).map((l) =>
        l === location ? breakingArbitrary(schema!, c, opts[l] ?? {}) : locationArbitrary(op, l, opts),
      );
      const arbitrary = fc.tuple(...parts).map((values): NegativeCase => {
        const plan = assemble(op, values);
        return {
          ...plan,
          location,
          pointer: c.pointer,
          constraint: c.kind,
          label: c.label,
          value:
            c.kind === 'required' ? undefined : valueAt(values[['path', 'query', 'body'].indexOf(location)], c.pointer),
          expected: location === 'path' ? [400, 404] : [400],
          ...(location === 'path' ? { why: PATH_EXPECTATION_WHY } : {}),
        };
      });
      const edges = edgeBreakingValues(c);
      const examples = (seed: number) => {
        if (edges.length === 0) return [];
        const base = minimalPlan(op, opts, fc.sample(arbitrary, { seed, numRuns: 1 })[0], {
          location,
          pointer: c.pointer,
        });
        return edges.map((value) => ({ ...withInput(base, location, c.pointer, value), value }));
      };
      plans.push({ constraint: c, arbitrary, examples });
    }
  }
  return plans;
}

/** A seeded valid plan with only its required, pinned and shaped inputs: so that a refusal points at what was added. */
function minimalBase(op: GenOperation, ids: Record<string, unknown>, options: PlanOptions, seed: number): RequestPlan {
  const sampled = fc.sample(positiveRequests(op, ids, options), { seed, numRuns: 1 })[0];
  return minimalPlan(op, withIds(op, ids, options), sampled);
}

/**
 * Requests carrying one edge value each (edges.ts: an empty string, zero, a negative number...
 * where the document gives only a type), on a seeded minimal valid base. Pinned, shaped or
 * omitted inputs are left alone.
 */
export function undocumentedEdgeRequests(
  op: GenOperation,
  ids: Record<string, unknown>,
  options: PlanOptions = {},
  seed = 0,
): { plan: RequestPlan; edge: EdgeValue }[] {
  if (!isGeneratable(op)) return [];
  const opts = withIds(op, ids, options);
  const shaped = (location: Location, pointer: string) => {
    const o = opts[location] ?? {};
    return o.pin?.[pointer] !== undefined || o.arbitraries?.[pointer] !== undefined || !!o.omit?.includes(pointer);
  };
  return edgeRequests(op, minimalBase(op, ids, options, seed), shaped);
}

/**
 * Valid requests at the documented bounds (255 characters, 0 and 100, 1 and 100, offset 0...):
 * one per bound, each on a seeded valid base, after the base itself where the body has required
 * fields (a body of those alone). Pinned, shaped or omitted inputs are left alone.
 */
export function positiveEdgeExamples(
  op: GenOperation,
  ids: Record<string, unknown>,
  options: PlanOptions = {},
  seed = 0,
): RequestPlan[] {
  const opts = withIds(op, ids, options);
  const base = minimalBase(op, ids, options, seed);
  // A body of the required fields alone (and what the scenario pins) is valid by the document itself.
  const out: RequestPlan[] = op.inputs.body?.required?.length ? [base] : [];
  for (const location of ['path', 'query', 'body'] as const) {
    const o = opts[location] ?? {};
    for (const c of documentedConstraints(
      op.inputs[location],
      location,
      statedFor(op.operationId, location, o.stated),
    )) {
      if (o.pin?.[c.pointer] !== undefined || o.arbitraries?.[c.pointer] || o.omit?.includes(c.pointer)) continue;
      for (const value of edgeValidValues(c)) out.push(withInput(base, location, c.pointer, value));
    }
  }
  return out;
}

/** All the operation's negatives as one arbitrary (each case still breaks exactly one constraint); undefined when there are none. */
export function anyNegativeRequest(
  op: GenOperation,
  ids: Record<string, unknown>,
  options: PlanOptions = {},
): fc.Arbitrary<NegativeCase> | undefined {
  const plans = negativeRequests(op, ids, options);
  return plans.length ? fc.oneof(...plans.map((p) => p.arbitrary)) : undefined;
}

/** One line naming what a negative case broke and where. */
export function describeNegative(
  c: Pick<NegativeCase, 'location' | 'pointer' | 'label' | 'constraint' | 'value'>,
): string {
  const what = c.constraint === 'required' ? 'left out' : `= ${JSON.stringify(c.value)}`;
  return `${c.location} ${c.pointer || '/'} breaks ${c.label}: ${what}`;
}

/** Path with encoded parameters and the query string, relative to the base URL. */
export function requestPath(plan: RequestPlan): string {
  const path = plan.pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(plan.pathParams[name])),
  );
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(plan.query)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v])
      qs.append(k, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
  }
  const q = qs.toString();
  return q ? `${path}?${q}` : path;
}
