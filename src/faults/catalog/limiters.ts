/**
 * Rate limiter models: pure functions of a bucket's state and the time. A conforming
 * service may count with any of them (the document describes windows, but a sliding window
 * or a token bucket with the same limit keeps the same promise to clients), so the emulated
 * buckets of the catalog (rate-emulation.ts) and the tests of the rate-limit harness use
 * them to stand in front of a target.
 *
 * Each model answers one request: admitted or not, the remaining count, and the two waits
 * the headers report: until "the window resets" (x-ratelimit-reset) and until a request
 * would be admitted again (retry-after on a 429).
 */

export interface LimiterDecision<S> {
  state: S;
  admitted: boolean;
  /** Requests still allowed (never negative). */
  remaining: number;
  /** Milliseconds until the window resets (x-ratelimit-reset). */
  resetMs: number;
  /** Milliseconds until a request would be admitted (retry-after). */
  retryAfterMs: number;
}

export interface LimiterModel<S = unknown> {
  name: 'fixed-window' | 'sliding-window' | 'token-bucket';
  /** Counts one request at `now` in a bucket whose state is `state` (undefined: new). */
  hit(state: S | undefined, now: number, limit: number, windowMs: number): LimiterDecision<S>;
}

/** Fixed windows: a window opens with the first request after the previous one ended. */
export const fixedWindow: LimiterModel<{ start: number; used: number }> = {
  name: 'fixed-window',
  hit(state, now, limit, windowMs) {
    const s = state && now < state.start + windowMs ? { ...state } : { start: now, used: 0 };
    s.used += 1;
    const left = s.start + windowMs - now;
    return {
      state: s,
      admitted: s.used <= limit,
      remaining: Math.max(0, limit - s.used),
      resetMs: left,
      retryAfterMs: left,
    };
  },
};

/**
 * A sliding window log: a request is admitted while fewer than `limit` were admitted in the
 * last window. The window "resets" (and admits again) when its oldest request ages out.
 */
export const slidingWindow: LimiterModel<number[]> = {
  name: 'sliding-window',
  hit(state, now, limit, windowMs) {
    const log = (state ?? []).filter((at) => at > now - windowMs);
    const admitted = log.length < limit;
    if (admitted) log.push(now);
    const untilOldest = log.length ? log[0] + windowMs - now : 0;
    return {
      state: log,
      admitted,
      remaining: limit - log.length,
      resetMs: untilOldest,
      retryAfterMs: admitted ? 0 : untilOldest,
    };
  },
};

/**
 * A token bucket of `limit` tokens refilled at `limit` per window, continuously. Its window
 * "resets" when the bucket is full again; a rejected request may retry when one token is back.
 */
export const tokenBucket: LimiterModel<{ tokens: number; at: number }> = {
  name: 'token-bucket',
  hit(state, now, limit, windowMs) {
    const perMs = limit / windowMs;
    let tokens = state ? Math.min(limit, state.tokens + (now - state.at) * perMs) : limit;
    const admitted = tokens >= 1;
    if (admitted) tokens -= 1;
    return {
      state: { tokens, at: now },
      admitted,
      remaining: Math.floor(tokens),
      resetMs: (limit - tokens) / perMs,
      retryAfterMs: tokens >= 1 ? 0 : (1 - tokens) / perMs,
    };
  },
};

/** A wait as header seconds: whole, rounded up, at least 1 (what most services send). */
export function headerSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
