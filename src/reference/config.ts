import type { TransportLimits } from './http/transport.ts';
import { parseDatabaseUrl, type DatabaseLocation } from './storage/db.ts';

/** The sandbox merchant's API key when neither `--api-key` nor CONFORM_API_KEY is given. */
export const DEFAULT_API_KEY = 'sk_test_conform_reference';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4010;
/** Largest accepted request body; larger gets 413. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Options of `startReferenceServer` (and of `conform serve`, which adds the environment). */
export interface ReferenceOptions {
  host?: string;
  /** 0 picks a free port. Default 4010. */
  port?: number;
  /** `memory` (default), `file:<dir>` or `postgres://...`. */
  database?: string;
  /** The sandbox merchant's key. Default DEFAULT_API_KEY. */
  apiKey?: string;
  /** Raised limits by operationId (`listCustomers: 1000`); below the published limit is refused. */
  rateLimits?: Record<string, number>;
  /** Fastify/pino logger option; default off. */
  logger?: boolean | Record<string, unknown>;
  bodyLimit?: number;
  /** The server clock (timestamps, rate-limit windows). Tests inject one; default the system clock. */
  now?: () => Date;
  /** Timeouts and caps on what clients hold (see http/transport.ts). */
  transport?: Partial<TransportLimits>;
  /** How often expired rate-limit buckets are dropped (ms; default one minute). */
  sweepEveryMs?: number;
  /** Where the one line per 5xx answer goes (default stderr). */
  errorLog?: (line: string) => void;
}

export interface ResolvedOptions {
  host: string;
  port: number;
  database: DatabaseLocation;
  apiKey: string;
  rateLimits: Record<string, number>;
  logger: boolean | Record<string, unknown>;
  bodyLimit: number;
  now: () => Date;
  transport?: Partial<TransportLimits>;
  sweepEveryMs?: number;
  errorLog?: (line: string) => void;
}

/** Checked defaults. Throws on a bad port, database URL or key. */
export function resolveOptions(opts: ReferenceOptions = {}): ResolvedOptions {
  const port = opts.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port '${port}' is not in 0..65535`);
  const apiKey = opts.apiKey ?? DEFAULT_API_KEY;
  if (!/^[\x21-\x7e]{8,512}$/.test(apiKey))
    throw new Error('API key must be 8..512 printable ASCII characters without spaces');
  return {
    host: opts.host ?? DEFAULT_HOST,
    port,
    database: parseDatabaseUrl(opts.database),
    apiKey,
    rateLimits: opts.rateLimits ?? {},
    logger: opts.logger ?? false,
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    now: opts.now ?? (() => new Date()),
    transport: opts.transport,
    sweepEveryMs: opts.sweepEveryMs,
    errorLog: opts.errorLog,
  };
}

/**
 * The environment `conform serve` reads (flags win): DATABASE_URL, CONFORM_API_KEY.
 * `startReferenceServer` itself ignores the environment, so an in-process server
 * (conform run, tests) is in memory unless told otherwise.
 */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<ReferenceOptions, 'database' | 'apiKey'> {
  return { database: env.DATABASE_URL || undefined, apiKey: env.CONFORM_API_KEY || undefined };
}
