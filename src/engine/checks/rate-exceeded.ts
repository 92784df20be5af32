/**
 * RATE.EXCEEDED.STATUS: "a request above the limit within the window gets 429 Too Many Requests
 * until the window resets" (Limits), judged over a stream of exchanges, one bucket at a time.
 * The one judge of the rule: in `conform run` the rate-limit driver (src/engine/ratelimit) makes
 * the exchanges, in the scenario's stream; in `conform proxy` and `conform judge` the traffic does.
 *
 * A bucket is an endpoint's (x-rate-limit in spec/openapi.yaml: its published limit, window and
 * kind): per subscription where the bucket is in the path, else per credential (a key acts for
 * one merchant, so its requests share the merchant's bucket). Other keys of the merchant and
 * traffic the stream does not hold may draw on it too, unseen: every count is a lower bound, so
 * it fails a target only on what it surely admitted. An admission is a 2xx: another answer (a 404)
 * may have been refused before it was counted.
 *
 * When a request is surely above the limit, read off the target's own headers whatever its
 * limiter (fixed or sliding window, token bucket, a limit raised above the published one):
 * - within a window: the admissions answered within the window an answer was counted in (sent
 *   after it came back, answered before its x-ratelimit-reset surely ran out: timing.ts) have
 *   reached the highest x-ratelimit-limit shown in that window;
 * - after a refusal: a 429 to a request above the limit says the bucket stays used up until its
 *   own wait (the shorter of x-ratelimit-reset and retry-after) surely ran out;
 * - however the windows fall: 2L admissions span less than the window already, L the highest
 *   limit the bucket showed (at least the published one): no limiter keeping L per window admits
 *   more (a fixed window at most 2L across its reset, a sliding window L, a token bucket L and its
 *   refill).
 * Its answer then holds the rule with a 429 and fails it with a 2xx; any other answer judges
 * nothing. A 429 before that (unseen traffic may have used the bucket up; a fresh window that
 * refuses too early is the endpoint's LIMIT rule) judges nothing either.
 */
import { CappedMap } from './capped-map.ts';
import { LIMIT, RESET, RETRY_AFTER, rateHeaders } from '../ratelimit/headers.ts';
import { windowSurelyLastsUntil, type Timed } from '../ratelimit/timing.ts';
import { describeStatus, finding, is2xx, type Check } from './types.ts';

const RULE = 'RATE.EXCEEDED.STATUS';
const NAME = 'rate-exceeded';
const MAX_BUCKETS = 20_000;

/** The window one answer was counted in, and what was counted in it since. */
interface Window {
  opened: Timed;
  /** Until when (ms) it surely lasts. */
  until: number;
  /** Admissions answered within it, the opening one included. */
  admitted: number;
  /** The highest x-ratelimit-limit shown in it. */
  limit: number;
}

interface Bucket {
  window?: Window;
  /** The latest 429 to a request above the limit, and until when its wait surely lasts. */
  refused?: { answer: Timed; until: number };
  /** Admissions (sent, answered) within the last window's length: for the bound every limiter keeps. */
  recent: { sentAt: number; receivedAt: number }[];
  /** The highest x-ratelimit-limit the bucket showed, at least the published one. */
  limit: number;
}

/** Why a request was surely above the limit: a finding's title and words, when it was admitted. */
interface Above {
  title: string;
  why: string;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);
const at = (ms: number) => new Date(ms).toISOString();

