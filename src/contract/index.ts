/**
 * The spec loader shared by the engine and the reference server: spec/openapi.yaml parsed once,
 * resolved, and every schema compiled once with ajv 2020-12 (strict, ajv-formats).
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { compile, componentValidator, createAjv, run, type ValidationResult } from './ajv.ts';
import { SPEC_PATH, SpecError, readDocument, type JsonObject } from './load.ts';
import { buildOperations, pickResponse, type JsonSchema, type Operation } from './operations.ts';
import { compareSpecificity, compileTemplate, fillTemplate, matchTemplate, type PathTemplate } from './paths.ts';
import { inlineSchema, stripExtensions } from './resolve.ts';
import { loadRules } from './rules.ts';
import { readResources } from './resources.ts';
import type { BuildOptions, PathMatch, RequestSchemas, Spec } from './types.ts';

export * from './rules.ts';
export {
  idParam,
  ROLES,
  type DerivedFrom,
  type Relation,
  type RelationSource,
  type Resource,
  type ResourceIndex,
  type ResourceList,
  type Role,
  type ScopeSource,
} from './resources.ts';
export { SPEC_PATH, SpecError, parseDocument, readDocument } from './load.ts';
export type { JsonObject } from './load.ts';
export type {
  JsonSchema,
  Operation,
  Parameter,
  RateLimit,
  RequestBody,
  Response,
  ResponseHeader,
} from './operations.ts';
export type { ValidationIssue, ValidationResult } from './ajv.ts';
export { compileTemplate, fillTemplate, matchTemplate, type PathParams, type PathTemplate } from './paths.ts';
export {
  idPrefix,
  schemaAt,
  schemaBound,
  schemaConst,
  schemaDefault,
  schemaEnum,
  type BoundKeyword,
  type SchemaSource,
} from './schema-values.ts';
export type * from './types.ts';

let cached: Promise<Spec> | undefined;

/** spec/openapi.yaml, loaded and compiled once per process. */
export function loadSpec(): Promise<Spec> {
  cached ??= loadSpecFrom(SPEC_PATH).catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/** Loads another copy of a spec (tests of deliberately broken documents). Not memoised. */
export async function loadSpecFrom(path: string, options: BuildOptions = {}): Promise<Spec> {
  return buildSpec(await readDocument(path), path, options);
}

function fail(message: string): ValidationResult {
  return { valid: false, errors: [{ path: '', message }] };
}

/** Copies the parameter-level notes into its schema, where the generators look for them. */
function parameterSchema(p: Operation['parameters'][number]): JsonSchema {
  const schema = { ...p.schema };
  if (p.referenceChoice !== undefined) schema['x-reference-choice'] = p.referenceChoice;
  if (p.notShown !== undefined) schema['x-not-shown'] = p.notShown;
  if (p.description !== undefined && schema.description === undefined) schema.description = p.description;
  return schema;
}

/** The body schema with the request-body-level notes copied to its root. */
function bodySchema(body: NonNullable<Operation['requestBody']>): JsonSchema {
  const schema = { ...body.schema };
  if (body.referenceChoice !== undefined) schema['x-reference-choice'] = body.referenceChoice;
  if (body.notShown !== undefined) schema['x-not-shown'] = body.notShown;
  return schema;
}

function objectSchema(params: Operation['parameters']): JsonSchema | undefined {
  if (params.length === 0) return undefined;
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, parameterSchema(p)])),
    ...(required.length ? { required } : {}),
  };
}

