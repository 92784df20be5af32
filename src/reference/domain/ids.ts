import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A prefixed id matching the document's patterns, e.g. `cus_` + 20 alphanumerics. */
export function newId(prefix: string, length = 20): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  // Rejection sampling keeps the distribution uniform (248 = 62 * 4).
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  }
  while (out.length < length) out += ALPHABET[randomBytes(1)[0] % 62];
  return `${prefix}_${out}`;
}

/** The id prefixes of the reference server, one per resource type. */
export const PREFIX = {
  customer: 'cus',
  organization: 'org',
  product: 'prod',
  item: 'itm',
  externalReference: 'xref',
  billableMetric: 'bm',
  fee: 'fee',
  price: 'price',
  pricingUnit: 'pu',
  plan: 'plan',
  planVersion: 'plv',
  subscription: 'sub',
  testClock: 'clk',
  invoice: 'inv',
  invoiceLine: 'ili',
  creditNote: 'crn',
  payment: 'pay',
  source: 'src',
  sourceRule: 'srule',
  wallet: 'wal',
  alert: 'alrt',
  webhookEndpoint: 'we',
  webhookApplication: 'app',
  order: 'ord',
  orderLineItem: 'oli',
  billingSchedule: 'bs',
  scheduleInterval: 'si',
  event: 'evt',
  topup: 'top',
} as const;
