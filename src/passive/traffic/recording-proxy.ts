/**
 * The live reverse proxy of `conform proxy`: forwards every request to the target as it
 * is, streams the answer back, and hands a scrubbed copy of each finished exchange to
 * `onRecord` after the client has its response, so judging never holds a client up.
 * Bodies are copied for judging up to a cap; the client always gets every byte.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { describeTransportError } from '../../engine/http/client.ts';
import { DEFAULT_MAX_JUDGED_BYTES, decodeBody } from './decode.ts';
import { harTimes, type TrafficRecord } from './record.ts';
import { scrub } from './scrub.ts';

export interface TrafficProxyOptions {
  /** The target's base URL (an origin, optionally with a path prefix). */
  target: string;
  host?: string;
  port?: number;
  /** Bodies larger than this are forwarded but not judged. */
  maxJudgedBytes?: number;
  /** No response headers (or a stalled body) from the target within this time: 504. */
  upstreamTimeoutMs?: number;
  /** Every finished exchange, scrubbed, after its response went out. */
  onRecord(record: TrafficRecord): void;
  /** How long each exchange took, for benchmarks. */
  onTiming?(timing: ExchangeTiming): void;
}

export interface ExchangeTiming {
  /** The proxy's whole time on the exchange minus the target's part. */
  ownMs: number;
  /** From sending the request to the target until the target's last body byte. */
  upstreamMs: number;
  requestHeaders: Readonly<Record<string, string>>;
}

export interface RunningTrafficProxy {
  url: string;
  readonly stats: { exchanges: number; inFlight: number };
  /** Stops accepting, lets exchanges in flight finish (up to `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'host',
  'proxy-authenticate',
]);

function flatten(
  h: IncomingMessage['headers'] | Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

function forwardable(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (!HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

/** True when the request announces a body (a length above 0, or chunked). */
function hasBody(h: Record<string, string>): boolean {
  return (h['content-length'] !== undefined && h['content-length'] !== '0') || h['transfer-encoding'] !== undefined;
}

/** The request body as a stream for the target, and a copy for the judge (up to `maxBytes`). */
function teeBody(
  req: IncomingMessage,
  maxBytes: number,
): { stream: PassThrough; copy: Promise<{ body: Buffer; truncated: boolean }> } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  req.on('data', (c: Buffer) => {
    if (size + c.length <= maxBytes) chunks.push(c);
    else truncated = true;
    size += c.length;
  });
  const copy = new Promise<{ body: Buffer; truncated: boolean }>((resolve) => {
    req.once('end', () => resolve({ body: Buffer.concat(chunks), truncated }));
    req.once('close', () => resolve({ body: Buffer.concat(chunks), truncated }));
  });
  req.pipe(stream);
  return { stream, copy };
}

