/**
 * HAR 1.2 entries (browsers, Playwright, mitmproxy, k6, and `conform proxy --har`) to
 * traffic records and back. Entries outside the base URL are not the target's traffic.
 */
import { decodeBody } from './decode.ts';
import { harTimes, type TrafficRecord } from './record.ts';
import { scrub } from './scrub.ts';

interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    headers?: HarHeader[];
    postData?: { mimeType?: string; text?: string; encoding?: string };
  };
  response: {
    status: number;
    statusText?: string;
    headers?: HarHeader[];
    content?: { size?: number; mimeType?: string; text?: string; encoding?: string };
    _error?: string;
    _bodyProblem?: string;
  };
  [extra: string]: unknown;
}

export class HarError extends Error {}

function headers(list: HarHeader[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list ?? []) {
    if (typeof h?.name !== 'string' || h.name.startsWith(':')) continue; // HTTP/2 pseudo-headers
    const name = h.name.toLowerCase();
    const value = String(h.value ?? '');
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

function text(
  content: { text?: string; encoding?: string } | undefined,
  contentEncoding: string | undefined,
): { text: string; problem?: string } {
  if (!content?.text) return { text: '' };
  if (content.encoding === 'base64') {
    // Recorders that keep the wire bytes base64 them; some keep the coded bytes.
    const decoded = decodeBody(Buffer.from(content.text, 'base64'), contentEncoding);
    return decoded;
  }
  return { text: content.text };
}

/** The path (with query) of `url` relative to `base` (an origin, optionally with a path prefix), or undefined when outside it. */
export function relativePath(url: string, base: URL): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.origin !== base.origin) return undefined;
  const prefix = base.pathname.replace(/\/$/, '');
  if (prefix && u.pathname !== prefix && !u.pathname.startsWith(`${prefix}/`)) return undefined;
  return `${u.pathname.slice(prefix.length) || '/'}${u.search}`;
}

/** A record for a HAR entry, or undefined when the entry is outside `base` or unreadable. */
export function recordOfEntry(e: HarEntry, base: URL): TrafficRecord | undefined {
  if (!e?.request || !e.response || typeof e.request.url !== 'string') return undefined;
  const path = relativePath(e.request.url, base);
  if (path === undefined) return undefined;
  const started = Date.parse(e.startedDateTime);
  if (!Number.isFinite(started)) return undefined;
  const requestHeaders = headers(e.request.headers);
  const responseHeaders = headers(e.response.headers);
  // Recorders give decoded bodies as text; a base64 one may still be coded.
  const request = text(e.request.postData, requestHeaders['content-encoding']);
  const response = text(e.response.content, responseHeaders['content-encoding']);
  // A status of 0 (or a recorder's _error) means no response came.
  const failed = !e.response.status || e.response._error !== undefined;
  const s = scrub({ requestHeaders, responseHeaders, requestBody: request.text, responseBody: response.text, path });
  return {
    client: s.client,
    method: String(e.request.method ?? 'GET').toUpperCase(),
    path: s.path,
    requestHeaders: s.requestHeaders,
    requestBody: s.requestBody,
    ...(failed ? {} : { status: e.response.status }),
    responseHeaders: s.responseHeaders,
    responseBody: s.responseBody,
    ...(response.problem || e.response._bodyProblem
      ? { bodyProblem: response.problem ?? String(e.response._bodyProblem) }
      : {}),
    ...(failed
      ? { transportError: e.response._error !== undefined ? String(e.response._error) : 'no response recorded' }
      : {}),
    ...harTimes(started, Number(e.time) || 0),
  };
}

function harHeaders(h: Record<string, string>): HarHeader[] {
  return Object.entries(h).map(([name, value]) => ({ name, value }));
}

/** The HAR entry `conform proxy --har` writes for a record (already scrubbed). */
export function entryOfRecord(r: TrafficRecord, base: URL): HarEntry {
  const url = `${base.origin}${base.pathname.replace(/\/$/, '')}${r.path}`;
  // Bodies are written decoded, so the coding no longer applies to them.
  const { 'content-encoding': _re, ...responseHeaders } = r.responseHeaders;
  const { 'content-encoding': _qe, ...requestHeaders } = r.requestHeaders;
  return {
    startedDateTime: new Date(r.startedMs).toISOString(),
    time: r.durationMs,
    request: {
      method: r.method,
      url,
      httpVersion: 'HTTP/1.1',
      headers: harHeaders(requestHeaders),
      queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: Buffer.byteLength(r.requestBody),
      ...(r.requestBody !== ''
        ? { postData: { mimeType: requestHeaders['content-type'] ?? 'application/json', text: r.requestBody } }
        : {}),
    } as HarEntry['request'],
    response: {
      status: r.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: harHeaders(responseHeaders),
      cookies: [],
      content: {
        size: Buffer.byteLength(r.responseBody),
        mimeType: responseHeaders['content-type'] ?? '',
        text: r.responseBody,
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      ...(r.transportError ? { _error: r.transportError } : {}),
      // Not HAR 1.2: why the body was not judged live, so that judging the file agrees.
      ...(r.bodyProblem ? { _bodyProblem: r.bodyProblem } : {}),
    } as HarEntry['response'],
    cache: {},
    timings: { send: 0, wait: r.durationMs, receive: 0 },
  };
}
