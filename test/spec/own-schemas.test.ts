/**
 * The schemas the project writes itself (the config file's, the fixtures file's, the rules
 * file's) are valid JSON Schema 2020-12. At run time they compile without the meta-schema
 * check (it costs every ajv instance about 40 ms); this test is where that check happens.
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { RULES_SCHEMA_PATH } from '../../src/contract/index.ts';
import { configSchema } from '../../src/engine/config/schema.ts';
import { fixturesFileSchema } from '../../src/engine/fixtures/file/document.ts';

const meta = new Ajv2020({ allErrors: true, strict: false });

describe('the project’s own schemas', () => {
  const schemas: Array<[string, () => Promise<unknown>]> = [
    ['conform.config.yaml', async () => configSchema],
    ['fixtures file', async () => fixturesFileSchema],
    ['spec/rules.schema.json', async () => JSON.parse(await readFile(RULES_SCHEMA_PATH, 'utf8'))],
  ];
  test.each(schemas)('%s: valid against the 2020-12 meta-schema', async (_name, schema) => {
    const valid = meta.validateSchema((await schema()) as object);
    expect(meta.errors ?? [], JSON.stringify(meta.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  test('the check can fail: a type that is no JSON type is refused', () => {
    expect(meta.validateSchema({ type: 'object', properties: { a: { type: 'strang' } } })).toBe(false);
  });
});
