/**
 * The check registry of `conform run` (src/engine/checks) on every exchange, in the context
 * `conform run` builds for it: response schema, status codes, content type, error shapes, ids,
 * timestamps, money, rate headers, 429 bodies, and each answer against the request it answers.
 * Exchanges with no usable response cite no rule (nothing to judge).
 */
import { CHECKS, checkContextFor, runChecks } from '../../engine/checks/index.ts';
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
    const check = checkContextFor(ctx, o.exchange, { unauthenticated: !o.authenticated }, o.request);
    const outcome = runChecks(o.exchange, check);
    tally.judge(...outcome.judged);
    for (const f of outcome.findings) {
      if (f.ruleIds.length) tally.fail(f);
      // A check that crashed is the tool's fault, never the target's.
      else if (f.source.startsWith('check:')) throw new Error(`${f.title}: ${f.message}`);
    }
  },
};
