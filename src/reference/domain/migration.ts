/**
 * POST /v0/subscriptions/{id}/versionMigration: the decision, without storage.
 * The move takes effect at the end of the current billing period and always pins.
 */
import { conflict, DomainError } from './errors.ts';
import { counterpartPrice, currentPeriod, findVersion, isLive } from './subscription-state.ts';
import type { Plan, Price, ScheduleInterval, Subscription } from './types.ts';

/** Reference choice: one UPPER_SNAKE_CASE code per refusal (the document does not list them). */
export const MIGRATION_CODES = {
  versionNotFound: 'PLAN_VERSION_NOT_FOUND',
  versionArchived: 'PLAN_VERSION_ARCHIVED',
  notLive: 'SUBSCRIPTION_NOT_LIVE',
  endsBeforeBoundary: 'SUBSCRIPTION_ENDS_BEFORE_BOUNDARY',
  overrideRateMeaning: 'OVERRIDE_RATE_MEANING_CHANGED',
  featureChange: 'FEATURE_DEFINITION_CHANGED',
  priceCoveredByInterval: 'PRICE_COVERED_BY_INTERVAL',
  noBoundary: 'NO_BILLING_BOUNDARY',
} as const;

export interface MigrationInput {
  /** Settled as of `now` (due migrations applied). */
  subscription: Subscription;
  plan: Plan;
  targetVersionNumber: number;
  now: Date;
  /** Every price of the current and target versions and of the overrides. */
  prices: Map<string, Price>;
  /**
   * Intervals of order-owned schedules linked to the subscription (reference extension:
   * the order names the subscription, or names none and belongs to its customer).
   */
  linkedIntervals: ScheduleInterval[];
}

export interface MigrationResult {
  subscription: Subscription;
  migration: { fromVersionNumber: number; toVersionNumber: number; effectiveAt: string; changed: boolean };
}

export function migrate(input: MigrationInput): MigrationResult {
  const { subscription: sub, plan, targetVersionNumber: to, now, prices } = input;
  const target = findVersion(plan, to);
  if (!target) {
    throw new DomainError(404, MIGRATION_CODES.versionNotFound, `plan ${plan.id} has no version ${to}`);
  }
  if (target.archivedAt) {
    throw new DomainError(404, MIGRATION_CODES.versionArchived, `version ${to} of plan ${plan.id} is archived`);
  }
  if (!isLive(sub)) {
    throw conflict(MIGRATION_CODES.notLive, `subscription ${sub.id} is not live (status ${sub.status})`);
  }
  const period = currentPeriod(sub, plan, now);
  if (!period.end) throw conflict(MIGRATION_CODES.noBoundary, `subscription ${sub.id} has no billing period boundary`);
  const effectiveAt = period.end.toISOString();
  const from = sub.versionNumber;
  const at = now.toISOString();

  if (to === from) {
    // Nothing moves: pin, and drop a pending move (this migration replaces it).
    const pinned: Subscription = {
      ...sub,
      versionPolicy: 'pinned',
      pendingMigration: null,
      updatedAt: sub.versionPolicy !== 'pinned' || sub.pendingMigration ? at : sub.updatedAt,
    };
    return {
      subscription: pinned,
      migration: { fromVersionNumber: from, toVersionNumber: to, effectiveAt, changed: false },
    };
  }

  if (sub.endingAt && new Date(sub.endingAt).getTime() <= period.end.getTime()) {
    throw conflict(
      MIGRATION_CODES.endsBeforeBoundary,
      `subscription ${sub.id} ends at ${sub.endingAt}, at or before the migration boundary ${effectiveAt}`,
    );
  }

  const current = findVersion(plan, from);
  for (const o of sub.overrides) {
    const before = prices.get(o.priceId);
    const after = counterpartPrice(o.priceId, target, prices);
    if (!before || !after || after.id === before.id) continue;
    const diffs: string[] = [];
    if (after.model !== before.model) diffs.push(`model ${before.model} -> ${after.model}`);
    if (after.currency !== before.currency) diffs.push(`currency ${before.currency} -> ${after.currency}`);
    if ((after.pricingUnitId ?? null) !== (before.pricingUnitId ?? null)) diffs.push('pricing unit');
    if (after.unitBasis !== before.unitBasis) diffs.push(`unit basis ${before.unitBasis} -> ${after.unitBasis}`);
    if (diffs.length) {
      throw conflict(
        MIGRATION_CODES.overrideRateMeaning,
        `the override of ${o.priceId} would mean something else on ${after.id} in version ${to}: ${diffs.join(', ')}`,
        { priceId: o.priceId, targetPriceId: after.id },
      );
    }
  }

  const currentFeatures = new Map((current?.features ?? []).map((f) => [f.key, f]));
  for (const f of target.features) {
    const c = currentFeatures.get(f.key);
    if (!c) continue;
    const diffs: string[] = [];
    if (c.resetPeriod !== f.resetPeriod) diffs.push('reset period');
    if ((c.billableMetricId ?? null) !== (f.billableMetricId ?? null)) diffs.push('metric');
    if ((c.pricingUnitId ?? null) !== (f.pricingUnitId ?? null)) diffs.push('pricing unit');
    if (diffs.length) {
      throw conflict(
        MIGRATION_CODES.featureChange,
        `feature ${f.key} changes its ${diffs.join(', ')} between version ${from} and version ${to}`,
        { featureKey: f.key },
      );
    }
  }

  const sold = new Set(target.priceIds);
  const covering = input.linkedIntervals.find(
    (i) => i.priceId && sold.has(i.priceId) && new Date(i.endDate).getTime() > period.end!.getTime(),
  );
  if (covering) {
    throw conflict(
      MIGRATION_CODES.priceCoveredByInterval,
      `version ${to} sells price ${covering.priceId}, already covered by interval ${covering.id} of ` +
        `schedule ${covering.scheduleId} until ${covering.endDate}`,
      { priceId: covering.priceId, intervalId: covering.id, scheduleId: covering.scheduleId },
    );
  }

  const migrated: Subscription = {
    ...sub,
    versionPolicy: 'pinned',
    pendingMigration: { fromVersionNumber: from, toVersionNumber: to, effectiveAt },
    updatedAt: at,
  };
  return {
    subscription: migrated,
    migration: { fromVersionNumber: from, toVersionNumber: to, effectiveAt, changed: true },
  };
}
