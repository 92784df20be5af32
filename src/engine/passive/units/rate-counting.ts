/**
 * Rate-limit counting from traffic, per bucket: per subscription for the two endpoints that
 * count so (the bucket is in the path), per key otherwise (a key belongs to one merchant, so
 * its requests share the merchant's bucket; other keys of that merchant and traffic that
 * does not pass here may share it too, and cannot be seen).
 *
 * What can be attributed: once an answer says `x-ratelimit-remaining: 0`, a request of the
 * same bucket sent after that answer and surely before the window resets (its
 * `x-ratelimit-reset`, less the rounding of that value) is above the limit, and must get
 * 429. What cannot: a 429 that comes "too early" (unseen traffic may have used the bucket),
 * or a remaining that does not drop (other traffic, a window roll-over): not judged.
 */
import type { PassiveUnit } from '../types.ts';
import { Lru } from '../lru.ts';
import { expect, is2xx, opId } from './support.ts';

const U = 'rate-counting';
/** Slack for clocks and the target's own processing time. */
const MARGIN_MS = 100;
const MAX_BUCKETS = 20_000;

interface Spent {
  /** When the answer saying the bucket is spent came back. */
  end: number;
  /** Until when the window surely lasts. */
  until: number;
  said: string;
}

/** Seconds of a header value and the rounding step of how it is written (1 for "3", 0.1 for "2.5"). */
function seconds(v: string | undefined): { value: number; step: number } | undefined {
  const m = v === undefined ? null : /^\s*(\d+)(?:\.(\d+))?\s*$/.exec(v);
  if (!m) return undefined;
  return { value: Number(v), step: m[2] ? 10 ** -m[2].length : 1 };
}

export function rateCountingUnit(): PassiveUnit {
  const spent = new Lru<string, Spent>(MAX_BUCKETS);
  let limitRules: Map<string, string> | undefined;
  return {
    name: U,
    scope: 'server',
    title: 'rate-limit counting per bucket',
    ruleIds: ['RATE.EXCEEDED.STATUS', 'RATE.CUSTOMERS_LIST.LIMIT', 'RATE.RECONCILIATIONS.LIMIT', 'RATE.PORTAL.LIMIT', 'RATE.INVOICE_LINE_ITEMS.LIMIT', 'RATE.COSTS_REPORT.LIMIT', 'RATE.CRM_ACCOUNTS.LIMIT'],
    observe(o, ctx) {
      const id = opId(o);
      const rl = o.operation?.rateLimit;
      const status = o.record.status;
      if (!id || !rl || status === undefined || status === 401 || !o.authenticated) return;
      const t = ctx.server(this);
      const h = o.record.responseHeaders;
      // The endpoint's own LIMIT rule: x-ratelimit-limit is at least the published limit.
      limitRules ??= new Map(ctx.rules.rules.filter((r) => r.id.endsWith('.LIMIT') && r.params?.limit !== undefined && r.operations.length === 1).map((r) => [r.operations[0], r.id]));
      const limitRule = limitRules.get(id);
      const advertised = seconds(h['x-ratelimit-limit']);
      if (limitRule && advertised) expect(t, U, o, limitRule, advertised.value >= rl.limit, `x-ratelimit-limit below the published ${rl.limit}`, () => `x-ratelimit-limit ${advertised.value}; the published limit is ${rl.limit} per ${rl.windowSeconds} s and does not fall`);

      const bucket = rl.bucket === 'subscription' ? `${id} subscription ${o.params.id}` : `${id} ${o.client}`;
      const before = spent.get(bucket);
      if (before && o.startMs >= before.until) spent.delete(bucket);
      else if (before && o.startMs >= before.end) {
        if (status === 429) t.judge('RATE.EXCEEDED.STATUS');
        else if (is2xx(o))
          expect(t, U, o, 'RATE.EXCEEDED.STATUS', false, 'Admitted above the limit within the window', () => `an earlier answer of this bucket said ${before.said}; this request came ${((o.startMs - before.end) / 1000).toFixed(3)} s later, inside that window, and was admitted`);
      }
      const remaining = seconds(h['x-ratelimit-remaining']);
      const reset = seconds(h['x-ratelimit-reset']) ?? (status === 429 ? seconds(h['retry-after']) : undefined);
      if ((remaining?.value === 0 || status === 429) && reset) {
        const until = o.endMs + (reset.value - reset.step) * 1000 - MARGIN_MS;
        if (until > o.endMs) spent.set(bucket, { end: o.endMs, until, said: `${status === 429 ? '429, ' : ''}remaining ${h['x-ratelimit-remaining'] ?? '(none)'}, reset ${reset.value} s` });
      }
    },
  };
}
