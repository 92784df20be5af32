/**
 * A value read back against the value sent, as the document types the field: a date-time as
 * an instant (`+00:00` is `Z`; at the coarser precision of the two texts), a decimal string
 * by value (`42.5` is `42.50`), a number by value, an object by the keys sent (extra keys are
 * the server's), an array item by item, anything else exactly (enumerations included).
 */
import { isDeepStrictEqual } from 'node:util';
import { Decimal } from 'decimal.js';
import type { JsonSchema } from '../../../contract/index.ts';
import { compareInstants, DECIMAL } from '../../predicates.ts';
import { isObject } from '../types.ts';

/** The properties and items a schema gives, through allOf and nullable type lists. */
function properties(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  if (!isObject(schema)) return {};
  const own = isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const merged = Array.isArray(schema.allOf) ? schema.allOf.map((s: JsonSchema) => properties(s)) : [];
  return Object.assign({}, ...merged, own);
}

function itemsOf(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!isObject(schema)) return undefined;
  if (isObject(schema.items)) return schema.items;
  for (const s of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const i = itemsOf(s);
    if (i) return i;
  }
  return undefined;
}

function has(schema: JsonSchema | undefined, key: string, value: unknown): boolean {
  if (!isObject(schema)) return false;
  if (schema[key] === value) return true;
  return Array.isArray(schema.allOf) && schema.allOf.some((s: JsonSchema) => has(s, key, value));
}

const isDecimalSchema = (schema: JsonSchema | undefined) => has(schema, 'pattern', DECIMAL.source);

/** The schema of a top-level field of a resource (undefined when the resource does not have it). */
export function fieldSchema(resource: JsonSchema, field: string): JsonSchema | undefined {
  return properties(resource)[field];
}

/**
 * Where `got` is not `sent`, as the field's schema types it: a dotted path and what differs, or
 * undefined when it holds. `decimal` says the field holds a decimal though its schema has no pattern.
 */
export function differs(
  schema: JsonSchema | undefined,
  sent: unknown,
  got: unknown,
  decimal = false,
  path = '',
): string | undefined {
  const at = path || 'the value';
  if (sent === null) return got === null || got === undefined ? undefined : `${at}: null sent`;
  if (got === undefined) return `${at}: absent`;
  if (typeof sent === 'string' && typeof got === 'string') {
    if (has(schema, 'format', 'date-time')) {
      const c = compareInstants(sent, got);
      if (c !== undefined) return c === 0 ? undefined : `${at}: another instant`;
    }
    if ((decimal || isDecimalSchema(schema)) && DECIMAL.test(sent) && DECIMAL.test(got))
      return new Decimal(sent).equals(got) ? undefined : `${at}: another amount`;
    return sent === got ? undefined : `${at}: another value`;
  }
  if (typeof sent === 'number' && typeof got === 'number') return sent === got ? undefined : `${at}: another number`;
  if (Array.isArray(sent)) {
    if (!Array.isArray(got) || got.length !== sent.length)
      return `${at}: ${Array.isArray(got) ? `${got.length} items` : 'not a list'}`;
    const items = itemsOf(schema);
    for (let i = 0; i < sent.length; i++) {
      const d = differs(items, sent[i], got[i], false, `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (isObject(sent)) {
    if (!isObject(got)) return `${at}: not an object`;
    const props = properties(schema);
    for (const [k, v] of Object.entries(sent)) {
      const d = differs(props[k], v, got[k], false, path ? `${path}.${k}` : k);
      if (d) return d;
    }
    return undefined;
  }
  return isDeepStrictEqual(sent, got) ? undefined : `${at}: another value`;
}
