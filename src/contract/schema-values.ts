/**
 * The values a schema of spec/openapi.yaml states, read by where they are stated: an enum, a
 * constant, a default, a numeric bound, the literal prefix of an id pattern. The engine, the passive judge,
 * the CLI and the suites read these instead of writing a copy (every bound is read from the
 * schema, never a constant): test/architecture/contract-literals.test.ts fails on a copy.
 *
 * A reference names a schema:
 *   `VersionPolicy`                 components/schemas/VersionPolicy
 *   `ApiKey.scope`                  a property of a component schema (through properties and the
 *                                   members of allOf, anyOf and oneOf; `[]` steps into items)
 *   `updateAlert:query.resource`    a request's: `path.<name>`, `query.<name>`, `body` or `body.<field>`
 * Every accessor throws an Error naming the reference and what it lacks: an unknown schema,
 * operation or property, or a schema that does not state the value asked for.
 */
import type { JsonSchema } from './operations.ts';
import { isObject } from './resolve.ts';
import type { RequestSchemas } from './types.ts';

/** What reading a schema's values needs: the loader's Spec, or a check's SpecView (component schemas only). */
export interface SchemaSource {
  componentSchema(name: string): unknown;
  requestSchemas?(operationId: string): RequestSchemas | undefined;
}

/** Numeric keywords of a schema. */
export type BoundKeyword =
  'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum' | 'minLength' | 'maxLength' | 'minItems' | 'maxItems';

const MEMBERS = ['allOf', 'anyOf', 'oneOf'] as const;

/** The schemas a step can be taken in: the schema itself and, recursively, the members of its allOf/anyOf/oneOf. */
function alternatives(schema: JsonSchema): JsonSchema[] {
  const out = [schema];
  for (const key of MEMBERS)
    for (const m of Array.isArray(schema[key]) ? schema[key] : []) if (isObject(m)) out.push(...alternatives(m));
  return out;
}

/** One step: a property (or `[]`, the items), merged over every alternative stating it (the later ones win). */
function step(schema: JsonSchema, name: string): JsonSchema | undefined {
  const found = alternatives(schema)
    .map((s) => (name === '[]' ? s.items : isObject(s.properties) ? s.properties[name] : undefined))
    .filter(isObject);
  return found.length ? Object.assign({}, ...found) : undefined;
}

/** The schema a reference names (see the module's comment); throws an Error naming the reference when there is none. */
export function schemaAt(source: SchemaSource, ref: string): JsonSchema {
  const colon = ref.indexOf(':');
  const [head = '', ...steps] = colon >= 0 ? ref.slice(colon + 1).split('.') : ref.split('.');
  let schema: JsonSchema | undefined;
  let at: string;
  if (colon >= 0) {
    const operationId = ref.slice(0, colon);
    if (!source.requestSchemas) throw new Error(`${ref}: this view of the spec gives no request schemas`);
    const request = source.requestSchemas(operationId);
    if (!request) throw new Error(`${ref}: unknown operation ${operationId}`);
    if (head !== 'path' && head !== 'query' && head !== 'body')
      throw new Error(`${ref}: ${head || '(nothing)'} is not path, query or body`);
    schema = request[head];
    if (!schema) throw new Error(`${ref}: ${operationId} takes no ${head === 'body' ? 'body' : `${head} parameters`}`);
    at = `${operationId}:${head}`;
  } else {
    const found = source.componentSchema(head);
    if (!isObject(found)) throw new Error(`${ref}: no schema ${head} in components/schemas`);
    schema = found;
    at = head;
  }
  for (const name of steps) {
    const next = step(schema, name);
    if (!next) throw new Error(`${ref}: ${at} has no ${name === '[]' ? 'items' : `property ${name}`}`);
    schema = next;
    at = `${at}.${name}`;
  }
  return schema;
}

/**
 * The values of the enum a reference names, in the document's order. With `count`, exactly that
 * many (a caller naming them by position); throws an Error naming the reference otherwise.
 */
export function schemaEnum(source: SchemaSource, ref: string, count?: number): readonly string[] {
  const values: unknown = schemaAt(source, ref).enum;
  if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string'))
    throw new Error(`${ref}: states no enum of strings`);
  if (count !== undefined && values.length !== count)
    throw new Error(`${ref}: enum [${values.join(', ')}] has ${values.length} values, ${count} expected`);
  return values as string[];
}

/** The constant the schema a reference names states (an object's name: `Item.object`); throws naming the reference when none. */
export function schemaConst(source: SchemaSource, ref: string): string {
  const v: unknown = schemaAt(source, ref).const;
  if (typeof v !== 'string') throw new Error(`${ref}: states no string const`);
  return v;
}

/** The default the schema a reference names states; throws an Error naming the reference when it states none. */
export function schemaDefault(source: SchemaSource, ref: string): unknown {
  const schema = schemaAt(source, ref);
  if (!('default' in schema)) throw new Error(`${ref}: states no default`);
  return schema.default;
}

/** A numeric bound (maximum, maxLength...) the schema a reference names states; throws naming the reference when absent. */
export function schemaBound(source: SchemaSource, ref: string, keyword: BoundKeyword): number {
  const v: unknown = schemaAt(source, ref)[keyword];
  if (typeof v !== 'number') throw new Error(`${ref}: states no ${keyword}`);
  return v;
}

/**
 * The literal prefix of an id pattern (`cus_` of `^cus_[a-zA-Z0-9]+$`): the characters after `^`
 * up to and including the first `_`. Throws naming the reference when its pattern starts otherwise.
 */
export function idPrefix(source: SchemaSource, ref: string): string {
  const pattern: unknown = schemaAt(source, ref).pattern;
  const prefix = typeof pattern === 'string' ? /^\^([A-Za-z0-9]+_)/.exec(pattern)?.[1] : undefined;
  if (!prefix) throw new Error(`${ref}: states no id pattern starting with a literal prefix (got ${String(pattern)})`);
  return prefix;
}
