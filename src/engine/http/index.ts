export { HttpClient } from './client.ts';
export { replayCommand } from './replay.ts';
export { parseRetryAfter, readRetryAfter, retryDelayMs } from './retry.ts';
