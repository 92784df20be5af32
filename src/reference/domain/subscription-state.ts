/**
 * Subscription state over time: current period, pending migration applied when the period
 * closes, floating subscriptions following the plan default, the end date reached.
 */
import { addPeriods, parseCadence, periodAt, periodsClosedBetween, TooManyPeriods, type Period } from './periods.ts';
import { badRequest, conflict, notFound } from './errors.ts';
import type { Override, Plan, PlanVersion, Price, Subscription } from './types.ts';

export function findVersion(plan: Plan, versionNumber: number): PlanVersion | undefined {
  return plan.versions.find((v) => v.versionNumber === versionNumber);
}

export function isLive(sub: Pick<Subscription, 'status'>): boolean {
  return sub.status === 'active';
}

/** The plan version a new (or newly floating) subscription follows. */
export function defaultVersion(plan: Plan): PlanVersion {
  const v = plan.defaultVersionNumber == null ? undefined : findVersion(plan, plan.defaultVersionNumber);
  if (!v) throw conflict('PLAN_HAS_NO_DEFAULT_VERSION', `plan ${plan.id} has no published default version`);
  return v;
}

export function currentPeriod(
  sub: Pick<Subscription, 'billingAnchor'>,
  plan: Pick<Plan, 'billingCadence'>,
  now: Date,
): Period {
  return periodAt(new Date(sub.billingAnchor), plan.billingCadence, now);
}

/**
 * Overrides carried to a target version: an override follows its price, or the target's
 * price for the same fee or billable metric; with no counterpart it is dropped.
 */
export function counterpartPrice(priceId: string, target: PlanVersion, prices: Map<string, Price>): Price | undefined {
  if (target.priceIds.includes(priceId)) return prices.get(priceId);
  const current = prices.get(priceId);
  if (!current) return undefined;
  for (const id of target.priceIds) {
    const p = prices.get(id);
    if (!p) continue;
    if (current.feeId && p.feeId === current.feeId) return p;
    if (current.billableMetricId && p.billableMetricId === current.billableMetricId) return p;
  }
  return undefined;
}

export function carryOverrides(overrides: Override[], target: PlanVersion, prices: Map<string, Price>): Override[] {
  const out: Override[] = [];
  for (const o of overrides) {
    const p = counterpartPrice(o.priceId, target, prices);
    if (p) out.push({ priceId: p.id, unitPrice: o.unitPrice });
  }
  return out;
}

function moveTo(sub: Subscription, version: PlanVersion, prices: Map<string, Price>): Subscription {
  return {
    ...sub,
    versionNumber: version.versionNumber,
    planVersionId: version.id,
    overrides: carryOverrides(sub.overrides ?? [], version, prices),
  };
}

/** The subscription as of `now`: due migration applied, floating resolved, end reached, period fields. */
export function settle(sub: Subscription, plan: Plan, prices: Map<string, Price>, now: Date): Subscription {
  let s = applyDueMigration({ ...sub }, plan, prices, now);
  if (
    s.versionPolicy === 'floating' &&
    plan.defaultVersionNumber != null &&
    plan.defaultVersionNumber !== s.versionNumber
  ) {
    const v = findVersion(plan, plan.defaultVersionNumber);
    if (v) s = moveTo(s, v, prices);
  }
  if (s.status === 'active' && s.endingAt && new Date(s.endingAt).getTime() <= now.getTime()) {
    s.status = 'ended';
    s.terminatedAt = s.endingAt;
    s.terminatedBy = 'system';
    s.terminationReason = 'ended';
  }
  const p = currentPeriod(s, plan, now);
  s.currentPeriodStart = p.start.toISOString();
  s.currentPeriodEnd = p.end ? p.end.toISOString() : null;
  return s;
}

export interface ClosedPeriod {
  period: Period;
  /** The version that was in force during the period, and its overrides. */
  version: PlanVersion;
  overrides: Override[];
  /** The period that starts at this one's end, when the subscription is still live then. */
  next: { period: Period; version: PlanVersion; overrides: Override[] } | null;
}

