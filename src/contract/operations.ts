/** Operation objects built from the document's paths: parameters, bodies, responses, notes. */
import { SpecError, type JsonObject } from './load.ts';
import { deref, inlineSchema, isObject } from './resolve.ts';

export type JsonSchema = Record<string, any>;

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface RateLimit {
  limit: number;
  windowSeconds: number;
  bucket: 'merchant' | 'subscription';
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** Inlined JSON Schema (no $ref). */
  schema: JsonSchema;
  description?: string;
  /** The document does not show this parameter; the reference server chose it. */
  referenceChoice?: string;
  notShown?: string;
}

export interface RequestBody {
  required: boolean;
  contentType: string;
  /** Inlined JSON Schema (no $ref). */
  schema: JsonSchema;
  /** As written, possibly a `$ref` into components/schemas. */
  rawSchema: JsonSchema;
  referenceChoice?: string;
  notShown?: string;
}

export interface ResponseHeader {
  name: string;
  required: boolean;
  schema: JsonSchema;
  description?: string;
}

export interface Response {
  /** '200', '2XX', '404', 'default'... */
  key: string;
  description: string;
  contentType?: string;
  /** Inlined JSON Schema of the body; absent when the response declares no content. */
  schema?: JsonSchema;
  /** As written (e.g. `{ $ref: '#/components/schemas/Customer' }`). */
  rawSchema?: JsonSchema;
  /** Component name when the body schema is a plain `$ref` to components/schemas. */
  schemaName?: string;
  /** Lower-case header name to its declaration. */
  headers: Record<string, ResponseHeader>;
  /** Lower-case names of the declared headers. */
  headerNames: string[];
  /** Names of the headers declared `required: true`. */
  requiredHeaders: string[];
  notShown?: string;
  referenceChoice?: string;
}

export interface Operation {
  operationId: string;
  /** Upper case: GET, POST... */
  method: string;
  pathTemplate: string;
  summary: string;
  description?: string;
  tags: string[];
  /** `x-extension: reference`: never judged on a target. */
  extension: boolean;
  /** `x-rate-limit`: the six listed rate-limited operations. */
  rateLimit?: RateLimit;
  /** Security scheme names required (operation level, else global). */
  security: string[];
  parameters: Parameter[];
  requestBody?: RequestBody;
  responses: Record<string, Response>;
  /** `x-not-shown` notes of the operation, its body, parameters and responses. */
  notShown: string[];
  /** The operation-level `x-reference-choice`, when any. */
  referenceChoice?: string;
}

