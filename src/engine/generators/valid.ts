/**
 * Valid values from a JSON Schema, as fast-check arbitraries built from small parts. They are
 * the values the document makes valid: documented enums, bounds and patterns, and where the
 * document gives only a type, ordinary values of it that no reasonable service refuses (a
 * non-blank string of words, a positive number, a non-empty list). The values it neither allows
 * nor forbids (empty strings, zero, negatives...) are edges.ts's, sent apart.
 */
import fc from 'fast-check';
import { alphanumerics, formatArbitrary, letters } from './formats.ts';
import { isNotShown, pointerOf, typesOf, type JsonSchema, type JsonType } from './schema.ts';

/** Per-pointer shaping of generated values (pointers are JSON Pointers inside the value). */
export interface ValueOptions {
  /** Fixed values; the property is always present. */
  pin?: Record<string, unknown>;
  /** Custom arbitraries (e.g. ordered dates, real ids); the property is always present. */
  arbitraries?: Record<string, fc.Arbitrary<unknown>>;
  /** Optional properties never generated (e.g. a field the document calls unsupported). */
  omit?: string[];
  /**
   * Negatives only: pointers whose constraints the document states although an ancestor
   * carries an `x-not-shown` / `x-reference-choice` note (see documentedConstraints).
   */
  stated?: string[];
}

/** Strings stay short; a field with maxLength also gets its boundary length now and then. */
const SMALL = 12;
const SPAN = 1000;

export function arbitraryFromSchema(
  schema: JsonSchema,
  options: ValueOptions = {},
  pointer = '',
): fc.Arbitrary<unknown> {
  const shaped = shapedAt(pointer, options);
  if (shaped) return shaped;
  return unshaped(schema, options, pointer);
}

/** The pinned or custom arbitrary at a pointer, if any. */
export function shapedAt(pointer: string, options: ValueOptions): fc.Arbitrary<unknown> | undefined {
  if (options.pin && Object.prototype.hasOwnProperty.call(options.pin, pointer))
    return fc.constant(options.pin[pointer]);
  return options.arbitraries?.[pointer];
}

function unshaped(schema: JsonSchema, options: ValueOptions, pointer: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.allOf) return arbitraryFromSchema(mergeAll(schema), options, pointer);
  const union = schema.oneOf ?? schema.anyOf;
  if (union) {
    const { oneOf: _o, anyOf: _a, ...rest } = schema;
    return fc.oneof(
      ...union.map((branch) => arbitraryFromSchema(mergeAll({ allOf: [rest, branch] }), options, pointer)),
    );
  }
  const types = typesOf(schema);
  const parts = (types.length ? types : (['string', 'integer', 'boolean'] as JsonType[])).map((t) =>
    ofType(t, schema, options, pointer),
  );
  return parts.length === 1 ? parts[0] : fc.oneof(...parts);
}

export function ofType(
  type: JsonType,
  schema: JsonSchema,
  options: ValueOptions,
  pointer: string,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return numberArbitrary(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayArbitrary(schema, options, pointer);
    case 'object':
      return objectArbitrary(schema, options, pointer);
  }
}

/** Words of letters and digits joined by single spaces: a string no reasonable service refuses. */
export function wordsArbitrary(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const fits = (s: string) => s.length >= minLength && s.length <= maxLength;
  if (maxLength < 1) return fc.constant('');
  return (
    fc
      // Each word starts with a letter: a word of digits alone would read as an amount.
      .array(
        fc.tuple(letters(1, 1), alphanumerics(0, Math.min(7, maxLength - 1))).map(([a, b]) => a + b),
        { minLength: 1, maxLength: 3 },
      )
      .map((w) => w.join(' '))
      .map((s) => (s.length < minLength ? s + 'x'.repeat(minLength - s.length) : s))
      .filter(fits)
  );
}

export function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? min + SMALL;
  const fits = (s: string) => [...s].length >= min && [...s].length <= (schema.maxLength ?? Infinity);
  if (schema.pattern !== undefined) {
    // Bigger sizes only when a minLength asks for long matches, so that the filter rarely rejects.
    const size = min > 8 ? 'large' : min > 2 ? 'medium' : 'xsmall';
    return fc.stringMatching(new RegExp(schema.pattern), { size }).filter(fits);
  }
  const format = schema.format ? formatArbitrary(schema.format) : undefined;
  if (format) return format.filter(fits);
  // An empty string is valid only where the document allows it (minLength 0 written down).
  const small = wordsArbitrary(Math.max(min, schema.minLength === undefined ? 1 : 0), Math.min(max, min + SMALL));
  if (schema.maxLength === undefined || schema.maxLength <= min + SMALL) return small;
  // The documented boundary (e.g. 255) is a valid value worth sending.
  const boundary = fc.tuple(letters(1, 1), alphanumerics(max - 1, max - 1)).map(([a, b]) => a + b);
  return fc.oneof({ arbitrary: small, weight: 4 }, { arbitrary: boundary, weight: 1 });
}

