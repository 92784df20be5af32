/** Items: archive rules and the one-primary-per-external-id invariant. */
import { conflict } from './errors.ts';
import type { BillableMetric, ExternalReference, Fee, Item } from './types.ts';

export const ITEM_CODES = {
  archiveBlocked: 'ITEM_HAS_LIVE_ANCHORS',
  externalIdPrimaryTaken: 'EXTERNAL_ID_ALREADY_PRIMARY',
  itemArchived: 'ITEM_ARCHIVED',
} as const;

/** Refuses the archive while live billable metrics or fees are anchored to the item (the caller lists the item's own). */
export function assertArchivable(item: Item, liveMetrics: BillableMetric[], anchoredFees: Fee[]): void {
  if (liveMetrics.length === 0 && anchoredFees.length === 0) return;
  const parts: string[] = [];
  if (liveMetrics.length) parts.push(`${liveMetrics.length} live billable metric(s)`);
  if (anchoredFees.length) parts.push(`${anchoredFees.length} fee(s)`);
  throw conflict(
    ITEM_CODES.archiveBlocked,
    `item ${item.id} cannot be archived while ${parts.join(' and ')} are anchored to it`,
    {
      billableMetricIds: liveMetrics.map((m) => m.id),
      feeIds: anchoredFees.map((f) => f.id),
    },
  );
}

export interface ItemPatch {
  name?: string;
  catalogId?: string;
  archived?: boolean;
  metadata?: Record<string, unknown>;
}

/**
 * Applies a PATCH. Archiving sets archivedAt and returns the ids of the item's references
 * to demote (`refs` are the item's own); unarchiving clears archivedAt and promotes nothing.
 */
export function applyItemPatch(
  item: Item,
  patch: ItemPatch,
  refs: ExternalReference[],
  now: string,
): {
  item: Item;
  demoted: string[];
} {
  const next: Item = { ...item };
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.catalogId !== undefined) next.catalogId = patch.catalogId;
  if (patch.metadata !== undefined) next.metadata = patch.metadata;
  let demoted: string[] = [];
  if (patch.archived === true && item.archivedAt === null) {
    next.archivedAt = now;
    demoted = refs.filter((r) => r.isPrimary).map((r) => r.id);
  } else if (patch.archived === false) {
    next.archivedAt = null;
  }
  next.updatedAt = now;
  return { item: next, demoted };
}

/**
 * An external id is the primary reference of at most one entity per merchant. The
 * external id is read within its provider's namespace (same provider and externalId):
 * `holders` are the merchant's primary references of the candidate's (provider,
 * externalId). Only items carry external references, so the entity id alone tells them apart.
 */
export function assertPrimaryAvailable(
  candidate: Pick<ExternalReference, 'externalId' | 'entityId'>,
  holders: ExternalReference[],
): void {
  const holder = holders.find((r) => r.entityId !== candidate.entityId);
  if (holder) {
    throw conflict(
      ITEM_CODES.externalIdPrimaryTaken,
      `external id ${candidate.externalId} is already the primary reference of ${holder.entityType} ${holder.entityId}`,
      { referenceId: holder.id },
    );
  }
}
