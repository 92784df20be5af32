/**
 * Reads Stryker's JSON report and the reviewed survivors (mutation/survivors.yaml) and
 * tells which surviving mutants are reviewed, which are not, and which reviews no longer
 * match anything. A review names exactly one mutant: its file, its mutator, its original
 * code and its replacement (whitespace collapsed), and, when the file holds several mutants
 * with that same text, which one (`occurrence`, 1-based in file order). No line numbers,
 * so reviews keep matching when lines move; no patterns, so each review is one decision
 * about one mutant.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export type Verdict = 'equivalent' | 'unobservable';
export const VERDICTS: readonly Verdict[] = ['equivalent', 'unobservable'];

export interface Review {
  file: string;
  mutator: string;
  original: string;
  replacement: string;
  /** Which of several mutants with this same file, mutator, original and replacement (1-based, file order). */
  occurrence?: number;
  verdict: Verdict;
  reason: string;
}

/** Keys a review may carry. */
const REVIEW_KEYS = new Set(['file', 'mutator', 'original', 'replacement', 'occurrence', 'verdict', 'reason']);

/** One mutant of Stryker's report (mutation-testing-report-schema), with its original code. */
export interface ReportedMutant {
  id: string;
  file: string;
  mutator: string;
  line: number;
  original: string;
  replacement: string;
  status: string;
  /** 1-based rank among the file's mutants with the same mutator, original and replacement. */
  occurrence: number;
  /** How many mutants of the file share that text. */
  twins: number;
}

interface StrykerMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

interface StrykerReport {
  files: Record<string, { source: string; mutants: StrykerMutant[] }>;
}

/** Undetected statuses: what a review must account for. */
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const DETECTED = new Set(['Killed', 'Timeout']);

/** The source between two 1-based (line, column) positions, whitespace collapsed. */
export function sliceSource(source: string, loc: StrykerMutant['location']): string {
  const lines = source.split('\n');
  const offset = (p: { line: number; column: number }) =>
    lines.slice(0, p.line - 1).reduce((n, l) => n + l.length + 1, 0) + p.column - 1;
  return squash(source.slice(offset(loc.start), offset(loc.end)));
}

export const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

const textKey = (m: { file: string; mutator: string; original: string; replacement: string }) =>
  JSON.stringify([m.file, m.mutator, m.original, m.replacement]);

export function reportedMutants(report: StrykerReport): ReportedMutant[] {
  const out = Object.entries(report.files).flatMap(([file, f]) =>
    [...f.mutants]
      .sort(
        (a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column,
      )
      .map((m) => ({
        id: m.id,
        file,
        mutator: m.mutatorName,
        line: m.location.start.line,
        original: sliceSource(f.source, m.location),
        replacement: squash(m.replacement ?? ''),
        status: m.status,
        occurrence: 0,
        twins: 0,
      })),
  );
  const seen = new Map<string, ReportedMutant[]>();
  for (const m of out) seen.set(textKey(m), [...(seen.get(textKey(m)) ?? []), m]);
  for (const group of seen.values())
    group.forEach((m, i) => Object.assign(m, { occurrence: i + 1, twins: group.length }));
  return out;
}

export function loadReviews(path: string): Review[] {
  const doc = parse(readFileSync(path, 'utf8')) as { survivors?: unknown } | null;
  const list = doc?.survivors ?? [];
  if (!Array.isArray(list)) throw new Error(`${path}: 'survivors' must be a list`);
  const reviews = list.map((r, i) => {
    const where = `${path}: survivors[${i}]`;
    const extra = Object.keys(r ?? {}).filter((k) => !REVIEW_KEYS.has(k));
    if (extra.length)
      throw new Error(
        `${where}: unknown key${extra.length > 1 ? 's' : ''} ${extra.join(', ')} (a review names one mutant: file, mutator, original, replacement, occurrence when needed)`,
      );
    for (const k of ['file', 'mutator', 'original', 'replacement', 'verdict', 'reason'] as const) {
      if (typeof r?.[k] !== 'string') throw new Error(`${where}: '${k}' must be a string`);
    }
    if (r.mutator === '*' || !/^[A-Z][A-Za-z]+$/.test(r.mutator))
      throw new Error(`${where}: mutator must be one Stryker mutator name (e.g. StringLiteral), got '${r.mutator}'`);
    if (r.occurrence !== undefined && (!Number.isInteger(r.occurrence) || r.occurrence < 1))
      throw new Error(`${where}: occurrence must be a whole number from 1`);
    if (!VERDICTS.includes(r.verdict))
      throw new Error(`${where}: verdict must be ${VERDICTS.join(' or ')}, got '${r.verdict}'`);
    if (r.reason.trim().length < 10) throw new Error(`${where}: the reason must say why (at least 10 characters)`);
    return { ...r, original: squash(r.original), replacement: squash(r.replacement) } as Review;
  });
  const keys = new Set<string>();
  for (const r of reviews) {
    const key = `${textKey(r)}#${r.occurrence ?? 1}`;
    if (keys.has(key))
      throw new Error(
        `${path}: two reviews of the same mutant (${r.file} ${r.mutator} ${JSON.stringify(r.original)} -> ${JSON.stringify(r.replacement)}${r.occurrence ? ` #${r.occurrence}` : ''})`,
      );
    keys.add(key);
  }
  return reviews;
}

/**
 * A review matches one mutant. When the file holds twins (same text), the review must say
 * which (`occurrence`); a review without one then matches none of them, and they stay
 * unreviewed until each gets its own review.
 */
function matches(r: Review, m: ReportedMutant): boolean {
  if (r.file !== m.file || r.mutator !== m.mutator || r.original !== m.original || r.replacement !== m.replacement)
    return false;
  return r.occurrence !== undefined ? r.occurrence === m.occurrence : m.twins === 1;
}

export interface Summary {
  total: number;
  detected: number;
  undetected: number;
  ignored: number;
  /** Stryker's mutation score: detected / (detected + undetected). */
  score: number;
  reviewed: Array<ReportedMutant & { review: Review }>;
  unreviewed: ReportedMutant[];
  /** Reviews that match no surviving mutant of this report (fixed, or the code changed). */
  stale: Review[];
}

export function summarize(mutants: ReportedMutant[], reviews: Review[]): Summary {
  const undetected = mutants.filter((m) => UNDETECTED.has(m.status));
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
  const reviewed: Summary['reviewed'] = [];
  const unreviewed: ReportedMutant[] = [];
  const used = new Set<Review>();
  for (const m of undetected) {
    const review = reviews.find((r) => matches(r, m));
    if (review) {
      reviewed.push({ ...m, review });
      used.add(review);
    } else unreviewed.push(m);
  }
  // A review only goes stale for a file this report covers: a run over another subset says nothing about it.
  const files = new Set(mutants.map((m) => m.file));
  const stale = reviews.filter((r) => files.has(r.file) && !used.has(r));
  const counted = detected + undetected.length;
  return {
    total: mutants.length,
    detected,
    undetected: undetected.length,
    ignored: mutants.length - counted,
    score: counted ? detected / counted : 0,
    reviewed,
    unreviewed,
    stale,
  };
}
