/** docs/fixtures.md says what the code does: its fixture table is the catalog's. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { FIXTURE_TABLE, fixtureTable } from '../../src/engine/fixtures/table.ts';
import { FIXTURE_METHODS } from '../../src/engine/fixtures/methods.ts';
import { ROOT } from './harness.ts';

test('the fixture table of docs/fixtures.md is the one src/engine/fixtures/table.ts renders', async () => {
  const doc = await readFile(join(ROOT, 'docs/fixtures.md'), 'utf8');
  const block = /<!-- fixture-table:[^\n]*-->\n([\s\S]*?)\n<!-- \/fixture-table -->/.exec(doc)?.[1];
  expect(block, 'the fixture-table markers are in docs/fixtures.md').toBeDefined();
  expect(block).toBe(fixtureTable());
});

test('the catalog names every fixture method a file can serve, and only those', () => {
  const fromFile = new Set(FIXTURE_TABLE.map((f) => (f.key === 'merchantId' ? 'merchant' : f.key.split('.')[0])));
  // No key of their own: reads and steps (readPaths, remove), a request, time; webhooksEnabled() uses webhookEndpoints.
  const notFromFile = [
    'readItem',
    'readSubscription',
    'advancePastBoundary',
    'externalIdClaimedTwice',
    'webhooksEnabled',
  ];
  expect(FIXTURE_METHODS.filter((m) => !fromFile.has(m) && !notFromFile.includes(m))).toEqual([]);
  expect([...fromFile].filter((m) => !(FIXTURE_METHODS as readonly string[]).includes(m))).toEqual([]);
});
