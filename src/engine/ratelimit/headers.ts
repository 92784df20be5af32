/**
 * The rate headers of one answer, as numbers. Their format is judged by the checks
 * (checks/rate-headers.ts, checks/too-many-requests.ts); here a header that cannot be read
 * is simply absent. A wait keeps the precision it was written with: "6" may stand for
 * anything from 5 to 7 seconds depending on how the service rounds, "0.25" for about 0.25.
 */
import type { Exchange } from '../types.ts';
import { readRetryAfter } from '../http/retry.ts';
import { LIMIT, REMAINING, RESET, RETRY_AFTER } from '../http/headers.ts';

export { RATE_HEADER_NAMES, LIMIT, REMAINING, RESET, RETRY_AFTER } from '../http/headers.ts';

/** A wait in seconds, and the unit of its last digit (1 for "6", 0.01 for "0.25"). */
export interface Wait {
  seconds: number;
  precision: number;
}

export interface RateHeaders {
  limit?: number;
  remaining?: number;
  /** x-ratelimit-reset: until the window resets. */
  reset?: Wait;
  /** retry-after (seconds or an HTTP-date, whose precision is a second). */
  retryAfter?: Wait;
}

function count(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

function seconds(value: string | undefined): Wait | undefined {
  const m = value === undefined ? null : /^\s*(\d+)(?:\.(\d+))?\s*$/.exec(value);
  if (!m) return undefined;
  return { seconds: Number(value), precision: 10 ** -(m[2]?.length ?? 0) };
}

export function rateHeaders(ex: Exchange | undefined): RateHeaders {
  const h = ex?.responseHeaders ?? {};
  const ra = readRetryAfter(h[RETRY_AFTER], h.date);
  return {
    limit: count(h[LIMIT]),
    remaining: count(h[REMAINING]),
    reset: seconds(h[RESET]),
    retryAfter: ra && (ra.form === 'delay-seconds' ? seconds(h[RETRY_AFTER]) : { seconds: ra.seconds, precision: 1 }),
  };
}

/**
 * Why an answer gives nothing to count with: the first of the named rate headers that is absent
 * or not a number, named; undefined when all of them read.
 */
export function unreadableRateHeader(
  ex: Exchange,
  names: readonly (typeof LIMIT | typeof REMAINING | typeof RESET)[],
): string | undefined {
  const h = rateHeaders(ex);
  const read = { [LIMIT]: h.limit, [REMAINING]: h.remaining, [RESET]: h.reset } as Record<string, unknown>;
  for (const name of names) {
    const raw = ex.responseHeaders[name];
    if (raw === undefined) return `${name} absent`;
    if (read[name] === undefined) return `${name} ${JSON.stringify(raw)} is not a number`;
  }
  return undefined;
}
