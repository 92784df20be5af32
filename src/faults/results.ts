/**
 * What one fault's run means (caught, missed, flagged...) against the baseline, and the
 * detection and false-alarm rates over a whole catalog run.
 */
import type { CatalogFault } from './catalog/index.ts';

/** What the proxy counted a fault changing. */
export type Applied = Pick<FaultResult, 'applied' | 'appliedSetup' | 'exchanges'>;

export type Outcome = 'caught' | 'missed' | 'not-exercised' | 'error' | 'flagged' | 'passed';

export interface RunRecord {
  exitCode: number | null;
  /** Required rules the run failed. */
  failedRules: string[];
  /** The reference server's own rules (kind reference) among the failed ones. */
  informationalFailed: string[];
  durationMs: number;
  suites: string[];
  reportDir: string;
  error?: string;
}

export interface FaultResult extends RunRecord {
  name: string;
  area: string;
  benign: boolean;
  /** Why the document decides neither way (reported apart, counted in neither rate). */
  indeterminate?: string;
  /** The generated catalog's kind of fault. */
  kind?: string;
  description: string;
  expectedRules: string[];
  outcome: Outcome;
  /** Failed rules the baseline did not fail. */
  rulesFired: string[];
  /** Expected rules among rulesFired. */
  expectedFired: string[];
  /** Exchanges of the suites the fault changed. */
  applied: number;
  /** Fixture setup exchanges it changed (no check judges them): counted apart from `applied`. */
  appliedSetup: number;
  exchanges: number;
}

export interface FaultsSummary {
  /** Faults the document makes observable (indeterminate cases are apart). */
  faults: number;
  caught: number;
  missed: number;
  notExercised: number;
  errors: number;
  /** caught / faults */
  detectionRate: number;
  /** caught / faults that changed at least one exchange (a fault that never applied made the target no different). */
  detectionRateApplied: number;
  benign: number;
  flagged: number;
  /** flagged / benign */
  falseAlarmRate: number;
  /** Cases the document decides neither way, and how many of them the suites flagged. */
  indeterminate: number;
  indeterminateFlagged: number;
  durationMs: number;
  exitCode: 0 | 1 | 2;
}

export interface FaultsReport {
  startedAt: string;
  target: { baseUrl?: string; bundled: boolean };
  profile: string;
  seed: number;
  parallel: number;
  baseline?: RunRecord;
  results: FaultResult[];
  summary: FaultsSummary;
}

export function judge(fault: CatalogFault, run: RunRecord & Applied, baseline: RunRecord | undefined): FaultResult {
  const already = new Set(baseline?.failedRules ?? []);
  const rulesFired = run.failedRules.filter((id) => !already.has(id));
  const failedAnew = run.exitCode === 1 && (!baseline || baseline.exitCode === 0 || rulesFired.length > 0);
  let outcome: Outcome;
  if (run.error && run.exitCode !== 1) outcome = 'error';
  // Setup requests are not judged: a fault that changed only those exercised no check, unless the run failed anew.
  else if (run.applied === 0 && (run.appliedSetup === 0 || !failedAnew)) outcome = 'not-exercised';
  else if (fault.benign || fault.indeterminate) outcome = failedAnew ? 'flagged' : 'passed';
  else outcome = failedAnew ? 'caught' : 'missed';
  return {
    name: fault.name,
    area: fault.area,
    benign: !!fault.benign,
    ...(fault.indeterminate ? { indeterminate: fault.indeterminate } : {}),
    ...(fault.kind ? { kind: fault.kind } : {}),
    description: fault.description,
    expectedRules: fault.rules,
    ...run,
    outcome,
    rulesFired,
    expectedFired: fault.rules.filter((id) => rulesFired.includes(id)),
  };
}

export function summarize(results: FaultResult[], durationMs: number, baseline: RunRecord | undefined): FaultsSummary {
  const faults = results.filter((r) => !r.benign && !r.indeterminate);
  const benign = results.filter((r) => r.benign);
  const open = results.filter((r) => r.indeterminate);
  const count = (list: FaultResult[], o: Outcome) => list.filter((r) => r.outcome === o).length;
  const caught = count(faults, 'caught');
  const flagged = count(benign, 'flagged');
  const rate = (n: number, d: number) => (d ? Math.round((n / d) * 1000) / 1000 : 0);
  const baselineBroken = !!baseline && (baseline.exitCode === null || baseline.exitCode === 2);
  const ok = caught === faults.length && flagged === 0 && count(benign, 'error') === 0;
  return {
    faults: faults.length,
    caught,
    missed: count(faults, 'missed'),
    notExercised: count(faults, 'not-exercised') + count(benign, 'not-exercised'),
    errors: count(faults, 'error') + count(benign, 'error'),
    detectionRate: rate(caught, faults.length),
    detectionRateApplied: rate(caught, faults.length - count(faults, 'not-exercised')),
    benign: benign.length,
    flagged,
    falseAlarmRate: rate(flagged, benign.length),
    indeterminate: open.length,
    indeterminateFlagged: count(open, 'flagged'),
    durationMs,
    exitCode: baselineBroken ? 2 : ok ? 0 : 1,
  };
}
