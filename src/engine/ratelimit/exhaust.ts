/**
 * Using a bucket up: the requests that show whether a window admits its limit and then
 * refuses. Whether a request past the limit got its 429 is judged by the registry's
 * rate-exceeded judge (checks/rate-exceeded.ts) on these very answers, in the scenario's
 * stream; here they steer the procedure. An admission past the limit counts only when it was
 * surely counted in the same window as the first one (timing.ts); past that moment a fixed
 * window may have reset, a sliding window may have let old requests go and a token bucket
 * may have refilled: the procedure starts again on a fresh bucket, and after ATTEMPTS says
 * why it could not use one up.
 */
import type { BucketDriver, BucketTarget } from './driver.ts';
import { MARGIN_MS } from './driver.ts';
import { rateHeaders, LIMIT, REMAINING, unreadableRateHeader } from './headers.ts';
import { sameWindow, windowSurelyLastsUntil, type Timed } from './timing.ts';
import { Admissions, judgeAgainstRemaining } from './statements.ts';

/** The most requests sent to use up one bucket; a larger bucket is not judged (a limit may rise). */
export const REQUEST_BUDGET = 1500;
/** Requests sent one by one after the first, whose remaining is compared with the one before. */
const SEQUENTIAL = 2;
/** Requests of what a window has left sent one by one after the burst: its last answers are taken at their word. */
const TAIL = 1;
/** Fresh buckets tried before the outcome is called unattributable. */
export const ATTEMPTS = 3;
/**
 * Windows tried again on a bucket only this scenario sends on, after one whose admissions could
 * not be told from the next window's (a loaded client or target answers slowly): the bucket is
 * fresh again once its window resets, so no fixture is used up.
 */
export const PACE_RETRIES = 4;
/**
 * Requests in flight at once in a burst: the worker's connection pool is shared, and a
 * burst that filled it would hold up another scenario's 1 s window.
 */
const BURST_IN_FLIGHT = 8;

export const statusOf = (o: Timed): string | number => o.ex.status ?? o.ex.transportError ?? 'no response';

/** Sends `n` requests, at most BURST_IN_FLIGHT at a time; answers in the order they came. */
export async function burst(n: number, send: () => Promise<Timed>): Promise<Timed[]> {
  const out: Timed[] = [];
  let next = 0;
  const lane = async () => {
    while (next < n) {
      next += 1;
      out.push(await send());
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, BURST_IN_FLIGHT) }, lane));
  return out;
}

/** Sends the first request of a window, waiting out a bucket found partly used when its window is short. */
export async function openWindow(d: BucketDriver, target: BucketTarget): Promise<{ probe: Timed; fresh: boolean }> {
  for (let i = 0; ; i++) {
    const probe = await d.send(target);
    const h = rateHeaders(probe.ex);
    const fresh = probe.ex.status !== 429 && h.limit !== undefined && h.remaining === h.limit - 1;
    const wait = fresh || i > 0 ? undefined : d.waitFor(probe);
    if (wait === undefined) return { probe, fresh };
    d.t.note(
      `${d.ep.label} on ${target.label}: bucket found in use ` +
        `(remaining ${probe.ex.responseHeaders[REMAINING]} of ${probe.ex.responseHeaders[LIMIT]}); ` +
        `waiting ${wait} s for its window to reset`,
    );
    await d.sleep(wait * 1000 + MARGIN_MS);
  }
}

type Refill = (from: Timed, to: Timed) => number;

/**
 * The most units a bucket may give back between the sending of `from` and the answer to
 * `to`: a token bucket refills at limit / window per second, a sliding window lets old
 * requests go at most that fast; a fixed window gives nothing back before its reset, which
 * the callers rule out (sameWindow). Any time at all may complete a partly refilled token.
 */
function refillBound(ep: { limit: number; windowSeconds: number }, shownLimit: number): Refill {
  const perMs = Math.max(ep.limit, shownLimit) / (ep.windowSeconds * 1000);
  return (from, to) => Math.ceil(Math.max(0, to.receivedAt - from.sentAt) * perMs);
}

