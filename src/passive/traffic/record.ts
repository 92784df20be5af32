/**
 * One exchange of recorded or live traffic, as the passive judge sees it: already scrubbed
 * (the API key replaced by the client's id, secret fields masked, see scrub.ts), with the
 * times a HAR file can hold (whole milliseconds at the start), so that a live judgement and
 * the judgement of its HAR recording see the same numbers.
 */
import type { Exchange } from '../../engine/types.ts';

export interface TrafficRecord {
  /** `CLIENT_KEY_<hash>` of the bearer token, or `anonymous` when none was sent. */
  client: string;
  method: string;
  /** Path with query string, relative to the target's base URL. */
  path: string;
  /** Lower-case names; authorization reads `Bearer $<client>`. */
  requestHeaders: Record<string, string>;
  /** Decoded request body text ('' when none). */
  requestBody: string;
  /** Absent when no response came (see transportError). */
  status?: number;
  responseHeaders: Record<string, string>;
  /** Decoded response body text ('' when none). */
  responseBody: string;
  /** Set when the body was cut at the size cap or could not be decoded. */
  bodyProblem?: string;
  transportError?: string;
  /** Epoch milliseconds (whole) when the request started. */
  startedMs: number;
  /** Milliseconds until the response ended (three decimals). */
  durationMs: number;
}

export const endOf = (r: Pick<TrafficRecord, 'startedMs' | 'durationMs'>): number => r.startedMs + r.durationMs;

/** Rounds to what HAR keeps: whole milliseconds for the start, microseconds for the duration. */
export function harTimes(startedMs: number, durationMs: number): { startedMs: number; durationMs: number } {
  return { startedMs: Math.floor(startedMs), durationMs: Math.round(Math.max(0, durationMs) * 1000) / 1000 };
}

function parseJson(text: string): { value?: unknown; error?: string } {
  if (text.trim() === '') return {};
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: `response body is not valid JSON: ${(err as Error).message}` };
  }
}

/** The engine's Exchange for a record (the shape every check reads), relative to `baseUrl`. */
export function toExchange(r: TrafficRecord, baseUrl: string): Exchange {
  const response = parseJson(r.responseBody);
  const request = r.requestBody === '' ? {} : parseJson(r.requestBody);
  return {
    method: r.method,
    path: r.path,
    url: `${baseUrl.replace(/\/$/, '')}${r.path}`,
    requestHeaders: r.requestHeaders,
    // A request body that is not JSON is kept as its text.
    ...(r.requestBody !== '' ? { requestBody: request.error ? r.requestBody : request.value } : {}),
    ...(r.status !== undefined ? { status: r.status } : {}),
    responseHeaders: r.responseHeaders,
    ...(response.value !== undefined ? { body: response.value } : {}),
    rawBody: r.responseBody,
    ...(response.error && !r.bodyProblem ? { jsonError: response.error } : {}),
    ...(r.transportError || r.bodyProblem ? { transportError: r.transportError ?? r.bodyProblem } : {}),
    durationMs: r.durationMs,
    startedAt: new Date(r.startedMs).toISOString(),
  };
}
