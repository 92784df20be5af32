/** The project's Spectral functions: each checks one convention of the interface document. */
import { createRulesetFunction } from '@stoplight/spectral-core';
import {
  DEPENDENT_SHAPES,
  STATED_BOUNDS,
  type StatedBound,
  DOCUMENTED_OPERATIONS,
  PARAMETER_PATTERNS,
  RATE_HEADERS,
  RATE_LIMITED_OPERATIONS,
  REFERENCE_EXTENSION_TAG,
  RESOURCES,
  RESOURCE_OPERATIONS,
  RETRY_AFTER,
  ROLE_METHODS,
  type ResourceRole,
  type IdRule,
} from '../conventions.ts';
import {
  constantsOf,
  deref,
  typeOf,
  headerNames,
  isExtension,
  norm,
  operations,
  patternsOf,
  propertiesOf,
  refName,
  responsesOf,
  type Json,
} from './oas.ts';

type Result = { message: string; path: (string | number)[] };
type Check = (doc: Json) => Result[];

const wholeDocument = (check: Check) =>
  createRulesetFunction<Json, null>({ input: null, options: null }, (doc) => check(doc));

/** components/schemas entries that are documented resources. */
function resourceSchemas(doc: Json) {
  const schemas: Record<string, any> = doc?.components?.schemas ?? {};
  return RESOURCES.map((resource) => {
    const byObject = resource.object
      ? Object.keys(schemas).filter(
          (name) =>
            constantsOf(doc, propertiesOf(doc, schemas[name]).object)?.length === 1 &&
            constantsOf(doc, propertiesOf(doc, schemas[name]).object)?.[0] === resource.object,
        )
      : [];
    const wanted = new Set(resource.names.map(norm));
    const byName = Object.keys(schemas).filter((name) => wanted.has(norm(name)));
    return { resource, names: [...new Set([...byObject, ...byName])] };
  });
}

/** Each documented resource has a schema with an `object` property holding its type name. */
export const resourceObject = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const { resource, names } of resourceSchemas(doc)) {
    if (resource.object === null) continue;
    if (names.length === 0) {
      out.push({
        message:
          `The documented resource "${resource.title}" has no schema in components/schemas ` +
          `(looked for object '${resource.object}' or a name like ${resource.names[0]}).`,
        path: ['components', 'schemas'],
      });
      continue;
    }
    for (const name of names) {
      const object = propertiesOf(doc, doc.components.schemas[name]).object;
      const values = constantsOf(doc, object);
      if (!object)
        out.push({
          message: `Schema ${name} ("${resource.title}") has no \`object\` property; it must hold '${resource.object}'.`,
          path: ['components', 'schemas', name],
        });
      else if (!values || values.length !== 1 || values[0] !== resource.object)
        out.push({
          message: `Schema ${name}: \`object\` must be the constant '${resource.object}'.`,
          path: ['components', 'schemas', name, 'properties', 'object'],
        });
    }
  }
  return out;
});

/** Extension objects follow the conventions too: a schema with an id and timestamps has `object`. */
export const extensionObject = wholeDocument((doc) => {
  const out: Result[] = [];
  const exempt = new Set(RESOURCES.filter((r) => r.object === null).flatMap((r) => r.names.map(norm)));
  for (const [name, schema] of Object.entries<any>(doc?.components?.schemas ?? {})) {
    const props = propertiesOf(doc, schema);
    if (exempt.has(norm(name)) || !props.id || !props.createdAt) continue;
    if (!props.object)
      out.push({
        message: `Schema ${name} looks like a resource (id, createdAt) but has no \`object\` property.`,
        path: ['components', 'schemas', name],
      });
  }
  return out;
});

function idRuleProblem(patterns: string[], rule: IdRule): string | undefined {
  if ('exact' in rule) return patterns.includes(rule.exact) ? undefined : `pattern ${rule.exact}`;
  return patterns.some((p) => p.startsWith(`^${rule.prefix}`)) ? undefined : `a pattern starting with ^${rule.prefix}`;
}

