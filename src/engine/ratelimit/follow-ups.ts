/**
 * What is judged on a bucket once it is used up (exhaust.ts): it keeps refusing within the
 * window (the registry's rate-exceeded judge, on the request sent here), other keys of the
 * merchant are refused too, other buckets are untouched, and it admits again once its reset is
 * over. As in exhaust.ts, an admission is held against the target only when it was surely
 * answered within the window of the 429 it contradicts.
 */
import type { BucketDriver, BucketTarget } from './driver.ts';
import { MARGIN_MS } from './driver.ts';
import { ATTEMPTS, burst, exhaust, statusOf, type Exhausted } from './exhaust.ts';
import { rateHeaders, REMAINING, RESET, RETRY_AFTER, unreadableRateHeader } from './headers.ts';
import { sameWindow, secondsUntilReset, windowSurelyLastsUntil, type Timed } from './timing.ts';

/**
 * A second request past the limit, right after the 429: whether it is refused too is the
 * registry's to judge (RATE.EXCEEDED.STATUS: within the window the answers' resets show), on
 * this request in the scenario's stream.
 */
export async function stillRefused(d: BucketDriver, done: Exhausted): Promise<void> {
  const again = await d.send(done.target);
  if (again.ex.status !== 429 && !sameWindow(done.rejected, again))
    d.t.note(
      `${d.ep.label}: a second request past the limit of ${done.target.label} was admitted (${statusOf(again)}) ` +
        `when the window of the 429 may have reset already; not held against the target`,
    );
  settle(done, again);
}

/** Keeps the bucket's latest answer: a 429 as the latest refusal, an admission as a request counted in a new window. */
function settle(done: Exhausted, o: Timed): void {
  if (o.ex.status === 429) done.rejected = o;
  else if (o.ex.status !== undefined) done.reopened = o;
}

/**
 * A second key of the merchant is refused on the used-up bucket (allowances are the
 * merchant's). Admitted when the window may have reset: tried again on a fresh bucket.
 */
export async function secondKeyRefused(d: BucketDriver, first: Exhausted, secondKey: string): Promise<Exhausted> {
  const { t, ep } = d;
  let done = first;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const ex = await d.send(done.target, secondKey);
    if (ex.ex.status === 401) {
      t.ruleNotJudged(
        'AUTH.ALLOWANCE.PER_MERCHANT',
        `${ep.label}: the second key of the merchant got 401: a key that does not authenticate draws on no bucket`,
        'credential',
      );
      return done;
    }
    const refused = ex.ex.status === 429;
    if (refused || sameWindow(done.rejected, ex)) {
      t.softExpectRule(
        'AUTH.ALLOWANCE.PER_MERCHANT',
        refused,
        `${ep.label}: with ${done.target.label} used up by one key, another key of the same merchant was admitted within the window`,
        ex.ex,
      );
      settle(done, ex);
      return done;
    }
    if (attempt === ATTEMPTS) break;
    const again = await exhaust(d);
    if (!again.exhausted) break;
    done = again;
  }
  t.ruleNotJudged(
    'AUTH.ALLOWANCE.PER_MERCHANT',
    `${ep.label}: another key of the merchant was admitted on a used-up bucket only when the ` +
      `window of the 429 may have reset already (${ATTEMPTS} tries)`,
    'target',
  );
  return done;
}

/** True when `other` is not a bucket of its own beside `first` (no second merchant or subscription to compare with). */
function sameBucket(d: BucketDriver, first: BucketTarget, other: BucketTarget | undefined): boolean {
  return (
    other === undefined ||
    (d.ep.bucket === 'merchant' ? other.merchantId === first.merchantId : other.subscriptionId === first.subscriptionId)
  );
}

/** The bucket otherUntouched compares with, as it stood before the first one was used up. */
export interface OtherBucket {
  target: BucketTarget;
  /** Requests it surely had left for this scenario (0: none, or not known). */
  room: number;
  /** x-ratelimit-remaining after the last request sent on it, when nothing reset since. */
  was?: number;
}

/**
 * Reads the other bucket before `first` is used up. A fresh merchant or subscription may
 * still carry an earlier run's requests within its window (pre-seeded fixtures are reused
 * from run to run), so "untouched" is judged against what it had left, never against a full
 * bucket. One found without room is waited out when its window is short, else another fresh
 * one is tried. Undefined: no second bucket to compare with.
 */
