/**
 * An HTTP proxy in front of a target that can alter requests and responses. It
 * applies one fault at a time: the fault-injection mode (`conform faults`) and the
 * tests that prove a suite fails on a violating target both use it. Loopback only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { SETUP_REQUEST_HEADER } from '../engine/http/client.ts';

export interface ProxyRequest {
  method: string;
  /** Path with query string. */
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: Buffer;
  /** Parsed JSON body, when the body is JSON. Edit it in place or replace it. */
  json?: unknown;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Parsed JSON body, when the body is JSON. Edit it in place or replace it: the body is re-serialised from it. */
  json?: unknown;
}

export interface FaultContext {
  /** State a fault keeps across exchanges (e.g. its own rate-limit buckets). */
  readonly state: Map<string, unknown>;
  /** Sends a request to the target directly (not through the fault). */
  upstream(req: ProxyRequest): Promise<ProxyResponse>;
  /** Records that the fault changed this exchange (stats.applied counts them). */
  applied(): void;
}

type Maybe<T> = T | void | undefined;

export interface Fault {
  name: string;
  description?: string;
  /** Return a response to answer without reaching the target, a request to forward instead, or nothing. */
  onRequest?(
    req: ProxyRequest,
    ctx: FaultContext,
  ): Maybe<ProxyRequest | ProxyResponse> | Promise<Maybe<ProxyRequest | ProxyResponse>>;
  /** Return a replacement response, or edit `res` (its `json`) in place. */
  onResponse?(
    req: ProxyRequest,
    res: ProxyResponse,
    ctx: FaultContext,
  ): Maybe<ProxyResponse> | Promise<Maybe<ProxyResponse>>;
}

export interface ProxyStats {
  exchanges: number;
  /** Exchanges of the suites the fault changed. */
  applied: number;
  /** Fixture setup exchanges (marked SETUP_REQUEST_HEADER) it changed: no check judges those. */
  appliedSetup: number;
}

export interface RunningProxy {
  url: string;
  stats: ProxyStats;
  /** Swaps the fault (and clears its state and stats). */
  setFault(fault: Fault | undefined): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'host',
]);

function isJson(contentType: string | undefined): boolean {
  return !!contentType && /^application\/([\w.+-]*\+)?json\b/i.test(contentType);
}

function parseJson(body: Buffer, contentType: string | undefined): unknown {
  if (!body.length || !isJson(contentType)) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function cleanHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (v === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function isResponse(x: unknown): x is ProxyResponse {
  return !!x && typeof (x as ProxyResponse).status === 'number';
}

export async function startProxy(opts: {
  upstream: string;
  fault?: Fault;
  host?: string;
  port?: number;
}): Promise<RunningProxy> {
  const upstream = new URL(opts.upstream);
  const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  let fault = opts.fault;
  let state = new Map<string, unknown>();
  const stats: ProxyStats = { exchanges: 0, applied: 0, appliedSetup: 0 };

  const send = async (req: ProxyRequest): Promise<ProxyResponse> => {
    // A request whose JSON the fault may have edited is re-serialised from it.
    const body = req.json === undefined ? req.body : Buffer.from(JSON.stringify(req.json));
    const res = await request(new URL(req.path, upstream), {
      method: req.method as 'GET',
      headers: { ...req.headers, host: upstream.host },
      body: body.length ? body : undefined,
      dispatcher,
    });
    const buf = Buffer.from(await res.body.arrayBuffer());
    const headers = cleanHeaders(res.headers as Record<string, string | string[] | undefined>);
    return { status: res.statusCode, headers, body: buf, json: parseJson(buf, headers['content-type']) };
  };

  const ctx = (setup: boolean): FaultContext => ({
    state,
    upstream: send,
    applied: () => void (setup ? (stats.appliedSetup += 1) : (stats.applied += 1)),
  });

  const handle = async (inReq: IncomingMessage, out: ServerResponse): Promise<void> => {
    stats.exchanges += 1;
    const raw = await readBody(inReq);
    const headers = cleanHeaders(inReq.headers);
    // The target never sees the marker.
    const setup = headers[SETUP_REQUEST_HEADER] !== undefined;
    delete headers[SETUP_REQUEST_HEADER];
    const req: ProxyRequest = {
      method: inReq.method ?? 'GET',
      path: inReq.url ?? '/',
      headers,
      body: raw,
      json: parseJson(raw, headers['content-type']),
    };
    const c = ctx(setup);
    const early = fault?.onRequest ? await fault.onRequest(req, c) : undefined;
    const res = isResponse(early) ? early : await send(early ?? req);
    if (!fault?.onResponse) return writeOut(out, res.status, res.headers, res.body);
    const originalBody = res.body;
    const originalJson = JSON.stringify(res.json);
    const final = (await fault.onResponse(req, res, c)) ?? res;
    // Raw bytes the fault set win; otherwise an edited `json` is re-serialised.
    const body =
      final.body !== originalBody || final.json === undefined || JSON.stringify(final.json) === originalJson
        ? final.body
        : Buffer.from(JSON.stringify(final.json));
    writeOut(out, final.status, final.headers, body);
  };

  const server: Server = createServer((inReq, out) => {
    handle(inReq, out).catch((err) => {
      if (!out.headersSent)
        writeOut(
          out,
          502,
          { 'content-type': 'application/json' },
          Buffer.from(JSON.stringify({ error: 'bad_gateway', message: `proxy: ${(err as Error).message}` })),
        );
      else out.destroy();
    });
  });
  // Long, like the reference's: a client reuses an idle connection until the timeout the
  // server announces (minus a margin), and on a busy machine its timers run late; a short
  // one makes it send on connections the proxy is closing, and the run sees a reset.
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    stats,
    setFault(next) {
      fault = next;
      state = new Map();
      stats.exchanges = 0;
      stats.applied = 0;
      stats.appliedSetup = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.close().catch(() => undefined);
    },
  };
}

function writeOut(out: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k.toLowerCase())) h[k] = v;
  h['content-length'] = String(body.length);
  out.writeHead(status, h);
  out.end(body);
}
