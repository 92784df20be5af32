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
 * When a request is surely above the limit: an answer's x-ratelimit-reset says how long its
 * window surely lasts (timing.ts: less the rounding of the value, counted from when the request
 * was sent); once the admissions answered within it, sent after that answer came back, reach the
 * highest x-ratelimit-limit shown in it, a further request there is above the limit. Fixed and
 * sliding windows and token buckets all keep that (a token bucket's last token of the window
 * comes no sooner than the reset it stated). Its answer then holds the rule with a 429 and fails
 * it with a 2xx; any other answer judges nothing. What the document does not promise is not
 * judged: a retry-after says how long to wait, not that an earlier request is refused, and a
 * limit may rise without its window staying the published one.
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
}

/** Why a request was surely above the limit: a finding's title and words, when it was admitted. */
interface Above {
  title: string;
  why: string;
}

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
    'Per bucket over the stream: once the admissions of one window reach the limit it shows, a further request ' +
    'there gets 429.',
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
        const b = buckets.get(key) ?? {};
        buckets.set(key, b);
        const now: Timed = { ex, sentAt: ctx.startMs, receivedAt: ctx.endMs };
        const h = rateHeaders(ex);
        const admitted = is2xx(ex);
        const where =
          sub === undefined
            ? `with one API key on ${path}${merchant === undefined ? '' : ` for merchant ${merchant}`}`
            : `on subscription ${sub}`;
        const above = windowFull(b, now, admitted, h.limit, h.reset !== undefined, where);
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