/** Inclusive integer bounds, from inclusive and exclusive keywords. */
export function integerBounds(schema: JsonSchema): { min?: number; max?: number } {
  let min = schema.minimum !== undefined ? Math.ceil(schema.minimum) : undefined;
  let max = schema.maximum !== undefined ? Math.floor(schema.maximum) : undefined;
  if (schema.exclusiveMinimum !== undefined) min = Math.max(min ?? -Infinity, Math.floor(schema.exclusiveMinimum) + 1);
  if (schema.exclusiveMaximum !== undefined) max = Math.min(max ?? Infinity, Math.ceil(schema.exclusiveMaximum) - 1);
  return { min, max };
}

/**
 * Integers within the documented bounds; without a lower bound, positive ones (zero and
 * negatives are edges where the document gives only a type).
 */
export function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const b = integerBounds(schema);
  const min = b.min ?? (b.max !== undefined && b.max < 1 ? b.max - SPAN : 1);
  const max = b.max ?? Math.max(min, 0) + SPAN;
  return fc.integer({ min, max });
}

/** Numbers with at most two decimals, as amounts and percentages are written; positive without a lower bound. */
export function numberArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const lo = schema.minimum ?? schema.exclusiveMinimum;
  const hi = schema.maximum ?? schema.exclusiveMaximum;
  const minCents =
    lo === undefined ? Math.round((hi !== undefined && hi <= 0 ? hi - SPAN : 0.01) * 100) : Math.ceil(lo * 100);
  const maxCents = hi === undefined ? (Math.max(minCents / 100, 0) + SPAN) * 100 : Math.floor(hi * 100);
  const ok = (n: number) =>
    (schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum) &&
    (schema.exclusiveMaximum === undefined || n < schema.exclusiveMaximum) &&
    (schema.minimum === undefined || n >= schema.minimum) &&
    (schema.maximum === undefined || n <= schema.maximum);
  return fc
    .integer({ min: minCents, max: maxCents })
    .map((c) => c / 100 + 0) // + 0 turns -0 into 0
    .filter(ok);
}

/** Lists of the documented length; without a minimum, not empty (an empty list is an edge). */
export function arrayArbitrary(schema: JsonSchema, options: ValueOptions, pointer: string): fc.Arbitrary<unknown[]> {
  const minLength = schema.minItems ?? 1;
  const maxLength = Math.min(schema.maxItems ?? minLength + 3, minLength + 3);
  const items = schema.items ?? {};
  return fc.array(arbitraryFromSchema(items, options, `${pointer}/0`), { minLength, maxLength });
}

/** Free-form objects (e.g. metadata) get a few entries of words (other values there are edges). */
const freeFormValue = wordsArbitrary(1, SMALL);

/**
 * An object: required properties always, optional ones sometimes; `replace` swaps one
 * property's arbitrary (or drops it with `undefined`), which is how negatives are built.
 */
export function objectArbitrary(
  schema: JsonSchema,
  options: ValueOptions,
  pointer: string,
  replace?: { key: string; arbitrary: fc.Arbitrary<unknown> | undefined },
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const keys = Object.keys(properties);
  if (keys.length === 0 && !replace) {
    if (schema.additionalProperties === false) return fc.constant({});
    const values =
      typeof schema.additionalProperties === 'object'
        ? arbitraryFromSchema(schema.additionalProperties, options)
        : freeFormValue;
    return fc.dictionary(fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,7}$/), values, { maxKeys: 3 });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredKeys: string[] = [];
  for (const key of keys) {
    const at = `${pointer}${pointerOf([key])}`;
    if (replace?.key === key) continue;
    const shaped = shapedAt(at, options);
    if (shaped) {
      model[key] = shaped;
      requiredKeys.push(key);
      continue;
    }
    if (!required.has(key) && (options.omit?.includes(at) || isNotShown(properties[key]))) continue;
    model[key] = arbitraryFromSchema(properties[key], options, at);
    if (required.has(key)) requiredKeys.push(key);
  }
  if (replace?.arbitrary) {
    model[replace.key] = replace.arbitrary;
    requiredKeys.push(replace.key);
  }
  return fc.record(model, { requiredKeys });
}

/** Shallow merge of allOf parts (enough for request schemas). */
export function mergeAll(schema: JsonSchema): JsonSchema {
  if (!schema.allOf) return schema;
  const { allOf, ...rest } = schema;
  const out: JsonSchema = { ...rest };
  for (const part of allOf.map(mergeAll)) {
    for (const [k, v] of Object.entries(part)) {
      if (k === 'properties') out.properties = { ...(out.properties ?? {}), ...(v as Record<string, JsonSchema>) };
      else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...(v as string[])])];
      else out[k] = v;
    }
  }
  return out;
}
