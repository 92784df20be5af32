/** The subset of JSON Schema (2020-12) the generators understand, and small helpers over it. */

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export interface JsonSchema {
  type?: JsonType | JsonType[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
  [extension: `x-${string}`]: unknown;
  [other: string]: unknown;
}

/** Where a request input lives. */
export type Location = 'path' | 'query' | 'body';

/** The JSON types a schema admits; an untyped schema admits any. */
export function typesOf(schema: JsonSchema): JsonType[] {
  if (schema.type !== undefined) {
    const t = Array.isArray(schema.type) ? [...schema.type] : [schema.type];
    if (schema.nullable && !t.includes('null')) t.push('null');
    return t;
  }
  if (schema.const !== undefined) return [jsonTypeOf(schema.const)];
  if (schema.enum) return [...new Set(schema.enum.map(jsonTypeOf))];
  if (schema.properties || schema.required) return ['object'];
  if (schema.items) return ['array'];
  if (schema.pattern !== undefined || schema.maxLength !== undefined || schema.minLength !== undefined || schema.format)
    return ['string'];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ['number'];
  return [];
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** Whether `value` has one of `types` in the JSON Schema sense (integer is a number). */
export function hasType(value: unknown, types: JsonType[]): boolean {
  const t = jsonTypeOf(value);
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

/**
 * Parts the document does not show, whose constraints are the reference's own choice, or that
 * only the reference defines (`x-extension`):
 * the generators never build a negative case from them.
 */
export function isUndocumented(schema: JsonSchema): boolean {
  return (
    schema['x-not-shown'] !== undefined ||
    schema['x-reference-choice'] !== undefined ||
    schema['x-extension'] !== undefined
  );
}

/** Parts whose shape the document does not show: positives leave them out unless required. */
export function isNotShown(schema: JsonSchema): boolean {
  return schema['x-not-shown'] !== undefined;
}

/** JSON Pointer (RFC 6901) helpers. */
export function pointerOf(segments: string[]): string {
  return segments.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export function segmentsOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A RegExp for a JSON Schema pattern (ECMA-262, unicode as ajv compiles it). */
export function regexOf(pattern: string): RegExp {
  return new RegExp(pattern, 'u');
}
