/**
 * No file in src/ or suites/ is longer than 400 lines or has a line over 140 characters.
 * The files past a limit today are listed with their counts: each may only shrink, and
 * leaves the list once within both limits. Any other file past a limit fails.
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

/** Past a limit today: [lines, lines over 140 characters]. Shrink them; never add one. */
const KNOWN: Record<string, Size> = {
  'src/cli/commands/run.ts': { lines: 496, wide: 0 },
};

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

/** What breaks the limits, given each file's size and the known exceptions. */
export function sizeProblems(sizes: Record<string, Size>, known: Record<string, Size>): string[] {
  const problems: string[] = [];
  for (const [file, s] of Object.entries(sizes)) {
    const k = known[file];
    const over = s.lines > MAX_LINES || s.wide > 0;
    if (!k) {
      if (s.lines > MAX_LINES) problems.push(`${file}: ${s.lines} lines, more than ${MAX_LINES}`);
      if (s.wide > 0) problems.push(`${file}: ${s.wide} line(s) over ${MAX_WIDTH} characters`);
    } else if (!over) problems.push(`${file} is within the limits now: remove it from KNOWN`);
    else if (s.lines > Math.max(k.lines, MAX_LINES) || s.wide > k.wide) {
      problems.push(
        `${file}: ${s.lines} lines and ${s.wide} wide, more than the ${k.lines} and ${k.wide} known: split it instead`,
      );
    }
  }
  for (const file of Object.keys(known)) if (!(file in sizes)) problems.push(`${file} is gone: remove it from KNOWN`);
  return problems;
}

describe('file size', () => {
  test(`no file in src/ or suites/ has more than ${MAX_LINES} lines or a line over ${MAX_WIDTH} characters`, () => {
    const sizes: Record<string, Size> = {};
    for (const dir of ['src', 'suites']) {
      for (const path of sourceFiles(join(ROOT, dir))) sizes[relative(ROOT, path)] = sizeOf(readFileSync(path, 'utf8'));
    }
    expect(Object.keys(sizes).length).toBeGreaterThan(100);
    expect(sizeProblems(sizes, KNOWN)).toEqual([]);
  });

  test('the check fails on a long file, a wide line, a known file that grew, and a stale exception', () => {
    const long = 'x\n'.repeat(MAX_LINES + 1);
    const wide = `${'y'.repeat(MAX_WIDTH + 1)}\n`;
    expect(sizeProblems({ 'a.ts': sizeOf(long), 'b.ts': sizeOf(wide), 'c.ts': sizeOf('ok\n') }, {})).toEqual([
      `a.ts: ${MAX_LINES + 1} lines, more than ${MAX_LINES}`,
      `b.ts: 1 line(s) over ${MAX_WIDTH} characters`,
    ]);
    expect(sizeProblems({ 'a.ts': { lines: 450, wide: 0 } }, { 'a.ts': { lines: 440, wide: 0 } })[0]).toMatch(
      /split it instead/,
    );
    expect(sizeProblems({ 'a.ts': { lines: 10, wide: 0 } }, { 'a.ts': { lines: 440, wide: 0 } })[0]).toMatch(
      /remove it from KNOWN/,
    );
    expect(sizeProblems({}, { 'gone.ts': { lines: 440, wide: 0 } })[0]).toMatch(/is gone/);
    expect(sizeProblems({ 'a.ts': { lines: 430, wide: 1 } }, { 'a.ts': { lines: 440, wide: 2 } })).toEqual([]);
  });
});
