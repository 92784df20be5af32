/** Builds the report and writes report.json, junit.xml, report.html and summary.md. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RuleIndex } from '../../spec/rules.ts';
import { redact } from '../redact.ts';
import { computeVerdicts, unknownRuleIds, type RuleVerdict, type Verdict } from '../runner/verdicts.ts';
import type { RunError, ScenarioResult } from '../runner/types.ts';
import { REPORT_SCHEMA_VERSION, summarize, toReportScenario, type Report } from './model.ts';
import { renderJunit } from './junit.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';

export { renderJunit, renderHtml, renderMarkdown };
export type { Report } from './model.ts';

export const REPORT_FILES = ['report.json', 'junit.xml', 'report.html', 'summary.md'] as const;

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
}

export function buildReport(input: BuildReportInput): Report {
  const rules = computeVerdicts(input.rules, input.results, { bundled: input.target.bundled });
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
    },
    summary: summarize(rules, scenarios, input.errors, unknown),
    rules,
    scenarios,
    errors: input.errors,
    unknownRuleIds: unknown,
  };
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

const PRECEDENCE: Verdict[] = ['failed', 'passed', 'skipped', 'not_exercised'];

function mergeRule(a: RuleVerdict, b: RuleVerdict): RuleVerdict {
  const verdict = PRECEDENCE.find((v) => a.verdict === v || b.verdict === v)!;
  const from = [a, b].filter((r) => r.verdict === verdict);
  let reasons = [...new Set(from.flatMap((r) => r.reasons))];
  if (verdict === 'not_exercised' && reasons.length > 1) reasons = reasons.filter((r) => r !== 'no scenario or check in this run exercised it');
  return {
    ...a,
    informational: a.informational && b.informational,
    verdict,
    reasons,
    scenarios: [...new Set([...a.scenarios, ...b.scenarios])],
    judgements: a.judgements + b.judgements,
    failures: [...a.failures, ...b.failures].slice(0, 10),
  };
}

export class MergeError extends Error {}

/** Merges shard reports of one run into one report. */
export function mergeReports(reports: Report[], sources: string[] = []): Report {
  if (!reports.length) throw new MergeError('no reports to merge');
  const [first] = reports;
  for (const r of reports) {
    if (r.schemaVersion !== REPORT_SCHEMA_VERSION) throw new MergeError(`report ${r.run.id} has schemaVersion ${r.schemaVersion}; expected ${REPORT_SCHEMA_VERSION}`);
    if (r.run.target.baseUrl !== first.run.target.baseUrl && !(r.run.target.bundled && first.run.target.bundled)) throw new MergeError(`reports target different base URLs (${first.run.target.baseUrl}, ${r.run.target.baseUrl})`);
  }
  const rules = new Map<string, RuleVerdict>();
  for (const r of reports) for (const v of r.rules) rules.set(v.id, rules.has(v.id) ? mergeRule(rules.get(v.id)!, v) : v);
  const scenarios = reports.flatMap((r) => r.scenarios);
  const errors = reports.flatMap((r) => r.errors);
  const unknown = [...new Set(reports.flatMap((r) => r.unknownRuleIds))].sort();
  const started = Math.min(...reports.map((r) => Date.parse(r.run.startedAt)));
  const finished = Math.max(...reports.map((r) => Date.parse(r.run.finishedAt)));
  const ruleList = [...rules.values()];
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
    summary: summarize(ruleList, scenarios, errors, unknown),
    rules: ruleList,
    scenarios,
    errors,
    unknownRuleIds: unknown,
  };
}
