/** Builds the report and writes report.json, junit.xml, report.html and summary.md. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RuleIndex } from '../../contract/rules.ts';
import { redact } from '../http/redact.ts';
import {
  MAX_FAILURES_PER_RULE,
  computeVerdicts,
  unknownRuleIds,
  type NotJudgedReason,
  type PartVerdict,
  type RuleVerdict,
  type Verdict,
} from './verdicts.ts';
import type { RunError, ScenarioResult } from '../runner/types.ts';
import { REPORT_SCHEMA_VERSION, summarize, toReportScenario, type Acceptance, type Report } from './model.ts';
import { renderJunit } from './junit.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { expectationOutcomes, type Expectation, type ExpectationOutcome } from '../config/expectations.ts';

export { renderJunit, renderHtml, renderMarkdown };
export type { Report, Acceptance } from './model.ts';
export { headline, unjudgedGroups, verdictOf, CATEGORY_LABEL } from './model.ts';
export { narrative, type Narrative } from './narrative.ts';

export interface BuildReportInput {
  runId: string;
  toolVersion: string;
  startedAt: string;
  durationMs: number;
  target: Report['run']['target'];
  profile: Report['run']['profile'];
  seed: number;
  shard?: { index: number; count: number };
  suites: string[];
  fixtures: { strategy: string; reason: string };
  destructive: boolean;
  specVersion?: string;
  rules: RuleIndex;
  results: ScenarioResult[];
  errors: RunError[];
  /** Gaps the user accepts (--allow-unjudged, allowUnjudged, minJudged). */
  acceptance?: Acceptance;
  /** What the fixtures made and the run kept for a failure's replay. */
  kept?: Report['kept'];
  /** The known differences declared in the config (expectedFailures). */
  expectedFailures?: Expectation[];
}

/** Each expected finding kept as evidence gets its expectation's reason. */
function withReasons(rules: RuleVerdict[], list: readonly Expectation[]): RuleVerdict[] {
  if (!list.length) return rules;
  return rules.map((r) =>
    r.expected?.length
      ? {
          ...r,
          expected: r.expected.map((f) =>
            f.expected !== undefined && list[f.expected] ? { ...f, expectedReason: list[f.expected].reason } : f,
          ),
        }
      : r,
  );
}

export function buildReport(input: BuildReportInput): Report {
  // A shard is a narrowed run: the rules other shards judge are not its gaps.
  const given = input.acceptance ?? {};
  const acceptance: Acceptance = input.shard
    ? { ...given, narrowed: { ...given.narrowed, shard: input.shard } }
    : given;
  const declared = input.expectedFailures ?? [];
  const rules = withReasons(
    computeVerdicts(input.rules, input.results, {
      bundled: input.target.bundled,
      referenceServer: input.target.referenceServer,
    }),
    declared,
  );
  const expectations = declared.length
    ? expectationOutcomes(
        declared,
        input.results.map((r) => r.expectations ?? { matched: {}, judged: {} }),
      )
    : undefined;
  const scenarios = input.results.map(toReportScenario);
  const unknown = unknownRuleIds(input.rules, input.results);
  const finishedAt = new Date(Date.parse(input.startedAt) + input.durationMs).toISOString();
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: 'billing-conform', version: input.toolVersion },
    run: {
      id: input.runId,
      startedAt: input.startedAt,
      finishedAt,
      durationMs: input.durationMs,
      target: input.target,
      profile: input.profile,
      seed: input.seed,
      ...(input.shard ? { shard: input.shard } : {}),
      suites: input.suites,
      fixtures: input.fixtures,
      destructive: input.destructive,
      ...(input.specVersion ? { specVersion: input.specVersion } : {}),
      acceptance,
    },
    summary: aboutTarget(summarize(rules, scenarios, input.errors, unknown, acceptance, expectations), input.target),
    rules,
    scenarios,
    errors: input.errors,
    unknownRuleIds: unknown,
    ...(expectations ? { expectations } : {}),
    ...(input.kept && (input.kept.requests.length || input.kept.module) ? { kept: input.kept } : {}),
  };
}

/** A run of the bundled reference server is a demonstration: its headline says what it judged. */
function aboutTarget(summary: Report['summary'], target: Report['run']['target']): Report['summary'] {
  return target.bundled
    ? { ...summary, headline: `${summary.headline} — of the bundled reference server, not a deployment` }
    : summary;
}

/**
 * The reports of a run that could not be done (exit 2): no rule judged, the reason as its error,
 * so a CI job's merge, JUnit upload and job summary have something to show.
 */
