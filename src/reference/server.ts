import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteHandlerMethod } from 'fastify';
import './http/types.ts';
import { authHook, scopeHook } from './http/auth.ts';
import type { Contract } from './http/contract.ts';
import { installErrorHandler } from './http/errorHandler.ts';
import { KeyedQueue } from './http/keyedQueue.ts';
import type { PluginDeps, ResourcePlugin } from './http/plugin.ts';
import { rateLimitHook } from './http/rateLimit.ts';
import {
  DEFAULT_TRANSPORT_LIMITS,
  installTransportLimits,
  serverOptions,
  type TransportLimits,
} from './http/transport.ts';
import { RequestValidator } from './http/validation.ts';
import { lockKey } from './plugins/common.ts';
import { plugins as defaultPlugins } from './plugins/index.ts';
import { resolveRateLimits, type RateLimitRule } from './ratelimit/limits.ts';
import { BucketStore, MemoryBucketStore } from './ratelimit/store.ts';
import type { Db } from './storage/db.ts';
import { randomAlphanumeric } from './storage/ids.ts';
import { createRepository, type Repository } from './storage/repository.ts';

export interface AppDeps {
  db: Db;
  contract: Contract;
  repo?: Repository;
  /** Limits in force; default: the contract's published limits. */
  rateLimits?: Map<string, RateLimitRule>;
  /** Largest accepted body in bytes (default 1 MiB); larger gets 413. */
  bodyLimit?: number;
  logger?: FastifyServerOptions['logger'];
  now?: () => Date;
  plugins?: ResourcePlugin[];
  /** Timeouts and caps on what clients hold (default DEFAULT_TRANSPORT_LIMITS). */
  transport?: Partial<TransportLimits>;
  /** How often expired rate-limit buckets are dropped (ms; default one minute). */
  sweepEveryMs?: number;
  /** Where the one line per 5xx answer goes (default stderr). */
  errorLog?: (line: string) => void;
}

const isRead = (method: string | string[]) => [method].flat().every((m) => m === 'GET' || m === 'HEAD');

/**
 * A write request's handler runs in one transaction: every check it makes (a delete
 * blocker, a state, a parent that must exist) and every write it does commit together,
 * or not at all. The handler returns its answer (see plugins/common.ts `created`); it is
 * sent only after the commit, so an acknowledged write is a committed one.
 *
 * One merchant's writes take turns. On PostgreSQL each takes a lock on its merchant (held to
 * commit): writes of several kinds of row lock their merchant's counter rows
 * (resource_counts) in the order they write them, and two writes in opposite orders (a
 * schedule then its intervals; intervals then their schedule) would deadlock, each costing
 * PostgreSQL's deadlock_timeout before a rerun. Writes of different merchants still run side
 * by side. A deadlock or serialization failure that still happens runs the handler again
 * (Db.transaction).
 *
 * Before it takes a connection, a write waits for its turn in this process's queue of its
 * merchant (`writeTurns`, WRITE_TURNS): a merchant busy writing holds at most two connections,
 * never a pool's worth of them waiting on its lock, so other merchants' requests find
 * connections (docs/reference-storage.md).
 */
function inRequestTransaction(
  repo: Repository,
  writeTurns: KeyedQueue,
  handler: RouteHandlerMethod,
): RouteHandlerMethod {
  const serialiseMerchants = repo.db.kind === 'postgres';
  return async function (this: FastifyInstance, request, reply) {
    const transaction = () =>
      repo.transaction(async () => {
        if (serialiseMerchants && request.auth) await lockKey(repo, `merchant-writes:${request.auth.merchantId}`);
        const answer = await handler.call(this, request, reply);
        if (reply.sent)
          throw new Error(
            `${request.method} ${request.routeOptions.url}: the handler sent its reply before its ` +
              `transaction committed; return the body instead`,
          );
        return answer;
      });
    return request.auth ? writeTurns.run(request.auth.merchantId, transaction) : transaction();
  };
}

