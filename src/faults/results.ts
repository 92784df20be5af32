/**
 * What one fault's run means (caught, missed, flagged...) against the baseline, and the
 * detection and false-alarm rates over a whole catalog run.
 */
import type { CatalogFault } from './catalog/index.ts';
import type { Applied, FaultResult, FaultsSummary, Outcome, RunRecord } from './runner.ts';

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
