/**
 * Reads Stryker's JSON report and the reviewed survivors (mutation/survivors.yaml) and
 * tells which surviving mutants are reviewed, which are not, and which reviews no longer
 * match anything. A review names its mutants by file, mutator ('*': any) and either the
 * original code (exact, whitespace collapsed, with the replacement when given) or `match`,
 * a regular expression over the original code for a group of like mutants (error message
 * texts, say). Neither uses line numbers, so reviews keep matching when lines move.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export type Verdict = 'equivalent' | 'unobservable';
export const VERDICTS: readonly Verdict[] = ['equivalent', 'unobservable'];

export interface Review {
  file: string;
  mutator: string;
  original?: string;
  match?: string;
  replacement?: string;
  verdict: Verdict;
  reason: string;
}

/** One mutant of Stryker's report (mutation-testing-report-schema), with its original code. */
export interface ReportedMutant {
  id: string;
  file: string;
  mutator: string;
  line: number;
  original: string;
  replacement: string;
  status: string;
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
  const offset = (p: { line: number; column: number }) => lines.slice(0, p.line - 1).reduce((n, l) => n + l.length + 1, 0) + p.column - 1;
  return squash(source.slice(offset(loc.start), offset(loc.end)));
}

export const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

export function reportedMutants(report: StrykerReport): ReportedMutant[] {
  return Object.entries(report.files).flatMap(([file, f]) =>
    f.mutants.map((m) => ({
      id: m.id,
      file,
      mutator: m.mutatorName,
      line: m.location.start.line,
      original: sliceSource(f.source, m.location),
      replacement: squash(m.replacement ?? ''),
      status: m.status,
    })),
  );
}

export function loadReviews(path: string): Review[] {
  const doc = parse(readFileSync(path, 'utf8')) as { survivors?: unknown } | null;
  const list = doc?.survivors ?? [];
  if (!Array.isArray(list)) throw new Error(`${path}: 'survivors' must be a list`);
  return list.map((r, i) => {
    const where = `${path}: survivors[${i}]`;
    for (const k of ['file', 'mutator', 'verdict', 'reason'] as const) {
      if (typeof r?.[k] !== 'string') throw new Error(`${where}: '${k}' must be a string`);
    }
    for (const k of ['original', 'match', 'replacement'] as const) {
      if (r[k] !== undefined && typeof r[k] !== 'string') throw new Error(`${where}: '${k}' must be a string`);
    }
    if ((r.original === undefined) === (r.match === undefined)) throw new Error(`${where}: give either 'original' or 'match'`);
    if (r.original !== undefined && r.replacement === undefined) throw new Error(`${where}: 'replacement' must be a string`);
    if (r.match !== undefined) {
      try {
        new RegExp(r.match);
      } catch (err) {
        throw new Error(`${where}: 'match' is not a regular expression: ${(err as Error).message}`);
      }
    }
    if (!VERDICTS.includes(r.verdict)) throw new Error(`${where}: verdict must be ${VERDICTS.join(' or ')}, got '${r.verdict}'`);
    if (r.reason.trim().length < 10) throw new Error(`${where}: the reason must say why (at least 10 characters)`);
    return {
      ...r,
      ...(r.original !== undefined ? { original: squash(r.original) } : {}),
      ...(r.replacement !== undefined ? { replacement: squash(r.replacement) } : {}),
    } as Review;
  });
}

function matches(r: Review, m: ReportedMutant): boolean {
  if (r.file !== m.file || (r.mutator !== '*' && r.mutator !== m.mutator)) return false;
  if (r.replacement !== undefined && r.replacement !== m.replacement) return false;
  return r.original !== undefined ? r.original === m.original : new RegExp(r.match!).test(m.original);
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
