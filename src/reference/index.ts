import type { FastifyInstance } from 'fastify';
import { ensureSandboxMerchant } from './auth/merchants.ts';
import { resolveOptions, type ReferenceOptions } from './config.ts';
import { loadContract } from './http/contract.ts';
import { plugins } from './plugins/index.ts';
import { resolveRateLimits, type RateLimitRule } from './ratelimit/limits.ts';
import { createRepository, type Repository } from './storage/repository.ts';
import { buildApp } from './server.ts';
import { openDb, type Db } from './storage/db.ts';
import { migrate, migrationsKey, platformMigrations, type Migration } from './storage/migrations/index.ts';

export { buildApp } from './server.ts';
export { DEFAULT_API_KEY, optionsFromEnv, type ReferenceOptions } from './config.ts';
export { RateLimitConfigError } from './ratelimit/limits.ts';

export interface RunningReference {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  baseUrl: string;
  /** The sandbox merchant's key (never print it). */
  apiKey: string;
  merchantId: string;
  app: FastifyInstance;
  db: Db;
  /** The repository the plugins use (tests seed through it). */
  repo: Repository;
  /** Rate limits in force, by operationId. */
  rateLimits: Map<string, RateLimitRule>;
  /** Stops accepting, drains in-flight requests, then closes the database. Idempotent. */
  close(): Promise<void>;
}

/** Every migration: the platform's, then each plugin's. */
export function allMigrations(): Migration[] {
  return [...platformMigrations, ...plugins.flatMap((p) => p.migrations ?? [])];
}

/**
 * Opens the database, applies migrations, bootstraps the sandbox merchant for
 * `apiKey`, and listens. Throws (before opening anything) on a bad option or a rate
 * limit below the published one, and with a clear message when the database cannot
 * be reached.
 */
export async function startReferenceServer(options: ReferenceOptions = {}): Promise<RunningReference> {
  const opts = resolveOptions(options);
  const c = await loadContract();
  const rateLimits = resolveRateLimits(c.publishedLimits(), opts.rateLimits);
  const migrations = allMigrations();
  const db = await openDb(opts.database, {
    key: migrationsKey(migrations),
    prepare: async (d) => void (await migrate(d, migrations)),
  });
  let app: FastifyInstance | undefined;
  try {
    await migrate(db, migrations);
    const merchantId = await ensureSandboxMerchant(db, opts.apiKey);
    const repo = createRepository(db, { now: opts.now });
    app = await buildApp({
      db,
      repo,
      contract: c,
      rateLimits,
      logger: opts.logger,
      bodyLimit: opts.bodyLimit,
      now: opts.now,
      transport: opts.transport,
      sweepEveryMs: opts.sweepEveryMs,
      errorLog: opts.errorLog,
    });
    await app.listen({ host: opts.host, port: opts.port });
    // PGlite runs no autovacuum: refresh statistics and the visibility map now and then
    // (PostgreSQL does its own).
    const analyze =
      db.kind === 'postgres' ? undefined : setInterval(() => void db.query('VACUUM ANALYZE').catch(() => {}), 60_000);
    analyze?.unref();
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : opts.port;
    const host = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
    const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    let closing: Promise<void> | undefined;
    const running: RunningReference = {
      baseUrl,
      apiKey: opts.apiKey,
      merchantId,
      app,
      db,
      repo,
      rateLimits,
      close: () =>
        (closing ??= (async () => {
          try {
            if (analyze) clearInterval(analyze);
            await app!.close();
          } finally {
            await db.close();
          }
        })()),
    };
    return running;
  } catch (err) {
    await app?.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
}