/** Id fields, path ids and body ids carry the pattern the document gives them. */
export const idPatterns = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const { resource, names } of resourceSchemas(doc)) {
    for (const name of names) {
      const props = propertiesOf(doc, doc.components.schemas[name]);
      for (const [field, rule] of Object.entries(resource.ids)) {
        if (!props[field]) {
          out.push({
            message: `Schema ${name} ("${resource.title}") lacks the documented field ${field}.`,
            path: ['components', 'schemas', name, 'properties'],
          });
          continue;
        }
        const problem = idRuleProblem(patternsOf(doc, props[field]), rule);
        if (problem)
          out.push({
            message: `${name}.${field} must carry ${problem}.`,
            path: ['components', 'schemas', name, 'properties', field],
          });
      }
    }
  }
  const ops = new Map(operations(doc).map((o) => [o.operation.operationId, o]));
  for (const p of PARAMETER_PATTERNS) {
    const entry = ops.get(p.operationId);
    if (!entry) continue; // bm-documented-operations reports it
    if (p.in === 'path') {
      const item = deref(doc, doc.paths[entry.path]) ?? {};
      const params = [...(item.parameters ?? []), ...(entry.operation.parameters ?? [])].map((x: any) => deref(doc, x));
      const param = params.find((x: any) => x?.in === 'path' && x?.name === p.name);
      if (!param || !patternsOf(doc, param.schema).includes(p.pattern))
        out.push({
          message: `${p.operationId}: path parameter ${p.name} must carry pattern ${p.pattern}.`,
          path: [...entry.at, 'parameters'],
        });
    } else {
      const body = deref(doc, entry.operation.requestBody);
      const schema = body?.content?.['application/json']?.schema;
      const field = propertiesOf(doc, schema)[p.name];
      if (!field || !patternsOf(doc, field).includes(p.pattern))
        out.push({
          message: `${p.operationId}: body field ${p.name} must carry pattern ${p.pattern}.`,
          path: [...entry.at, 'requestBody'],
        });
    }
  }
  return out;
});

/** Bearer scheme exists, and every operation's effective security requires it. */
export const bearerSecurity = wholeDocument((doc) => {
  const out: Result[] = [];
  const schemes: Record<string, any> = doc?.components?.securitySchemes ?? {};
  const bearer = new Set(
    Object.entries(schemes)
      .filter(([, s]) => {
        const d = deref(doc, s);
        return d?.type === 'http' && String(d?.scheme).toLowerCase() === 'bearer';
      })
      .map(([n]) => n),
  );
  if (bearer.size === 0)
    out.push({ message: 'components.securitySchemes declares no HTTP bearer scheme.', path: ['components'] });
  for (const { operation, at } of operations(doc)) {
    const security = operation.security ?? doc.security;
    const ok =
      Array.isArray(security) &&
      security.length > 0 &&
      security.every((req: any) => req && Object.keys(req).some((n) => bearer.has(n)));
    if (!ok)
      out.push({
        message: `${operation.operationId ?? at.join(' ')} does not require bearer security (Authentication: security applies globally).`,
        path: operation.security ? [...at, 'security'] : at,
      });
  }
  return out;
});

/** Every operation declares 401 and 403. */
export const authResponses = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const { operation, at } of operations(doc)) {
    const missing = ['401', '403'].filter((s) => !(s in (operation.responses ?? {})));
    if (missing.length)
      out.push({
        message: `${operation.operationId ?? at.join(' ')} does not declare ${missing.join(' and ')}.`,
        path: [...at, 'responses'],
      });
  }
  return out;
});

function rateLimited(doc: Json) {
  const ops = new Map(operations(doc).map((o) => [o.operation.operationId, o]));
  return RATE_LIMITED_OPERATIONS.map((id) => ({ id, entry: ops.get(id) }));
}

