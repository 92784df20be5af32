/** The report: one JSON document (schemas/report.schema.json) from which every file is written. */
import type { RuleVerdict, Verdict } from '../runner/verdicts.ts';
import type { RunError, ScenarioResult } from '../runner/types.ts';

export const REPORT_SCHEMA_VERSION = 1;

export interface FamilySummary {
  family: string;
  passed: number;
  failed: number;
  skipped: number;
  notExercised: number;
}

export interface ReportScenario {
  id: string;
  suite: string;
  title: string;
  state: ScenarioResult['state'];
  durationMs: number;
  ruleIds: string[];
  exchanges: number;
  findings: number;
  skipReason?: string;
  error?: string;
  notes: string[];
}

export interface Report {
  schemaVersion: number;
  tool: { name: string; version: string };
  run: {
    id: string;
    startedAt: string;
    finishedAt: string;
    durationMs: number;
    target: { baseUrl: string; bundled: boolean; sandbox: boolean; merchantId?: string };
    profile: 'quick' | 'full';
    seed: number;
    shard?: { index: number; count: number };
    /** Shard reports merged into this one. */
    mergedFrom?: string[];
    suites: string[];
    fixtures: { strategy: string; reason: string };
    destructive: boolean;
    specVersion?: string;
  };
  summary: {
    verdict: 'passed' | 'failed' | 'error';
    exitCode: 0 | 1 | 2;
    rules: { total: number; passed: number; failed: number; skipped: number; notExercised: number; informationalFailed: number };
    scenarios: { total: number; passed: number; failed: number; skipped: number };
    families: FamilySummary[];
  };
  rules: RuleVerdict[];
  scenarios: ReportScenario[];
  errors: RunError[];
  unknownRuleIds: string[];
}

export function toReportScenario(s: ScenarioResult): ReportScenario {
  return {
    id: s.id,
    suite: s.suite,
    title: s.title,
    state: s.state,
    durationMs: Math.round(s.durationMs),
    ruleIds: s.ruleIds,
    exchanges: s.exchanges,
    findings: s.findings.length,
    ...(s.skipReason ? { skipReason: s.skipReason } : {}),
    ...(s.error ? { error: s.error } : {}),
    notes: s.notes,
  };
}

/** Summary and exit code: 1 when a required rule failed (or a scenario failed outside any known rule), 2 when the run had errors and no failure, else 0. */
export function summarize(rules: RuleVerdict[], scenarios: ReportScenario[], errors: RunError[], unknown: string[]): Report['summary'] {
  const count = (v: Verdict, list = rules) => list.filter((r) => r.verdict === v).length;
  const required = rules.filter((r) => !r.informational);
  const families = new Map<string, FamilySummary>();
  for (const r of rules) {
    const f = families.get(r.family) ?? { family: r.family, passed: 0, failed: 0, skipped: 0, notExercised: 0 };
    if (r.verdict === 'passed') f.passed++;
    else if (r.verdict === 'failed') f.failed++;
    else if (r.verdict === 'skipped') f.skipped++;
    else f.notExercised++;
    families.set(r.family, f);
  }
  const requiredFailed = count('failed', required);
  // A failed scenario whose findings cite only unknown rule ids still fails the run.
  const orphanFailure = scenarios.some((s) => s.state === 'failed' && s.ruleIds.length > 0 && s.ruleIds.every((id) => unknown.includes(id)));
  const exitCode = requiredFailed > 0 || orphanFailure ? 1 : errors.length ? 2 : 0;
  return {
    verdict: exitCode === 0 ? 'passed' : exitCode === 1 ? 'failed' : 'error',
    exitCode,
    rules: {
      total: rules.length,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      notExercised: count('not_exercised'),
      informationalFailed: rules.filter((r) => r.informational && r.verdict === 'failed').length,
    },
    scenarios: {
      total: scenarios.length,
      passed: scenarios.filter((s) => s.state === 'passed').length,
      failed: scenarios.filter((s) => s.state === 'failed').length,
      skipped: scenarios.filter((s) => s.state === 'skipped').length,
    },
    families: [...families.values()],
  };
}
