export { HttpClient, defaultAgent, closeDefaultAgent, describeTransportError, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES } from './client.ts';
export type { HttpClientOptions, RequestOptions } from './client.ts';
export { replayCommand } from './replay.ts';
export { MAX_ATTEMPTS, parseRetryAfter, readRetryAfter, retryDelayMs, realSleep, type RetryAfter, type Sleep } from './retry.ts';
export { ACCEPT_ENCODING, decodeBody } from './decode.ts';
