/**
 * Measuring a target's rate limits over HTTP: which window a request was counted in
 * (timing.ts), using a bucket up (exhaust.ts) and what is judged on a used-up bucket
 * (follow-ups.ts). suites/rate-limits.suite.ts holds the scenarios built from these.
 */
export { rateLimitedEndpoints, type RateLimitedEndpoint } from './endpoints.ts';
export { rateHeaders, LIMIT, REMAINING, RESET, RETRY_AFTER, type RateHeaders, type Wait } from './headers.ts';
export { realClock, sameWindow, secondsUntilReset, windowSurelyLastsUntil, type Clock, type Timed } from './timing.ts';
export { BucketDriver, MARGIN_MS, QUICK_WAIT_MAX_S, type BucketTarget, type LimitScenario } from './driver.ts';
export { ATTEMPTS, REQUEST_BUDGET, burst, exhaust, openWindow, statusOf, type Exhausted, type NotExhausted } from './exhaust.ts';
export { keysShareBucket, otherBefore, otherUntouched, readmit, secondKeyRefused, stillRefused, type OtherBucket } from './follow-ups.ts';