/** The six listed operations: 429 with retry-after, the three headers on 2xx and 429, none on 401. */
export const rateLimitHeaders = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const { id, entry } of rateLimited(doc)) {
    if (!entry) {
      out.push({ message: `The rate-limited operation ${id} is missing.`, path: ['paths'] });
      continue;
    }
    const responses = new Map(responsesOf(doc, entry.operation));
    const at = [...entry.at, 'responses'];
    if (!responses.has('429')) out.push({ message: `${id} does not declare a 429 response.`, path: at });
    else if (!headerNames(responses.get('429')!).includes(RETRY_AFTER))
      out.push({ message: `${id}: the 429 response does not declare retry-after.`, path: [...at, '429'] });
    const successes = [...responses.keys()].filter((s) => /^2/.test(s));
    if (successes.length === 0) out.push({ message: `${id} declares no success response.`, path: at });
    for (const status of [...successes, ...(responses.has('429') ? ['429'] : [])]) {
      const missing = RATE_HEADERS.filter((h) => !headerNames(responses.get(status)!).includes(h));
      if (missing.length)
        out.push({
          message: `${id}: the ${status} response does not declare ${missing.join(', ')}.`,
          path: [...at, status],
        });
    }
    if (responses.has('401')) {
      const present = [...RATE_HEADERS, RETRY_AFTER].filter((h) => headerNames(responses.get('401')!).includes(h));
      if (present.length)
        out.push({
          message: `${id}: the 401 response declares ${present.join(', ')}; requests failing authentication carry no rate headers.`,
          path: [...at, '401'],
        });
    }
  }
  return out;
});

/** Softer: other authenticated error responses of the six should declare the headers too. */
export const rateLimitHeadersOnErrors = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const { id, entry } of rateLimited(doc)) {
    if (!entry) continue;
    for (const [status, response] of responsesOf(doc, entry.operation)) {
      if (/^2/.test(status) || ['401', '429', 'default'].includes(status)) continue;
      const missing = RATE_HEADERS.filter((h) => !headerNames(response).includes(h));
      if (missing.length)
        out.push({
          message: `${id}: the ${status} response (an authenticated request) does not declare ${missing.join(', ')}.`,
          path: [...entry.at, 'responses', status],
        });
    }
  }
  return out;
});

/** Every operation of the document's Endpoints section exists with its method and path. */
export const documentedOperations = wholeDocument((doc) => {
  const out: Result[] = [];
  const ops = new Map(operations(doc).map((o) => [o.operation.operationId, o]));
  for (const d of DOCUMENTED_OPERATIONS) {
    const entry = ops.get(d.operationId);
    if (!entry)
      out.push({
        message: `The documented operation ${d.operationId} (${d.method.toUpperCase()} ${d.path}) is missing.`,
        path: ['paths'],
      });
    else if (entry.method !== d.method || entry.path !== d.path)
      out.push({
        message: `${d.operationId} must be ${d.method.toUpperCase()} ${d.path}, not ${entry.method.toUpperCase()} ${entry.path}.`,
        path: entry.at,
      });
    else if (isExtension(entry.operation))
      out.push({
        message: `${d.operationId} is documented; it must not be marked x-extension: reference.`,
        path: entry.at,
      });
  }
  return out;
});

/** Reference extensions carry the 'Reference extensions' tag. */
export const extensionTagged = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const { operation, at } of operations(doc)) {
    if (isExtension(operation) && !(operation.tags ?? []).includes(REFERENCE_EXTENSION_TAG))
      out.push({
        message: `${operation.operationId ?? at.join(' ')} is a reference extension without the tag '${REFERENCE_EXTENSION_TAG}'.`,
        path: at,
      });
  }
  return out;
});

