/** Small helpers over a raw (unresolved) OpenAPI document. */

export type Json = Record<string, any>;
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Follows local `$ref`s (`#/...`) until a non-ref node; unknown refs give undefined. */
export function deref(doc: Json, node: any, seen = new Set<string>()): any {
  while (node && typeof node === 'object' && typeof node.$ref === 'string') {
    const ref: string = node.$ref;
    if (!ref.startsWith('#/') || seen.has(ref)) return undefined;
    seen.add(ref);
    node = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((acc: any, key) => (acc && typeof acc === 'object' ? acc[key] : undefined), doc);
  }
  return node;
}

/** Name of the components schema a `$ref` points at, if any. */
export function refName(node: any): string | undefined {
  const ref = node?.$ref;
  const m = typeof ref === 'string' ? /^#\/components\/schemas\/([^/]+)$/.exec(ref) : null;
  return m ? m[1] : undefined;
}

export interface OperationEntry {
  path: string;
  method: string;
  operation: Json;
  /** JSON path of the operation in the document. */
  at: (string | number)[];
}

export function operations(doc: Json): OperationEntry[] {
  const out: OperationEntry[] = [];
  for (const [path, rawItem] of Object.entries<any>(doc?.paths ?? {})) {
    const item = deref(doc, rawItem);
    if (!item || typeof item !== 'object') continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation && typeof operation === 'object')
        out.push({ path, method, operation, at: ['paths', path, method] });
    }
  }
  return out;
}

export const isExtension = (op: Json) => op?.['x-extension'] === 'reference';

/** Normalised schema name: lower case, letters and digits only. */
export const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Every pattern a (possibly composed or nullable) schema carries. */
export function patternsOf(doc: Json, schema: any, depth = 0): string[] {
  const s = deref(doc, schema);
  if (!s || typeof s !== 'object' || depth > 8) return [];
  const own = typeof s.pattern === 'string' ? [s.pattern] : [];
  const parts = ['allOf', 'anyOf', 'oneOf'].flatMap((k) => (Array.isArray(s[k]) ? s[k] : []));
  return [...own, ...parts.flatMap((p: any) => patternsOf(doc, p, depth + 1))];
}

/** The properties of an object schema through allOf; a property constrained in several parts becomes {allOf: [...]}. */
export function propertiesOf(doc: Json, schema: any, depth = 0): Record<string, any> {
  const s = deref(doc, schema);
  if (!s || typeof s !== 'object' || depth > 8) return {};
  const merged: Record<string, any> = {};
  const parts = [
    ...(Array.isArray(s.allOf) ? s.allOf.map((p: any) => propertiesOf(doc, p, depth + 1)) : []),
    s.properties ?? {},
  ];
  for (const props of parts) {
    for (const [name, sub] of Object.entries(props))
      merged[name] = name in merged ? { allOf: [merged[name], sub] } : sub;
  }
  return merged;
}

/** Schemas that all apply to a value: the schema and, recursively, its allOf members. */
function conjuncts(doc: Json, schema: any, depth = 0): Json[] {
  const s = deref(doc, schema);
  if (!s || typeof s !== 'object' || depth > 8) return [];
  return [s, ...(Array.isArray(s.allOf) ? s.allOf.flatMap((p: any) => conjuncts(doc, p, depth + 1)) : [])];
}

/** The constant value(s) a schema allows: const, or enum (through allOf). */
export function constantsOf(doc: Json, schema: any): unknown[] | undefined {
  for (const s of conjuncts(doc, schema)) {
    if ('const' in s) return [s.const];
    if (Array.isArray(s.enum)) return s.enum;
  }
  return undefined;
}

/** The declared type of a schema (through allOf), if any. */
export function typeOf(doc: Json, schema: any): unknown {
  return conjuncts(doc, schema).find((s) => s.type !== undefined)?.type;
}

/** Response entries of an operation, status code first, dereferenced. */
export function responsesOf(doc: Json, op: Json): [string, Json][] {
  return Object.entries<any>(op?.responses ?? {}).map(([status, r]) => [status, deref(doc, r) ?? {}]);
}

/** Lower-cased header names a response declares. */
export function headerNames(response: Json): string[] {
  return Object.keys(response?.headers ?? {}).map((h) => h.toLowerCase());
}
