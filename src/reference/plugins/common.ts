/** Small helpers shared by the resource plugins. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Repository } from '../storage/repository.ts';

/** The list envelope of the document's conventions. */
export function listEnvelope<T>(data: T[], limit: number, offset: number, total: number) {
  return { object: 'list', data, pagination: { limit, offset, total } };
}

/**
 * 201 with `body`. Handlers return what they answer instead of sending it: a write
 * request's handler runs inside the request's transaction, and its answer leaves only
 * once that transaction committed.
 */
export function created<T>(reply: FastifyReply, body: T): T {
  reply.code(201);
  return body;
}

/** 204, sent once the request's transaction committed (see `created`). */
export function noContent(reply: FastifyReply): undefined {
  reply.code(204);
  return undefined;
}

/** The caller's merchant (auth has run before every handler). */
export function merchant(request: FastifyRequest): string {
  return request.auth!.merchantId;
}

/**
 * limit/offset from a validated query (defaults 10 and 0, as the spec's LimitQuery and
 * OffsetQuery). `offset` is echoed as asked; `skip` is what the database can take (an
 * offset past every row simply finds nothing).
 */
export function paging(request: FastifyRequest): { limit: number; offset: number; skip: number } {
  const q = request.query as { limit?: number; offset?: number };
  const offset = Number(q.offset ?? 0);
  return { limit: Number(q.limit ?? 10), offset, skip: Math.min(offset, Number.MAX_SAFE_INTEGER) };
}

/**
 * Serialises writers on one key until the transaction ends (pg_advisory_xact_lock works on
 * PGlite and PostgreSQL): first-time inserts under deterministic ids, uniqueness checks.
 */
export async function lockKey(repo: Repository, key: string): Promise<void> {
  await repo.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
}
