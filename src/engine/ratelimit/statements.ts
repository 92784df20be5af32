/**
 * The target's own statements about a bucket, held against what it then does, whatever its
 * limiter. x-ratelimit-remaining says how many requests the window still allows and
 * x-ratelimit-reset when it ends (read at its lower bound, timing.ts): within that window a
 * request sent after an answer showing remaining above 0 is admitted. An admission after
 * remaining 0 is not judged pair by pair (a token bucket showing 0 may hold 0.99 of a token,
 * complete a moment later); instead, no limiter keeping a limit L per window W admits more
 * than 2L in a span shorter than W (a fixed window at most 2L across its reset, a sliding
 * window L, a token bucket L and its refill), L being the highest x-ratelimit-limit shown: a
 * higher limit stays fine when the headers say so. That bound is RATE.EXCEEDED.STATUS, judged
 * by the registry's rate-exceeded judge (checks/rate-exceeded.ts); here it tells the procedure
 * that a bucket is not being used up.
 */
import type { BucketDriver, BucketTarget } from './driver.ts';
import { LIMIT, rateHeaders, REMAINING, RESET } from './headers.ts';
import { sameWindow, type Timed } from './timing.ts';

export const ALLOWS_WHAT_REMAINS = 'RATE.REMAINING.HONOURED#allows-what-remains';

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * Judges the answer `cur` to a request sent alone after `prev` was answered, against what
 * `prev` said remains: judged while `prev`'s window surely lasts, on a bucket nobody else sends
 * on (another client could have used what remained).
 */
export function judgeAgainstRemaining(d: BucketDriver, target: BucketTarget, prev: Timed, cur: Timed): void {
  const r = rateHeaders(prev.ex).remaining;
  const status = cur.ex.status;
  if (r === undefined || r === 0 || !target.alone || status === undefined) return;
  if (cur.sentAt < prev.receivedAt || !sameWindow(prev, cur)) return;
  if (status !== 429 && (status < 200 || status >= 300)) return;
  d.t.softExpectRule(
    ALLOWS_WHAT_REMAINS,
    status !== 429,
    `${d.ep.label} on ${target.label}: refused (429) ${seconds(cur.receivedAt - prev.sentAt)} s after an answer ` +
      `showing ${REMAINING} ${r} and ${RESET} ${prev.ex.responseHeaders[RESET]}, within that ` +
      `window: the target said ${r} more ${r === 1 ? 'request was' : 'requests were'} allowed`,
    cur.ex,
  );
}

/** The admissions of one bucket, for the bound every limiter keeps: at most twice its limit in less than a window. */
export class Admissions {
  private readonly list: Timed[] = [];
  private limit: number;

  constructor(private readonly ep: { limit: number; windowSeconds: number; label: string }) {
    this.limit = ep.limit;
  }

  add(o: Timed): void {
    this.list.push(o);
    this.limit = Math.max(this.limit, rateHeaders(o.ex).limit ?? 0);
  }

  /** From the first one's sending to the last one's answer, ms. */
  private get span(): number {
    return this.list.length ? this.list[this.list.length - 1].receivedAt - this.list[0].sentAt : 0;
  }

  /** The admissions so far span less than the window: more may still be judged against the bound. */
  get withinWindow(): boolean {
    return this.span < this.ep.windowSeconds * 1000;
  }

  /**
   * Why the admissions break every limiter keeping the limit shown (more than twice it in less than a
   * window), if they do: the bucket is not being used up, and the driver stops. The registry's
   * rate-exceeded judge holds it against the target, on the same answers.
   */
  excess(target: BucketTarget): string | undefined {
    const n = this.list.length;
    if (!this.withinWindow || n <= 2 * this.limit) return undefined;
    const { limit, ep } = this;
    return (
      `${ep.label} on ${target.label}: ${n} requests admitted within ${seconds(this.span)} s, less than the ` +
      `${ep.windowSeconds} s window, where ${LIMIT} says ${limit}: no limiter keeping ${limit} per ` +
      `${ep.windowSeconds} s admits more than ${2 * limit} (a fixed window ${2 * limit} across its reset, a ` +
      `sliding window ${limit}, a token bucket ${limit} and its refill)`
    );
  }
}
