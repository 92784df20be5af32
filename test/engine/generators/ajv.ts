/** A strict-enough ajv (2020-12, formats) for checking generated values. */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from '../../../src/engine/generators/index.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const cache = new Map<JsonSchema, ReturnType<Ajv2020['compile']>>();

export interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

/** Validation errors of `value` against `schema` (empty when valid). */
export function errorsOf(schema: JsonSchema, value: unknown): AjvError[] {
  let validate = cache.get(schema);
  if (!validate) cache.set(schema, (validate = ajv.compile(schema)));
  return validate(value) ? [] : ((validate.errors ?? []) as AjvError[]);
}
