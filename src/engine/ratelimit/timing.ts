/**
 * When a request was sent and answered, and which window it can be placed in.
 *
 * A service's windows are not aligned with our requests, and a sliding window or a token
 * bucket has no window edge at all. What an answer does tell is a wait: x-ratelimit-reset,
 * "seconds until the window resets", and on a 429 retry-after. Until that wait is over, the
 * window the answer was counted in cannot have reset, so every later request answered before
 * then was counted in the same window. The wait is counted from when the request was sent (the
 * service answered at some moment after that) and shortened by the precision it was written
 * with (a rounded "6" may mean 5.01). Whatever is answered after that moment may belong to a
 * new window: it cannot be held against the target.
 */
import type { Exchange } from '../types.ts';
import { rateHeaders, type Wait } from './headers.ts';

export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

/** An exchange with the moments it was sent and answered (Clock time). */
export interface Timed {
  ex: Exchange;
  sentAt: number;
  receivedAt: number;
}

function lowerBoundMs(wait: Wait | undefined): number | undefined {
  return wait === undefined ? undefined : Math.max(0, wait.seconds - wait.precision) * 1000;
}

/**
 * Until when (Clock time) the window `o` was counted in surely lasts, by its
 * x-ratelimit-reset; on a 429 by the shorter of reset and retry-after (a service may
 * admit again as soon as it asks clients to retry). Undefined: the answer gives no wait.
 */
export function windowSurelyLastsUntil(o: Timed): number | undefined {
  const h = rateHeaders(o.ex);
  const waits = [lowerBoundMs(h.reset), o.ex.status === 429 ? lowerBoundMs(h.retryAfter) : undefined].filter(
    (w): w is number => w !== undefined,
  );
  return waits.length ? o.sentAt + Math.min(...waits) : undefined;
}

/** True when `later` was answered while the window `o` was counted in surely lasted. */
export function sameWindow(o: Timed, later: Timed): boolean {
  const until = windowSurelyLastsUntil(o);
  return until !== undefined && later.receivedAt <= until;
}

/** Seconds (not below 0) until the window of `o` surely reset: its wait counted from when it was answered. */
export function secondsUntilReset(o: Timed, clock: Clock, capSeconds: number): number | undefined {
  const h = rateHeaders(o.ex);
  const wait = h.reset?.seconds ?? h.retryAfter?.seconds;
  if (wait === undefined) return undefined;
  return Math.max(0, Math.min(wait, capSeconds) * 1000 - (clock.now() - o.receivedAt)) / 1000;
}