function applyDueMigration(s: Subscription, plan: Plan, prices: Map<string, Price>, at: Date): Subscription {
  if (!s.pendingMigration || new Date(s.pendingMigration.effectiveAt).getTime() > at.getTime()) return s;
  const v = findVersion(plan, s.pendingMigration.toVersionNumber);
  const moved = v ? moveTo(s, v, prices) : { ...s };
  moved.pendingMigration = null;
  return moved;
}

/**
 * Moves a subscription from `from` to `to` (a test clock advancing): every period that
 * closes in (from, to] is returned with the version in force, and the period that
 * follows it with its own version (a pending migration takes effect for periods starting
 * at or after its boundary). Periods starting at or after the end date, or after
 * termination, are not billed.
 */
/** At most this many periods of one subscription close in one test-clock move. */
export const MAX_PERIODS_PER_ADVANCE = 2000;

export function advance(
  sub: Subscription,
  plan: Plan,
  prices: Map<string, Price>,
  from: Date,
  to: Date,
): {
  subscription: Subscription;
  closed: ClosedPeriod[];
} {
  let s: Subscription = { ...sub };
  const closed: ClosedPeriod[] = [];
  const stopAt =
    s.status !== 'active' ? new Date(s.terminatedAt ?? from.toISOString()) : s.endingAt ? new Date(s.endingAt) : null;
  const last = s._lastClosedPeriodEnd ? new Date(s._lastClosedPeriodEnd).getTime() : -Infinity;
  const since = new Date(Math.max(last, from.getTime()));
  const cadence = parseCadence(plan.billingCadence);
  let periods: Period[];
  try {
    periods = periodsClosedBetween(new Date(s.billingAnchor), plan.billingCadence, since, to, MAX_PERIODS_PER_ADVANCE);
  } catch (err) {
    if (!(err instanceof TooManyPeriods)) throw err;
    throw badRequest(
      'TEST_CLOCK_ADVANCE_TOO_FAR',
      `frozenTime: subscription ${s.id} would close more than ${MAX_PERIODS_PER_ADVANCE} billing periods at once; advance in smaller steps`,
    );
  }
  for (const period of periods) {
    if (stopAt && period.start.getTime() >= stopAt.getTime()) break;
    s = applyDueMigration(s, plan, prices, period.start);
    const version = findVersion(plan, s.versionNumber);
    const overrides = s.overrides ?? [];
    const end = period.end!;
    let next: ClosedPeriod['next'] = null;
    if (!stopAt || end.getTime() < stopAt.getTime()) {
      const after = applyDueMigration(s, plan, prices, end);
      const nextVersion = findVersion(plan, after.versionNumber);
      const nextPeriod: Period = {
        start: end,
        end: addPeriods(new Date(s.billingAnchor), cadence, period.index + 2),
        index: period.index + 1,
      };
      if (nextVersion) next = { period: nextPeriod, version: nextVersion, overrides: after.overrides ?? [] };
    }
    if (version) closed.push({ period, version, overrides, next });
    s._lastClosedPeriodEnd = end.toISOString();
  }
  return { subscription: settle(s, plan, prices, to), closed };
}

/** Validates overrides at creation: prices sold by the version, standard model, decimal rate. */
export function validateOverrides(overrides: Override[], version: PlanVersion, prices: Map<string, Price>): void {
  overrides.forEach((o, i) => {
    if (!version.priceIds.includes(o.priceId)) {
      throw badRequest(
        'OVERRIDE_PRICE_NOT_IN_VERSION',
        `overrides[${i}].priceId: ${o.priceId} is not sold by version ${version.versionNumber}`,
      );
    }
    const p = prices.get(o.priceId);
    if (!p) throw notFound('Price', o.priceId);
    if (p.model !== 'standard') {
      throw badRequest(
        'OVERRIDE_REQUIRES_STANDARD_PRICE',
        `overrides[${i}].priceId: only standard prices take a unitPrice override`,
      );
    }
  });
}