export async function otherBefore(
  d: BucketDriver,
  first: BucketTarget,
  other: BucketTarget | undefined,
): Promise<OtherBucket | undefined> {
  if (!other || sameBucket(d, first, other)) return undefined;
  if (!other.alone) return { target: other, room: 0 };
  for (let attempt = 1; ; attempt++) {
    const probe = await d.send(other);
    const left = probe.ex.status === 429 ? 0 : rateHeaders(probe.ex).remaining;
    if (left !== undefined && left >= 1) return { target: other, room: left, was: left };
    const wait = d.waitFor(probe);
    if (wait !== undefined) {
      // Past the reset of its last answer, a bucket nobody else sends on admits at least one request, whatever the limiter model.
      await d.sleep(wait * 1000 + MARGIN_MS);
      return { target: other, room: 1 };
    }
    d.t.note(
      `${d.ep.label}: ${other.label} had no request left ` +
        `(remaining ${probe.ex.responseHeaders[REMAINING] ?? 'not given'}, ${statusOf(probe)}) ` +
        `before ${first.label} was used up: earlier traffic within its window`,
    );
    const next = attempt < ATTEMPTS ? await d.fresh() : undefined;
    if (!next || !next.alone || sameBucket(d, first, next)) return { target: other, room: 0 };
    other = next;
  }
}

/**
 * Another merchant's or subscription's bucket is untouched by this one's being used up: it
 * still admits where it had room, and its remaining fell by no more than the one request
 * sent on it since (no limiter model lowers a bucket nobody sends on).
 */
export async function otherUntouched(d: BucketDriver, done: Exhausted, other: OtherBucket | undefined): Promise<void> {
  const { t, ep } = d;
  if (!other || sameBucket(d, done.target, other.target)) {
    t.ruleNotJudged(
      ep.keys.otherBucket,
      `${ep.label}: no second ${ep.bucket} to compare with (a key of another merchant is needed)`,
      ep.bucket === 'merchant' ? 'credential' : 'fixture',
    );
    return;
  }
  const { target } = other;
  const o = await d.send(target);
  if (o.ex.status === 401) {
    t.ruleNotJudged(
      ep.keys.otherBucket,
      `${ep.label}: the key of ${target.label} got 401: a key that does not authenticate shows no bucket`,
      'credential',
    );
    return;
  }
  if (o.ex.status === 429 && !target.alone) {
    t.ruleNotJudged(
      ep.keys.otherBucket,
      `${ep.label}: ${target.label} shares its bucket with other traffic, which had used it up`,
      'target',
    );
    return;
  }
  if (o.ex.status === 429 && other.room < 1) {
    t.ruleNotJudged(
      ep.keys.otherBucket,
      `${ep.label}: ${target.label} had no request left before ${done.target.label} was used up ` +
        `(earlier traffic within its window, e.g. a previous run): its 429 is not attributable`,
      'target',
    );
    return;
  }
  t.softExpectRule(
    ep.keys.otherBucket,
    o.ex.status !== 429,
    `with the bucket of ${done.target.label} used up, ${target.label} got 429 (it ` +
      `had ${other.room} request(s) left before, and only this scenario sends on it)`,
    o.ex,
  );
  const now = rateHeaders(o.ex).remaining;
  if (target.alone && o.ex.status !== 429 && other.was !== undefined) {
    t.softExpectRule(
      ep.keys.otherBucket,
      now !== undefined && now >= other.was - 1,
      `with the bucket of ${done.target.label} used up, ${target.label} went from ` +
        `remaining ${other.was} to ${o.ex.responseHeaders[REMAINING]} on one request`,
      o.ex,
    );
  }
}

/**
 * A bucket too big to use up (a limit risen far above the published one): another merchant's
 * or subscription's bucket is still judged unaffected, from the target's own headers. Its
 * x-ratelimit-remaining, read before, falls by no more than the one request sent on it since,
 * while this scenario spent `spent.requests` on the first bucket: had the two shared a bucket,
 * those would show (a window that reset in between only raises remaining, so it never fails a
 * bucket of its own). Judged only on a bucket nobody but this scenario sends on.
 */
export async function otherUnmoved(
  d: BucketDriver,
  spent: { target: BucketTarget; requests: number },
  other: OtherBucket | undefined,
): Promise<void> {
  const { t, ep } = d;
  if (!other || sameBucket(d, spent.target, other.target) || !other.target.alone || other.was === undefined) {
    t.ruleNotJudged(
      ep.keys.otherBucket,
      `${ep.label}: no second ${ep.bucket} whose remaining only this scenario moves, to compare with`,
      other ? 'target' : ep.bucket === 'merchant' ? 'credential' : 'fixture',
    );
    return;
  }
  const o = await d.send(other.target);
  const now = rateHeaders(o.ex).remaining;
  if (o.ex.status === 401 || now === undefined) {
    t.ruleNotJudged(
      ep.keys.otherBucket,
      `${ep.label}: ${other.target.label} answered ${statusOf(o)} without ${REMAINING}: nothing to compare`,
      o.ex.status === 401 ? 'credential' : 'target',
    );
    return;
  }
  t.softExpectRule(
    ep.keys.otherBucket,
    o.ex.status !== 429 && now >= other.was - 1,
    `while ${spent.requests} requests were sent on ${spent.target.label}, ${other.target.label} went from ` +
      `remaining ${other.was} to ${o.ex.responseHeaders[REMAINING] ?? 'none'} (${statusOf(o)}) on the one request sent on it`,
    o.ex,
  );
}

