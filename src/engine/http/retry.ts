/**
 * The document's retry rule (Limits): do not retry a 429 at once; wait `retry-after`
 * seconds; if absent wait one second and double the wait on each further rejection;
 * stop after five attempts.
 */
import { loadRules } from '../../contract/rules.ts';
import { numberOf } from '../predicates.ts';

const rules = await loadRules();
/** Attempts at a request that keeps getting 429 (RETRY.CLIENT.MAX_ATTEMPTS). */
export const MAX_ATTEMPTS = numberOf(rules, 'RETRY.CLIENT.MAX_ATTEMPTS', 'maxAttempts');
/** The wait without retry-after: the first, and the factor of each further one (RETRY.CLIENT.WAIT). */
const FIRST_BACKOFF_MS = numberOf(rules, 'RETRY.CLIENT.WAIT', 'initialWaitSeconds') * 1000;
const BACKOFF_FACTOR = numberOf(rules, 'RETRY.CLIENT.WAIT', 'factor');

/** What the document asks a client to wait after `rejections` 429s without retry-after. */
export const backoffMs = (rejections: number): number => FIRST_BACKOFF_MS * BACKOFF_FACTOR ** (rejections - 1);

const DELAY_SECONDS = /^\d+(\.\d+)?$/;
const WEEKDAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
/** RFC 9110 §5.6.7: IMF-fixdate, and the obsolete rfc850 and asctime forms a recipient must accept. */
const HTTP_DATE = [
  new RegExp(`^${WEEKDAY}, \\d{2} ${MONTH} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT$`),
  new RegExp(
    `^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} \\d{2}:\\d{2}:\\d{2} GMT$`,
  ),
  new RegExp(`^${WEEKDAY} ${MONTH} [ \\d]\\d \\d{2}:\\d{2}:\\d{2} \\d{4}$`),
];

export interface RetryAfter {
  /** Seconds to wait, from when the response was sent. */
  seconds: number;
  form: 'delay-seconds' | 'http-date';
}

/**
 * Reads `retry-after`. The document gives it as seconds to wait; HTTP (RFC 9110 §10.2.3)
 * also allows an HTTP-date, the moment to retry at, which says the same thing: it is read
 * as the seconds from the response's `date` header (the server's clock), or from `now`
 * when there is none, to that moment (0 when it is past). Anything else is undefined.
 */
export function readRetryAfter(
  value: string | undefined,
  responseDate?: string,
  now: number = Date.now(),
): RetryAfter | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (DELAY_SECONDS.test(v)) return { seconds: Number(v), form: 'delay-seconds' };
  if (!HTTP_DATE.some((re) => re.test(v))) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  const from = responseDate !== undefined && !Number.isNaN(Date.parse(responseDate)) ? Date.parse(responseDate) : now;
  return { seconds: Math.max(0, (at - from) / 1000), form: 'http-date' };
}

/** The seconds `retry-after` asks a client to wait, in either form, or undefined. */
export function parseRetryAfter(value: string | undefined, responseDate?: string, now?: number): number | undefined {
  return readRetryAfter(value, responseDate, now)?.seconds;
}

/**
 * Milliseconds to wait before the next attempt, after `rejections` consecutive 429s
 * (1 for the first), or undefined when no attempt is left. A retry-after the client cannot
 * read counts as absent.
 */
export function retryDelayMs(
  rejections: number,
  retryAfter: string | undefined,
  maxWaitMs: number,
  responseDate?: string,
): number | undefined {
  if (rejections >= MAX_ATTEMPTS) return undefined;
  const seconds = parseRetryAfter(retryAfter, responseDate);
  const ms = seconds !== undefined ? seconds * 1000 : backoffMs(rejections);
  return Math.min(Math.max(ms, 0), maxWaitMs);
}

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
