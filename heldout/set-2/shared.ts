/**
 * Small helpers of held-out set 2 (written from the interface document alone): ids of another
 * resource of the same kind, bounded memories of ids the traffic showed, and demo fixtures.
 */
import type { FaultContext, ProxyRequest } from '../../src/faults/fault-proxy.ts';
import { isObj, stateMap, T0, type Json } from '../../src/faults/catalog/helpers.ts';

/** How many ids of one kind a fault remembers (oldest forgotten first). */
const MAX_SEEN = 256;

/** A different id of the same shape: its last letter or digit moved on by one (prefix and pattern kept). */
export function otherId(id: string): string {
  const m = /^(.*?)([a-zA-Z0-9])$/.exec(id);
  if (!m) return `${id}0`;
  const c = m[2];
  const next = c === '9' ? '0' : c === 'z' ? 'a' : c === 'Z' ? 'A' : String.fromCharCode(c.charCodeAt(0) + 1);
  return m[1] + next;
}

/** Remembers `id` under `kind` (bounded). */
export function note(ctx: FaultContext, kind: string, id: unknown): void {
  if (typeof id !== 'string' || !id) return;
  const m = stateMap<string, true>(ctx, `seen:${kind}`);
  m.delete(id);
  m.set(id, true);
  if (m.size > MAX_SEEN) m.delete(m.keys().next().value as string);
}

/** The id of `kind` most recently seen that is not `own`; failing that, `own` with its last character changed. */
export function another(ctx: FaultContext, kind: string, own: string): string {
  const ids = [...stateMap<string, true>(ctx, `seen:${kind}`).keys()].reverse();
  return ids.find((i) => i !== own) ?? otherId(own);
}

/** The objects a body shows: the body itself and, for a list, its elements. */
export function objectsOf(body: unknown): Json[] {
  if (!isObj(body)) return [];
  const out: Json[] = [body];
  if (Array.isArray(body.data)) for (const d of body.data) if (isObj(d)) out.push(d);
  return out;
}

/** Remembers the merchant organization ids a body names (owner fields, consumers, merchant objects). */
export function noteOrgs(ctx: FaultContext, body: unknown): void {
  for (const o of objectsOf(body)) {
    for (const k of ['merchantId', 'consumerId'])
      if (typeof o[k] === 'string' && o[k].startsWith('org_')) note(ctx, 'orgs', o[k]);
    if (o.object === 'merchant' && typeof o.id === 'string') note(ctx, 'orgs', o.id);
  }
}

/** A copy of a request with another JSON body (the proxy re-serialises `json` when it sends). */
export function withBody(rq: ProxyRequest, body: Json): ProxyRequest {
  return { ...rq, headers: { ...rq.headers }, json: body, body: Buffer.from(JSON.stringify(body)) };
}

export const DAY_MS = 86_400_000;

// ------------------------------------------------------------------ demo fixtures (shapes from the document)

export const MERCHANT = 'org_m1';
export const OTHER_MERCHANT = 'org_m2';

