/**
 * Storage helpers of the domain services, over the platform's Repository (no SQL here).
 * Resource type names are the stored `type` column; documents are the served shape,
 * plus internal fields whose names start with `_` (removed by `view`).
 */
import type { Repository } from '../../storage/repository.ts';

export type Doc = Record<string, unknown>;
export type Stored<T> = T & Doc;

export const TYPES = {
  customer: 'customer',
  product: 'product',
  item: 'item',
  externalReference: 'external_reference',
  billableMetric: 'billable_metric',
  fee: 'fee',
  price: 'price',
  pricingUnit: 'pricing_unit',
  plan: 'plan',
  subscription: 'subscription',
  testClock: 'test_clock',
  invoice: 'invoice',
  creditNote: 'credit_note',
  payment: 'payment',
  source: 'source',
  sourceRule: 'source_rule',
  wallet: 'wallet',
  alert: 'alert',
  webhooks: 'webhooks',
  webhookEndpoint: 'webhook_endpoint',
  order: 'order',
  billingSchedule: 'billing_schedule',
  scheduleInterval: 'schedule_interval',
  event: 'event',
} as const;

/** The served representation: internal `_` fields removed. */
export function view<T extends object>(doc: T): T {
  const out: Doc = {};
  for (const [k, v] of Object.entries(doc)) if (!k.startsWith('_')) out[k] = v;
  return out as T;
}

/** Every matching document, paging through the repository. */
export async function listAll<T extends object>(
  repo: Repository,
  type: string,
  merchantId: string,
  where?: Doc,
): Promise<Stored<T>[]> {
  const out: Stored<T>[] = [];
  const pageSize = 500;
  for (let offset = 0; ; offset += pageSize) {
    const page = await repo.list<Stored<T>>(type, merchantId, { where, limit: pageSize, offset });
    out.push(...page.data);
    if (page.data.length < pageSize) return out;
  }
}

/**
 * Map of id -> document for the given ids (missing ones are absent). `share` locks each
 * found row FOR SHARE until the transaction ends (they are parents of what is written).
 */
export async function getMany<T extends object>(
  repo: Repository,
  type: string,
  merchantId: string,
  ids: Iterable<string>,
  lock?: 'share',
): Promise<Map<string, Stored<T>>> {
  const out = new Map<string, Stored<T>>();
  // Sorted: two transactions locking overlapping sets take the locks in one order.
  for (const id of [...new Set(ids)].sort()) {
    const doc = lock
      ? await repo.getForShare<Stored<T>>(type, id, merchantId)
      : await repo.get<Stored<T>>(type, id, merchantId);
    if (doc) out.set(id, doc);
  }
  return out;
}

/** True for a unique-key violation (two concurrent first inserts of one deterministic id). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === '23505' || /duplicate key|unique constraint/i.test(e?.message ?? '');
}

/**
 * Inserts a document under a deterministic id, or returns the one already stored there
 * (idempotency keys, per-merchant singletons, seeds): `created` tells which.
 */
export async function insertOnce<T extends object>(
  repo: Repository,
  type: string,
  merchantId: string,
  id: string,
  data: Doc,
): Promise<{ doc: Stored<T>; created: boolean }> {
  const existing = await repo.get<Stored<T>>(type, id, merchantId);
  if (existing) return { doc: existing, created: false };
  try {
    const doc = await repo.insert<Stored<T>>(type, merchantId, data, { prefix: id.split('_')[0], id });
    return { doc, created: true };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const doc = await repo.get<Stored<T>>(type, id, merchantId);
    if (!doc) throw err;
    return { doc, created: false };
  }
}
