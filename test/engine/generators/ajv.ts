/** A strict-enough ajv (2020-12, formats) for checking generated values. */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { describeNegative, type JsonSchema, type NegativeCase } from '../../../src/engine/generators/index.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;
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

const parentOf = (pointer: string) => pointer.slice(0, pointer.lastIndexOf('/'));
const name = (c: NegativeCase) => describeNegative(c);

/** The case's location breaks exactly the named constraint at the named place. */
export function breaksExactly(c: NegativeCase, errors: AjvError[]): void {
  expect(errors.length, name(c)).toBeGreaterThan(0);
  for (const e of errors) {
    if (c.constraint === 'required') {
      expect(e.keyword, name(c)).toBe('required');
      expect(e.instancePath).toBe(parentOf(c.pointer));
      expect(`${e.instancePath}/${String(e.params.missingProperty)}`).toBe(c.pointer);
    } else {
      // `const` is reported under its own keyword; it is the enum kind here.
      expect(
        c.constraint === 'enum' ? ['enum', 'const'] : [c.constraint],
        `${name(c)}: ${JSON.stringify(errors)}`,
      ).toContain(e.keyword);
      expect(e.instancePath).toBe(c.pointer);
    }
  }
}
