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

const LEAP_SECOND = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}):60(?:\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** Set on every `format: date-time` schema of a request before it is compiled. */
const LEAP_KEYWORD = 'x-conform-leap-second';

/**
 * A leap second (`23:59:60Z`, valid RFC 3339) has no JavaScript Date: it is read as the
 * last representable instant of its minute, `23:59:59.999Z` (same day, same order).
 */
export function withoutLeapSecond(text: string): string {
  return text.replace(LEAP_SECOND, '$1:59.999$2');
}

function newAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    validateFormats: true,
  });
  addFormats(ajv);
  // OpenAPI keywords that ajv does not know.
  for (const k of ['example', 'xml', 'externalDocs', 'discriminator']) ajv.addKeyword(k);
  ajv.addKeyword({
    keyword: LEAP_KEYWORD,
    modifying: true,
    schemaType: 'boolean',
    validate(
      _schema: boolean,
      data: unknown,
      _parent?: unknown,
      cxt?: { parentData: any; parentDataProperty: string | number },
    ) {
      if (typeof data === 'string' && cxt?.parentData && LEAP_SECOND.test(data))
        cxt.parentData[cxt.parentDataProperty] = withoutLeapSecond(data);
      return true;
    },
  });
  return ajv;
}

/** The schema with LEAP_KEYWORD beside every `format: date-time` (a copy; the input is left alone). */
function markDateTimes(schema: object): object {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v);
    if (out.format === 'date-time') out[LEAP_KEYWORD] = true;
    return out;
  };
  return walk(schema) as object;
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

/**
 * Deepest nesting of objects and arrays accepted in a request (the body itself is level
 * 1). Free-form fields (`metadata`, alert `config`, a source rule condition's `value`)
 * may nest, but not without bound: deeper input is refused with a 400 naming the field.
 */
export const MAX_NESTING_DEPTH = 32;
const MAX_INPUT_ERRORS = 20;

/**
 * What JSON Schema cannot say about raw input, found in one iterative pass (no recursion,
 * so no input can exhaust the stack): strings and keys holding NUL (PostgreSQL text and
 * jsonb cannot store it), numbers that overflowed to Infinity (`1e400` parses as Infinity
 * and would be stored as null), and nesting deeper than MAX_NESTING_DEPTH.
 */
export function inputProblems(value: unknown, root: string, out: FieldError[] = []): FieldError[] {
  const stack: Array<{ value: unknown; path: string; depth: number; top: string }> = [
    { value, path: root, depth: 0, top: root },
  ];
  const tooDeep = new Set<string>();
  while (stack.length > 0 && out.length < MAX_INPUT_ERRORS) {
    const { value: v, path, depth, top } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000'))
        out.push({ field: path, message: 'must not contain NUL characters', code: 'nul_character' });
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v))
        out.push({ field: path, message: 'must be a finite number (this one is out of range)', code: 'finite' });
    } else if (v && typeof v === 'object') {
      if (depth + 1 > MAX_NESTING_DEPTH) {
        // Named once, by the outermost field that holds the deep part.
        if (!tooDeep.has(top))
          out.push({
            field: top,
            message: `nests objects and arrays more than ${MAX_NESTING_DEPTH} levels deep`,
            code: 'max_depth',
          });
        tooDeep.add(top);
        continue;
      }
      const entries: Array<[string, unknown]> = Array.isArray(v)
        ? v.map((x, i) => [`[${i}]`, x])
        : Object.entries(v).map(([k, x]) => [`.${k}`, x]);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [step, child] = entries[i];
        if (!Array.isArray(v) && step.includes('\u0000')) {
          out.push({ field: path, message: 'keys must not contain NUL characters', code: 'nul_character' });
          continue;
        }
        const childPath = `${path}${step}`;
        stack.push({ value: child, path: childPath, depth: depth + 1, top: depth === 0 ? childPath : top });
      }
    }
  }
  return out;
}

/** Path or query values coerced and defaulted by `validate`, or the originals when they are bad (errors collected). */
function coerce(
  location: 'path' | 'query',
  validate: ValidateFunction,
  original: unknown,
  errors: FieldError[],
): unknown {
  const values = { ...(original as object) };
  if (!validate(values)) {
    errors.push(...toFieldErrors(location, validate.errors));
    return original;
  }
  const problems = inputProblems(values, location);
  errors.push(...problems);
  return problems.length === 0 ? values : original;
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
          path: schemas.path ? this.coercing.compile(markDateTimes(schemas.path)) : undefined,
          query: schemas.query ? this.coercing.compile(markDateTimes(schemas.query)) : undefined,
          body: schemas.body ? this.strict.compile(markDateTimes(schemas.body)) : undefined,
          bodyRequired: schemas.bodyRequired ?? false,
        }
      : null;
    this.cache.set(key, compiled);
    return compiled;
  }

  /** Throws ValidationError; mutates `request.params`/`request.query` with coerced values. */
  validate(request: FastifyRequest, operationId: string, fallback?: RequestSchemas): void {
    const errors: FieldError[] = [];
    inputProblems(request.params, 'path', errors);
    inputProblems(request.query, 'query', errors);
    inputProblems(request.body, 'body', errors);
    if (errors.length > 0) throw new ValidationError(errors);
    const c = this.compile(operationId, fallback);
    if (!c) return;
    // Coercion turns "1e400" into Infinity: coerced values are checked again.
    if (c.path) request.params = coerce('path', c.path, request.params, errors);
    if (c.query) request.query = coerce('query', c.query, request.query, errors);
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
