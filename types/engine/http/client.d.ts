/**
 * The engine's only way to reach a target. Pooled keep-alive connections (undici
 * Agent: one pool per origin), a deadline on every request (headers and body), a cap
 * on the response size. Bodies in gzip, deflate or br are decoded (decode.ts); chunked
 * bodies, `Connection: close` and keep-alive are undici's. Nothing a target does makes it
 * throw: resets, hangs, oversize, undecodable and non-JSON bodies come back as an Exchange
 * carrying `transportError` / `jsonError`.
 */
import { Agent, type Dispatcher } from 'undici';
import type { Exchange } from '../types.ts';
import { type Sleep } from './retry.ts';
export declare const DEFAULT_TIMEOUT_MS = 15000;
/**
 * Marks fixture setup requests when CONFORM_MARK_SETUP=1 (the fault harness sets it for its runs):
 * the fault proxy strips it, and tells a fault that changed only setup traffic, which no check
 * judges, from one the suites saw.
 */
export declare const SETUP_REQUEST_HEADER = "x-conform-setup";
export declare const DEFAULT_MAX_BODY_BYTES: number;
export declare const DEFAULT_MAX_RETRY_WAIT_MS = 120000;
export interface HttpClientOptions {
    baseUrl: string;
    /** Primary key, sent as `Authorization: Bearer <key>` unless a request says otherwise. */
    apiKey?: string;
    /** Env var a replay command should use for the primary key. */
    apiKeyLabel?: string;
    timeoutMs?: number;
    maxBodyBytes?: number;
    /** Obey the document's 429 retry rule (default true). Rate-limit scenarios turn it off. */
    retry429?: boolean;
    maxRetryWaitMs?: number;
    sleep?: Sleep;
    /** Maps a request to its operationId (the spec's findOperation). */
    resolveOperation?: (method: string, path: string) => string | undefined;
    /** Called with every exchange, retried attempts included, already redacted. */
    onExchange?: (exchange: Exchange) => void;
    dispatcher?: Dispatcher;
    /** Headers sent with every request (a request's own win). */
    headers?: Record<string, string>;
}
/**
 * A request's own settings. Every property may be given as `undefined`, which means the same as
 * leaving it out (a fixtures module compiled with exactOptionalPropertyTypes passes its own
 * optional arguments straight through).
 */
export interface RequestOptions {
    body?: unknown;
    query?: Record<string, string | number | boolean | undefined | null> | undefined;
    /** A key to use instead of the primary one (`undefined`: the primary one); `null` sends no Authorization header. */
    key?: string | null | undefined;
    /** Extra headers. An `authorization` here is sent verbatim and not treated as a secret. */
    headers?: Record<string, string> | undefined;
    retry429?: boolean | undefined;
    timeoutMs?: number | undefined;
    /** Called with every exchange of this request (retried attempts included), after the client's own hook. */
    onExchange?: ((exchange: Exchange) => void) | undefined;
}
/** One keep-alive agent per process; undici keeps a pool per origin inside it. */
export declare function defaultAgent(): Agent;
export declare function closeDefaultAgent(): Promise<void>;
export declare class HttpClient {
    readonly baseUrl: string;
    readonly options: HttpClientOptions;
    private readonly base;
    constructor(options: HttpClientOptions);
    /** A client sharing this one's settings, with some changed (e.g. retry off). */
    with(overrides: Partial<HttpClientOptions>): HttpClient;
    get(path: string, opts?: RequestOptions): Promise<Exchange>;
    post(path: string, body?: unknown, opts?: RequestOptions): Promise<Exchange>;
    patch(path: string, body?: unknown, opts?: RequestOptions): Promise<Exchange>;
    put(path: string, body?: unknown, opts?: RequestOptions): Promise<Exchange>;
    delete(path: string, opts?: RequestOptions): Promise<Exchange>;
    /** Sends the request, obeying the 429 retry rule unless disabled; returns the last exchange. */
    request(method: string, path: string, opts?: RequestOptions): Promise<Exchange>;
    /** One attempt, never throwing. */
    once(method: string, path: string, opts?: RequestOptions): Promise<Exchange>;
    private urlFor;
}
/** Whether a request failed for want of time (its signal aborted, or undici's header or body timeout). */
export declare function isTimeout(err: unknown, aborted: boolean): boolean;
export declare function describeTransportError(err: unknown, timeoutMs: number | undefined, aborted: boolean): string;
