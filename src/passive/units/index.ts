/** The passive units, server and client: a fresh set (with empty state) per judgement. */
import type { PassiveUnit } from '../types.ts';
import { checksUnit } from './checks.ts';
import { retryUnit } from '../clients/retry.ts';
import { clientRequestsUnit } from '../clients/requests.ts';

export function createUnits(): PassiveUnit[] {
  return [checksUnit(), retryUnit(), clientRequestsUnit];
}

/** Every rule a passive unit can judge, by scope. */
export function passiveRuleIds(): { server: string[]; client: string[] } {
  const units = createUnits();
  const of = (scope: PassiveUnit['scope']) =>
    [...new Set(units.filter((u) => u.scope === scope).flatMap((u) => u.ruleIds))].sort();
  return { server: of('server'), client: of('client') };
}
