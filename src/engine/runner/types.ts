import type { Finding } from '../types.ts';

export type ScenarioState = 'passed' | 'failed' | 'skipped';

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
  judged: Record<string, number>;
  findings: Finding[];
  notes: string[];
  exchanges: number;
  skipReason?: string;
  /** Skipped by the run's own options (profile, destructive off), not for a missing fixture. */
  skippedByOption?: boolean;
  /** An error that is not a finding (the scenario's rules fail with it). */
  error?: string;
}

/** A problem that kept part of the run from happening (a suite that failed to load...). */
export interface RunError {
  suite?: string;
  message: string;
}
