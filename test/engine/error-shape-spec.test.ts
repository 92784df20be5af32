/**
 * The error-shape check judges error bodies against the spec's own Error and ValidationError
 * schemas (through the shared ajv), not a copy of them: a spec whose Error asks for more is
 * judged by what it asks, and the ValidationError category is the one its schema shows.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadSpec } from '../../src/contract/index.ts';
import type { Spec } from '../../src/contract/index.ts';
import {
  errorShapeProblems,
  looksLikeValidationError,
  validationErrorProblems,
} from '../../src/engine/checks/error-shape.ts';

let spec: Spec;
beforeAll(async () => {
  spec = await loadSpec();
});

describe('error bodies judged by the spec’s schemas', () => {
  test('Error: message required, each field of its type; a code breaking its pattern is left to its own rule', () => {
    expect(errorShapeProblems({ message: 'Not found', error: 'not_found', code: 'NOT_FOUND' }, spec)).toEqual([]);
    expect(errorShapeProblems({ error: 'not_found' }, spec)).toEqual(['message is missing']);
    expect(errorShapeProblems({ message: 'x', details: 'blocked' }, spec)).toEqual(['details must be object']);
    expect(errorShapeProblems({ message: 'x', code: 'not_found' }, spec)).toEqual([]);
    expect(errorShapeProblems([], spec)).toEqual(['body is an array, not an Error object']);
  });

  test('ValidationError: errors of field and message, and the category its schema shows', () => {
    const ok = { error: 'validation_error', message: 'Invalid', errors: [{ field: 'name', message: 'required' }] };
    expect(validationErrorProblems(ok, spec)).toEqual([]);
    expect(validationErrorProblems({ ...ok, errors: [{ message: 'x' }] }, spec)).toEqual(['errors.0.field is missing']);
    expect(validationErrorProblems({ ...ok, error: 'bad_request' }, spec)).toEqual([
      'error is "bad_request", not validation_error',
    ]);
    expect(looksLikeValidationError({ error: 'validation_error', message: 'x' }, spec)).toBe(true);
    expect(looksLikeValidationError({ error: 'bad_request', message: 'x' }, spec)).toBe(false);
  });

  test('a spec whose Error asks for more is judged by what it asks', () => {
    const stricter = structuredClone(spec.componentSchema('Error')) as { required: string[] };
    stricter.required = [...stricter.required, 'code'];
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(stricter);
    const view = {
      componentSchema: (name: string) => spec.componentSchema(name),
      validateSchema: (name: string, value: unknown) => {
        if (name !== 'Error') return spec.validateSchema(name, value);
        const valid = validate(value) as boolean;
        return {
          valid,
          errors: (validate.errors ?? []).map((e) => ({
            path: `${e.instancePath}/${(e.params as { missingProperty?: string }).missingProperty ?? ''}`,
            message: e.message ?? '',
            keyword: e.keyword,
          })),
        };
      },
    };
    expect(errorShapeProblems({ message: 'Not found' }, spec)).toEqual([]);
    expect(errorShapeProblems({ message: 'Not found' }, view)).toEqual(['code is missing']);
  });
});