/** The admissions surely counted in the window of one answer, against the largest limit shown in it. */
class WindowCount {
  admitted = 1;
  limit: number;
  /** The lowest remaining shown by an admission counted here, and the last answer counted. */
  private lowest: number | undefined;
  private latest: Timed;
  private readonly until: number | undefined;

  constructor(readonly first: Timed) {
    this.limit = rateHeaders(first.ex).limit ?? 0;
    this.until = windowSurelyLastsUntil(first);
    this.latest = first;
    this.lowest = rateHeaders(first.ex).remaining;
  }

  /** Counts an admitted request; false when it may belong to a later window. */
  add(o: Timed): boolean {
    if (this.until === undefined || o.receivedAt > this.until) return false;
    this.admitted += 1;
    this.limit = Math.max(this.limit, rateHeaders(o.ex).limit ?? 0);
    if (o.receivedAt > this.latest.receivedAt) this.latest = o;
    const r = rateHeaders(o.ex).remaining;
    if (r !== undefined && (this.lowest === undefined || r < this.lowest)) this.lowest = r;
    return true;
  }

  /**
   * Over every admission counted here, remaining fell by at least one per request, less what
   * the bucket may have given back since the first was sent: a remaining that does not count
   * fails, whatever the limiter (fixed window, sliding window, token bucket).
   */
  judgeCountdown(t: BucketDriver['t'], ep: { label: string }, refill: Refill): void {
    const start = rateHeaders(this.first.ex).remaining;
    if (start === undefined || this.lowest === undefined || this.admitted < 2) return;
    const counted = Math.min(this.admitted - 1, start);
    const back = refill(this.first, this.latest);
    const fell = start - this.lowest;
    t.softExpectRule(
      'RATE.REMAINING.DECREMENTS',
      fell >= counted - back,
      `${ep.label}: remaining fell by ${fell} (from ${start} to ${this.lowest}) ` +
        `over ${this.admitted - 1} more requests counted in one window, of which at most ${back} could ` +
        `have been given back`,
      this.latest.ex,
    );
  }

  /** More admitted than the limit shown: the bucket is not being used up. */
  get over(): boolean {
    return this.admitted > this.limit;
  }
}

/**
 * A bucket that admitted past its limit was never used up: what follows from a used-up bucket is
 * not judged. That the admissions break RATE.EXCEEDED.STATUS is the registry's finding on them.
 */
const neverUsedUp = (why: string): NotExhausted => ({
  exhausted: false,
  reason: `${why}: the bucket was never used up (RATE.EXCEEDED.STATUS is judged on those answers)`,
});

/** Why the admitting part of the LIMIT rule was not judged on a bucket: marked, the scenario carries on. */
function admitsNotShown(d: BucketDriver, why: string): void {
  d.t.ruleNotJudged(
    d.ep.keys.admitsLimit,
    `${d.ep.label}: ${why}, so whether a fresh window admits ${d.ep.limit} requests was not shown`,
    'target',
  );
}

/** Why a bucket's count is not exact: only a fresh bucket nobody else sends on shows an early 429. */
const notExact = (target: BucketTarget, remaining: number, limit: number): string =>
  !target.alone
    ? `${target.label}'s bucket is shared with other traffic (an early 429 may be theirs)`
    : `${target.label}'s bucket was in use (remaining ${remaining} of ${limit})`;

export interface Exhausted {
  exhausted: true;
  target: BucketTarget;
  limit: number;
  /** The latest 429 of the bucket. */
  rejected: Timed;
  /** The latest request admitted on it after that 429 (its window had reset): it counts in the new window. */
  reopened?: Timed;
}

export interface NotExhausted {
  exhausted: false;
  /** Why the bucket could not be judged used up (a property of the target: not judged, category target). */
  reason: string;
  /** The requests sent on a bucket too big to use up, all within its window: what another bucket is compared against. */
  spent?: { target: BucketTarget; requests: number; last: Timed };
}

/**
 * Uses a bucket up: the first request, SEQUENTIAL more one by one (remaining drops by one
 * each), what the window has left at once, then one at a time until a 429. `next` gives
 * the target of each attempt (a fresh bucket when it can).
 */