/** Bodies are JSON: every request and response body offers application/json. */
export const jsonBodies = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const { operation, at } of operations(doc)) {
    const body = deref(doc, operation.requestBody);
    if (body?.content && !('application/json' in body.content))
      out.push({
        message: `${operation.operationId}: the request body is not application/json.`,
        path: [...at, 'requestBody', 'content'],
      });
    for (const [status, response] of responsesOf(doc, operation)) {
      if (response.content && !('application/json' in response.content))
        out.push({
          message: `${operation.operationId}: the ${status} response body is not application/json.`,
          path: [...at, 'responses', status, 'content'],
        });
    }
  }
  return out;
});

/** True when a schema is Error or ValidationError, directly or through composition. */
function isErrorSchema(doc: Json, schema: any, allowValidation: boolean, depth = 0): boolean {
  if (!schema || depth > 6) return false;
  const name = refName(schema);
  if (name === 'Error' || (allowValidation && name === 'ValidationError')) return true;
  const s = deref(doc, schema);
  if (!s || typeof s !== 'object') return false;
  if (Array.isArray(s.allOf) && s.allOf.some((p: any) => isErrorSchema(doc, p, false, depth + 1))) return true;
  for (const k of ['oneOf', 'anyOf'])
    if (Array.isArray(s[k]) && s[k].length && s[k].every((p: any) => isErrorSchema(doc, p, allowValidation, depth + 1)))
      return true;
  return false;
}

/** Error responses of documented operations use Error (or ValidationError on 400). */
export const errorBodies = wholeDocument((doc) => {
  const out: Result[] = [];
  const schemas = doc?.components?.schemas ?? {};
  for (const n of ['Error', 'ValidationError'])
    if (!schemas[n]) out.push({ message: `components/schemas has no ${n} schema.`, path: ['components', 'schemas'] });
  for (const { operation, at } of operations(doc)) {
    if (isExtension(operation)) continue;
    for (const [status, response] of responsesOf(doc, operation)) {
      if (!/^4/.test(status)) continue;
      const schema = response.content?.['application/json']?.schema;
      if (!schema) {
        out.push({
          message: `${operation.operationId}: the ${status} response has no JSON body; errors are in Error shape.`,
          path: [...at, 'responses', status],
        });
      } else if (!isErrorSchema(doc, schema, status === '400')) {
        out.push({
          message: `${operation.operationId}: the ${status} body must be ${status === '400' ? 'Error or ValidationError' : 'Error'}.`,
          path: [...at, 'responses', status, 'content', 'application/json', 'schema'],
        });
      }
    }
  }
  return out;
});

/** List schemas (object: list) have data (array) and pagination {limit, offset, total} integers. */
export const listEnvelope = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const [name, schema] of Object.entries<any>(doc?.components?.schemas ?? {})) {
    const props = propertiesOf(doc, schema);
    if (constantsOf(doc, props.object)?.[0] !== 'list') continue;
    const where = ['components', 'schemas', name];
    if (typeOf(doc, props.data) !== 'array')
      out.push({ message: `List schema ${name}: data must be an array.`, path: where });
    const pagination = propertiesOf(doc, props.pagination);
    for (const f of ['limit', 'offset', 'total']) {
      if (typeOf(doc, pagination[f]) !== 'integer')
        out.push({ message: `List schema ${name}: pagination.${f} must be an integer.`, path: where });
    }
  }
  return out;
});

function isDateTime(doc: Json, schema: any, depth = 0): boolean {
  const s = deref(doc, schema);
  if (!s || depth > 6) return false;
  if (s.format === 'date-time') return true;
  return ['anyOf', 'oneOf', 'allOf'].some(
    (k) => Array.isArray(s[k]) && s[k].some((p: any) => isDateTime(doc, p, depth + 1)),
  );
}

/** Timestamps are ISO 8601 date-times: createdAt and updatedAt carry format date-time. */
export const timestamps = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const [name, schema] of Object.entries<any>(doc?.components?.schemas ?? {})) {
    const props = propertiesOf(doc, schema);
    for (const f of ['createdAt', 'updatedAt']) {
      if (props[f] && !isDateTime(doc, props[f]))
        out.push({
          message: `${name}.${f} must have format date-time.`,
          path: ['components', 'schemas', name, 'properties', f],
        });
    }
  }
  return out;
});

