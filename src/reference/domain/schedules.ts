/** Billing schedules: owned by exactly one order; one interval per order line item. */
import { badRequest } from './errors.ts';
import { newId, PREFIX } from './ids.ts';
import { addPeriods, parseCadence } from './periods.ts';
import { formatPlain } from './money.ts';
import type { ScheduleInterval } from './types.ts';

export const SCHEDULE_CODES = {
  subscriptionOwnerUnsupported: 'SCHEDULE_SUBSCRIPTION_OWNER_UNSUPPORTED',
  ownerRequired: 'SCHEDULE_OWNER_REQUIRED',
  invalidDates: 'SCHEDULE_INVALID_DATES',
  invalidTerm: 'SCHEDULE_INVALID_PAYMENT_TERM',
} as const;

export interface OrderLineItem {
  id: string;
  description: string;
  quantity: string;
  unitPrice: string;
  itemId?: string | null;
  priceId?: string | null;
}

export interface Order {
  id: string;
  object: 'order';
  merchantId: string;
  customerId: string;
  /** Reference extension: the subscription the order's schedules bill beside (see migration). */
  subscriptionId: string | null;
  lineItems: OrderLineItem[];
  createdAt: string;
  updatedAt: string;
}

export interface BillingSchedule {
  id: string;
  object: 'billing_schedule';
  merchantId: string;
  startDate: string;
  endDate: string;
  billingAnchor: string;
  customPeriodWindows: unknown[];
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  orderId: string;
  subscriptionId?: null;
  paymentTermDays: number;
  status: 'draft' | 'active' | 'completed' | 'cancelled';
  deletedAt: string | null;
}

export interface ScheduleInput {
  startDate?: string;
  endDate?: string;
  billingAnchor?: string;
  orderId?: string;
  subscriptionId?: string;
  paymentTermDays?: number;
  customPeriodWindows?: unknown[];
  metadata?: Record<string, unknown>;
}

/**
 * The owner rules: creation by subscriptionId is unsupported (every schedule belongs to an
 * order), and a schedule has exactly one owner. Reference choice: 400 with a code.
 */
export function assertOrderOwner(input: ScheduleInput): string {
  const hasOrder = typeof input.orderId === 'string' && input.orderId !== '';
  const hasSub = input.subscriptionId !== undefined && input.subscriptionId !== null;
  if (hasSub) {
    // Alone it is unsupported; beside orderId it would give the schedule two owners.
    throw badRequest(
      SCHEDULE_CODES.subscriptionOwnerUnsupported,
      hasOrder
        ? 'subscriptionId: a schedule has exactly one owner; send orderId only (creation by subscriptionId is unsupported)'
        : 'subscriptionId: creating a billing schedule by subscriptionId is unsupported; every schedule belongs to an order, send orderId',
    );
  }
  if (!hasOrder)
    throw badRequest(SCHEDULE_CODES.ownerRequired, 'orderId: required; every schedule belongs to an order');
  return input.orderId!;
}

/** Defaults: startDate now, endDate one year after it (always present), anchor at the start. */
export function newSchedule(merchantId: string, input: ScheduleInput, now: string): BillingSchedule {
  const orderId = assertOrderOwner(input);
  const startDate = input.startDate ?? now;
  const endDate = input.endDate ?? addPeriods(new Date(startDate), { months: 12, days: 0 }, 1).toISOString();
  if (input.paymentTermDays !== undefined && (!Number.isInteger(input.paymentTermDays) || input.paymentTermDays < 0)) {
    throw badRequest(SCHEDULE_CODES.invalidTerm, 'paymentTermDays: a whole number of days, at least 0');
  }
  if (new Date(endDate).getTime() <= new Date(startDate).getTime()) {
    throw badRequest(SCHEDULE_CODES.invalidDates, 'endDate: must be after startDate');
  }
  return {
    id: newId(PREFIX.billingSchedule),
    object: 'billing_schedule',
    merchantId,
    startDate: new Date(startDate).toISOString(),
    endDate: new Date(endDate).toISOString(),
    billingAnchor: new Date(input.billingAnchor ?? startDate).toISOString(),
    customPeriodWindows: input.customPeriodWindows ?? [],
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
    orderId,
    paymentTermDays: input.paymentTermDays ?? 30,
    status: 'active',
    deletedAt: null,
  };
}

/** One interval per order line item over the schedule's dates; cadence from the price, else P1M. */
export function intervalsFor(
  schedule: BillingSchedule,
  order: Order,
  cadenceOf: (priceId: string) => string | undefined,
  now: string,
): ScheduleInterval[] {
  return order.lineItems.map((li) => {
    const cadence = (li.priceId && cadenceOf(li.priceId)) || 'P1M';
    parseCadence(cadence);
    const interval: ScheduleInterval = {
      id: newId(PREFIX.scheduleInterval),
      object: 'schedule_interval',
      scheduleId: schedule.id,
      baseQuantity: formatPlain(li.quantity),
      quantityTransitions: [],
      billingCadence: cadence,
      startDate: schedule.startDate,
      endDate: schedule.endDate,
      metadata: {},
      orderLineItemId: li.id,
      description: li.description,
      unitPrice: formatPlain(li.unitPrice),
      billDate: schedule.billingAnchor,
      usageFilter: {},
      createdAt: now,
      updatedAt: now,
    };
    if (li.itemId) interval.itemId = li.itemId;
    if (li.priceId) interval.priceId = li.priceId;
    return interval;
  });
}

/**
 * Reference extension, used by version migration: an order is linked to a subscription
 * when it names it, or names no subscription and belongs to the subscription's customer.
 */
export function orderLinkedTo(
  order: Pick<Order, 'subscriptionId' | 'customerId'>,
  sub: { id: string; customerId: string },
): boolean {
  if (order.subscriptionId) return order.subscriptionId === sub.id;
  return order.customerId === sub.customerId;
}
