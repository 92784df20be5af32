/** Stored shapes of the resources the domain works on (what the API returns, plus internals). */

export interface Timestamps {
  createdAt: string;
  updatedAt: string;
}

export interface TaxRates {
  [planOrMetricIdOrDefault: string]: number;
}

export interface NotificationSettings {
  invoiceIssued: boolean;
  invoicePaid: boolean;
  renewalReminder: boolean;
}

export interface Customer extends Timestamps {
  id: string;
  object: 'customer';
  consumerId: string;
  merchantId: string;
  name?: string | null;
  email?: string | null;
  validTaxAddress: { valid: boolean; message: string | null };
  taxId?: string;
  externalId?: string;
  taxRates?: TaxRates;
  notificationSettings: NotificationSettings;
}

export interface ExternalReference extends Timestamps {
  id: string;
  object: 'externalReference';
  merchantId: string;
  entityType: string;
  entityId: string;
  provider: string;
  externalId: string;
  metadata: Record<string, unknown>;
  isPrimary: boolean;
  isDefault: boolean;
  externalLabel?: string;
}

export interface Item extends Timestamps {
  id: string;
  object: 'item';
  merchantId: string;
  name: string;
  metadata: Record<string, unknown>;
  catalogId: string;
  archivedAt: string | null;
}

export interface BillableMetric extends Timestamps {
  id: string;
  object: 'billable_metric';
  merchantId: string;
  productId: string;
  itemId?: string | null;
  name: string;
  description?: string;
  unit?: string;
  status: 'live' | 'archived';
  archivedAt?: string | null;
}

export interface Fee extends Timestamps {
  id: string;
  object: 'fee';
  merchantId: string;
  productId: string;
  itemId?: string | null;
  name: string;
  invoiceDisplayName: string;
}

export type PriceModel = 'standard' | 'volume' | 'dynamic' | 'percentage';
export type UnitBasis = 'amount' | 'proportion';

export interface VolumeTier {
  unitPrice: string;
  upTo: string | null;
}

export interface Price extends Timestamps {
  id: string;
  object: 'price';
  merchantId: string;
  feeId?: string;
  billableMetricId?: string;
  pricingUnitId?: string;
  currency: string;
  description?: string;
  invoiceDisplayName?: string;
  model: PriceModel;
  paymentTerm: 'in_arrears' | 'in_advance';
  properties: { unitPrice?: string; tiers?: VolumeTier[]; [k: string]: unknown };
  unitAmount?: string;
  /** Fee prices only; metered prices derive quantity from usage. */
  quantity?: number;
  /** ISO 8601 duration; P0D one-time. Absent: the plan's billing cadence. */
  cadence?: string;
  /** Reference extension: what properties.unitPrice means (document: "unit basis"). */
  unitBasis: UnitBasis;
  features: unknown[];
}

export interface Feature {
  key: string;
  resetPeriod: string;
  billableMetricId?: string | null;
  pricingUnitId?: string | null;
}

export interface PlanVersion {
  id: string;
  object: 'plan_version';
  planId: string;
  versionNumber: number;
  /** Derived on read from archivedAt / the plan's default. */
  status?: 'published' | 'archived';
  isDefault?: boolean;
  priceIds: string[];
  features: Feature[];
  archivedAt: string | null;
  createdAt: string;
}

export interface Plan extends Timestamps {
  id: string;
  object: 'plan';
  merchantId: string;
  productId: string;
  name: string;
  billingCadence: string;
  currency: string;
  defaultVersionNumber: number | null;
  versions: PlanVersion[];
}

export interface Override {
  priceId: string;
  unitPrice: string;
}

export interface PendingMigration {
  fromVersionNumber: number;
  toVersionNumber: number;
  effectiveAt: string;
}

export interface Subscription extends Timestamps {
  id: string;
  object: 'subscription';
  merchantId: string;
  versionPolicy: 'pinned' | 'floating';
  autoCharge: boolean;
  taxExempt: boolean;
  customerId: string;
  /** Absent when open-ended (the document types it date-time, never null). */
  endingAt?: string | null;
  estimatedTaxRate: number;
  name: string;
  payment: Record<string, unknown> | null;
  planId: string;
  startedAt: string;
  /** active is live; cancelled by the API; ended when endingAt passed. */
  status: 'active' | 'cancelled' | 'ended';
  terminatedAt: string | null;
  terminatedBy: string | null;
  terminationReason: string | null;
  planVersionId: string;
  versionNumber: number;
  /** Extensions. */
  billingAnchor: string;
  testClockId: string | null;
  currentPeriodStart: string;
  currentPeriodEnd: string | null;
  pendingMigration: PendingMigration | null;
  overrides: Override[];
  /** Internal (never served): end of the last period closed by a test clock. */
  _lastClosedPeriodEnd?: string | null;
}

export interface ScheduleInterval extends Timestamps {
  id: string;
  object: 'schedule_interval';
  scheduleId: string;
  baseQuantity: string;
  quantityTransitions: Array<{ effectiveDate: string; quantity: string }>;
  billingCadence: string;
  startDate: string;
  endDate: string;
  metadata: Record<string, unknown>;
  orderLineItemId: string;
  itemId?: string;
  priceId?: string;
  description: string;
  unitPrice: string;
  billDate: string;
  usageFilter: Record<string, unknown>;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void';

export interface InvoiceLine {
  object: 'invoice_line_item';
  id: string;
  description: string;
  /** Unit amount. */
  amount: string;
  quantity: number;
  /** quantity x amount, rounded to the currency. */
  subtotal: string;
  taxRate: number;
  taxAmount: string;
  /** subtotal + taxAmount. */
  total: string;
  priceId: string | null;
  feeId?: string | null;
  billableMetricId?: string | null;
  itemId?: string | null;
  periodStart: string | null;
  periodEnd: string | null;
}

export interface Invoice extends Timestamps {
  id: string;
  object: 'invoice';
  merchantId: string;
  customerId: string;
  subscriptionId: string | null;
  status: InvoiceStatus;
  currency: string;
  lineItems: InvoiceLine[];
  subtotal: string;
  taxAmount: string;
  total: string;
  amountRefunded: string;
  periodStart: string | null;
  periodEnd: string | null;
  paymentId: string | null;
  finalizedAt: string | null;
  paidAt: string | null;
}