export function unstartedReport(input: {
  runId: string;
  toolVersion: string;
  reason: string;
  rules: RuleIndex;
  target?: Partial<Report['run']['target']>;
  profile?: Report['run']['profile'];
  seed?: number;
}): Report {
  return buildReport({
    runId: input.runId,
    toolVersion: input.toolVersion,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    target: { baseUrl: input.target?.baseUrl ?? '(none)', bundled: input.target?.bundled ?? false, sandbox: false },
    profile: input.profile ?? 'quick',
    seed: input.seed ?? 0,
    suites: [],
    fixtures: { strategy: 'none', reason: 'the run could not start' },
    destructive: false,
    rules: input.rules,
    results: [],
    errors: [{ message: `the run could not start: ${input.reason}` }],
  });
}

/** Writes the four files; every byte goes through the secret scrubber. */
export async function writeReports(report: Report, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    ['report.json', `${JSON.stringify(report, null, 2)}\n`],
    ['junit.xml', renderJunit(report)],
    ['report.html', renderHtml(report)],
    ['summary.md', renderMarkdown(report)],
  ];
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    await writeFile(path, redact(text));
    written.push(path);
  }
  return written;
}

export async function readReport(path: string): Promise<Report> {
  return JSON.parse(await readFile(path, 'utf8')) as Report;
}

/** The same rule from two shards: findings and judgements add up; the verdict follows the model's precedence. */
/** Reasons without repeats; a part another shard ran is not "not in this run". */
function mergeReasons(list: NotJudgedReason[]): NotJudgedReason[] {
  const kept = list.some((n) => n.category !== 'not-run') ? list.filter((n) => n.category !== 'not-run') : list;
  const seen = new Set<string>();
  return kept.filter((n) => {
    const k = `${n.part ?? ''}|${n.category}|${n.reason}`;
    return !seen.has(k) && !!seen.add(k);
  });
}

function mergePart(a: PartVerdict, b: PartVerdict): PartVerdict {
  const judgements = a.judgements + b.judgements;
  const failureCount = a.failureCount + b.failureCount;
  const expectedCount = (a.expectedCount ?? 0) + (b.expectedCount ?? 0);
  const engineError = a.verdict === 'engine_error' || b.verdict === 'engine_error';
  const verdict: Verdict =
    failureCount > 0
      ? 'failed'
      : expectedCount > 0
        ? 'expected_failure'
        : judgements > 0
          ? 'passed'
          : engineError
            ? 'engine_error'
            : 'not_judged';
  const notJudged = mergeReasons([...(a.notJudged ?? []), ...(b.notJudged ?? [])]);
  const { notJudged: _drop, expectedCount: _e, ...rest } = a;
  return {
    ...rest,
    verdict,
    judgements,
    failureCount,
    ...(expectedCount ? { expectedCount } : {}),
    ...(verdict === 'not_judged' ? { notJudged } : {}),
  };
}

function mergeRule(a: RuleVerdict, b: RuleVerdict): RuleVerdict {
  const failureCount = a.failureCount + b.failureCount;
  const expectedCount = (a.expectedCount ?? 0) + (b.expectedCount ?? 0);
  const judgements = a.judgements + b.judgements;
  const engineErrors = [...a.engineErrors, ...b.engineErrors];
  const parts = a.parts.map((p) => {
    const other = b.parts.find((q) => q.id === p.id);
    return other ? mergePart(p, other) : p;
  });
  const notApplicable = [a, b].every(
    (r) => r.verdict === 'not_judged' && r.notJudged.every((n) => n.category === 'not-applicable'),
  );
  let verdict: Verdict;
  if (notApplicable) verdict = 'not_judged';
  else if (failureCount > 0) verdict = 'failed';
  else if (engineErrors.length) verdict = 'engine_error';
  else if (expectedCount > 0) verdict = 'expected_failure';
  else if (parts.every((p) => p.judgements > 0)) verdict = 'passed';
  else verdict = 'not_judged';
  const from = [a, b].filter((r) => r.verdict === verdict);
  const notJudged =
    verdict !== 'not_judged'
      ? []
      : notApplicable
        ? mergeReasons([...a.notJudged, ...b.notJudged])
        : mergeReasons(parts.filter((p) => p.judgements === 0).flatMap((p) => p.notJudged ?? []));
  return {
    ...a,
    verdict,
    reasons:
      verdict === 'not_judged'
        ? [...new Set(notJudged.map((n) => (n.part ? `part ${n.part}: ${n.reason}` : n.reason)))]
        : [...new Set(from.flatMap((r) => r.reasons))],
    notJudged,
    parts,
    scenarios: [...new Set([...a.scenarios, ...b.scenarios])],
    judgements,
    failureCount,
    failures: [...a.failures, ...b.failures].slice(0, MAX_FAILURES_PER_RULE),
    ...(verdict === 'failed' ? { failedIn: (a.failedIn ?? 0) + (b.failedIn ?? 0) } : {}),
    ...(expectedCount
      ? { expectedCount, expected: [...(a.expected ?? []), ...(b.expected ?? [])].slice(0, MAX_FAILURES_PER_RULE) }
      : {}),
    engineErrors: engineErrors.slice(0, 5),
  };
}

