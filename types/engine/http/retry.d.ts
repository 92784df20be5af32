/** Attempts at a request that keeps getting 429 (RETRY.CLIENT.MAX_ATTEMPTS). */
export declare const MAX_ATTEMPTS: number;
/** What the document asks a client to wait after `rejections` 429s without retry-after. */
export declare const backoffMs: (rejections: number) => number;
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
export declare function readRetryAfter(value: string | undefined, responseDate?: string, now?: number): RetryAfter | undefined;
/** The seconds `retry-after` asks a client to wait, in either form, or undefined. */
export declare function parseRetryAfter(value: string | undefined, responseDate?: string, now?: number): number | undefined;
/**
 * Milliseconds to wait before the next attempt, after `rejections` consecutive 429s
 * (1 for the first), or undefined when no attempt is left. A retry-after the client cannot
 * read counts as absent.
 */
export declare function retryDelayMs(rejections: number, retryAfter: string | undefined, maxWaitMs: number, responseDate?: string): number | undefined;
export type Sleep = (ms: number) => Promise<void>;
export declare const realSleep: Sleep;
