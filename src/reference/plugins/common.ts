/** Small helpers shared by the domain's resource plugins. */
import type { FastifyRequest } from 'fastify';
import type { Repository } from '../storage/repository.ts';

export { listEnvelope } from './rateLimited.ts';

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