const ROLES = Object.keys(ROLE_METHODS) as ResourceRole[];

/** The operation ids an x-resource annotation lists under a role (list entries may be {operation, scope}). */
function annotated(x: Json, role: ResourceRole): string[] {
  const v = x?.[role];
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.map((e: any) => (typeof e === 'string' ? e : e?.operation)).filter((e: any) => typeof e === 'string');
}

/**
 * Each documented resource's schema carries x-resource naming the operations the document gives
 * it, each with the method of its role; the fields it names are the schema's.
 */
export const resourceAnnotations = wholeDocument((doc) => {
  const out: Result[] = [];
  const schemas: Record<string, any> = doc?.components?.schemas ?? {};
  const ops = new Map(operations(doc).map((o) => [o.operation.operationId, o]));
  for (const r of RESOURCE_OPERATIONS) {
    const name = Object.keys(schemas).find((n) => r.names.some((w) => norm(w) === norm(n)));
    if (!name) continue;
    const x = schemas[name]['x-resource'];
    const at = ['components', 'schemas', name];
    if (!x || typeof x !== 'object') {
      const wanted = ROLES.flatMap((role) => (r.roles[role] ?? []).map((id) => `${role} ${id}`)).join(', ');
      out.push({
        message: `Schema ${name} ("${r.title}") has no x-resource annotation; the document gives it: ${wanted}.`,
        path: at,
      });
      continue;
    }
    for (const role of ROLES) {
      const want = r.roles[role] ?? [];
      const have = annotated(x, role);
      for (const id of want.filter((w) => !have.includes(w)))
        out.push({
          message: `${name} x-resource.${role} lacks ${id}, which the document gives "${r.title}".`,
          path: [...at, 'x-resource'],
        });
      for (const id of have.filter((h) => !want.includes(h)))
        out.push({
          message: `${name} x-resource.${role} lists ${id}, which the document does not give "${r.title}" as ${role}.`,
          path: [...at, 'x-resource'],
        });
    }
  }
  for (const [name, schema] of Object.entries(schemas)) {
    const x = schema?.['x-resource'];
    if (!x || typeof x !== 'object') continue;
    const at = ['components', 'schemas', name, 'x-resource'];
    for (const role of ROLES)
      for (const id of annotated(x, role)) {
        const entry = ops.get(id);
        if (!entry) out.push({ message: `${name} x-resource.${role}: there is no operation ${id}.`, path: at });
        else if (entry.method !== ROLE_METHODS[role])
          out.push({
            message:
              `${name} x-resource.${role}: ${id} is ${entry.method.toUpperCase()}, ` +
              `a ${role} is ${ROLE_METHODS[role].toUpperCase()}.`,
            path: at,
          });
      }
    const props = propertiesOf(doc, schema);
    const fields = [
      ...(typeof x.owner === 'string' ? [['owner', x.owner]] : []),
      ...(typeof x.key === 'string' && !x.key.startsWith('param:') ? [['key', x.key]] : []),
      ...['serverSet', 'decimals'].flatMap((k) => (Array.isArray(x[k]) ? x[k].map((f: string) => [k, f]) : [])),
      ...Object.keys(x.transforms ?? {}).map((f) => ['transforms', f]),
      ...(Array.isArray(x.list) ? x.list : []).flatMap((l: any) =>
        Object.keys(l?.scope ?? {}).map((f) => ['list scope', f]),
      ),
    ] as [string, string][];
    for (const [what, field] of fields)
      if (!(field in props))
        out.push({ message: `${name} x-resource ${what} names ${field}, which ${name} does not have.`, path: at });
  }
  return out;
});

