import type { ScenarioRecord } from '../scenario/types.ts';

/**
 * How a scenario ended: `passed` ran to its end with no finding, `failed` has findings,
 * `skipped` ended early without a finding (t.notJudged, a missing fixture, the profile or
 * destructive setting), `error` the tool broke (an engine error, never the target's fault).
 */
export type ScenarioState = 'passed' | 'failed' | 'skipped' | 'error';

/** One scenario as the runner reports it: what the scenario recorded, and where and how it ran. */
export interface ScenarioResult extends ScenarioRecord {
  id: string;
  /** Suite name: the file name without `.suite.ts`. */
  suite: string;
  file: string;
  title: string;
  fullName: string;
  state: ScenarioState;
  durationMs: number;
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
