/** The evidence a failure keeps: the exchange that showed it, cut to what a reader needs. */
import type { Exchange } from '../types.ts';
import { RATE_HEADER_NAMES, RETRY_AFTER } from '../ratelimit/headers.ts';

export interface EvidenceExchange {
  operationId?: string;
  method: string;
  path: string;
  url: string;
  status?: number;
  durationMs: number;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  responseHeaders: Record<string, string>;
  responseBody?: unknown;
  rawBody?: string;
  transportError?: string;
  jsonError?: string;
}

export interface RuleFailure {
  source: string;
  /** The part of the rule it breaks, when the finding names one. */
  part?: string;
  scenario?: string;
  suite?: string;
  title: string;
  message: string;
  exchange?: EvidenceExchange;
  replay?: string;
  /** The whole sequence of requests as a bash script, where one request cannot reproduce the failure (rate limits). */
  replaySequence?: string;
  seed?: number;
  counterexample?: unknown;
  /** The declared expected failure covering it (its index in expectedFailures), and its reason. */
  expected?: number;
  expectedReason?: string;
}

const RELEVANT_RESPONSE_HEADERS = ['content-type', 'content-length', ...RATE_HEADER_NAMES.all, RETRY_AFTER, 'location'];
const RELEVANT_REQUEST_HEADERS = ['authorization', 'content-type', 'idempotency-key'];

function pick(h: Record<string, string>, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (h[n] !== undefined) out[n] = h[n];
  return out;
}

export function evidence(ex: Exchange): EvidenceExchange {
  return {
    ...(ex.operationId ? { operationId: ex.operationId } : {}),
    method: ex.method,
    path: ex.path,
    url: ex.url,
    ...(ex.status !== undefined ? { status: ex.status } : {}),
    durationMs: ex.durationMs,
    requestHeaders: pick(ex.requestHeaders, RELEVANT_REQUEST_HEADERS),
    ...(ex.requestBody !== undefined ? { requestBody: ex.requestBody } : {}),
    responseHeaders: pick(ex.responseHeaders, RELEVANT_RESPONSE_HEADERS),
    ...(ex.body !== undefined ? { responseBody: ex.body } : ex.rawBody ? { rawBody: ex.rawBody } : {}),
    ...(ex.transportError ? { transportError: ex.transportError } : {}),
    ...(ex.jsonError ? { jsonError: ex.jsonError } : {}),
  };
}
