/** ajv 2020-12 (strict) set up for the spec's schemas: component registry, vocabulary, error mapping. */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isObject } from './resolve.ts';
import type { JsonObject } from './load.ts';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** $id under which components/schemas are registered as $defs. */
export const COMPONENTS_ID = 'urn:billing-conform:openapi-components';

/** OpenAPI keywords that may sit in a Schema Object besides the `x-*` extensions. */
const OPENAPI_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs'];

export interface ValidationIssue {
  /** JSON Pointer of the offending value ('' for the root); for `required`, of the missing property. */
  path: string;
  message: string;
  keyword?: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: ValidationIssue[];
}

/** Every `x-*` key used anywhere in the document, so strict mode accepts them. */
export function extensionKeywords(doc: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(doc)) for (const v of doc) extensionKeywords(v, found);
  else if (isObject(doc)) {
    for (const [k, v] of Object.entries(doc)) {
      if (k.startsWith('x-')) found.add(k);
      extensionKeywords(v, found);
    }
  }
  return found;
}

/** Rewrites `#/components/schemas/X` references to the registered components schema. */
export function rewriteRefs(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
      out[k] = `${COMPONENTS_ID}#/$defs/${v.slice('#/components/schemas/'.length)}`;
    } else out[k] = rewriteRefs(v);
  }
  return out;
}

export interface AjvOptions {
  /** Coerce strings to integer/number/boolean and fill defaults (parameters). */
  coerce?: boolean;
  /**
   * Check every schema against the JSON Schema 2020-12 meta-schema before compiling it.
   * Compiling the meta-schema costs each ajv instance about 40 ms, so a run's lazy builds
   * skip it; eager builds and the spec tests check (strict mode still refuses unknown keywords).
   */
  checkSchemas?: boolean;
}

/** A strict ajv with formats, the document's keywords and its component schemas registered. */
export function createAjv(doc: JsonObject, options: AjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allowUnionTypes: true,
    allErrors: true,
    coerceTypes: options.coerce ? true : false,
    useDefaults: options.coerce ? true : false,
    validateSchema: options.checkSchemas ?? false,
  });
  addFormats(ajv);
  for (const keyword of [...OPENAPI_KEYWORDS, ...extensionKeywords(doc)]) {
    if (!ajv.getKeyword(keyword)) ajv.addKeyword(keyword);
  }
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(doc.components?.schemas ?? {}) });
  return ajv;
}

/** Compiles a schema written with OpenAPI `#/components/schemas/...` references. */
export function compile(ajv: Ajv2020, schema: unknown): ValidateFunction {
  return ajv.compile(rewriteRefs(schema) as object);
}

/** Compiles one component by name (uses ajv's own cache). */
export function componentValidator(ajv: Ajv2020, name: string): ValidateFunction | undefined {
  return ajv.getSchema(`${COMPONENTS_ID}#/$defs/${name}`);
}

export function toIssues(errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  return (errors ?? []).map((e) => {
    const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
    const path =
      missing !== undefined ? `${e.instancePath}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}` : e.instancePath;
    let message = e.message ?? e.keyword;
    if (e.keyword === 'enum')
      message += `: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    if (e.keyword === 'const') message += `: ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
    return { path, message, keyword: e.keyword };
  });
}

export function run(validate: ValidateFunction, value: unknown): ValidationResult {
  const valid = validate(value) as boolean;
  return { valid, errors: valid ? [] : toIssues(validate.errors) };
}
