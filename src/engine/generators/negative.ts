/** Whole values (a body, a query, path parameters) that break exactly one documented constraint. */
import fc from 'fast-check';
import { breakingValue } from './breakers.ts';
import type { Constraint } from './constraints.ts';
import { pointerOf, segmentsOf, typesOf, type JsonSchema } from './schema.ts';
import { arbitraryFromSchema, arrayArbitrary, objectArbitrary, type ValueOptions } from './valid.ts';

/** A valid value of `root` except at the constraint's pointer, where the constraint is broken. */
export function breakingArbitrary(root: JsonSchema, c: Constraint, options: ValueOptions = {}): fc.Arbitrary<unknown> {
  const segments = segmentsOf(c.pointer);
  if (c.kind === 'required') {
    const key = segments[segments.length - 1];
    return along(root, segments.slice(0, -1), [], options, (node, at) =>
      objectArbitrary(node, options, at, { key, arbitrary: undefined }),
    );
  }
  return along(root, segments, [], options, () => breakingValue(c));
}

/** Walks down to the pointer, keeping every ancestor present and valid. */
function along(
  schema: JsonSchema,
  rest: string[],
  done: string[],
  options: ValueOptions,
  leaf: (node: JsonSchema, pointer: string) => fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  const at = pointerOf(done);
  if (rest.length === 0) return leaf(schema, at);
  const [head, ...tail] = rest;
  const types = typesOf(schema);
  if (types.includes('object') && schema.properties?.[head]) {
    const child = along(schema.properties[head], tail, [...done, head], options, leaf);
    return objectArbitrary(schema, options, at, { key: head, arbitrary: child });
  }
  if (types.includes('array') && head === '0') {
    const first = along(schema.items ?? {}, tail, [...done, head], options, leaf);
    const others = arrayArbitrary(
      {
        ...schema,
        minItems: Math.max(0, (schema.minItems ?? 0) - 1),
        maxItems: Math.max(0, Math.min(2, (schema.maxItems ?? 3) - 1)),
      },
      options,
      at,
    );
    return fc.tuple(first, others).map(([f, o]) => [f, ...o]);
  }
  throw new Error(`no property or item at ${pointerOf([...done, head])}`);
}

/** Reads the value at a pointer (undefined when absent). */
export function valueAt(value: unknown, pointer: string): unknown {
  let cur = value;
  for (const seg of segmentsOf(pointer)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** A copy of `value` with `replacement` at the pointer (parents created as objects when absent). */
export function withValueAt(value: unknown, pointer: string, replacement: unknown): unknown {
  const segments = segmentsOf(pointer);
  if (segments.length === 0) return replacement;
  const root = structuredClone(value ?? {}) as Record<string, unknown>;
  let cur: Record<string, unknown> = root;
  for (const seg of segments.slice(0, -1)) {
    if (cur[seg] === null || typeof cur[seg] !== 'object') cur[seg] = seg === '0' ? [] : {};
    cur = cur[seg] as Record<string, unknown>;
  }
  cur[segments[segments.length - 1]] = replacement;
  return root;
}

export { arbitraryFromSchema };