export async function startTrafficProxy(opts: TrafficProxyOptions): Promise<RunningTrafficProxy> {
  const target = new URL(opts.target.endsWith('/') ? opts.target : `${opts.target}/`);
  const prefix = target.pathname.replace(/\/$/, '');
  const maxBytes = opts.maxJudgedBytes ?? DEFAULT_MAX_JUDGED_BYTES;
  const timeoutMs = opts.upstreamTimeoutMs ?? 60_000;
  const dispatcher = new Agent({
    keepAliveTimeout: 10_000,
    connections: 128,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const stats = { exchanges: 0, inFlight: 0 };
  let idle: (() => void) | undefined;
  let closing: Promise<void> | undefined;

  const emit = (raw: Omit<TrafficRecord, 'client'>, t0: number) => {
    const s = scrub({
      requestHeaders: raw.requestHeaders,
      responseHeaders: raw.responseHeaders,
      requestBody: raw.requestBody,
      responseBody: raw.responseBody,
      path: raw.path,
    });
    const record: TrafficRecord = { ...raw, ...s, ...harTimes(raw.startedMs, performance.now() - t0) };
    stats.exchanges += 1;
    // After the response went out: judging never delays the client.
    setImmediate(() => opts.onRecord(record));
  };

  const handle = async (inReq: IncomingMessage, out: ServerResponse): Promise<void> => {
    const t0 = performance.now();
    const startedMs = Date.now();
    const method = (inReq.method ?? 'GET').toUpperCase();
    const path = inReq.url ?? '/';
    const requestHeaders = flatten(inReq.headers);
    // The body streams to the target; the judge gets a copy up to the cap.
    const tee = hasBody(requestHeaders) ? teeBody(inReq, maxBytes) : undefined;
    if (!tee) inReq.resume();
    const requestBody = async () => {
      if (!tee) return '';
      const { body, truncated } = await tee.copy;
      const text = decodeBody(body, requestHeaders['content-encoding'], maxBytes, truncated);
      return text.problem ? '' : text.text;
    };
    const abort = new AbortController();
    out.once('close', () => {
      if (!out.writableFinished) abort.abort();
    });
    let res: Dispatcher.ResponseData;
    const sentAt = performance.now();
    try {
      res = await request(new URL(`${prefix}${path}`, target.origin), {
        method: method as Dispatcher.HttpMethod,
        headers: { ...forwardable(requestHeaders), host: target.host },
        body: tee?.stream,
        dispatcher,
        signal: abort.signal,
      });
    } catch (err) {
      const message = describeTransportError(err, timeoutMs, abort.signal.aborted);
      if (!out.headersSent && !out.destroyed) {
        const text = JSON.stringify({ error: 'bad_gateway', message: `conform proxy: ${message}` });
        out.writeHead(502, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
        out.end(text);
      }
      emit(
        {
          method,
          path,
          requestHeaders,
          requestBody: await requestBody(),
          startedMs,
          responseHeaders: {},
          responseBody: '',
          transportError: message,
          durationMs: 0,
        },
        t0,
      );
      return;
    }
    const responseHeaders = flatten(res.headers as Record<string, string | string[] | undefined>);
    out.writeHead(res.statusCode, forwardable(responseHeaders));
    const copy: Buffer[] = [];
    let copied = 0;
    let truncated = false;
    let transportError: string | undefined;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        if (!out.write(buf))
          await new Promise<void>((resolve) =>
            out.destroyed ? resolve() : out.once('drain', resolve).once('close', resolve),
          );
        if (copied + buf.length <= maxBytes) copy.push(buf);
        else truncated = true;
        copied += buf.length;
      }
    } catch (err) {
      transportError = `response body interrupted: ${describeTransportError(err, timeoutMs, abort.signal.aborted)}`;
    }
    const upstreamMs = performance.now() - sentAt;
    if (transportError) out.destroy();
    else out.end();
    const decoded = decodeBody(Buffer.concat(copy), responseHeaders['content-encoding'], maxBytes, truncated);
    emit(
      {
        method,
        path,
        requestHeaders,
        requestBody: await requestBody(),
        startedMs,
        ...(transportError ? {} : { status: res.statusCode }),
        responseHeaders,
        responseBody: decoded.text,
        ...(decoded.problem && !transportError ? { bodyProblem: decoded.problem } : {}),
        ...(transportError ? { transportError } : {}),
        durationMs: 0,
      },
      t0,
    );
    opts.onTiming?.({ ownMs: performance.now() - t0 - upstreamMs, upstreamMs, requestHeaders });
  };

  const server: Server = createServer((inReq, out) => {
    stats.inFlight += 1;
    handle(inReq, out)
      .catch(() => {
        if (!out.headersSent) {
          out.writeHead(502, { 'content-type': 'application/json' });
          out.end(JSON.stringify({ error: 'bad_gateway', message: 'conform proxy: the exchange failed' }));
        } else out.destroy();
      })
      .finally(() => {
        stats.inFlight -= 1;
        if (stats.inFlight === 0) idle?.();
      });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`,
    stats,
    close(graceMs = 10_000) {
      closing ??= shutdown(graceMs);
      return closing;
    },
  };

  async function shutdown(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (stats.inFlight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => (idle = resolve)),
        new Promise((resolve) => setTimeout(resolve, graceMs).unref()),
      ]);
    }
    server.closeAllConnections();
    await closed;
    await dispatcher.close().catch(() => undefined);
    // Records of the last exchanges are emitted on the next turn.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
