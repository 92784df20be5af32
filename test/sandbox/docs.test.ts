/** docs/fixtures.md says what the code does: its fixture table is the declarations'. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { fixtureTable, methodReference } from '../../src/engine/fixtures/table.ts';
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

test('the method reference of docs/fixtures.md is the one rendered from the declarations, naming every method', async () => {
  const doc = await readFile(join(ROOT, 'docs/fixtures.md'), 'utf8');
  const block = /<!-- method-reference:[^\n]*-->\n([\s\S]*?)\n<!-- \/method-reference -->/.exec(doc)?.[1];
  expect(block, 'the method-reference markers are in docs/fixtures.md').toBeDefined();
  expect(block).toBe(methodReference());
  expect([...block!.matchAll(/^#### `(\w+)`$/gm)].map((m) => m[1])).toEqual(FIXTURE_METHODS);
  // A user of the package reads docs/fixtures.md, not the sources: no pointer into src/ outside the markers' notes.
  expect(doc.replace(/<!--[^>]*-->/g, '')).not.toMatch(/src\//);
});

test('every fixture method declares its contract: a signature naming it, what it returns, what must hold', () => {
  for (const m of FIXTURE_METHODS) {
    const { contract } = FIXTURE_DECLARATIONS[m] as FixtureDeclaration;
    expect(contract.signature, m).toMatch(new RegExp(`^${m}\\(.*\\): Promise<.+>$`));
    expect(contract.returns, m).toMatch(/\S{3}/);
    expect(contract.holds.length, m).toBeGreaterThan(0);
  }
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
