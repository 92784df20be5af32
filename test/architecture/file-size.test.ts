/**
 * No file in src/ or suites/ has a line over 140 characters. Files longer than 400 lines are
 * reported, not failed: a file is split where its concepts split, never to meet a count. Those
 * known to be one concept a split would cut in two are named in ONE_CONCEPT with why, and an
 * entry there that is no longer long is stale.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 400;
const MAX_WIDTH = 140;

interface Size {
  lines: number;
  /** Lines over MAX_WIDTH characters. */
  wide: number;
}

function sizeOf(text: string): Size {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { lines: lines.length, wide: lines.filter((l) => l.length > MAX_WIDTH).length };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** Files allowed past MAX_LINES, each with the concept it holds whole (src/ or suites/ relative to the root). */
export const ONE_CONCEPT: Record<string, string> = {
  'src/engine/fixtures/methods.ts':
    "every fixture method's signature and declaration side by side: adding a method is one edit here, not one per derived file",
};

/** What breaks the limits, given each file's size: wide lines and stale ONE_CONCEPT entries. */
export function sizeProblems(sizes: Record<string, Size>, oneConcept: Record<string, string> = ONE_CONCEPT): string[] {
  const problems: string[] = [];
  for (const [file, s] of Object.entries(sizes)) {
    if (file in oneConcept && s.lines <= MAX_LINES)
      problems.push(`${file}: listed in ONE_CONCEPT but ${s.lines} lines`);
    if (s.wide > 0) problems.push(`${file}: ${s.wide} line(s) over ${MAX_WIDTH} characters`);
  }
  return problems;
}

/** Long files not named as one concept: reported for a reader to judge, never failed. */
export function longFiles(sizes: Record<string, Size>, oneConcept: Record<string, string> = ONE_CONCEPT): string[] {
  return Object.entries(sizes)
    .filter(([file, s]) => s.lines > MAX_LINES && !(file in oneConcept))
    .map(([file, s]) => `${file}: ${s.lines} lines`);
}

describe('file size', () => {
  test(`no file in src/ or suites/ has a line over ${MAX_WIDTH} characters; files over ${MAX_LINES} lines are reported`, () => {
    const sizes: Record<string, Size> = {};
    for (const dir of ['src', 'suites']) {
      for (const path of sourceFiles(join(ROOT, dir))) sizes[relative(ROOT, path)] = sizeOf(readFileSync(path, 'utf8'));
    }
    expect(Object.keys(sizes).length).toBeGreaterThan(100);
    expect(sizeProblems(sizes)).toEqual([]);
    const long = longFiles(sizes);
    if (long.length)
      console.info(`files over ${MAX_LINES} lines (split where a concept ends, if one does):\n  ${long.join('\n  ')}`);
  });

  test('the check fails on a wide line and reports a long file', () => {
    const long = 'x\n'.repeat(MAX_LINES + 1);
    const wide = `${'y'.repeat(MAX_WIDTH + 1)}\n`;
    const sizes = { 'a.ts': sizeOf(long), 'b.ts': sizeOf(wide), 'c.ts': sizeOf('ok\n') };
    expect(sizeProblems(sizes)).toEqual([`b.ts: 1 line(s) over ${MAX_WIDTH} characters`]);
    expect(longFiles(sizes)).toEqual([`a.ts: ${MAX_LINES + 1} lines`]);
  });

  test('a long file named as one concept passes; a short one named there is stale', () => {
    const long = 'x\n'.repeat(MAX_LINES + 1);
    const why = { 'a.ts': 'one table', 'c.ts': 'was long' };
    expect(sizeProblems({ 'a.ts': sizeOf(long), 'c.ts': sizeOf('ok\n') }, why)).toEqual([
      'c.ts: listed in ONE_CONCEPT but 1 lines',
    ]);
  });
});
