/**
 * The bounds the interface document states in prose, and the shapes it makes depend on a field,
 * are the spec's facts: every sentence of the document stating one has its entry in
 * src/contract/lint/conventions.ts (STATED_BOUNDS, DEPENDENT_SHAPES), quoted word for word, and
 * the lint rules bm-stated-bounds and bm-dependent-shapes hold the spec to each entry. A new
 * bound written in the document fails here until it is carried.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { DEPENDENT_SHAPES, STATED_BOUNDS } from '../../src/contract/lint/conventions.ts';

const DOC_PATH = fileURLToPath(new URL('../../../shared/source/billing-service-interface.md', import.meta.url));
const present = existsSync(DOC_PATH);
const doc = present ? readFileSync(DOC_PATH, 'utf8') : '';
const skipNote = present ? '' : ` (SKIPPED: interface document not found at ${DOC_PATH})`;

/** Wordings that state a numeric bound or a dependent shape. */
const STATES = /starting at \d|\d+\.\.\d+|>= ?\d|max(imum)?( length)? \d|Depends on/;

/** Lines that state such a fact the entries do not need, each with why. */
const ELSEWHERE: Record<string, string> = {
  'Other constants:': 'repeats the bounds the Endpoints section states, each an entry of its own',
};

const sentences = [...STATED_BOUNDS.map((b) => b.sentence), ...DEPENDENT_SHAPES.map((d) => d.sentence)];

describe(`facts the document states in prose${skipNote}`, () => {
  test.runIf(present)('every entry quotes the document word for word', () => {
    expect(sentences.filter((s) => !doc.includes(s))).toEqual([]);
  });

  test.runIf(present)('every line stating a bound or a dependent shape has its entry', () => {
    const lines = doc.split('\n').filter((l) => STATES.test(l));
    expect(lines.length).toBeGreaterThan(5);
    const uncovered = lines.filter(
      (l) => !sentences.some((s) => l.includes(s)) && !Object.keys(ELSEWHERE).some((k) => l.includes(k)),
    );
    expect(uncovered).toEqual([]);
  });

  test('the scan can fail: a line with a bound no entry quotes is found', () => {
    const line = '| seats | integer | Number of seats, starting at 2. |';
    expect(STATES.test(line)).toBe(true);
    expect(sentences.some((s) => line.includes(s))).toBe(false);
  });
});