/**
 * How one merchant's write transactions take turns in this process, by store.
 *
 * PostgreSQL: two at once. One holds the merchant's lock, the next waits on it with its
 * transaction begun, so the lock passes on at the holder's commit with no round trip in between.
 *
 * PGlite: one at a time (it runs one transaction at a time anyway), each started after the I/O
 * already pending. Its queries run on this thread, and a write runs start to end without
 * yielding to the event loop: writes started as they arrive would take whole turns of the loop
 * one after the other, and other merchants' requests would wait unread behind them.
 */
const WRITE_TURNS = {
  postgres: { width: 2, startAfterPendingIo: false },
  memory: { width: 1, startAfterPendingIo: true },
  file: { width: 1, startAfterPendingIo: true },
} as const;

/**
 * Builds the reference server's Fastify app. Cross-cutting behaviour comes from hooks
 * on the root instance, in this order:
 *   onRequest   auth (401) → rate limit (x-ratelimit-*, 429) → scope (403)
 *   parsing     JSON only (415 otherwise), malformed → 400, oversize → 413
 *   preValidation  path/query/body against the spec for `config.operationId` → 400
 * Resource plugins (plugins/index.ts) then only declare routes.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const now = deps.now ?? (() => new Date());
  const repo = deps.repo ?? createRepository(deps.db, { now });
  const rateLimits = deps.rateLimits ?? resolveRateLimits(deps.contract.publishedLimits());
  const transport = { ...DEFAULT_TRANSPORT_LIMITS, ...deps.transport };
  const turns = WRITE_TURNS[deps.db.kind];
  const writeTurns = new KeyedQueue(turns.width, { startAfterPendingIo: turns.startAfterPendingIo });
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    routerOptions: { maxParamLength: 1000 },
    ...serverOptions(transport),
    // A request id per answer (x-request-id), the one a 5xx log line names.
    genReqId: () => `req_${randomAlphanumeric(16)}`,
  });
  installTransportLimits(app, transport);

  // JSON is the only body type; an empty body counts as no body.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    void defaultJson(req, body as string, done);
  });

  app.decorateRequest('auth', null);
  app.addHook('onRoute', (route) => {
    // A route without an operationId would skip auth, rate limits and validation: refuse it.
    const config = route.config as { operationId?: string; public?: boolean } | undefined;
    if (!config?.operationId && !config?.public) {
      throw new Error(
        `route ${route.method} ${route.url} declares no config.operationId (see src/reference/README.md)`,
      );
    }
    if (!isRead(route.method))
      route.handler = inRequestTransaction(repo, writeTurns, route.handler as RouteHandlerMethod);
  });
  installErrorHandler(app, deps.errorLog ?? ((line) => process.stderr.write(`${line}\n`)));

  // An in-memory database is this process's alone, and so are its buckets: kept in memory, no query each.
  const clock = () => now().getTime();
  const store = deps.db.kind === 'memory' ? new MemoryBucketStore(clock) : new BucketStore(deps.db, clock);
  // Buckets of ended windows are dropped now and then (every subscription id probed leaves one).
  const sweep = setInterval(() => void store.sweep().catch(() => {}), deps.sweepEveryMs ?? 60_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onRequest', authHook(deps.db));
  app.addHook('onRequest', rateLimitHook(store, rateLimits));
  app.addHook('onRequest', scopeHook);

  const validator = new RequestValidator(deps.contract);
  app.addHook('preValidation', async (request) => {
    const config = request.routeOptions.config;
    if (config?.operationId) validator.validate(request, config.operationId, config.schemas);
  });

  const pluginDeps: PluginDeps = { db: deps.db, repo, contract: deps.contract, rateLimits, now };
  for (const p of deps.plugins ?? defaultPlugins) await app.register(p.register, pluginDeps);
  return app;
}