export const rateExceeded: Check = {
  name: NAME,
  ruleIds: [RULE],
  description:
    'Per bucket over the stream: a request surely above the limit (the admissions of one window at the limit it ' +
    'shows, the wait of a 429 to such a request, twice the limit within less than a window) gets 429.',
  open() {
    const buckets = new CappedMap<string, Bucket>(MAX_BUCKETS);
    return {
      observe(ex, ctx, op) {
        const rl = op?.rateLimit;
        if (!rl || ex.status === undefined || ex.status === 401 || ctx.unauthenticated || ctx.credential === undefined)
          return undefined;
        const sub = rl.bucket === 'subscription' ? ctx.request.params.id : undefined;
        if (rl.bucket === 'subscription' && sub === undefined) return undefined;
        const key = `${op.operationId} ${sub === undefined ? `key ${ctx.credential}` : `subscription ${sub}`}`;
        const b = buckets.get(key) ?? { recent: [], limit: rl.limit };
        buckets.set(key, b);
        const now: Timed = { ex, sentAt: ctx.startMs, receivedAt: ctx.endMs };
        const h = rateHeaders(ex);
        if (h.limit !== undefined) b.limit = Math.max(b.limit, h.limit);
        const admitted = is2xx(ex);
        const where = sub === undefined ? 'with one API key' : `on subscription ${sub}`;

        // Each way the request may be surely above the limit, in turn; the counts then take it in.
        let above = windowFull(b, now, admitted, h.limit, h.reset !== undefined, where);
        const r = b.refused;
        if (!above && r && now.sentAt >= r.answer.receivedAt && now.receivedAt <= r.until)
          above = {
            title: 'Admitted within the wait of a 429',
            why:
              `a 429 answered at ${at(r.answer.receivedAt)} (${RESET} ${r.answer.ex.responseHeaders[RESET] ?? 'absent'}, ` +
              `${RETRY_AFTER} ${r.answer.ex.responseHeaders[RETRY_AFTER] ?? 'absent'}) to a request above the limit ` +
              `${where} said the bucket stays used up until at least ${at(r.until)}; this request was sent after it ` +
              `and answered before then`,
          };
        const windowMs = rl.windowSeconds * 1000;
        b.recent = b.recent.filter((a) => a.sentAt > now.receivedAt - windowMs || a.receivedAt > now.receivedAt);
        const span = b.recent.filter((a) => a.sentAt > now.receivedAt - windowMs && a.receivedAt <= now.receivedAt);
        if (!above && span.length >= 2 * b.limit) {
          const first = Math.min(...span.map((a) => a.sentAt));
          const L = b.limit;
          above = {
            title: 'Admitted more than twice the limit within less than a window',
            why:
              `${span.length + 1} requests admitted within ${seconds(now.receivedAt - first)} s, less than the ` +
              `${rl.windowSeconds} s window, where ${LIMIT} says ${L} (${where}): no limiter keeping ${L} per ` +
              `${rl.windowSeconds} s admits more than ${2 * L} (a fixed window ${2 * L} across its reset, a sliding ` +
              `window ${L}, a token bucket ${L} and its refill)`,
          };
        }
        if (admitted) {
          b.recent.push({ sentAt: now.sentAt, receivedAt: now.receivedAt });
          // Bounded: past twice the limit within a window every further admission fails anyway.
          if (b.recent.length > 2 * b.limit + 1) b.recent.splice(0, b.recent.length - (2 * b.limit + 1));
        }
        if (!above || (!admitted && ex.status !== 429)) return undefined;
        if (ex.status === 429) {
          const until = windowSurelyLastsUntil(now);
          // Its wait is the target's word: a shorter one of a later 429 does not take back an earlier one's.
          if (until !== undefined && (!r || until > r.until)) b.refused = { answer: now, until };
          return { judged: [RULE], findings: [] };
        }
        return {
          judged: [RULE],
          findings: [finding(NAME, [RULE], above.title, `${describeStatus(ex)}: ${above.why}`, ex)],
        };
      },
    };
  },
};

/**
 * The window count of a bucket, told of one more answer: whether the request was surely above
 * the limit by it (its window's admissions already at the limit shown), and why. An answer
 * answered after the window surely ended opens the next one, when it shows a limit and a reset; a
 * request sent before the window's first answer came back may belong to the window before, and
 * is left out.
 */
function windowFull(
  b: Bucket,
  now: Timed,
  admitted: boolean,
  shownLimit: number | undefined,
  shownReset: boolean,
  where: string,
): Above | undefined {
  const w = b.window;
  if (w && now.receivedAt <= w.until) {
    if (now.sentAt < w.opened.receivedAt) return undefined;
    if (shownLimit !== undefined) w.limit = Math.max(w.limit, shownLimit);
    const full = w.admitted >= w.limit;
    if (admitted) w.admitted += 1;
    if (!full) return undefined;
    const opened = w.opened.ex.responseHeaders;
    return {
      title: 'Admitted above the limit within the window',
      why:
        `${admitted ? `admission ${w.admitted}` : `a request past ${w.admitted} admissions`} ${where} within one ` +
        `window whose ${LIMIT} is ${w.limit}: the window the answer at ${at(w.opened.receivedAt)} was counted in ` +
        `(${RESET} ${opened[RESET]}${opened[RETRY_AFTER] === undefined ? '' : `, ${RETRY_AFTER} ${opened[RETRY_AFTER]}`}) ` +
        `surely lasted until ${at(w.until)}, and this request was sent after that answer and answered before then`,
    };
  }
  const until = shownLimit !== undefined && shownReset ? windowSurelyLastsUntil(now) : undefined;
  b.window = until === undefined ? undefined : { opened: now, until, admitted: admitted ? 1 : 0, limit: shownLimit! };
  return undefined;
}
