/** Plain domain objects for the unit tests. */
import type {
  Plan,
  PlanVersion,
  Price,
  Subscription,
  ScheduleInterval,
  Feature,
} from '../../../src/reference/domain/types.ts';

export const T0 = '2024-01-31T10:00:00.000Z';

export function price(id: string, over: Partial<Price> = {}): Price {
  return {
    id,
    object: 'price',
    merchantId: 'org_m1',
    feeId: 'fee_1',
    currency: 'USD',
    model: 'standard',
    paymentTerm: 'in_arrears',
    properties: { unitPrice: '10.00' },
    quantity: 1,
    unitBasis: 'amount',
    features: [],
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

export function version(
  n: number,
  priceIds: string[],
  features: Feature[] = [],
  archivedAt: string | null = null,
): PlanVersion {
  return {
    id: `planv_${n}`,
    object: 'plan_version',
    planId: 'plan_1',
    versionNumber: n,
    priceIds,
    features,
    archivedAt,
    createdAt: T0,
  };
}

export function plan(versions: PlanVersion[], defaultVersionNumber = 1, billingCadence = 'P1M'): Plan {
  return {
    id: 'plan_1',
    object: 'plan',
    merchantId: 'org_m1',
    productId: 'prod_1',
    name: 'Plan',
    billingCadence,
    currency: 'USD',
    defaultVersionNumber,
    versions,
    createdAt: T0,
    updatedAt: T0,
  };
}

export function subscription(over: Partial<Subscription> = {}): Subscription {
  return {
    id: 'sub_1',
    object: 'subscription',
    merchantId: 'org_m1',
    versionPolicy: 'floating',
    autoCharge: false,
    taxExempt: false,
    customerId: 'cus_1',
    endingAt: null,
    estimatedTaxRate: 0,
    name: 'Plan',
    payment: null,
    planId: 'plan_1',
    startedAt: T0,
    status: 'active',
    terminatedAt: null,
    terminatedBy: null,
    terminationReason: null,
    planVersionId: 'planv_2',
    versionNumber: 2,
    billingAnchor: T0,
    testClockId: null,
    currentPeriodStart: T0,
    currentPeriodEnd: '2024-02-29T10:00:00.000Z',
    pendingMigration: null,
    overrides: [],
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

export function interval(id: string, priceId: string, endDate: string): ScheduleInterval {
  return {
    id,
    object: 'schedule_interval',
    scheduleId: 'bs_1',
    baseQuantity: '1',
    quantityTransitions: [],
    billingCadence: 'P1M',
    startDate: T0,
    endDate,
    metadata: {},
    orderLineItemId: 'oli_1',
    priceId,
    description: 'line',
    unitPrice: '5',
    billDate: T0,
    usageFilter: {},
    createdAt: T0,
    updatedAt: T0,
  };
}

export const priceMap = (...ps: Price[]) => new Map(ps.map((p) => [p.id, p]));
