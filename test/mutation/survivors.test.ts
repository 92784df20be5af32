import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadReviews, reportedMutants, sliceSource, summarize } from '../../mutation/survivors.ts';

const source = ['export function f(a: number) {', '  if (a > 1) return "big";', '  return "small";', '}'].join('\n');
const at = (line: number, c0: number, c1: number) => ({ start: { line, column: c0 }, end: { line, column: c1 } });
const report = {
  files: {
    'src/reference/x.ts': {
      source,
      mutants: [
        { id: '1', mutatorName: 'EqualityOperator', replacement: 'a >= 1', status: 'Killed', location: at(2, 7, 12) },
        { id: '2', mutatorName: 'StringLiteral', replacement: '""', status: 'Survived', location: at(2, 21, 26) },
        { id: '3', mutatorName: 'StringLiteral', replacement: '""', status: 'NoCoverage', location: at(3, 10, 17) },
        { id: '4', mutatorName: 'BlockStatement', replacement: '{}', status: 'Timeout', location: at(1, 30, 1) },
        {
          id: '5',
          mutatorName: 'ConditionalExpression',
          replacement: 'true',
          status: 'Ignored',
          location: at(2, 7, 12),
        },
      ],
    },
  },
};

function reviewsFile(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'survivors-')), 'survivors.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('mutation survivors', () => {
  test('slices the original code of a mutant from 1-based positions', () => {
    expect(sliceSource(source, at(2, 7, 12))).toBe('a > 1');
    expect(sliceSource(source, at(2, 21, 26))).toBe('"big"');
  });

  test('score counts killed and timed-out mutants over every killed, timed-out, surviving or uncovered one', () => {
    const s = summarize(reportedMutants(report), []);
    expect([s.total, s.detected, s.undetected, s.ignored]).toEqual([5, 2, 2, 1]);
    expect(s.score).toBe(0.5);
    expect(s.unreviewed.map((m) => m.id)).toEqual(['2', '3']);
  });

  test('a review matches its survivor by file, mutator, original code and replacement, not by line', () => {
    const reviews = loadReviews(
      reviewsFile(`survivors:
  - file: src/reference/x.ts
    mutator: StringLiteral
    original: '"big"'
    replacement: '""'
    verdict: unobservable
    reason: the text is never sent to a client
  - file: src/reference/x.ts
    mutator: StringLiteral
    original: '"gone"'
    replacement: '""'
    verdict: equivalent
    reason: a review whose mutant no longer exists
  - file: src/reference/other.ts
    mutator: StringLiteral
    original: '"elsewhere"'
    replacement: '""'
    verdict: equivalent
    reason: a file this report does not cover
`),
    );
    const s = summarize(reportedMutants(report), reviews);
    expect(s.reviewed.map((m) => m.id)).toEqual(['2']);
    expect(s.unreviewed.map((m) => m.id)).toEqual(['3']);
    expect(s.stale.map((r) => r.original)).toEqual(['"gone"']);
  });

  test('twins (same file, mutator, original and replacement) need one review each, naming its occurrence', () => {
    const twins = {
      files: {
        'src/reference/y.ts': {
          source: ['const a = "x";', 'const b = "x";'].join('\n'),
          mutants: [
            { id: '7', mutatorName: 'StringLiteral', replacement: '""', status: 'Survived', location: at(2, 11, 14) },
            { id: '6', mutatorName: 'StringLiteral', replacement: '""', status: 'Survived', location: at(1, 11, 14) },
          ],
        },
      },
    };
    const mutants = reportedMutants(twins);
    expect(mutants.map((m) => [m.id, m.occurrence, m.twins])).toEqual([
      ['6', 1, 2],
      ['7', 2, 2],
    ]);
    const one = (extra: string) =>
      loadReviews(
        reviewsFile(
          `survivors:\n  - {file: src/reference/y.ts, mutator: StringLiteral, original: '"x"', replacement: '""', ${extra}verdict: equivalent, reason: only a label nobody reads}\n`,
        ),
      );
    // Without an occurrence a review matches no twin: each needs its own decision.
    expect(summarize(mutants, one('')).unreviewed.map((m) => m.id)).toEqual(['6', '7']);
    const second = summarize(mutants, one('occurrence: 2, '));
    expect(second.reviewed.map((m) => m.id)).toEqual(['7']);
    expect(second.unreviewed.map((m) => m.id)).toEqual(['6']);
  });

  test('only exact reviews are accepted: no regular expressions, no wildcard mutator, no duplicates', () => {
    expect(() =>
      loadReviews(
        reviewsFile(
          `survivors:\n  - {file: a.ts, mutator: StringLiteral, match: '^x', replacement: '""', verdict: equivalent, reason: a real reason}\n`,
        ),
      ),
    ).toThrow(/unknown key match/);
    expect(() =>
      loadReviews(
        reviewsFile(
          `survivors:\n  - {file: a.ts, mutator: '*', original: a, replacement: b, verdict: equivalent, reason: a real reason}\n`,
        ),
      ),
    ).toThrow(/one Stryker mutator name/);
    const dup = `  - {file: a.ts, mutator: StringLiteral, original: a, replacement: b, verdict: equivalent, reason: a real reason}\n`;
    expect(() => loadReviews(reviewsFile(`survivors:\n${dup}${dup}`))).toThrow(/two reviews of the same mutant/);
    expect(() =>
      loadReviews(
        reviewsFile(
          `survivors:\n  - {file: a.ts, mutator: StringLiteral, original: a, replacement: b, occurrence: 0, verdict: equivalent, reason: a real reason}\n`,
        ),
      ),
    ).toThrow(/occurrence/);
  });

  test('the reviews of the project load, each naming one mutant', () => {
    const reviews = loadReviews(new URL('../../mutation/survivors.yaml', import.meta.url).pathname);
    expect(reviews.length).toBeGreaterThan(0);
    for (const r of reviews) expect(r.mutator).toMatch(/^[A-Z][A-Za-z]+$/);
  });

  test('a review without a verdict or a reason is refused, naming the entry', () => {
    expect(() =>
      loadReviews(
        reviewsFile(
          `survivors:\n  - {file: a.ts, mutator: StringLiteral, original: a, replacement: b, verdict: fine, reason: because it is}\n`,
        ),
      ),
    ).toThrow(/survivors\[0\]: verdict must be equivalent or unobservable/);
    expect(() =>
      loadReviews(
        reviewsFile(
          `survivors:\n  - {file: a.ts, mutator: StringLiteral, original: a, replacement: b, verdict: equivalent, reason: ok}\n`,
        ),
      ),
    ).toThrow(/survivors\[0\]: the reason must say why/);
    expect(() =>
      loadReviews(
        reviewsFile(
          `survivors:\n  - {file: a.ts, mutator: StringLiteral, original: a, verdict: equivalent, reason: a real reason}\n`,
        ),
      ),
    ).toThrow(/'replacement' must be a string/);
  });
});
