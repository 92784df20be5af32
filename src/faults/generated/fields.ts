/**
 * The documented fields of a response schema, and small pure edits of a JSON body at a
 * field's path: what the generated faults do to answers. A path is a list of property
 * names where `*` stands for every item of an array.
 */
import fc from 'fast-check';
import { isObj, T0, type Json } from '../catalog/helpers.ts';
import { mergeAll } from '../../engine/generators/valid.ts';
import { hasType, typesOf, type JsonSchema, type JsonType } from '../../engine/generators/schema.ts';

export interface FieldSite {
  path: string[];
  /** The field's schema, allOf parts merged. */
  schema: JsonSchema;
  /** Listed in its object's `required`. */
  required: boolean;
  /**
   * Its object states which fields are required (the document gives them a Required
   * column or says "always present"), so an optional field may be left out. Otherwise
   * the document does not say whether the field is always there.
   */
  presenceStated: boolean;
  /** Part of the value (its allowed values, its form, its contents) is not shown or is the reference's choice. */
  valueNotShown: boolean;
  /** Required by one of the documented shapes of the body (oneOf/anyOf) and not by another. */
  requiredInSomeShape: boolean;
}

/** Fields a oneOf/anyOf branch requires and another does not (kept on the flattened schema). */
const REQUIRED_IN_SOME = 'x-required-in-some-branch';

/** allOf merged; a oneOf/anyOf becomes the union of its branches' properties, required where every branch requires. */
export function flatten(schema: JsonSchema): JsonSchema {
  const merged = mergeAll(schema);
  const union = merged.oneOf ?? merged.anyOf;
  if (!union) return merged;
  const branches = union.map(flatten);
  const { oneOf: _o, anyOf: _a, ...rest } = merged;
  const required = branches
    .map((b) => new Set(b.required ?? []))
    .reduce((a, b) => new Set([...a].filter((k) => b.has(k))));
  const inSome = [...new Set(branches.flatMap((b) => b.required ?? []))].filter((k) => !required.has(k));
  const properties: Record<string, JsonSchema> = {};
  for (const b of branches) for (const [k, v] of Object.entries(b.properties ?? {})) properties[k] ??= v;
  return {
    ...rest,
    type: 'object',
    properties: { ...properties, ...(rest.properties ?? {}) },
    required: [...new Set([...(rest.required ?? []), ...required])],
    [REQUIRED_IN_SOME]: inSome,
  };
}

const noted = (s: JsonSchema): boolean => s['x-not-shown'] !== undefined || s['x-reference-choice'] !== undefined;

/**
 * A field the document does not define: a reference extension, or a name the reference
 * chose for a behaviour the document describes without a field (noted, and untyped).
 */
const undocumented = (s: JsonSchema): boolean =>
  s['x-extension'] !== undefined || (noted(s) && typesOf(s).length === 0);

const PRESENCE_NOTE = /\b(always present|present on|present when|is present)\b/i;

/** The descriptions of a schema and of its allOf parts. */
function descriptions(s: JsonSchema): string[] {
  return [
    ...(typeof s.description === 'string' ? [s.description] : []),
    ...((s.allOf as JsonSchema[] | undefined) ?? []).flatMap(descriptions),
  ];
}

/** Every documented field under `schema`, depth first. */
export function fieldSites(schema: JsonSchema | undefined, path: string[] = []): FieldSite[] {
  if (!schema) return [];
  const s = flatten(schema);
  const out: FieldSite[] = [];
  if (s.items && typesOf(s).includes('array')) return fieldSites(s.items, [...path, '*']);
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  // A Required column states every field's presence; a note on one field ("always present",
  // "present on single-price reads") states that field's alone.
  const notes = [...descriptions(schema), ...descriptions(s)].join(' ');
  const presenceNoted = (k: string) =>
    [...descriptions(props[k] ?? {})].some((d) => PRESENCE_NOTE.test(d)) ||
    new RegExp(`\\b${k}\\b[^.]*\\b${PRESENCE_NOTE.source}`, 'i').test(notes);
  const presenceStated = [...required].some((k) => k !== 'object' && !presenceNoted(k));
  for (const [key, raw] of Object.entries(props)) {
    const field = flatten(raw);
    if (undocumented(field)) continue;
    const inSome = ((s[REQUIRED_IN_SOME] as string[] | undefined) ?? []).includes(key);
    out.push({
      path: [...path, key],
      schema: field,
      required: required.has(key),
      presenceStated,
      valueNotShown: noted(field),
      requiredInSomeShape: inSome,
    });
    out.push(...fieldSites(field, [...path, key]));
  }
  return out;
}

export const pathLabel = (path: string[]): string => path.join('.').replace(/\.\*/g, '[]');

/**
 * Calls `edit(parent, key)` at every place `path` reaches in `body`; returns whether any
 * call reported a change. Missing steps are skipped (nothing to edit there).
 */
