/**
 * The fault catalog seen by the passive judge: each fault's suites run through the fault
 * proxy with `conform proxy`'s judge in front of it (it sees what clients see). A fault the
 * suites catch should be caught by the passive judge too, when it shows in traffic: when
 * one of the rules it breaks is a rule the passive judge can judge at all, and the catalog
 * does not say the fault needs knowledge the traffic does not carry (`offTraffic`).
 */
import { loadRules, parseRuleKey } from '../contract/index.ts';
import { runFaults, type FaultResult, type RunFaultsOptions } from './runner.ts';
import { buildPassiveReport, passiveVerdict } from '../passive/report.ts';
import { startPassiveProxy } from '../passive/session.ts';
import type { PassiveOutcome } from '../passive/judge.ts';
import { passiveRuleIds } from '../passive/units/index.ts';

export interface PassiveFaultResult {
  name: string;
  benign: boolean;
  /** Why the document decides neither way (an indeterminate case: counted in no rate). */
  indeterminate?: string;
  /** The suites' own outcome (conform faults). */
  suite: FaultResult['outcome'];
  suiteRules: string[];
  /** Server rules the passive judge failed (beyond its baseline, when there is one). */
  passiveRules: string[];
  /** One of the fault's rules is a rule the passive judge can judge, and the fault is not off traffic. */
  visible: boolean;
  /** Why the fault does not show in traffic, though its rules are judged passively (the catalog's word). */
  offTraffic?: string;
  exchanges: number;
  error?: string;
}

export interface PassiveFaultsSummary {
  faults: number;
  /** Faults the suites caught that show in traffic. */
  caughtVisible: number;
  /** ... of which the passive judge caught too. */
  passiveCaught: number;
  /** Faults the suites caught that do not show in traffic (their rules need scenarios). */
  caughtNotVisible: number;
  benign: number;
  /** Benign variants the passive judge flagged. */
  passiveFlagged: number;
}

export async function runPassiveFaults(
  opts: Omit<RunFaultsOptions, 'front'>,
): Promise<{ results: PassiveFaultResult[]; summary: PassiveFaultsSummary }> {
  const rules = await loadRules();
  const outcomes = new Map<string, PassiveOutcome>();
  const report = await runFaults({
    ...opts,
    async front(url, fault) {
      const proxy = await startPassiveProxy({ target: url });
      return { url: proxy.url, close: async () => void outcomes.set(fault?.name ?? '', await proxy.stop()) };
    },
  });
  const failedOf = (o: PassiveOutcome | undefined) =>
    o
      ? passiveVerdict(
          buildPassiveReport({
            outcome: o,
            rules,
            baseUrl: 'http://fault-proxy',
            source: 'the fault proxy',
            toolVersion: '',
          }),
          rules,
          'server',
        ).serverFailed
      : [];
  const baseline = new Set(failedOf(outcomes.get('')));
  // Faults name rules; units judge rules or their parts (RULE#part).
  const judgeable = new Set(passiveRuleIds().server.map((k) => parseRuleKey(k).ruleId));
  const offTrafficOf = new Map(opts.faults.map((f) => [f.name, f.offTraffic]));
  const results = report.results.map((r): PassiveFaultResult => {
    const o = outcomes.get(r.name);
    const offTraffic = offTrafficOf.get(r.name);
    const judged = r.expectedRules.some((id) => judgeable.has(id)) || r.rulesFired.some((id) => judgeable.has(id));
    return {
      name: r.name,
      benign: r.benign,
      ...(r.indeterminate ? { indeterminate: r.indeterminate } : {}),
      suite: r.outcome,
      suiteRules: r.rulesFired,
      passiveRules: failedOf(o).filter((id) => !baseline.has(id)),
      visible: judged && !offTraffic,
      ...(judged && offTraffic ? { offTraffic } : {}),
      exchanges: o?.exchanges ?? 0,
      ...(r.error ? { error: r.error } : {}),
    };
  });
  return { results, summary: summarizePassiveFaults(results) };
}

export function summarizePassiveFaults(results: readonly PassiveFaultResult[]): PassiveFaultsSummary {
  const caught = results.filter((r) => !r.benign && !r.indeterminate && r.suite === 'caught');
  return {
    faults: results.filter((r) => !r.benign && !r.indeterminate).length,
    caughtVisible: caught.filter((r) => r.visible).length,
    passiveCaught: caught.filter((r) => r.visible && r.passiveRules.length > 0).length,
    caughtNotVisible: caught.filter((r) => !r.visible).length,
    benign: results.filter((r) => r.benign).length,
    passiveFlagged: results.filter((r) => r.benign && r.passiveRules.length > 0).length,
  };
}
