export { HttpClient } from './client.ts';
export { replayCommand } from './curl.ts';
export { parseRetryAfter, readRetryAfter, retryDelayMs } from './retry.ts';
