/**
 * Rate-limit counting from traffic, per bucket: per subscription for the two endpoints that
 * count so (the bucket is in the path), per key otherwise (a key belongs to one merchant, so
 * its requests share the merchant's bucket; other keys of that merchant and traffic that
 * does not pass here may share it too, and cannot be seen).
 *
 * What can be attributed: once an answer says `x-ratelimit-remaining: 0` (or is a 429), a
 * request of the same bucket sent after that answer and answered while its window surely
 * lasted (src/engine/ratelimit/timing.ts: its reset, less the rounding of that value,
 * counted from when it was sent) is above the limit, and must get 429. What cannot: a 429 that comes "too early" (unseen traffic may have used the bucket),
 * or a remaining that does not drop (other traffic, a window roll-over): not judged.
 */
import { rateHeaders } from '../../ratelimit/headers.ts';
import { sameWindow, type Timed } from '../../ratelimit/timing.ts';
import type { Observed, PassiveUnit } from '../types.ts';
import { Lru } from '../lru.ts';
import { expect, is2xx, opId } from './support.ts';

const U = 'rate-counting';
const MAX_BUCKETS = 20_000;

interface Spent {
  /** The answer saying the bucket is spent (remaining 0, or a 429). */
  answer: Timed;
  said: string;
}

const timed = (o: Observed): Timed => ({ ex: o.exchange, sentAt: o.startMs, receivedAt: o.endMs });

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
      const h = rateHeaders(o.exchange);
      // The endpoint's own LIMIT rule: x-ratelimit-limit is at least the published limit.
      limitRules ??= new Map(ctx.rules.rules.filter((r) => r.family === 'RATE' && r.id.endsWith('.LIMIT') && r.operations.length === 1).map((r) => [r.operations[0], r.id]));
      const limitRule = limitRules.get(id);
      if (limitRule && h.limit !== undefined) expect(t, U, o, limitRule, h.limit >= rl.limit, `x-ratelimit-limit below the published ${rl.limit}`, () => `x-ratelimit-limit ${h.limit}; the published limit is ${rl.limit} per ${rl.windowSeconds} s and does not fall`);

      const bucket = rl.bucket === 'subscription' ? `${id} subscription ${o.params.id}` : `${id} ${o.client}`;
      const before = spent.get(bucket);
      const now = timed(o);
      // Sent once the spent answer was in, and answered while its window surely lasted: above the limit.
      if (before && o.startMs >= before.answer.receivedAt) {
        if (!sameWindow(before.answer, now)) spent.delete(bucket);
        else if (status === 429) t.judge('RATE.EXCEEDED.STATUS');
        else if (is2xx(o))
          expect(t, U, o, 'RATE.EXCEEDED.STATUS', false, 'Admitted above the limit within the window', () => `an earlier answer of this bucket said ${before.said}; this request, sent ${((o.startMs - before.answer.receivedAt) / 1000).toFixed(3)} s after it and answered within that window, was admitted`);
      }
      if (h.remaining === 0 || status === 429) {
        spent.set(bucket, { answer: now, said: `${status === 429 ? '429, ' : ''}x-ratelimit-remaining ${o.record.responseHeaders['x-ratelimit-remaining'] ?? '(none)'}, x-ratelimit-reset ${o.record.responseHeaders['x-ratelimit-reset'] ?? '(none)'}${status === 429 ? `, retry-after ${o.record.responseHeaders['retry-after'] ?? '(none)'}` : ''}` });
      }
    },
  };
}
