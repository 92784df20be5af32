/**
 * The check registry of `conform run` (src/engine/checks) on the traffic, in the context
 * `conform run` builds for it: the checks of one exchange (response schema, status codes,
 * content type, error shapes, ids, timestamps, money, rate headers, 429 bodies, the refusal of
 * a request breaking a documented constraint, each answer against the request it answers) and
 * the judges of the stream (what every resource keeps across exchanges: round trips, deletes,
 * owners, list walks, derived amounts; a request above a rate limit refused, counted per bucket).
 * Each client is a credential of its own: which merchant
 * it acts for is not known from traffic alone. The passive judge never knows a request was
 * broken on purpose, so the refusals check only fails an answer that accepted it.
 * Exchanges with no usable response cite no rule (nothing to judge).
 */
import { CHECKS, checkContextFor, type Check, type CheckOutcome } from '../../engine/checks/index.ts';
import { CheckStream } from '../../engine/checks/stream.ts';
import type { Tally } from '../tally.ts';
import type { PassiveUnit } from '../types.ts';

/** `checks`: the whole registry, or some of its judges (a test of one of them). */
export function checksUnit(checks: readonly Check[] = CHECKS): PassiveUnit {
  const stream = new CheckStream(checks);
  const record = (tally: Tally, outcome: CheckOutcome) => {
    tally.judge(...outcome.judged);
    for (const f of outcome.findings) {
      if (f.ruleIds.length) tally.fail(f);
      // A check that crashed is the tool's fault, never the target's.
      else if (f.source.startsWith('check:')) throw new Error(`${f.title}: ${f.message}`);
    }
    const crash = outcome.errors[0];
    if (crash) throw new Error(crash.message);
  };
  return {
    name: 'checks',
    scope: 'server',
    title: 'the check registry of conform run, on every exchange and over the traffic',
    ruleIds: [...new Set(checks.flatMap((c) => c.ruleIds))],
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
      const check = checkContextFor(ctx, o.exchange, { unauthenticated: !o.authenticated }, o.request, o.breaks);
      record(
        tally,
        stream.observe({ exchange: o.exchange, ctx: check, ...(o.authenticated ? { credential: o.client } : {}) }),
      );
    },
    finish(ctx) {
      record(ctx.server(this), stream.finish());
    },
  };
}