export async function exhaust(
  d: BucketDriver,
  opts: { first?: BucketTarget; next?: () => Promise<BucketTarget> } = {},
): Promise<Exhausted | NotExhausted> {
  const { t, ep } = d;
  const next = opts.next ?? (() => d.fresh());
  let why = '';
  /** A bucket found used up: judged on its 429 when no fresh one can be had. */
  let usedUp: Exhausted | undefined;
  /** The bucket whose window is tried again, and how many times that happened. */
  let again: BucketTarget | undefined;
  let paceRetries = 0;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const target = again ?? (attempt === 1 && opts.first ? opts.first : await next());
    again = undefined;
    const { probe, fresh } = await openWindow(d, target);
    // A key the fixtures gave that does not authenticate shows nothing of the bucket.
    d.t.precondition(probe.ex.status !== 401, `the key of ${target.label} authenticates on ${ep.label}`, probe.ex);
    const h = rateHeaders(probe.ex);
    if (probe.ex.status === 429) {
      const found: Exhausted = { exhausted: true, target, limit: h.limit ?? ep.limit, rejected: probe };
      // A fresh merchant or subscription an earlier run used up (pre-seeded fixtures): another one shows the whole window.
      if (target.alone && attempt < ATTEMPTS && usedUp === undefined) {
        t.note(
          `${ep.label} on ${target.label}: bucket found used up (earlier traffic within its window); trying a fresh one`,
        );
        usedUp = found;
        continue;
      }
      t.note(`${ep.label} on ${target.label}: bucket already used up by other traffic; its 429 is judged`);
      admitsNotShown(d, `${target.label}'s bucket was found used up by other traffic`);
      return found;
    }
    // The headers' presence and the limit they show are the rate-headers check's to judge, on this
    // very answer (RATE.HEADERS.PRESENT, RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED): here they are what
    // the count stands on.
    const lacks = unreadableRateHeader(probe.ex, [LIMIT, REMAINING]);
    d.t.precondition(!lacks, `${ep.label}: ${lacks} on ${target.label}'s answer: nothing to count with`, probe.ex);
    const limit = h.limit!;
    const remaining = h.remaining!;
    const exact = fresh && target.alone;
    if (!fresh)
      t.note(
        `${ep.label} on ${target.label}: bucket in use (remaining ${remaining} of ${limit}); judging what is left of its window`,
      );
    if (remaining >= REQUEST_BUDGET) {
      let spent: NotExhausted['spent'];
      if (exact) {
        const sent = await burst(ep.limit - 1, () => d.send(target));
        const early = sent.find((x) => x.ex.status === 429);
        t.softExpectRule(
          ep.keys.admitsLimit,
          !early,
          `429 within the published ${ep.limit} requests of a fresh window`,
          early?.ex,
        );
        const last = sent.reduce((a, b) => (b.sentAt > a.sentAt ? b : a), probe);
        spent = { target, requests: sent.length + 1, last };
      } else admitsNotShown(d, notExact(target, remaining, limit));
      return {
        exhausted: false,
        reason:
          `${ep.label}: ${REMAINING} is ${remaining}, so using the bucket up takes more than ` +
          `the ${REQUEST_BUDGET} requests the suite sends to one bucket (a published limit may rise)`,
        ...(spent ? { spent } : {}),
      };
    }

    const window = new WindowCount(probe);
    const admissions = new Admissions(ep);
    admissions.add(probe);
    const refill = refillBound(ep, limit);
    let admitted = 1;
    let prev = probe;
    let rejected: Timed | undefined;
    for (let i = 0; i < Math.min(SEQUENTIAL, remaining) && !rejected; i++) {
      const cur = await d.send(target);
      judgeAgainstRemaining(d, target, prev, cur);
      if (cur.ex.status === 429) {
        rejected = cur;
        break;
      }
      admitted += 1;
      window.add(cur);
      admissions.add(cur);
      const before = rateHeaders(prev.ex).remaining!;
      const after = rateHeaders(cur.ex).remaining;
      if (sameWindow(prev, cur)) {
        // One request takes one unit; a token bucket or a sliding window may give some back meanwhile.
        const back = refill(prev, cur);
        const counted = after !== undefined && after <= before - 1 + back && (!exact || after >= before - 1);
        t.softExpectRule(
          'RATE.REMAINING.DECREMENTS',
          counted,
          `${ep.label}: remaining went from ${before} to ${after} on one counted ` +
            `request${back ? ` (at most ${back} given back meanwhile)` : ''}`,
          cur.ex,
        );
      } else if (after !== undefined && after >= before) {
        t.note(
          `${ep.label} on ${target.label}: remaining went from ${before} to ${after}, answered when the ` +
            `window may have reset already; not compared`,
        );
      }
      prev = cur;
    }
    if (!rejected) {
      // All but the last of what the window has left at once; the last ones alone, so that each answer is taken at its word.
      const sent = await burst(Math.max(0, (rateHeaders(prev.ex).remaining ?? 0) - TAIL), () => d.send(target));
      for (const s of sent) {
        if (s.ex.status === 429) rejected ??= s;
        else {
          admitted += 1;
          window.add(s);
          admissions.add(s);
          // The lowest remaining was counted last: the next request follows it alone.
          if ((rateHeaders(s.ex).remaining ?? Infinity) <= (rateHeaders(prev.ex).remaining ?? Infinity)) prev = s;
        }
      }
    }
    window.judgeCountdown(t, ep, refill);
    // Past the burst: one request at a time, until a 429 or until the window may have reset.
    while (!rejected) {
      if (window.over)
        return neverUsedUp(
          `${ep.label}: ${window.admitted} requests on ${target.label} were answered without a 429 within one ` +
            `window whose ${LIMIT} is ${window.limit}`,
        );
      const extra = await d.send(target);
      judgeAgainstRemaining(d, target, prev, extra);
      if (extra.ex.status === 429) rejected = extra;
      else {
        admitted += 1;
        admissions.add(extra);
        prev = extra;
        // More than twice the limit within less than a window: no limiter admits that, however its windows fall.
        const excess = admissions.excess(target);
        if (excess) return neverUsedUp(excess);
        if (!window.add(extra) && !admissions.withinWindow) {
          why =
            `request ${admitted} was admitted (${statusOf(extra)}, ` +
            `remaining ${extra.ex.responseHeaders[REMAINING]}) after the window the first one was counted ` +
            `in may have reset`;
          break;
        }
      }
    }
    if (!rejected) {
      if (target.alone && paceRetries < PACE_RETRIES) {
        paceRetries += 1;
        again = target;
        attempt -= 1;
        t.note(`${ep.label} on ${target.label}: ${why}; trying its next window`);
      }
      continue;
    }
    if (!exact) admitsNotShown(d, notExact(target, remaining, limit));
    // An early 429 does not keep the bucket's other rules from being judged on it.
    else
      t.softExpectRule(
        ep.keys.admitsLimit,
        admitted >= limit,
        `429 after only ${admitted} requests in a fresh window whose ${LIMIT} is ${limit}`,
        rejected.ex,
      );
    return { exhausted: true, target, limit, rejected };
  }
  if (usedUp) {
    // Its 429 is old by now: the bucket is asked again, so that what follows compares with its latest answer.
    const again = await d.send(usedUp.target);
    if (again.ex.status === 429) usedUp.rejected = again;
    else if (again.ex.status !== undefined) usedUp.reopened = again;
    t.note(`${ep.label} on ${usedUp.target.label}: no fresh bucket could be used up instead; its 429 is judged`);
    admitsNotShown(d, `${usedUp.target.label}'s bucket was found used up by earlier traffic within its window`);
    return usedUp;
  }
  return {
    exhausted: false,
    reason:
      `${ep.label}: no 429 in ${ATTEMPTS} fresh buckets (${paceRetries} windows tried again), and every ` +
      `request admitted past the limit ` +
      `may have been counted in a later window (${why}); the target's windows cannot be told apart at ` +
      `the pace the suite sends`,
  };
}
