/**
 * The document's retry rule (Limits): do not retry a 429 at once; wait `retry-after`
 * seconds; if absent wait one second and double the wait on each further rejection;
 * stop after five attempts.
 */
export const MAX_ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 1000;

/** Parses `retry-after` as the document defines it: a number of seconds. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (!/^\d+(\.\d+)?$/.test(v)) return undefined;
  return Number(v);
}

/**
 * Milliseconds to wait before the next attempt, after `rejections` consecutive 429s
 * (1 for the first), or undefined when no attempt is left.
 */
export function retryDelayMs(rejections: number, retryAfter: string | undefined, maxWaitMs: number): number | undefined {
  if (rejections >= MAX_ATTEMPTS) return undefined;
  const seconds = parseRetryAfter(retryAfter);
  const ms = seconds !== undefined ? seconds * 1000 : FIRST_BACKOFF_MS * 2 ** (rejections - 1);
  return Math.min(Math.max(ms, 0), maxWaitMs);
}

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
