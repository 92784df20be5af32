/**
 * RATE.EXCEEDED.STATUS: "a request above the limit within the window gets 429 Too Many Requests
 * until the window resets" (Limits), judged over a stream of exchanges, one bucket at a time.
 * The one judge of the rule: in `conform run` the rate-limit driver (src/engine/ratelimit) makes
 * the exchanges, in the scenario's stream; in `conform proxy` and `conform judge` the traffic does.
 *
 * A bucket is an endpoint's (x-rate-limit in spec/openapi.yaml: its published limit and kind):
 * per subscription where the bucket is in the path, else per credential (a key acts for one
 * merchant, so its requests share the merchant's bucket). The count is kept apart for every
 * value the service might count apart by, where the document does not say it does not: each
 * concrete path (a CRM provider's accounts) and each merchant a request names (merchantId in
 * its query or body). Other keys of the merchant and traffic the stream does not hold may draw
 * on the bucket too, unseen: every count is a lower bound, so it fails a target only on what it
 * surely admitted. An admission is a 2xx: another answer (a 404) may have been refused before it
 * was counted.
 *
 * When a request is surely above the limit, whatever the limiter (fixed or sliding window, token
 * bucket, a limit raised above the published one and shown in x-ratelimit-limit):
 * - within a window: an answer's x-ratelimit-reset says how long its window surely lasts
 *   (timing.ts: less the rounding of the value, counted from when the request was sent); once
 *   the admissions answered within it, sent after that answer came back, reach the highest
 *   x-ratelimit-limit shown in it, a further request there is above the limit (a token bucket's
 *   last token of the window comes no sooner than the reset it stated);
 * - however the windows fall: 2L admissions span less than the endpoint's published window
 *   ("60 per 6 seconds": the table fixes the window; what rises is the limit, which
 *   x-ratelimit-limit shows as "the bucket's limit"), L the highest limit the bucket showed: no
 *   limiter keeping L per window admits more (a fixed window at most 2L across its reset, a
 *   sliding window L, a token bucket L and its refill).
 * Its answer then holds the rule with a 429 and fails it with a 2xx; any other answer judges
 * nothing. Not judged: an admission before a 429's retry-after ran out ("seconds to wait before
 * retrying" asks the client to wait; a token bucket stating its time to full, or a retry-after
 * rounded up, admits a refilled token sooner).
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

/** A merchant the request names, which a service may count apart from the key's own. */
function namedMerchant(request: { query: URLSearchParams; body: unknown }): string | undefined {
  const fromBody = (request.body as { merchantId?: unknown } | null | undefined)?.merchantId;
  return request.query.get('merchantId') ?? (typeof fromBody === 'string' ? fromBody : undefined);
}

export const rateExceeded: Check = {
  name: NAME,
  ruleIds: [RULE],
  description:
    'Per bucket over the stream: a request surely above the limit (the admissions of one window at the limit it ' +
    'shows, twice the limit within less than the published window) gets 429.',
  open() {
    const buckets = new CappedMap<string, Bucket>(MAX_BUCKETS);
    return {
      observe(ex, ctx, op) {
        const rl = op?.rateLimit;
        if (!rl || ex.status === undefined || ex.status === 401 || ctx.unauthenticated || ctx.credential === undefined)
          return undefined;
        const sub = rl.bucket === 'subscription' ? ctx.request.params.id : undefined;
        if (rl.bucket === 'subscription' && sub === undefined) return undefined;
        const merchant = namedMerchant(ctx.request);
        const path = new URL(ex.url, 'http://target.invalid').pathname;
        const key =
          sub === undefined
            ? `${op.operationId} ${path} key ${ctx.credential}${merchant === undefined ? '' : ` merchant ${merchant}`}`
            : `${op.operationId} ${path} subscription ${sub}`;
        const b = buckets.get(key) ?? { recent: [], limit: rl.limit };
        buckets.set(key, b);
        const now: Timed = { ex, sentAt: ctx.startMs, receivedAt: ctx.endMs };
        const h = rateHeaders(ex);
        if (h.limit !== undefined) b.limit = Math.max(b.limit, h.limit);
        const admitted = is2xx(ex);
        const where =
          sub === undefined
            ? `with one API key on ${path}${merchant === undefined ? '' : ` for merchant ${merchant}`}`
            : `on subscription ${sub}`;
        let above = windowFull(b, now, admitted, h.limit, h.reset !== undefined, where);
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
        if (ex.status === 429) return { judged: [RULE], findings: [] };
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
