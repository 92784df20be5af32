/** Items: archive rules and the one-primary-per-external-id invariant. */
import { conflict } from './errors.ts';
import type { BillableMetric, ExternalReference, Fee, Item } from './types.ts';

export const ITEM_CODES = {
  archiveBlocked: 'ITEM_HAS_LIVE_ANCHORS',
  externalIdPrimaryTaken: 'EXTERNAL_ID_ALREADY_PRIMARY',
  itemArchived: 'ITEM_ARCHIVED',
} as const;

/** Refuses the archive while live billable metrics or fees are anchored to the item. */
export function assertArchivable(item: Item, metrics: BillableMetric[], fees: Fee[]): void {
  const liveMetrics = metrics.filter((m) => m.itemId === item.id && m.status === 'live');
  const anchoredFees = fees.filter((f) => f.itemId === item.id);
  if (liveMetrics.length === 0 && anchoredFees.length === 0) return;
  const parts: string[] = [];
  if (liveMetrics.length) parts.push(`${liveMetrics.length} live billable metric(s)`);
  if (anchoredFees.length) parts.push(`${anchoredFees.length} fee(s)`);
  throw conflict(ITEM_CODES.archiveBlocked, `item ${item.id} cannot be archived while ${parts.join(' and ')} are anchored to it`, {
    billableMetricIds: liveMetrics.map((m) => m.id),
    feeIds: anchoredFees.map((f) => f.id),
  });
}

export interface ItemPatch {
  name?: string;
  catalogId?: string;
  archived?: boolean;
  metadata?: Record<string, unknown>;
}

/**
 * Applies a PATCH. Archiving sets archivedAt and returns the references to demote;
 * unarchiving clears archivedAt and promotes nothing.
 */
export function applyItemPatch(item: Item, patch: ItemPatch, refs: ExternalReference[], now: string): {
  item: Item;
  demoted: ExternalReference[];
} {
  const next: Item = { ...item };
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.catalogId !== undefined) next.catalogId = patch.catalogId;
  if (patch.metadata !== undefined) next.metadata = patch.metadata;
  let demoted: ExternalReference[] = [];
  if (patch.archived === true && item.archivedAt === null) {
    next.archivedAt = now;
    demoted = refs.filter((r) => r.entityId === item.id && r.isPrimary).map((r) => ({ ...r, isPrimary: false, updatedAt: now }));
  } else if (patch.archived === false) {
    next.archivedAt = null;
  }
  next.updatedAt = now;
  return { item: next, demoted };
}

/**
 * An external id is the primary reference of at most one entity per merchant. The
 * external id is read within its provider's namespace (spec: same (provider, externalId)).
 */
export function assertPrimaryAvailable(
  candidate: Pick<ExternalReference, 'externalId' | 'entityId' | 'entityType' | 'provider'>,
  merchantRefs: ExternalReference[],
): void {
  const holder = merchantRefs.find(
    (r) =>
      r.isPrimary &&
      r.externalId === candidate.externalId &&
      r.provider === candidate.provider &&
      (r.entityId !== candidate.entityId || r.entityType !== candidate.entityType),
  );
  if (holder) {
    throw conflict(
      ITEM_CODES.externalIdPrimaryTaken,
      `external id ${candidate.externalId} is already the primary reference of ${holder.entityType} ${holder.entityId}`,
      { referenceId: holder.id },
    );
  }
}