/** Builds a Spec from a parsed document: resolves operations and sets up the validators. */
export function buildSpec(document: JsonObject, path = '<memory>', options: BuildOptions = {}): Spec {
  const operations = buildOperations(document);
  const resources = readResources(document, operations);
  const schemaNames = Object.keys(document.components?.schemas ?? {});

  let ajv: Ajv2020;
  let coercing: Ajv2020;
  try {
    ajv = createAjv(document, { checkSchemas: options.eager });
    coercing = createAjv(document, { coerce: true, checkSchemas: options.eager });
  } catch (err) {
    throw new SpecError(
      `components/schemas: ${(err as Error).message.replaceAll('data/$defs/', 'components/schemas/')}`,
    );
  }

  const component = (name: string): ValidateFunction | undefined => {
    if (!schemaNames.includes(name)) return undefined;
    try {
      return componentValidator(ajv, name);
    } catch (err) {
      throw new SpecError(`components/schemas/${name}: ${(err as Error).message}`);
    }
  };
  const byText = new Map<string, ValidateFunction>();
  const compileOnce = (instance: Ajv2020, schema: unknown, where: string): ValidateFunction => {
    const key = (instance === ajv ? 'v:' : 'c:') + JSON.stringify(schema);
    let fn = byText.get(key);
    if (!fn) {
      try {
        fn = compile(instance, schema);
      } catch (err) {
        throw new SpecError(`${where}: ${(err as Error).message}`);
      }
      byText.set(key, fn);
    }
    return fn;
  };

  // Validators compile on first use (each once); compileAll() forces every one.
  const responseValidators = new Map<string, () => ValidateFunction>();
  const bodyValidators = new Map<string, () => ValidateFunction>();
  const paramValidators = new Map<string, () => ValidateFunction>();
  const headerValidators: Array<() => ValidateFunction> = [];
  const lazy = (instance: Ajv2020, schema: unknown, where: string) => {
    let fn: ValidateFunction | undefined;
    return () => (fn ??= compileOnce(instance, schema, where));
  };
  const requestSchemaCache = new Map<string, RequestSchemas>();
  const templates = new Map<string, Array<{ template: PathTemplate; op: Operation }>>();

  for (const op of operations.values()) {
    const where = `${op.method} ${op.pathTemplate} (${op.operationId})`;
    for (const r of Object.values(op.responses)) {
      if (r.rawSchema)
        responseValidators.set(`${op.operationId} ${r.key}`, lazy(ajv, r.rawSchema, `${where} response ${r.key}`));
      for (const h of Object.values(r.headers))
        headerValidators.push(lazy(ajv, h.schema, `${where} response ${r.key} header ${h.name}`));
    }
    if (op.requestBody)
      bodyValidators.set(op.operationId, lazy(ajv, op.requestBody.rawSchema, `${where} request body`));
    const schemas: RequestSchemas = { bodyRequired: op.requestBody?.required ?? false };
    for (const location of ['path', 'query'] as const) {
      const schema = objectSchema(op.parameters.filter((p) => p.in === location));
      if (!schema) continue;
      schemas[location] = schema;
      paramValidators.set(`${op.operationId} ${location}`, lazy(coercing, schema, `${where} ${location} parameters`));
    }
    if (op.requestBody) schemas.body = bodySchema(op.requestBody);
    requestSchemaCache.set(op.operationId, schemas);
    const list = templates.get(op.method) ?? [];
    list.push({ template: compileTemplate(op.pathTemplate), op });
    templates.set(op.method, list);
  }
  for (const list of templates.values()) list.sort((a, b) => compareSpecificity(a.template, b.template));

  const matchPath = (method: string, concretePath: string): PathMatch | undefined => {
    let best: { template: PathTemplate; op: Operation; params: Record<string, string> } | undefined;
    for (const candidate of templates.get(method.toUpperCase()) ?? []) {
      const params = matchTemplate(candidate.template, concretePath);
      if (params && (!best || compareSpecificity(candidate.template, best.template) < 0))
        best = { ...candidate, params };
    }
    return best && { operation: best.op, params: best.params };
  };
  const responseFor = (operationId: string, status: number | string) => {
    const op = operations.get(operationId);
    return op && pickResponse(op, status);
  };

  const spec: Spec = {
    document,
    version: String(document.info?.version ?? ''),
    path,
    operations,
    resources,
    schemaNames,
    operation: (id) => operations.get(id),
    pathFor(operationId, params) {
      const op = operations.get(operationId);
      if (!op) throw new Error(`pathFor: unknown operation ${operationId}`);
      return fillTemplate(op.pathTemplate, params, `pathFor(${operationId})`);
    },
    findOperation: (method, concretePath) => matchPath(method, concretePath)?.operation,
    matchPath,
    responseFor,
    validateResponseBody(operationId, status, body) {
      if (!operations.has(operationId)) return fail(`unknown operation ${operationId}`);
      const response = responseFor(operationId, status);
      if (!response) return fail(`${operationId} declares no response for status ${status}`);
      const validate = responseValidators.get(`${operationId} ${response.key}`);
      return validate ? run(validate(), body) : { valid: true, errors: [] };
    },
    validateRequestBody(operationId, body) {
      const op = operations.get(operationId);
      if (!op) return fail(`unknown operation ${operationId}`);
      if (body === undefined)
        return op.requestBody?.required ? fail('request body is required') : { valid: true, errors: [] };
      const validate = bodyValidators.get(operationId);
      return validate ? run(validate(), body) : fail(`${operationId} takes no request body`);
    },
    validateParameters(operationId, location, values) {
      if (!operations.has(operationId)) return { ...fail(`unknown operation ${operationId}`), values: { ...values } };
      const copy: Record<string, unknown> = { ...values };
      const validate = paramValidators.get(`${operationId} ${location}`);
      if (!validate) return { valid: true, errors: [], values: copy };
      return { ...run(validate(), copy), values: copy };
    },
    validateSchema(componentName, value) {
      const validate = component(componentName);
      return validate ? run(validate, value) : fail(`unknown schema ${componentName}`);
    },
    componentSchema(name) {
      return schemaNames.includes(name) ? inlineSchema(document, document.components.schemas[name]) : undefined;
    },
    requestSchemas(operationId, options = {}) {
      const schemas = requestSchemaCache.get(operationId);
      if (!schemas) return undefined;
      // A fresh copy per call: consumers (Fastify, generators) may annotate what they get.
      const copy = structuredClone(schemas);
      return options.stripExtensions ? stripExtensions(copy) : copy;
    },
    rules: () => loadRules(),
    compileAll() {
      for (const name of schemaNames) component(name);
      for (const thunks of [
        responseValidators.values(),
        bodyValidators.values(),
        paramValidators.values(),
        headerValidators,
      ])
        for (const t of thunks) t();
    },
  };
  if (options.eager) spec.compileAll();
  return spec;
}