export const extRef = (over: Json = {}): Json => ({
  id: 'xref_1',
  object: 'externalReference',
  merchantId: MERCHANT,
  entityType: 'item',
  entityId: 'itm_1',
  provider: 'hubspot',
  externalId: 'HS-1',
  metadata: {},
  isPrimary: true,
  isDefault: true,
  externalLabel: 'HubSpot product',
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const item = (over: Json = {}): Json => ({
  id: 'itm_1',
  object: 'item',
  merchantId: MERCHANT,
  name: 'Widget',
  metadata: {},
  externalReferences: [extRef()],
  catalogId: 'prod_1',
  archivedAt: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const customer = (over: Json = {}): Json => ({
  id: 'cus_1',
  object: 'customer',
  consumerId: 'org_c1',
  merchantId: MERCHANT,
  createdAt: T0,
  updatedAt: T0,
  validTaxAddress: { valid: true, message: null },
  externalId: 'crm-1',
  notificationSettings: { invoiceIssued: true, invoicePaid: true, renewalReminder: true },
  ...over,
});

export const creditNote = (over: Json = {}): Json => ({
  object: 'invoice_refund',
  id: 'crn_1',
  invoiceId: 'inv_1',
  merchantId: MERCHANT,
  amount: '10.00',
  taxAmount: '1.00',
  total: '11.00',
  currency: 'USD',
  status: 'ISSUED',
  externalCreditNoteId: 'tx_cn_1',
  createdAt: T0,
  permalink: 'https://billing.example/credit-notes/crn_1',
  pdfUrl: 'https://billing.example/credit-notes/crn_1.pdf',
  reason: 'duplicate charge',
  voidedAt: null,
  ...over,
});

export const schedule = (over: Json = {}): Json => ({
  id: 'bs_1',
  object: 'billing_schedule',
  merchantId: MERCHANT,
  startDate: '2030-01-01T00:00:00.000Z',
  endDate: '2031-01-01T00:00:00.000Z',
  billingAnchor: '2030-01-01T00:00:00.000Z',
  customPeriodWindows: [],
  metadata: {},
  createdAt: T0,
  updatedAt: T0,
  orderId: 'ord_1',
  paymentTermDays: 30,
  ...over,
});

export const interval = (over: Json = {}): Json => ({
  id: 'si_1',
  object: 'schedule_interval',
  scheduleId: 'bs_1',
  baseQuantity: '1',
  quantityTransitions: [],
  billingCadence: 'P1M',
  startDate: '2030-01-01T00:00:00.000Z',
  endDate: '2031-01-01T00:00:00.000Z',
  metadata: {},
  createdAt: T0,
  updatedAt: T0,
  itemId: 'itm_1',
  priceId: 'price_1',
  description: 'Platform fee',
  unitPrice: '100.00',
  ...over,
});

export const price = (over: Json = {}): Json => ({
  id: 'price_1',
  object: 'price',
  merchantId: MERCHANT,
  billableMetricId: 'bm_1',
  createdAt: T0,
  updatedAt: T0,
  currency: 'USD',
  description: 'API calls',
  invoiceDisplayName: 'API calls',
  model: 'standard',
  paymentTerm: 'in_arrears',
  properties: { unitPrice: '0.10' },
  features: [],
  ...over,
});

export const volumePrice = (tiers: Json[]): Json => price({ id: 'price_2', model: 'volume', properties: { tiers } });

export const subscription = (over: Json = {}): Json => ({
  id: 'sub_1',
  object: 'subscription',
  versionPolicy: 'pinned',
  autoCharge: true,
  taxExempt: false,
  createdAt: T0,
  updatedAt: '2030-01-15T00:00:00.000Z',
  customerId: 'cus_1',
  endingAt: '2031-01-01T00:00:00.000Z',
  estimatedTaxRate: 0,
  name: 'Pro',
  payment: null,
  planId: 'plan_1',
  startedAt: T0,
  status: 'active',
  terminatedAt: null,
  terminatedBy: null,
  terminationReason: null,
  planVersionId: 'pv_1',
  versionNumber: 1,
  ...over,
});

export const migration = (from: number, to: number, over: Json = {}): Json => ({
  subscription: subscription({ versionNumber: from }),
  migration: {
    fromVersionNumber: from,
    toVersionNumber: to,
    effectiveAt: '2030-02-01T00:00:00.000Z',
    changed: from !== to,
  },
  lineItems: { syncFailed: false },
  ...over,
});

export const alert = (over: Json = {}): Json => ({
  object: 'alert',
  id: 'alrt_1',
  resourceId: 'wal_1',
  type: 'wallet_low_balance',
  config: { threshold: '10.00' },
  enabled: true,
  notifyPeriod: 24,
  recipients: ['ops@example.com'],
  lastNotifiedAt: T0,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const alertList = (data: Json[], pagination: Json = {}): Json => ({
  object: 'list',
  data,
  pagination: { limit: 10, offset: 0, total: data.length, ...pagination },
});

export const sourceRule = (over: Json = {}): Json => ({
  id: 'srule_1',
  conditions: [{ type: 'amount', operator: 'lte', value: '100' }],
  createdAt: T0,
  description: 'Small invoices',
  enabled: true,
  evaluationCount: 0,
  matchCount: 0,
  name: 'Auto-accept small',
  order: 1,
  sourceId: 'src_1',
  updatedAt: T0,
  createdBy: null,
  lastEvaluatedAt: null,
  ...over,
});

export const payment = (over: Json = {}): Json => ({
  id: 'pay_1',
  object: 'payment',
  amount: '25.00',
  currency: 'USD',
  status: 'pending',
  createdAt: T0,
  paymentUrl: 'https://pay.example/pay_1',
  customerId: 'cus_1',
  reference: 'order-77',
  metadata: {},
  expiresAt: '2030-01-02T00:00:00.000Z',
  ...over,
});

export const address = (over: Json = {}): Json => ({
  line1: '1 Main St',
  line2: 'Suite 2',
  city: 'Springfield',
  state: 'IL',
  country: 'US',
  zipCode: '62701',
  ...over,
});

export const merchant = (over: Json = {}): Json => ({
  id: 'org_new1',
  object: 'merchant',
  name: 'Acme',
  email: 'billing@acme.example',
  description: 'Acme Corp',
  metadata: {},
  vatNumber: 'US123',
  address: address(),
  billingAddress: address({ line1: '9 Ledger Rd', line2: '', zipCode: '10001', city: 'New York', state: 'NY' }),
  phone: '+15555550100',
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const webhooksConfig = (over: Json = {}): Json => ({
  object: 'webhooks',
  applicationId: 'app_1',
  createdAt: T0,
  enabled: true,
  merchantId: MERCHANT,
  updatedAt: T0,
  ...over,
});

export const topup = (over: Json = {}): Json => ({
  object: 'autoTopupConfig',
  amount: '50.00',
  threshold: '10.00',
  paymentMethod: 'pm_1',
  limit: { amount: 200, period: 'day' },
  createdAt: T0,
  updatedAt: T0,
  topupIds: [],
  ...over,
});
