/**
 * Rate-limit counting from traffic, per bucket: per subscription for the two endpoints that
 * count so (the bucket is in the path), per key otherwise (a key belongs to one merchant, so
 * its requests share the merchant's bucket; other keys of that merchant and traffic that
 * does not pass here may share it too, and cannot be seen: the count is a lower bound).
 *
 * What can be attributed: an answer's x-ratelimit-reset says how long its window surely
 * lasts (src/engine/ratelimit/timing.ts: less the rounding of the value, counted from when
 * the request was sent). Once the admissions answered within one such window reach the
 * limit it shows, every further request sent after the opening answer and answered within
 * the window is above the limit and must get 429. Fixed windows, sliding windows and token buckets all keep that promise. What cannot:
 * a 429 that comes "too early" (unseen traffic may have used the bucket), or a remaining
 * that does not drop (other traffic, a window roll-over): not judged.
 */
import { LIMIT, RESET, rateHeaders } from '../../engine/ratelimit/headers.ts';
import { sameWindow, type Timed } from '../../engine/ratelimit/timing.ts';
import type { Observed, PassiveUnit } from '../types.ts';
import { CappedMap } from '../../engine/checks/capped-map.ts';
import { expect, is2xx, opId } from './support.ts';

const U = 'rate-counting';
const MAX_BUCKETS = 20_000;

/** One window, from the answer that opened it. */
interface Window {
  opened: Timed;
  /** Admissions (2xx) answered within it, the opening one included. */
  admitted: number;
  /** The largest x-ratelimit-limit shown in it. */
  limit: number;
}

const timed = (o: Observed): Timed => ({ ex: o.exchange, sentAt: o.startMs, receivedAt: o.endMs });

export function rateCountingUnit(): PassiveUnit {
  const windows = new CappedMap<string, Window>(MAX_BUCKETS);
  return {
    name: U,
    scope: 'server',
    title: 'rate-limit counting per bucket',
    ruleIds: ['RATE.EXCEEDED.STATUS'],
    observe(o, ctx) {
      const id = opId(o);
      const rl = o.operation?.rateLimit;
      const status = o.record.status;
      if (!id || !rl || status === undefined || status === 401 || !o.authenticated) return;
      const t = ctx.server(this);
      const h = rateHeaders(o.exchange);
      const bucket = rl.bucket === 'subscription' ? `${id} subscription ${o.request.params.id}` : `${id} ${o.client}`;
      const now = timed(o);
      const w = windows.get(bucket);
      const within = !!w && sameWindow(w.opened, now);
      // Sent before the opening answer came back: the service may have counted it in the window before.
      if (w && within && o.startMs < w.opened.receivedAt) return;
      if (!w || !within) {
        // A new window opens here: judged from its own reset, whatever came before.
        if (h.limit !== undefined && h.reset !== undefined)
          windows.set(bucket, { opened: now, admitted: is2xx(o) ? 1 : 0, limit: h.limit });
        else windows.delete(bucket);
        return;
      }
      if (h.limit !== undefined) w.limit = Math.max(w.limit, h.limit);
      if (w.admitted < w.limit) {
        if (is2xx(o)) w.admitted += 1;
        return;
      }
      if (status === 429) t.judge('RATE.EXCEEDED.STATUS');
      else if (is2xx(o)) {
        w.admitted += 1;
        expect(
          t,
          U,
          o,
          'RATE.EXCEEDED.STATUS',
          false,
          'Admitted above the limit within the window',
          () =>
            `admission ${w.admitted} of a window whose ${LIMIT} is ${w.limit}: the window opened ` +
            `by the answer at ${new Date(w.opened.receivedAt).toISOString()} ` +
            `(${RESET} ${w.opened.ex.responseHeaders[RESET]}) surely lasted until this answer`,
        );
      }
    },
  };
}
