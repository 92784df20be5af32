/**
 * Why a rule was not judged from traffic: no exchange touched it, or traffic cannot show it
 * at all (what cannot be attributed to the target is never guessed).
 */
import { partsOf, ruleKey, type Rule } from '../contract/rules.ts';
import { named } from '../engine/messages/command-name.ts';

export interface PassiveNotJudged {
  reason: string;
  category: 'target';
  ruleIds: string[];
}

const UNATTRIBUTABLE_BUCKETS =
  'traffic does not show which merchant a key belongs to, nor the traffic that does not pass ' +
  'here: which requests share a bucket cannot be attributed';
const UNATTRIBUTABLE_COUNTS =
  'unseen traffic on the bucket (other keys, the dashboard, clients not behind the proxy) may ' +
  'explain a 429 or a count: not attributable from traffic';
const SCENARIOS_ONLY =
  "needs requests no client sent (fixtures in given states, unknown ids, other merchants' keys, " +
  'reads of what was changed): judged by the scenarios of conform run';
export const UNTOUCHED = 'no exchange of the traffic touched it';

function reasonFor(rule: Rule): string {
  if (
    /^RATE\.[A-Z_]+\.BUCKET$/.test(rule.id) ||
    rule.id === 'RATE.BUCKET.PER_ENDPOINT' ||
    rule.id === 'AUTH.ALLOWANCE.PER_MERCHANT'
  )
    return UNATTRIBUTABLE_BUCKETS;
  if (
    /^RATE\.[A-Z_]+\.LIMIT$/.test(rule.id) ||
    rule.id === 'RATE.WINDOW.READMITS' ||
    rule.id === 'RATE.REMAINING.DECREMENTS' ||
    rule.id === 'RATE.REMAINING.HONOURED'
  )
    return UNATTRIBUTABLE_COUNTS;
  return named(SCENARIOS_ONLY);
}

/**
 * For every rule part not judged (the rule itself for a rule of one part): why, grouped by
 * reason. `judged` and `judgeable` (what a passive unit can judge) hold judgement keys.
 */
export function passiveNotJudged(
  rules: readonly Rule[],
  judged: ReadonlySet<string>,
  judgeable: ReadonlySet<string>,
): PassiveNotJudged[] {
  const groups = new Map<string, string[]>();
  for (const r of rules) {
    if (r.kind === 'reference' || r.kind === ('restraint' as Rule['kind'])) continue;
    const parts = partsOf(r);
    const keys = parts.length > 1 ? parts.map((p) => ruleKey(r.id, p.id)) : [r.id];
    for (const key of keys) {
      if (judged.has(key)) continue;
      const reason = judgeable.has(key) ? UNTOUCHED : reasonFor(r);
      groups.set(reason, [...(groups.get(reason) ?? []), key]);
    }
  }
  return [...groups].map(([reason, ruleIds]) => ({ reason, category: 'target', ruleIds }));
}
