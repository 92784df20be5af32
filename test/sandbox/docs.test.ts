/** docs/fixtures.md says what the code does: its fixture table is the declarations'. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { fixtureTable } from '../../src/engine/fixtures/table.ts';
import {
  FILE_KEYS,
  FIXTURE_DECLARATIONS,
  FIXTURE_METHODS,
  type FixtureDeclaration,
} from '../../src/engine/fixtures/methods.ts';
import { ROOT } from './harness.ts';

test('the fixture table of docs/fixtures.md is the one src/engine/fixtures/table.ts renders from the declarations', async () => {
  const doc = await readFile(join(ROOT, 'docs/fixtures.md'), 'utf8');
  const block = /<!-- fixture-table:[^\n]*-->\n([\s\S]*?)\n<!-- \/fixture-table -->/.exec(doc)?.[1];
  expect(block, 'the fixture-table markers are in docs/fixtures.md').toBeDefined();
  expect(block).toBe(fixtureTable());
});

test('every fixture method declares the file keys it is served from, or why a file holds none', () => {
  for (const m of FIXTURE_METHODS) {
    const d: FixtureDeclaration = FIXTURE_DECLARATIONS[m];
    if (d.file.length) expect(d.fileless, m).toBeUndefined();
    else expect(d.fileless, m).toMatch(/\S{3}/);
  }
  // The keys are unique, and a sub-key (migration.floating) never shares its name with a key.
  const keys = FILE_KEYS.map((f) => f.key);
  expect(new Set(keys).size).toBe(keys.length);
  expect(keys.filter((k) => keys.includes(k.split('.')[0]) && k.includes('.'))).toEqual([]);
});