function note(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function jsonContent(content: unknown): { contentType: string; schema: unknown } | undefined {
  if (!isObject(content)) return undefined;
  const type =
    Object.keys(content).find((t) => t === 'application/json') ?? Object.keys(content).find((t) => /json/.test(t));
  if (!type) return undefined;
  return { contentType: type, schema: (content[type] as JsonObject)?.schema };
}

function parameterFrom(doc: JsonObject, raw: unknown): Parameter {
  const p = deref(doc, raw);
  if (typeof p.name !== 'string' || typeof p.in !== 'string')
    throw new SpecError(`parameter without name or in: ${JSON.stringify(raw)}`);
  return {
    name: p.name,
    in: p.in as Parameter['in'],
    required: p.in === 'path' ? true : p.required === true,
    schema: inlineSchema(doc, p.schema ?? {}),
    ...(p.description ? { description: p.description } : {}),
    ...(note(p['x-reference-choice']) ? { referenceChoice: note(p['x-reference-choice']) } : {}),
    ...(note(p['x-not-shown']) ? { notShown: note(p['x-not-shown']) } : {}),
  };
}

function responseFrom(doc: JsonObject, key: string, raw: unknown): Response {
  const r = deref(doc, raw);
  const headers: Record<string, ResponseHeader> = {};
  for (const [name, h] of Object.entries((r.headers ?? {}) as JsonObject)) {
    const header = deref(doc, h);
    const lower = name.toLowerCase();
    headers[lower] = {
      name: lower,
      required: header.required === true,
      schema: inlineSchema(doc, header.schema ?? {}),
      ...(header.description ? { description: header.description } : {}),
    };
  }
  const content = jsonContent(r.content);
  const rawSchema = content?.schema as JsonSchema | undefined;
  const ref = typeof rawSchema?.$ref === 'string' && Object.keys(rawSchema).length === 1 ? rawSchema.$ref : undefined;
  return {
    key,
    description: String(r.description ?? ''),
    ...(content ? { contentType: content.contentType } : {}),
    ...(rawSchema ? { schema: inlineSchema(doc, rawSchema), rawSchema } : {}),
    ...(ref?.startsWith('#/components/schemas/') ? { schemaName: ref.slice('#/components/schemas/'.length) } : {}),
    headers,
    headerNames: Object.keys(headers),
    requiredHeaders: Object.values(headers)
      .filter((h) => h.required)
      .map((h) => h.name),
    ...(note(r['x-not-shown']) ? { notShown: note(r['x-not-shown']) } : {}),
    ...(note(r['x-reference-choice']) ? { referenceChoice: note(r['x-reference-choice']) } : {}),
  };
}

function rateLimitFrom(raw: unknown, where: string): RateLimit | undefined {
  if (raw === undefined) return undefined;
  if (
    !isObject(raw) ||
    typeof raw.limit !== 'number' ||
    typeof raw.windowSeconds !== 'number' ||
    (raw.bucket !== 'merchant' && raw.bucket !== 'subscription')
  ) {
    throw new SpecError(
      `${where}: x-rate-limit must be {limit: number, windowSeconds: number, bucket: merchant|subscription}`,
    );
  }
  return { limit: raw.limit, windowSeconds: raw.windowSeconds, bucket: raw.bucket };
}

/** Every operation of the document, keyed by operationId. */
export function buildOperations(doc: JsonObject): Map<string, Operation> {
  const out = new Map<string, Operation>();
  const globalSecurity = securityNames(doc.security) ?? [];
  for (const [pathTemplate, rawItem] of Object.entries(doc.paths as JsonObject)) {
    const item = deref(doc, rawItem);
    const shared = ((item.parameters ?? []) as unknown[]).map((p) => parameterFrom(doc, p));
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const where = `${method.toUpperCase()} ${pathTemplate}`;
      if (typeof op.operationId !== 'string') throw new SpecError(`${where}: no operationId`);
      if (out.has(op.operationId)) throw new SpecError(`${where}: duplicate operationId ${op.operationId}`);
      const own = ((op.parameters ?? []) as unknown[]).map((p) => parameterFrom(doc, p));
      const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      const notShown: string[] = [];
      const push = (v: unknown, prefix?: string) => {
        const n = note(v);
        if (n) notShown.push(prefix ? `${prefix}: ${n}` : n);
      };
      push(op['x-not-shown']);

      let requestBody: RequestBody | undefined;
      if (op.requestBody !== undefined) {
        const rb = deref(doc, op.requestBody);
        const content = jsonContent(rb.content);
        if (!content) throw new SpecError(`${where}: request body without a JSON media type`);
        const rawSchema = (content.schema ?? {}) as JsonSchema;
        requestBody = {
          required: rb.required === true,
          contentType: content.contentType,
          schema: inlineSchema(doc, rawSchema),
          rawSchema,
          ...(note(rb['x-reference-choice']) ? { referenceChoice: note(rb['x-reference-choice']) } : {}),
          ...(note(rb['x-not-shown']) ? { notShown: note(rb['x-not-shown']) } : {}),
        };
        push(rb['x-not-shown'], 'request body');
      }
      for (const p of parameters) push(p.notShown, `parameter ${p.name}`);

      const responses: Record<string, Response> = {};
      for (const [key, raw] of Object.entries((op.responses ?? {}) as JsonObject)) {
        const r = responseFrom(doc, key, raw);
        responses[key] = r;
        push(r.notShown, `response ${key}`);
      }
      const rateLimit = rateLimitFrom(op['x-rate-limit'], where);
      out.set(op.operationId, {
        operationId: op.operationId,
        method: method.toUpperCase(),
        pathTemplate,
        summary: String(op.summary ?? ''),
        ...(op.description ? { description: String(op.description) } : {}),
        tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
        extension: op['x-extension'] === 'reference',
        ...(rateLimit ? { rateLimit } : {}),
        security: securityNames(op.security) ?? globalSecurity,
        parameters,
        ...(requestBody ? { requestBody } : {}),
        responses,
        notShown,
        ...(note(op['x-reference-choice']) ? { referenceChoice: note(op['x-reference-choice']) } : {}),
      });
    }
  }
  return out;
}

function securityNames(raw: unknown): string[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return [...new Set(raw.flatMap((req) => (isObject(req) ? Object.keys(req) : [])))];
}

/** The declared response for a status: the exact code, then its range key ('4XX'), then 'default'. */
export function pickResponse(op: Operation, status: number | string): Response | undefined {
  const code = String(status);
  const range = `${code[0]}XX`;
  return op.responses[code] ?? op.responses[range] ?? op.responses[range.toLowerCase()] ?? op.responses.default;
}
