import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyRequest } from 'fastify';
import { ValidationError, type FieldError } from '../errors.ts';
import type { Contract, RequestSchemas } from './contract.ts';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

interface Compiled {
  path?: ValidateFunction;
  query?: ValidateFunction;
  body?: ValidateFunction;
  bodyRequired: boolean;
}

function newAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: coerce ? 'array' : false, useDefaults: true, validateFormats: true });
  addFormats(ajv);
  // OpenAPI keywords that ajv does not know.
  for (const k of ['example', 'xml', 'externalDocs', 'discriminator']) ajv.addKeyword(k);
  return ajv;
}

/** `/lineItems/0/amount` → `lineItems[0].amount`. */
function pointerToPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  }
  return out;
}

function toFieldErrors(location: 'path' | 'query' | 'body', errors: ErrorObject[] | null | undefined): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let path = pointerToPath(e.instancePath);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      const p = (e.params as { missingProperty: string }).missingProperty;
      path = path ? `${path}.${p}` : p;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      const p = (e.params as { additionalProperty: string }).additionalProperty;
      path = path ? `${path}.${p}` : p;
      message = 'is not an allowed field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    const field = path ? `${location}.${path}` : location;
    const key = `${field}|${e.keyword}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message, code: e.keyword });
  }
  return out;
}

/** Fields holding a NUL character, which PostgreSQL text and jsonb cannot store. */
function nulFields(value: unknown, path: string, out: FieldError[], depth = 0): void {
  if (out.length >= 20 || depth > 64) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push({ field: path, message: 'must not contain NUL characters', code: 'nul_character' });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => nulFields(v, `${path}[${i}]`, out, depth + 1));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) out.push({ field: path, message: 'keys must not contain NUL characters', code: 'nul_character' });
      else nulFields(v, `${path}.${k}`, out, depth + 1);
    }
  }
}

/**
 * Validates path, query and body of a request against its operation's schemas,
 * collecting every bad field into one 400 ValidationError. Query and path values are
 * coerced from strings (and defaults applied) in place, so handlers see typed values.
 */
export class RequestValidator {
  private readonly coercing = newAjv(true);
  private readonly strict = newAjv(false);
  private readonly cache = new Map<string, Compiled | null>();

  constructor(private readonly contract: Contract) {}

  private compile(operationId: string, fallback?: RequestSchemas): Compiled | null {
    const key = operationId || '';
    if (this.cache.has(key)) return this.cache.get(key)!;
    const schemas = this.contract.requestSchemas(operationId) ?? fallback;
    const compiled = schemas
      ? {
          path: schemas.path ? this.coercing.compile(schemas.path) : undefined,
          query: schemas.query ? this.coercing.compile(schemas.query) : undefined,
          body: schemas.body ? this.strict.compile(schemas.body) : undefined,
          bodyRequired: schemas.bodyRequired ?? false,
        }
      : null;
    this.cache.set(key, compiled);
    return compiled;
  }

  /** Throws ValidationError; mutates `request.params`/`request.query` with coerced values. */
  validate(request: FastifyRequest, operationId: string, fallback?: RequestSchemas): void {
    const errors: FieldError[] = [];
    nulFields(request.params, 'path', errors);
    nulFields(request.query, 'query', errors);
    nulFields(request.body, 'body', errors);
    if (errors.length > 0) throw new ValidationError(errors);
    const c = this.compile(operationId, fallback);
    if (!c) return;
    if (c.path) {
      const params = { ...(request.params as object) };
      if (!c.path(params)) errors.push(...toFieldErrors('path', c.path.errors));
      else request.params = params;
    }
    if (c.query) {
      const query = { ...(request.query as object) };
      if (!c.query(query)) errors.push(...toFieldErrors('query', c.query.errors));
      else request.query = query;
    }
    if (c.body) {
      if (request.body === undefined) {
        if (c.bodyRequired) errors.push({ field: 'body', message: 'a JSON body is required', code: 'required' });
      } else if (!c.body(request.body)) {
        errors.push(...toFieldErrors('body', c.body.errors));
      }
    }
    if (errors.length > 0) throw new ValidationError(errors);
  }
}