/** Every bound of a schema (through allOf), the first value of each keyword found. */
function boundsOf(doc: Json, schema: any, depth = 0): Json {
  const s = deref(doc, schema);
  if (!s || typeof s !== 'object' || depth > 8) return {};
  const out: Json = {};
  for (const k of ['minimum', 'maximum', 'maxLength']) if (typeof s[k] === 'number') out[k] = s[k];
  for (const part of Array.isArray(s.allOf) ? s.allOf : [])
    for (const [k, v] of Object.entries(boundsOf(doc, part, depth + 1))) if (!(k in out)) out[k] = v;
  return out;
}

/** The schema a stated bound sits on, and its place in the document; undefined when it is missing. */
function boundTarget(doc: Json, at: StatedBound['at']): { schema: any; path: (string | number)[] } | undefined {
  if ('schema' in at) {
    let node: any = doc?.components?.schemas?.[at.schema];
    const path: (string | number)[] = ['components', 'schemas', at.schema];
    for (const seg of at.field.split('.')) {
      node = propertiesOf(doc, node)[seg];
      path.push('properties', seg);
      if (!node) return undefined;
    }
    return { schema: node, path };
  }
  const entry = operations(doc).find((o) => o.operation.operationId === at.operationId);
  if (!entry) return undefined;
  if (at.in === 'body') {
    const body = deref(doc, entry.operation.requestBody);
    const field = propertiesOf(doc, body?.content?.['application/json']?.schema)[at.name];
    return field ? { schema: field, path: [...entry.at, 'requestBody'] } : undefined;
  }
  const item = deref(doc, doc.paths[entry.path]) ?? {};
  const params = [...(item.parameters ?? []), ...(entry.operation.parameters ?? [])].map((x: any) => deref(doc, x));
  const param = params.find((x: any) => x?.in === 'query' && x?.name === at.name);
  return param ? { schema: param.schema, path: [...entry.at, 'parameters'] } : undefined;
}

/** Every bound the document states in prose is a bound of the spec (STATED_BOUNDS). */
export const statedBounds = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const b of STATED_BOUNDS) {
    const where = 'schema' in b.at ? `${b.at.schema}.${b.at.field}` : `${b.at.operationId} ${b.at.in} ${b.at.name}`;
    const t = boundTarget(doc, b.at);
    if (!t) {
      out.push({ message: `${where} is missing; the document states: ${b.sentence}`, path: ['components'] });
      continue;
    }
    const has = boundsOf(doc, t.schema);
    for (const k of ['minimum', 'maximum', 'maxLength'] as const)
      if (b[k] !== undefined && has[k] !== b[k])
        out.push({
          message: `${where} must carry ${k} ${b[k]} (has ${has[k] ?? 'none'}); the document states: ${b.sentence}`,
          path: t.path,
        });
  }
  return out;
});

/** A field whose shape the document makes depend on another carries an if/then per value named (DEPENDENT_SHAPES). */
export const dependentShapes = wholeDocument((doc) => {
  const out: Result[] = [];
  for (const d of DEPENDENT_SHAPES) {
    const schema = deref(doc, doc?.components?.schemas?.[d.schema]);
    const branches: any[] = Array.isArray(schema?.allOf) ? schema.allOf.map((b: any) => deref(doc, b)) : [];
    for (const [value, fields] of Object.entries(d.shapes)) {
      const branch = branches.find((b) => constantsOf(doc, b?.if?.properties?.[d.on])?.[0] === value);
      const required: string[] = branch?.then?.properties?.[d.field]?.required ?? [];
      const missing = fields.filter((f) => !required.includes(f));
      if (!branch || missing.length)
        out.push({
          message:
            `${d.schema}.${d.field} depends on ${d.on}: for ${d.on} ${value} the schema must require ${fields.join(', ')} ` +
            `(an allOf if/then)${branch ? `; missing ${missing.join(', ')}` : ''}; the document states: ${d.sentence}`,
          path: ['components', 'schemas', d.schema],
        });
    }
  }
  return out;
});