/** Pause between the requests that look for a whole-second reset ticking down. */
const TICK_PAUSE_MS = 100;
/** At most this many of them: a little over the second a rounded reset may add. */
const TICK_REQUESTS = 12;

/**
 * A reset in whole seconds is rounded up, so a 429 may promise up to a second more than its
 * window has left, and the wait for readmission with it. While that second passes, a few more
 * requests on the used-up bucket find the moment the reset drops by one; the 429 answered just
 * after it promises the window's end to within TICK_PAUSE_MS. The wait is always counted from
 * the latest 429 (a bucket may count refused requests and move its reset with each), so the
 * requests stop at the drop, or when one is admitted (it counts in a new window: `reopened`).
 */
async function tickedRefusal(d: BucketDriver, done: Exhausted): Promise<Exhausted> {
  const from = rateHeaders(done.rejected.ex).reset;
  if (!from || from.precision < 1 || from.seconds < 2 || !done.target.alone) return done;
  if (done.reopened && done.reopened.sentAt > done.rejected.sentAt) return done;
  let rejected = done.rejected;
  for (let i = 0; i < TICK_REQUESTS; i++) {
    await d.sleep(TICK_PAUSE_MS);
    const o = await d.send(done.target);
    if (o.ex.status !== 429) return { ...done, rejected, reopened: o };
    rejected = o;
    const now = rateHeaders(o.ex).reset;
    if (!now || now.seconds < from.seconds) break;
  }
  return { ...done, rejected };
}

/** After x-ratelimit-reset seconds (of the latest 429) the bucket admits again. */
export async function readmit(d: BucketDriver, done: Exhausted): Promise<void> {
  const { t, ep } = d;
  done = await tickedRefusal(d, done);
  // A request admitted after the 429 opened a window of its own: the bucket is waited out past that one too.
  const last = done.reopened && done.reopened.sentAt > done.rejected.sentAt ? done.reopened : done.rejected;
  const wait = secondsUntilReset(last, d.clock, ep.windowSeconds);
  if (wait === undefined) {
    t.ruleNotJudged(
      'RATE.WINDOW.READMITS',
      `${ep.label}: the 429 gives neither ${RESET} nor ${RETRY_AFTER} to wait for`,
      'target',
    );
    return;
  }
  await d.sleep(wait * 1000 + MARGIN_MS);
  const o = await d.send(done.target);
  const reset = last.ex.responseHeaders[RESET];
  if (o.ex.status === 429 && !done.target.alone) {
    t.ruleNotJudged(
      'RATE.WINDOW.READMITS',
      `${ep.label}: ${done.target.label} shares its bucket with other traffic, which may have used the new window up`,
      'target',
    );
    return;
  }
  t.softExpectRule(
    'RATE.WINDOW.READMITS',
    o.ex.status !== 429,
    `${ep.label}: still 429 after the ${reset ?? last.ex.responseHeaders[RETRY_AFTER]} s ` +
      `the ${last === done.rejected ? '429' : 'last admission'} gave had passed`,
    o.ex,
  );
}

/** B-requests sent between the two A-requests, at least: a shared bucket then falls by several, separate ones by one. */
const KEYS_SHARE_MIN_B = 3;
/** Of the primary merchant's bucket, at most this share is spent to lengthen a short window (a nearly full token bucket). */
const LENGTHEN_SHARE = 4;

/**
 * Two keys of one merchant draw on one bucket: key A, then k requests of key B at once, then key
 * A again, all answered while the window of the first surely lasts (timing.ts). On one shared
 * bucket remaining then falls by more than k less what the bucket may have given back meanwhile;
 * on separate buckets by about one. What a bucket gives back in a window that surely lasts is
 * nothing for a fixed or sliding window, and for a token bucket at most the share of the time to
 * full its x-ratelimit-reset states (remaining L - r refilled over reset seconds): so k is chosen
 * above that, and a window found short (a nearly full token bucket states about one token's time)
 * is lengthened by spending a little of it. Works alike for the three limiters README accepts.
 * Undefined when judged, else why it could not be, naming the actual cause.
 */
