/**
 * What is judged on a bucket once it is used up (exhaust.ts): it keeps refusing within the
 * window, other keys of the merchant are refused too, other buckets are untouched, and it
 * admits again once its reset is over. As in exhaust.ts, an admission is held against the
 * target only when it was surely answered within the window of the 429 it contradicts.
 */
import type { BucketDriver, BucketTarget } from './driver.ts';
import { MARGIN_MS } from './driver.ts';
import { ATTEMPTS, exhaust, statusOf, type Exhausted } from './exhaust.ts';
import { rateHeaders, REMAINING, RESET } from './headers.ts';
import { sameWindow, secondsUntilReset, windowSurelyLastsUntil } from './timing.ts';

/** A second request past the limit, right after the 429, is refused too. */
export async function stillRefused(d: BucketDriver, done: Exhausted): Promise<void> {
  const again = await d.send(done.target);
  const refused = again.ex.status === 429;
  if (refused || sameWindow(done.rejected, again)) {
    d.t.softExpectRule('RATE.EXCEEDED.STATUS', refused, `${d.ep.label}: a second request past the limit of ${done.target.label}, within the window of the 429, got ${statusOf(again)}`, again.ex);
  } else {
    d.t.note(`${d.ep.label}: a second request past the limit of ${done.target.label} was admitted when the window of the 429 may have reset already; not judged`);
  }
  if (refused) done.rejected = again;
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
    const refused = ex.ex.status === 429;
    if (refused || sameWindow(done.rejected, ex)) {
      t.softExpectRule('AUTH.ALLOWANCE.PER_MERCHANT', refused, `${ep.label}: with ${done.target.label} used up by one key, another key of the same merchant was admitted within the window`, ex.ex);
      if (refused) done.rejected = ex;
      return done;
    }
    if (attempt === ATTEMPTS) break;
    const again = await exhaust(d);
    if (!again.exhausted) break;
    done = again;
  }
  t.ruleNotJudged('AUTH.ALLOWANCE.PER_MERCHANT', `${ep.label}: another key of the merchant was admitted on a used-up bucket only when the window of the 429 may have reset already (${ATTEMPTS} tries)`, 'target');
  return done;
}

/** Another merchant's or subscription's bucket is untouched by this one's being used up. */
export async function otherUntouched(d: BucketDriver, done: Exhausted, other: BucketTarget | undefined): Promise<void> {
  const { t, ep } = d;
  const same = other === undefined || (ep.bucket === 'merchant' ? other.merchantId === done.target.merchantId : other.subscriptionId === done.target.subscriptionId);
  if (same) {
    t.ruleNotJudged(ep.bucketRule, `${ep.label}: no second ${ep.bucket} to compare with (a key of another merchant is needed)`, ep.bucket === 'merchant' ? 'credential' : 'fixture');
    return;
  }
  const o = await d.send(other);
  if (o.ex.status === 429 && !other.alone) {
    t.ruleNotJudged(ep.bucketRule, `${ep.label}: ${other.label} shares its bucket with other traffic, which had used it up`, 'target');
    return;
  }
  t.softExpectRule(ep.bucketRule, o.ex.status !== 429, `with the bucket of ${done.target.label} used up, ${other.label} got 429`, o.ex);
  const h = rateHeaders(o.ex);
  if (other.alone && o.ex.status !== 429) {
    t.softExpectRule(ep.bucketRule, h.limit !== undefined && h.remaining === h.limit - 1, `with the bucket of ${done.target.label} used up, the first request of ${other.label} left ${o.ex.responseHeaders[REMAINING]} of ${h.limit}`, o.ex);
  }
}

/** After x-ratelimit-reset seconds (of the latest 429) the bucket admits again. */
export async function readmit(d: BucketDriver, done: Exhausted): Promise<void> {
  const { t, ep } = d;
  const wait = secondsUntilReset(done.rejected, d.clock, ep.windowSeconds);
  if (wait === undefined) {
    t.ruleNotJudged('RATE.WINDOW.READMITS', `${ep.label}: the 429 gives neither x-ratelimit-reset nor retry-after to wait for`, 'target');
    return;
  }
  await d.sleep(wait * 1000 + MARGIN_MS);
  const o = await d.send(done.target);
  const reset = done.rejected.ex.responseHeaders[RESET];
  if (o.ex.status === 429 && !done.target.alone) {
    t.ruleNotJudged('RATE.WINDOW.READMITS', `${ep.label}: ${done.target.label} shares its bucket with other traffic, which may have used the new window up`, 'target');
    return;
  }
  t.softExpectRule('RATE.WINDOW.READMITS', o.ex.status !== 429, `${ep.label}: still 429 after the ${reset ?? done.rejected.ex.responseHeaders['retry-after']} s the 429 gave had passed`, o.ex);
}

/**
 * Two keys of one merchant draw on one bucket: A, B, A within one window leave remaining
 * strictly falling. Undefined when judged, else why it could not be.
 */
export async function keysShareBucket(d: BucketDriver, target: BucketTarget, secondKey: string, ruleIds: string[]): Promise<string | undefined> {
  const { t, ep } = d;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const a1 = await d.send(target);
    const r1 = rateHeaders(a1.ex).remaining;
    const until = windowSurelyLastsUntil(a1);
    // Room for three requests, and a window known to last long enough to send them.
    if (a1.ex.status === 429 || r1 === undefined || r1 < 2 || until === undefined || until - d.clock.now() < 1000) {
      const wait = d.waitFor(a1);
      if (wait === undefined) return `${ep.label}: the primary merchant's bucket is nearly used up by other traffic (remaining ${a1.ex.responseHeaders[REMAINING]}, reset ${a1.ex.responseHeaders[RESET]} s) and this profile does not wait that long`;
      await d.sleep(wait * 1000 + MARGIN_MS);
      continue;
    }
    const b1 = await d.send(target, secondKey);
    const a2 = await d.send(target);
    if (!sameWindow(a1, a2)) {
      t.note(`${ep.label}: the three requests were not all answered within one window; trying again`);
      continue;
    }
    const r2 = rateHeaders(b1.ex).remaining;
    const r3 = rateHeaders(a2.ex).remaining;
    const shared = r2 !== undefined && r3 !== undefined && r2 < r1 && r3 < r2;
    const message = `remaining went ${r1} (key A), ${r2} (key B), ${r3} (key A) within one window: the keys of merchant ${target.merchantId ?? ''} do not draw on one bucket`;
    for (const id of ruleIds) t.softExpectRule(id, shared, message, b1.ex);
    return undefined;
  }
  return `${ep.label}: in ${ATTEMPTS} tries, no window of the primary merchant surely lasted for three requests (its x-ratelimit-reset too short or too coarse to tell)`;
}
