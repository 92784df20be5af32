/**
 * The check registry of `conform run` (src/engine/checks) on every exchange: response
 * schema, status codes, content type, error shapes, ids, timestamps, money, rate headers,
 * 429 bodies. Exchanges with no usable response cite no rule (nothing to judge).
 */
import { CHECKS, runChecks } from '../../engine/checks/index.ts';
import type { PassiveUnit } from '../types.ts';

export const checksUnit: PassiveUnit = {
  name: 'checks',
  scope: 'server',
  title: 'the check registry of conform run, on every exchange',
  ruleIds: [...new Set(CHECKS.flatMap((c) => c.ruleIds))],
  observe(o, ctx) {
    const tally = ctx.server(this);
    tally.exchanges += 1;
    if (o.record.transportError || o.record.bodyProblem) {
      tally.note(
        `${o.record.method} ${o.operation?.pathTemplate ?? o.record.path.split('?')[0]}: ` +
          `${o.record.transportError ?? o.record.bodyProblem}`,
      );
      return;
    }
    const outcome = runChecks(o.exchange, { spec: ctx.spec, rules: ctx.rules, unauthenticated: !o.authenticated });
    tally.judge(...outcome.judged);
    for (const f of outcome.findings) {
      if (f.ruleIds.length) tally.fail(f);
      // A check that crashed is the tool's fault, never the target's.
      else if (f.source.startsWith('check:')) throw new Error(`${f.title}: ${f.message}`);
    }
  },
};
