/**
 * What one client can hold of the server: a request must arrive whole within a time, an
 * idle connection is closed, connections are capped, and request bodies being received
 * share one byte budget. A client sending its body slowly (or never finishing it) is cut
 * off instead of pinning memory.
 */
import { Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';

export interface TransportLimits {
  /** Time to receive a whole request, headers and body (ms); past it, 408 and the connection closes. */
  requestTimeoutMs: number;
  /** Time to receive the headers (ms). */
  headersTimeoutMs: number;
  /** A keep-alive connection with no request for this long is closed (ms). */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic at all for this long is closed (ms). */
  idleTimeoutMs: number;
  /** Open connections at most; more are refused at once. */
  maxConnections: number;
  /** Bytes of request bodies being received at once, over every request; past it, 503 with retry-after. */
  bodyBytesInFlight: number;
}

export const DEFAULT_TRANSPORT_LIMITS: TransportLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  // Long, as Fastify's default: a client reuses an idle connection until the timeout the
  // server announces (minus a margin), and a busy client's timers run late; a short one
  // makes it send on connections the server is closing.
  keepAliveTimeoutMs: 72_000,
  idleTimeoutMs: 120_000,
  maxConnections: 1024,
  bodyBytesInFlight: 64 * 1024 * 1024,
};

/** Fastify's server options for these limits. */
export function serverOptions(limits: TransportLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      // Node looks for requests past their timeout this often (its default, 30 s, would let a
      // request overstay its timeout by that much).
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  };
}

/** The connection cap and the shared body budget (a preParsing hook). */
export function installTransportLimits(app: FastifyInstance, limits: TransportLimits): { bodyBytesInFlight(): number } {
  app.server.maxConnections = limits.maxConnections;
  let inFlight = 0;
  app.addHook('preParsing', async (_request, reply, payload) => {
    let held = 0;
    const release = () => {
      inFlight -= held;
      held = 0;
    };
    // The answer's end, or the connection's: the body is no longer being received.
    reply.raw.once('close', release);
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        if (inFlight + chunk.length > limits.bodyBytesInFlight) {
          callback(
            new ApiError(503, 'The server is receiving too many request bodies at once: retry shortly', {
              code: 'SERVER_BUSY',
              headers: { 'retry-after': '1' },
            }),
          );
          return;
        }
        inFlight += chunk.length;
        held += chunk.length;
        callback(null, chunk);
      },
    });
    payload.on('error', (err) => counted.destroy(err));
    return payload.pipe(counted);
  });
  return { bodyBytesInFlight: () => inFlight };
}
