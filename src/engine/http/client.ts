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
import { learnSecret, registerSecret, redact, redactAuthorization } from './redact.ts';
import { realSleep, retryDelayMs, type Sleep } from './retry.ts';
import { RETRY_AFTER } from './headers.ts';
import { ACCEPT_ENCODING, decodeBody } from './decode.ts';

export const DEFAULT_TIMEOUT_MS = 15_000;
/**
 * Marks fixture setup requests when CONFORM_MARK_SETUP=1 (the fault harness sets it for its runs):
 * the fault proxy strips it, and tells a fault that changed only setup traffic, which no check
 * judges, from one the suites saw.
 */
export const SETUP_REQUEST_HEADER = 'x-conform-setup';
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_RETRY_WAIT_MS = 120_000;

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

let sharedAgent: Agent | undefined;

/** One keep-alive agent per process; undici keeps a pool per origin inside it. */
export function defaultAgent(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 32, pipelining: 1 });
  return sharedAgent;
}

export async function closeDefaultAgent(): Promise<void> {
  const a = sharedAgent;
  sharedAgent = undefined;
  if (a) await a.close().catch(() => undefined);
}

export class HttpClient {
  readonly baseUrl: string;
  readonly options: HttpClientOptions;
  private readonly base: URL;

  constructor(options: HttpClientOptions) {
    this.options = options;
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.baseUrl = this.base.href.replace(/\/$/, '');
    // A labelled key was given by the user; any other was learnt (a fixture's) and must look like one.
    if (options.apiKeyLabel) registerSecret(options.apiKey, options.apiKeyLabel);
    else learnSecret(options.apiKey);
  }

  /** A client sharing this one's settings, with some changed (e.g. retry off). */
  with(overrides: Partial<HttpClientOptions>): HttpClient {
    return new HttpClient({ ...this.options, ...overrides });
  }

  get(path: string, opts?: RequestOptions) {
    return this.request('GET', path, opts);
  }
  post(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('POST', path, { ...opts, body });
  }
  patch(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('PATCH', path, { ...opts, body });
  }
  put(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('PUT', path, { ...opts, body });
  }
  delete(path: string, opts?: RequestOptions) {
    return this.request('DELETE', path, opts);
  }

  /** Sends the request, obeying the 429 retry rule unless disabled; returns the last exchange. */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Exchange> {
    const retry = opts.retry429 ?? this.options.retry429 ?? true;
    const sleep = this.options.sleep ?? realSleep;
    const maxWait = this.options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
    let rejections = 0;
    for (;;) {
      const exchange = await this.once(method, path, opts);
      this.options.onExchange?.(exchange);
      opts.onExchange?.(exchange);
      if (!retry || exchange.status !== 429) return exchange;
      rejections += 1;
      const wait = retryDelayMs(
        rejections,
        exchange.responseHeaders[RETRY_AFTER],
        maxWait,
        exchange.responseHeaders.date,
      );
      if (wait === undefined) return exchange;
      await sleep(wait);
    }
  }

