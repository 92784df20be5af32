import type { EngineErrorRecord, Finding, NotJudgedMark } from '../types.ts';

/**
 * How a scenario ended: `passed` ran to its end with no finding, `failed` has findings,
 * `skipped` ended early without a finding (t.notJudged, a missing fixture, the profile or
 * destructive setting), `error` the tool broke (an engine error, never the target's fault).
 */
export type ScenarioState = 'passed' | 'failed' | 'skipped' | 'error';

/** One scenario as the reporters see it. */
export interface ScenarioResult {
  id: string;
  /** Suite name: the file name without `.suite.ts`. */
  suite: string;
  file: string;
  title: string;
  fullName: string;
  state: ScenarioState;
  durationMs: number;
  ruleIds: string[];
  /** Rule id → judgements (conditions evaluated, held or not). */
  judged: Record<string, number>;
  /** Rule id → findings against it, every one counted. */
  failed: Record<string, number>;
  /** The findings kept as evidence (capped). */
  findings: Finding[];
  /** Every finding, kept or not. */
  findingCount: number;
  notes: string[];
  exchanges: number;
  /** Rules not judged, with reasons and categories. */
  notJudged: NotJudgedMark[];
  engineErrors: EngineErrorRecord[];
  /** The fixture methods it asked for. */
  fixtures?: string[];
  /** The reason that ended the scenario early, when one did. */
  skipReason?: string;
  /** First engine error, one line. */
  error?: string;
}

/** A problem that kept part of the run from happening (a suite that failed to load...). */
export interface RunError {
  suite?: string;
  message: string;
}
