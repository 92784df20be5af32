/** Small helpers shared by the domain's resource plugins. */
import type { FastifyRequest } from 'fastify';
import type { Repository } from '../storage/repository.ts';

export { listEnvelope } from './rateLimited.ts';

/** The caller's merchant (auth has run before every handler). */
export function merchant(request: FastifyRequest): string {
  return request.auth!.merchantId;
}

/** limit/offset from a validated query (defaults 10 and 0, as the spec's LimitQuery/OffsetQuery). */
export function paging(request: FastifyRequest): { limit: number; offset: number } {
  const q = request.query as { limit?: number; offset?: number };
  return { limit: Number(q.limit ?? 10), offset: Number(q.offset ?? 0) };
}

/**
 * Serialises writers on one key until the transaction ends (pg_advisory_xact_lock works on
 * PGlite and PostgreSQL): first-time inserts under deterministic ids, uniqueness checks.
 */
export async function lockKey(repo: Repository, key: string): Promise<void> {
  await repo.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
}