  /** One attempt, never throwing. */
  async once(method: string, path: string, opts: RequestOptions = {}): Promise<Exchange> {
    method = method.toUpperCase();
    const url = this.urlFor(path, opts.query);
    const relPath = url.pathname + url.search;
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': ACCEPT_ENCODING };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    const key = opts.key === undefined ? this.options.apiKey : opts.key;
    if (key) {
      learnSecret(key);
      headers.authorization = `Bearer ${key}`;
    }
    for (const [k, v] of Object.entries({ ...this.options.headers, ...opts.headers })) headers[k.toLowerCase()] = v;

    const startedAt = new Date();
    const t0 = performance.now();
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const exchange: Exchange = {
      operationId: this.options.resolveOperation?.(method, url.pathname),
      method,
      path: relPath,
      url: url.href,
      requestHeaders: redactHeaders(headers),
      requestBody: opts.body,
      responseHeaders: {},
      rawBody: '',
      durationMs: 0,
      startedAt: startedAt.toISOString(),
    };
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await (this.options.dispatcher ?? defaultAgent()).request({
        origin: url.origin,
        path: relPath,
        method: method as Dispatcher.HttpMethod,
        headers,
        body: payload,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      });
      exchange.status = res.statusCode;
      exchange.responseHeaders = flattenHeaders(res.headers);
      const read = await readCapped(res.body, maxBytes);
      const coding = exchange.responseHeaders['content-encoding'];
      const decoded = read.error ? undefined : decodeBody(read.bytes, coding, maxBytes);
      // A body that could not be read or decoded whole is kept as evidence, cut short (and not shown as binary).
      const text = decoded?.body
        ? decoded.body.toString('utf8')
        : coding && !/^\s*identity\s*$/i.test(coding)
          ? `(${read.bytes.length} bytes in content-coding ${coding}, not decoded)`
          : read.bytes.toString('utf8').slice(0, 2048);
      exchange.rawBody = text;
      if (read.error ?? decoded?.error) {
        exchange.transportError = read.error ?? decoded?.error;
        if (read.timedOut) exchange.timedOut = true;
      } else if (text.trim() !== '') {
        try {
          exchange.body = JSON.parse(text);
        } catch (err) {
          exchange.jsonError = `response body is not valid JSON: ${(err as Error).message}`;
        }
      }
    } catch (err) {
      exchange.transportError = describeTransportError(err, timeoutMs, signal.aborted);
      if (isTimeout(err, signal.aborted)) exchange.timedOut = true;
    }
    exchange.durationMs = Math.round(performance.now() - t0);
    if (exchange.requestBody !== undefined && typeof exchange.requestBody !== 'string') {
      exchange.requestBody = JSON.parse(redact(JSON.stringify(exchange.requestBody)));
    }
    exchange.rawBody = redact(exchange.rawBody);
    if (exchange.body !== undefined) exchange.body = JSON.parse(redact(JSON.stringify(exchange.body)));
    return exchange;
  }

  private urlFor(path: string, query?: RequestOptions['query']): URL {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null) url.searchParams.append(k, String(v));
    }
    return url;
  }
}

function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k === 'authorization' ? redactAuthorization(v) : redact(v);
  return out;
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** The body's bytes as sent (still content-coded), at most `maxBytes` of them. */
async function readCapped(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<{ bytes: Buffer; error?: string; timedOut?: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      total += buf.length;
      if (total > maxBytes) {
        body.destroy();
        return { bytes: Buffer.concat(chunks), error: `response body exceeds the ${maxBytes}-byte cap` };
      }
      chunks.push(buf);
    }
  } catch (err) {
    return {
      bytes: Buffer.concat(chunks),
      error: `response body interrupted: ${describeTransportError(err, undefined, false)}`,
      ...(isTimeout(err, false) ? { timedOut: true } : {}),
    };
  }
  return { bytes: Buffer.concat(chunks) };
}

/** Whether a request failed for want of time (its signal aborted, or undici's header or body timeout). */
export function isTimeout(err: unknown, aborted: boolean): boolean {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  return (
    aborted ||
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  );
}

export function describeTransportError(err: unknown, timeoutMs: number | undefined, aborted: boolean): string {
  const e = err as { code?: string; message?: string; name?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const within = timeoutMs ? ` within ${timeoutMs} ms` : '';
  if (aborted || e?.name === 'TimeoutError' || e?.name === 'AbortError')
    return `no complete response${within} (timeout)`;
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no response headers${within} (timeout)`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `response body stalled${within} (timeout)`;
    case 'ECONNREFUSED':
      return 'connection refused (nothing listening at the target)';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return 'connection reset by the target before a complete response';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'DNS lookup of the target host failed';
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'response body shorter or longer than its content-length';
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'ERR_SSL_PACKET_LENGTH_TOO_LONG':
    case 'ERR_SSL_HTTP_REQUEST':
      return 'the target does not speak TLS (an https:// URL pointed at a plain-HTTP port? use http://, or the port that serves TLS)';
    default:
      if (code && TLS_CERTIFICATE_CODES.has(code))
        return `the target's TLS certificate is not trusted (${code}): ${oneLine(redact(e?.message ?? ''))}`;
      if (code?.startsWith('ERR_SSL_') || code === 'EPROTO') return `TLS handshake with the target failed (${code})`;
      return `transport error${code ? ` ${code}` : ''}: ${oneLine(redact(e?.message ?? String(err)))}`;
  }
}

const TLS_CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** OpenSSL and friends write several lines with their internals; a report line needs the first. */
function oneLine(s: string): string {
  return s.split('\n')[0].trim();
}
