/**
 * Subscriptions over storage: the time a subscription lives in (its test clock or the
 * server clock), settling on read, version migration, and closing periods when a test
 * clock advances (invoices for the closed periods).
 */
import type { Repository } from '../../storage/repository.ts';
import { newInvoice, periodLines } from '../billing.ts';
import { notFound } from '../errors.ts';
import { migrate } from '../migration.ts';
import { formatPlain, sum } from '../money.ts';
import type { Period } from '../periods.ts';
import { orderLinkedTo } from '../schedules.ts';
import { advance, settle, type ClosedPeriod } from '../subscription-state.ts';
import type { Customer, Invoice, InvoiceLine, Plan, Price, ScheduleInterval, Subscription } from '../types.ts';
import { getMany, listAll, TYPES, view, type Stored } from './store.ts';

export interface TestClock {
  id: string;
  object: 'test_clock';
  merchantId: string;
  name: string | null;
  frozenTime: string;
  createdAt: string;
  updatedAt: string;
}

/** "Now" for a subscription: its test clock's frozen time, else the server clock. */
export async function subscriptionNow(
  repo: Repository,
  merchantId: string,
  sub: Pick<Subscription, 'testClockId'>,
  serverNow: Date,
): Promise<Date> {
  if (!sub.testClockId) return serverNow;
  const clock = await repo.get<Stored<TestClock>>(TYPES.testClock, sub.testClockId, merchantId);
  return clock ? new Date(clock.frozenTime) : serverNow;
}

/** Every price any version of the plan sells, plus the given extra ids (overrides). */
export async function planPrices(
  repo: Repository,
  merchantId: string,
  plan: Plan,
  extra: string[] = [],
): Promise<Map<string, Price>> {
  const ids = [...plan.versions.flatMap((v) => v.priceIds), ...extra];
  return (await getMany<Price>(repo, TYPES.price, merchantId, ids)) as Map<string, Price>;
}

export async function requirePlan(repo: Repository, merchantId: string, planId: string): Promise<Stored<Plan>> {
  const plan = await repo.get<Stored<Plan>>(TYPES.plan, planId, merchantId);
  if (!plan) throw notFound('Plan', planId, 'PLAN_NOT_FOUND');
  return plan;
}

/** Writes the subscription when settling changed it; returns the stored document. */
async function saveIfChanged(
  repo: Repository,
  merchantId: string,
  before: Subscription,
  after: Subscription,
): Promise<Subscription> {
  if (JSON.stringify(before) === JSON.stringify(after)) return before;
  const { id, createdAt, updatedAt, ...rest } = after;
  void createdAt;
  void updatedAt;
  const saved = await repo.update<Stored<Subscription>>(TYPES.subscription, id, merchantId, (cur) => ({
    ...cur,
    ...rest,
  }));
  return saved ?? after;
}

/** The subscription as of its own now: due migration applied, floating resolved, period fields. */
export async function readSubscription(
  repo: Repository,
  merchantId: string,
  id: string,
  serverNow: Date,
): Promise<Subscription> {
  return repo.transaction(async (tx) => {
    const sub = await tx.getForUpdate<Stored<Subscription>>(TYPES.subscription, id, merchantId);
    if (!sub) throw notFound('Subscription', id, 'SUBSCRIPTION_NOT_FOUND');
    const plan = await requirePlan(tx, merchantId, sub.planId);
    const prices = await planPrices(
      tx,
      merchantId,
      plan,
      sub.overrides.map((o) => o.priceId),
    );
    const now = await subscriptionNow(tx, merchantId, sub, serverNow);
    return saveIfChanged(tx, merchantId, sub, settle(sub, plan, prices, now));
  });
}

/**
 * Intervals of order-owned schedules linked to the subscription (reference extension):
 * the order names the subscription, or names none and belongs to its customer.
 */
export async function linkedIntervals(
  repo: Repository,
  merchantId: string,
  sub: Pick<Subscription, 'id' | 'customerId'>,
): Promise<ScheduleInterval[]> {
  const all = await listAll<ScheduleInterval & { _customerId: string; _subscriptionId: string | null }>(
    repo,
    TYPES.scheduleInterval,
    merchantId,
    { _customerId: sub.customerId },
  );
  const bySub = await listAll<ScheduleInterval & { _customerId: string; _subscriptionId: string | null }>(
    repo,
    TYPES.scheduleInterval,
    merchantId,
    { _subscriptionId: sub.id },
  );
  const seen = new Set<string>();
  return [...all, ...bySub].filter((i) => {
    if (seen.has(i.id)) return false;
    seen.add(i.id);
    return orderLinkedTo({ customerId: i._customerId, subscriptionId: i._subscriptionId }, sub);
  });
}

/** POST /v0/subscriptions/{id}/versionMigration. */
export async function migrateSubscription(
  repo: Repository,
  merchantId: string,
  id: string,
  targetVersionNumber: number,
  serverNow: Date,
) {
  return repo.transaction(async (tx) => {
    const sub = await tx.getForUpdate<Stored<Subscription>>(TYPES.subscription, id, merchantId);
    if (!sub) throw notFound('Subscription', id, 'SUBSCRIPTION_NOT_FOUND');
    const plan = await requirePlan(tx, merchantId, sub.planId);
    const prices = await planPrices(
      tx,
      merchantId,
      plan,
      sub.overrides.map((o) => o.priceId),
    );
    const now = await subscriptionNow(tx, merchantId, sub, serverNow);
    const settled = settle(sub, plan, prices, now);
    const intervals = await linkedIntervals(tx, merchantId, sub);
    const result = migrate({
      subscription: settled,
      plan,
      targetVersionNumber,
      now,
      prices,
      linkedIntervals: intervals,
    });
    const saved = await saveIfChanged(tx, merchantId, sub, result.subscription);
    return { subscription: view(saved), migration: result.migration, lineItems: { syncFailed: false } };
  });
}

