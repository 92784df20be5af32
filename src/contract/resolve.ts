/** Local $ref resolution: JSON Pointers into the document, and full inlining for plain JSON Schemas. */
import { SpecError, type JsonObject } from './load.ts';

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value at a local reference such as `#/components/schemas/Customer`. */
export function pointerGet(doc: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new SpecError(`only local references are supported: ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) throw new SpecError(`unresolvable reference ${ref}`);
    node = (node as JsonObject)[key];
    if (node === undefined) throw new SpecError(`unresolvable reference ${ref}`);
  }
  return node;
}

/** Follows `$ref` chains on an OpenAPI object (parameter, response, header), siblings overriding. */
export function deref(doc: JsonObject, value: unknown, seen: string[] = []): JsonObject {
  if (!isObject(value)) throw new SpecError(`expected an object, got ${JSON.stringify(value)}`);
  if (typeof value.$ref !== 'string') return value;
  if (seen.includes(value.$ref)) throw new SpecError(`circular reference ${[...seen, value.$ref].join(' -> ')}`);
  const { $ref, ...siblings } = value;
  return { ...deref(doc, pointerGet(doc, $ref), [...seen, $ref]), ...siblings };
}

/**
 * A copy of `schema` with every `$ref` replaced by its target (siblings of a `$ref`, such as
 * `default` or `description`, override the target's). Throws on circular schemas.
 */
export function inlineSchema(doc: JsonObject, schema: unknown, seen: string[] = []): any {
  if (Array.isArray(schema)) return schema.map((s) => inlineSchema(doc, s, seen));
  if (!isObject(schema)) return schema;
  if (typeof schema.$ref === 'string') {
    const { $ref, ...siblings } = schema;
    if (seen.includes($ref)) throw new SpecError(`circular schema ${[...seen, $ref].join(' -> ')}`);
    const target = inlineSchema(doc, pointerGet(doc, $ref), [...seen, $ref]);
    return { ...target, ...inlineSchema(doc, siblings, seen) };
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) out[key] = inlineSchema(doc, value, seen);
  return out;
}

/** Deep copy without any key starting with `x-` (for consumers whose ajv is not told about them). */
export function stripExtensions<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stripExtensions) as T;
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) if (!key.startsWith('x-')) out[key] = stripExtensions(v);
  return out as T;
}
