/**
 * Measuring a target's rate limits over HTTP: which window a request was counted in
 * (timing.ts), using a bucket up (exhaust.ts) and what is judged on a used-up bucket
 * (follow-ups.ts). suites/rate-limits.suite.ts holds the scenarios built from these. Whether a
 * request past the limit got its 429 (RATE.EXCEEDED.STATUS) is judged by the registry's
 * rate-exceeded judge on the requests these send, as on any stream: never here.
 */
export {
  RATE_PARTS,
  rateLimitedEndpoints,
  rateLimitKeyList,
  rateLimitKeys,
  type RateLimitKeys,
  type RateLimitedEndpoint,
} from './endpoints.ts';
export { rateHeaders, LIMIT, REMAINING, RESET, RETRY_AFTER } from './headers.ts';
export { windowSurelyLastsUntil, type Clock } from './timing.ts';
export { BucketDriver, QUICK_WAIT_MAX_S, claimBucket, type LimitScenario } from './driver.ts';
export { REQUEST_BUDGET, exhaust, statusOf } from './exhaust.ts';
export {
  keysShareBucket,
  otherBefore,
  otherUnmoved,
  otherUntouched,
  readmit,
  secondKeyRefused,
  stillRefused,
} from './follow-ups.ts';