/** The shards' expectation outcomes added up, index by index (every shard read the same config). */
function mergedExpectations(reports: Report[]): ExpectationOutcome[] | undefined {
  const lists = reports.map((r) => r.expectations ?? []);
  const first = lists.find((l) => l.length);
  if (!first) return undefined;
  const declared = first.map(({ rule, operation, field, reason }) => ({
    rule,
    operation,
    ...(field !== undefined ? { field } : {}),
    reason,
  }));
  const tally = (l: ExpectationOutcome[], k: 'matched' | 'judged') => Object.fromEntries(l.map((e, i) => [i, e[k]]));
  return expectationOutcomes(
    declared,
    lists.map((l) => ({ matched: tally(l, 'matched'), judged: tally(l, 'judged') })),
  );
}

export class MergeError extends Error {}

/** The shards together are the whole of what their suites selected: only a suite narrowing remains. */
function mergedAcceptance(a: Acceptance): Acceptance {
  const { narrowed, ...rest } = a;
  return narrowed?.suites?.length ? { ...rest, narrowed: { suites: narrowed.suites } } : rest;
}

/** Merges shard reports of one run into one report. */
export function mergeReports(reports: Report[], sources: string[] = []): Report {
  if (!reports.length) throw new MergeError('no reports to merge');
  const [first] = reports;
  for (const r of reports) {
    if (r.schemaVersion !== REPORT_SCHEMA_VERSION)
      throw new MergeError(
        `report ${r.run.id} has schemaVersion ${r.schemaVersion}; expected ${REPORT_SCHEMA_VERSION}`,
      );
    if (r.run.target.baseUrl !== first.run.target.baseUrl && !(r.run.target.bundled && first.run.target.bundled))
      throw new MergeError(`reports target different base URLs (${first.run.target.baseUrl}, ${r.run.target.baseUrl})`);
  }
  const rules = new Map<string, RuleVerdict>();
  for (const r of reports)
    for (const v of r.rules) rules.set(v.id, rules.has(v.id) ? mergeRule(rules.get(v.id)!, v) : v);
  const scenarios = reports.flatMap((r) => r.scenarios);
  const errors = reports.flatMap((r) => r.errors);
  const unknown = [...new Set(reports.flatMap((r) => r.unknownRuleIds))].sort();
  const started = Math.min(...reports.map((r) => Date.parse(r.run.startedAt)));
  const finished = Math.max(...reports.map((r) => Date.parse(r.run.finishedAt)));
  const ruleList = [...rules.values()];
  const expectations = mergedExpectations(reports);
  const { shard: _shard, ...run } = first.run;
  return {
    ...first,
    run: {
      ...run,
      id: `${first.run.id.replace(/-shard\d+of\d+$/, '')}-merged`,
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date(finished).toISOString(),
      durationMs: finished - started,
      suites: [...new Set(reports.flatMap((r) => r.run.suites))],
      mergedFrom: sources.length ? sources : reports.map((r) => r.run.id),
    },
    summary: aboutTarget(
      summarize(ruleList, scenarios, errors, unknown, mergedAcceptance(first.run.acceptance), expectations),
      first.run.target,
    ),
    rules: ruleList,
    scenarios,
    errors,
    unknownRuleIds: unknown,
    ...(expectations ? { expectations } : {}),
    ...mergedKept(reports),
  };
}

/** What every shard kept for its failures' replays, together. */
function mergedKept(reports: Report[]): Pick<Report, 'kept'> {
  const requests = reports.flatMap((r) => r.kept?.requests ?? []);
  const module = reports.some((r) => r.kept?.module);
  return requests.length || module ? { kept: { requests, ...(module ? { module: true } : {}) } } : {};
}