export function editAt(body: unknown, path: string[], edit: (parent: Json, key: string) => boolean): boolean {
  const [head, ...rest] = path;
  if (head === undefined) return false;
  if (head === '*') {
    if (!Array.isArray(body)) return false;
    let changed = false;
    for (const item of body) changed = editAt(item, rest, edit) || changed;
    return changed;
  }
  if (!isObj(body)) return false;
  if (!rest.length) return head in body ? edit(body, head) : false;
  return editAt(body[head], rest, edit);
}

/** Replaces the value at `path` by `to(value)` wherever that gives something else (undefined: leave it). */
export function replaceAt(body: unknown, path: string[], to: (v: unknown) => unknown): boolean {
  return editAt(body, path, (parent, key) => {
    const next = to(parent[key]);
    if (next === undefined || JSON.stringify(next) === JSON.stringify(parent[key])) return false;
    parent[key] = next;
    return true;
  });
}

export function dropAt(body: unknown, path: string[]): boolean {
  return editAt(body, path, (parent, key) => delete parent[key]);
}

/** A value of a JSON type the schema does not admit, written the way a careless server would. */
export function otherType(v: unknown, schema: JsonSchema): unknown {
  const types = typesOf(schema);
  if (!types.length) return undefined;
  const candidates: unknown[] =
    typeof v === 'string'
      ? [Number.isFinite(Number(v)) && v.trim() !== '' ? Number(v) : 12345, true]
      : typeof v === 'number' || typeof v === 'boolean'
        ? [String(v)]
        : v === null
          ? [0, 'null']
          : [JSON.stringify(v)];
  return candidates.find((c) => !hasType(c, types as JsonType[]));
}

/** A string that breaks `pattern`: the prefix separator changed, a character appended, or lower case. */
export function breakPattern(v: unknown, pattern: string): unknown {
  if (typeof v !== 'string') return undefined;
  const re = new RegExp(pattern);
  return [v.replace(/^([a-z]+)_/, '$1-'), `${v}-x`, `${v.toLowerCase()}-x`, ''].find((c) => c !== v && !re.test(c));
}

/** A value outside the enum or const. */
export function breakEnum(v: unknown, schema: JsonSchema): unknown {
  const allowed = schema.const !== undefined ? [schema.const] : (schema.enum ?? []);
  if (!allowed.length) return undefined;
  const c = typeof v === 'string' ? `${v}_other` : typeof v === 'number' ? v + 1000 : undefined;
  return c !== undefined && !allowed.includes(c) ? c : undefined;
}

const BROKEN_FORMAT: Record<string, string> = {
  'date-time': '24/11/2026 09:30',
  date: '24/11/2026',
  email: 'billing.example.com',
  uri: 'not a uri',
};

export function breakFormat(v: unknown, format: string): unknown {
  return typeof v === 'string' ? BROKEN_FORMAT[format] : undefined;
}

/** One past a documented minimum or maximum of a number in an answer. */
export function breakRange(v: unknown, schema: JsonSchema): unknown {
  if (typeof v !== 'number') return undefined;
  if (schema.minimum !== undefined) return schema.minimum - 1;
  if (schema.maximum !== undefined) return schema.maximum + 1;
  return undefined;
}

/** What a server that resets a field would answer: the empty value of its type, or null where null is allowed. */
export function emptyOf(schema: JsonSchema): unknown {
  const types = typesOf(schema);
  if (types.includes('null')) return null;
  const t = types[0];
  return t === 'string'
    ? ''
    : t === 'integer' || t === 'number'
      ? 0
      : t === 'boolean'
        ? false
        : t === 'array'
          ? []
          : t === 'object'
            ? {}
            : undefined;
}

/** A body with every documented field present (arrays with one item): the demos' sample answers. */
export function fullSample(schema: JsonSchema | undefined, seed = 1): unknown {
  if (!schema) return undefined;
  const s = flatten(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const types = typesOf(s).filter((t) => t !== 'null');
  const t = types[0] ?? (s.properties ? 'object' : 'string');
  switch (t) {
    case 'object': {
      const out: Json = {};
      for (const [k, v] of Object.entries(s.properties ?? {}))
        if (!undocumented(flatten(v))) out[k] = fullSample(v, seed);
      return out;
    }
    case 'array':
      return [fullSample(s.items ?? {}, seed)];
    case 'integer':
      return s.minimum !== undefined ? Math.max(1, s.minimum) : 1;
    case 'number':
      return s.minimum !== undefined ? Math.max(1, s.minimum) : 1.5;
    case 'boolean':
      return true;
    default:
      if (s.pattern)
        return fc.sample(
          fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length > 0 && x.length < 40),
          { seed, numRuns: 1 },
        )[0];
      if (s.format === 'date-time') return T0;
      if (s.format === 'date') return T0.slice(0, 10);
      if (s.format === 'email') return 'billing@example.com';
      if (s.format === 'uri') return 'https://example.com/x';
      return 'demo';
  }
}