export async function keysShareBucket(
  d: BucketDriver,
  target: BucketTarget,
  secondKey: string,
  ruleIds: string[],
): Promise<string | undefined> {
  const { t, ep } = d;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    let a1 = await d.send(target);
    // No wait makes a header appear: what the answer lacks is the reason.
    const lacks = a1.ex.status === 429 ? undefined : unreadableRateHeader(a1.ex, [REMAINING, RESET]);
    if (lacks) return `${ep.label}: ${lacks} on the primary merchant's answer (${statusOf(a1)}): nothing to count with`;
    const limit = rateHeaders(a1.ex).limit ?? ep.limit;
    // The three steps take about three round trips: the window must surely last that long. A window
    // that ends too soon: a nearly full token bucket states about one token's time; spending a few shows a longer one.
    const need = 3 * (a1.receivedAt - a1.sentAt) + MARGIN_MS;
    for (let spent = 0; a1.ex.status !== 429 && tooShort(d, a1, need) && spent < limit / LENGTHEN_SHARE;) {
      const n = Math.max(1, Math.ceil(limit / (LENGTHEN_SHARE * 4)));
      const sent = await burst(n, () => d.send(target));
      spent += n;
      a1 = sent[sent.length - 1];
    }
    const r1 = rateHeaders(a1.ex).remaining;
    const lasts = windowSurelyLastsUntil(a1);
    // What a token bucket may give back over the three steps (A, the B burst, A), by its stated time to full.
    const refill = (ms: number) =>
      lasts === undefined || r1 === undefined ? Infinity : (ms / Math.max(1, lasts - a1.sentAt)) * (limit - r1);
    const k = Math.max(KEYS_SHARE_MIN_B, Math.ceil(refill(need)) + KEYS_SHARE_MIN_B);
    if (a1.ex.status === 429 || r1 === undefined || r1 < k + 2 || tooShort(d, a1, need)) {
      const wait = d.waitFor(a1);
      if (wait === undefined) {
        const shown = a1.ex.responseHeaders[RESET];
        const reset = shown === undefined ? `${RESET} absent` : `reset ${shown} s`;
        const why =
          a1.ex.status === 429
            ? `the primary merchant's bucket is used up by other traffic (429, ${reset})`
            : r1 !== undefined && r1 < k + 2
              ? `the primary merchant's bucket has too little room for ${k + 2} requests (remaining ${r1}, ${reset})`
              : `the primary merchant's window ends too soon for ${k + 2} requests (${reset})`;
        return `${ep.label}: ${why} and this profile does not wait that long`;
      }
      await d.sleep(wait * 1000 + MARGIN_MS);
      continue;
    }
    const bs = await burst(k, () => d.send(target, secondKey));
    const b401 = bs.find((b) => b.ex.status === 401);
    d.t.precondition(!b401, `the second key of merchant ${target.merchantId ?? ''} authenticates`, b401?.ex);
    const a2 = await d.send(target);
    if (bs.some((b) => b.ex.status === 429) || !sameWindow(a1, a2)) {
      t.note(`${ep.label}: the ${k + 2} requests were not all admitted within one window; trying again`);
      continue;
    }
    const r2 = a2.ex.status === 429 ? 0 : rateHeaders(a2.ex).remaining;
    const back = refill(a2.receivedAt - a1.sentAt);
    const fell = r2 === undefined ? undefined : r1 - r2;
    const shared = fell !== undefined && fell > k - back;
    const message =
      `remaining went ${r1} (key A), then ${k} requests of key B, then ${r2 ?? 'not given'} (key A) within one window: ` +
      `a bucket the keys share falls by more than ${Math.max(0, k - back).toFixed(1)} (${k} less the ${back.toFixed(1)} ` +
      `its stated time to full may have given back), so the keys of merchant ${target.merchantId ?? ''} do not draw on one bucket`;
    for (const id of ruleIds) t.softExpectRule(id, shared, message, a2.ex);
    return undefined;
  }
  return (
    `${ep.label}: in ${ATTEMPTS} tries, no window of the primary merchant surely lasted for the requests ` +
    `(its ${RESET} too short or too coarse to tell, or other traffic used the bucket up)`
  );
}

/** Whether the window of `o` may end within `needMs` from now. */
function tooShort(d: BucketDriver, o: Timed, needMs: number): boolean {
  const until = windowSurelyLastsUntil(o);
  return until === undefined || until - d.clock.now() < needMs;
}