/** Usage quantity per billable metric within [start, end). */
export function usageIn(
  events: Array<{ billableMetricId: string; quantity: number; timestamp: string }>,
  period: Period,
): Map<string, string> {
  const by = new Map<string, number[]>();
  for (const e of events) {
    const t = new Date(e.timestamp).getTime();
    if (t < period.start.getTime() || (period.end && t >= period.end.getTime())) continue;
    const list = by.get(e.billableMetricId) ?? [];
    list.push(e.quantity);
    by.set(e.billableMetricId, list);
  }
  return new Map([...by].map(([k, v]) => [k, formatPlain(sum(v))]));
}

/** The invoice of one closed period: its arrears charges plus the next period's advance charges. */
export function closedPeriodLines(
  c: ClosedPeriod,
  sub: Subscription,
  plan: Plan,
  prices: Map<string, Price>,
  taxRates: Customer['taxRates'],
  events: Array<{ billableMetricId: string; quantity: number; timestamp: string }>,
): InvoiceLine[] {
  const lines = periodLines({
    subscription: { ...sub, overrides: c.overrides },
    plan,
    version: c.version,
    prices,
    usage: usageIn(events, c.period),
    taxRates,
    period: c.period,
    term: 'in_arrears',
  });
  if (c.next) {
    lines.push(
      ...periodLines({
        subscription: { ...sub, overrides: c.next.overrides },
        plan,
        version: c.next.version,
        prices,
        usage: new Map(),
        taxRates,
        period: c.next.period,
        term: 'in_advance',
      }),
    );
  }
  return lines;
}

async function storeInvoice(repo: Repository, merchantId: string, inv: Invoice, finalizedAt: string): Promise<void> {
  await repo.insert(TYPES.invoice, merchantId, { ...inv, status: 'open', finalizedAt } as unknown as Stored<Invoice>, {
    prefix: 'inv',
    id: inv.id,
  });
}

/** At creation on a test clock: the first period's in-advance charges. */
export async function invoiceFirstPeriod(
  repo: Repository,
  merchantId: string,
  sub: Subscription,
  plan: Plan,
  prices: Map<string, Price>,
  at: Date,
): Promise<void> {
  const customer = await repo.get<Stored<Customer>>(TYPES.customer, sub.customerId, merchantId);
  const version = plan.versions.find((v) => v.versionNumber === sub.versionNumber);
  if (!version) return;
  const start = new Date(sub.currentPeriodStart);
  const period: Period = { start, end: sub.currentPeriodEnd ? new Date(sub.currentPeriodEnd) : null, index: 0 };
  const lines = periodLines({
    subscription: sub,
    plan,
    version,
    prices,
    usage: new Map(),
    taxRates: customer?.taxRates,
    period,
    term: 'in_advance',
  });
  if (lines.length === 0) return;
  const inv = newInvoice({
    merchantId,
    customerId: sub.customerId,
    subscriptionId: sub.id,
    currency: plan.currency,
    lines,
    now: at.toISOString(),
    periodStart: sub.currentPeriodStart,
    periodEnd: sub.currentPeriodEnd,
  });
  await storeInvoice(repo, merchantId, inv, at.toISOString());
}

/**
 * A test clock moved from `from` to `to`: each of its subscriptions closes the periods
 * that ended (pending migrations take effect at their boundary) and each closed period
 * is invoiced (status open). Returns the invoices created.
 */
export async function advanceClockSubscriptions(
  repo: Repository,
  merchantId: string,
  clockId: string,
  from: Date,
  to: Date,
): Promise<Invoice[]> {
  const subs = await listAll<Subscription>(repo, TYPES.subscription, merchantId, { testClockId: clockId });
  const created: Invoice[] = [];
  for (const sub of subs) {
    const plan = await requirePlan(repo, merchantId, sub.planId);
    const prices = await planPrices(
      repo,
      merchantId,
      plan,
      sub.overrides.map((o) => o.priceId),
    );
    const { subscription, closed } = advance(sub, plan, prices, from, to);
    if (closed.length > 0) {
      const customer = await repo.get<Stored<Customer>>(TYPES.customer, sub.customerId, merchantId);
      const events = await listAll<{ billableMetricId: string; quantity: number; timestamp: string }>(
        repo,
        TYPES.event,
        merchantId,
        { subscriptionId: sub.id },
      );
      for (const c of closed) {
        const lines = closedPeriodLines(c, subscription, plan, prices, customer?.taxRates, events);
        if (lines.length === 0) continue;
        const at = c.period.end!.toISOString();
        const inv = newInvoice({
          merchantId,
          customerId: sub.customerId,
          subscriptionId: sub.id,
          currency: plan.currency,
          lines,
          now: at,
          periodStart: c.period.start.toISOString(),
          periodEnd: at,
        });
        await storeInvoice(repo, merchantId, inv, at);
        created.push(inv);
      }
    }
    await saveIfChanged(repo, merchantId, sub, subscription);
  }
  return created;
}
