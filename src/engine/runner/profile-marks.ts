/**
 * A scenario the chosen profile leaves out (`profile: 'full'` in a quick run) marks its rules
 * not judged for the profile. That label is true only of rules no other scenario of the run
 * sets out to judge: a rule a scenario of this profile cites is judged there, or not judged
 * for that scenario's own reason, which is then the actual cause and the only one reported.
 */
import type { ScenarioResult } from './types.ts';

const forProfile = (r: ScenarioResult) => r.notJudged.some((m) => m.endedScenario && m.category === 'profile');

export function settleProfileMarks(results: ScenarioResult[]): ScenarioResult[] {
  const inProfile = new Set(results.filter((r) => !forProfile(r)).flatMap((r) => r.ruleIds));
  // A key is a rule id (every part of it) or `RULE#part`.
  const cited = (key: string) => inProfile.has(key) || inProfile.has(key.split('#')[0]);
  return results.map((r) => {
    if (!forProfile(r) || !r.ruleIds.some(cited)) return r;
    const leftOut = (id: string) => !cited(id);
    return {
      ...r,
      ruleIds: r.ruleIds.filter(leftOut),
      notJudged: r.notJudged.map((m) => (m.category === 'profile' ? { ...m, ruleIds: m.ruleIds.filter(leftOut) } : m)),
    };
  });
}
