/** The three rate headers, as RATE.HEADERS.PRESENT names them. */
export declare const RATE_HEADER_NAMES: import("../predicates.ts").RateHeaderNames;
export declare const LIMIT: string, REMAINING: string, RESET: string;
/** The wait a 429 gives, as RATE.RETRY_AFTER.ON_429 names it. */
export declare const RETRY_AFTER: string;
