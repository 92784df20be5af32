/** Customers: creation defaults and the PATCH rules of the document. */
import { badRequest } from './errors.ts';
import { newId, PREFIX } from './ids.ts';
import type { Customer, NotificationSettings } from './types.ts';

export const EXTERNAL_ID_MAX = 255;

export const DEFAULT_NOTIFICATIONS: NotificationSettings = {
  invoiceIssued: true,
  invoicePaid: true,
  renewalReminder: false,
};

/**
 * The reference has no address verification with the service's own tax product, so every
 * customer reads valid false; invoices then use the default tax rate (the document's fallback).
 */
export const VALID_TAX_ADDRESS = {
  valid: false,
  message: 'No address verified for tax calculation; invoices use the default tax rate.',
} as const;

export interface CustomerInput {
  name?: string | null;
  email?: string | null;
  externalId?: string | null;
  taxId?: string | null;
}

export function newCustomer(merchantId: string, input: CustomerInput, now: string): Customer {
  if (typeof input.externalId === 'string' && input.externalId.length > EXTERNAL_ID_MAX) {
    throw badRequest('EXTERNAL_ID_TOO_LONG', `externalId: at most ${EXTERNAL_ID_MAX} characters`);
  }
  const c: Customer = {
    id: newId(PREFIX.customer),
    object: 'customer',
    consumerId: newId(PREFIX.organization),
    merchantId,
    name: input.name ?? null,
    email: input.email ?? null,
    validTaxAddress: { ...VALID_TAX_ADDRESS },
    notificationSettings: { ...DEFAULT_NOTIFICATIONS },
    createdAt: now,
    updatedAt: now,
  };
  if (typeof input.externalId === 'string') c.externalId = input.externalId;
  if (typeof input.taxId === 'string') c.taxId = input.taxId;
  return c;
}

export interface CustomerPatch {
  taxId?: string | null;
  externalId?: string | null;
  taxRates?: number;
  notificationSettings?: Partial<NotificationSettings>;
}

/**
 * Applies a PATCH: null clears taxId / externalId; taxRates (0..100) becomes the single
 * rate {default: n}, which applies to every plan and metric (it replaces any specific
 * rates); notificationSettings changes only the flags given.
 */
export function applyCustomerPatch(c: Customer, patch: CustomerPatch, now: string): Customer {
  const next: Customer = { ...c, notificationSettings: { ...DEFAULT_NOTIFICATIONS, ...c.notificationSettings } };
  if (patch.taxId === null) delete next.taxId;
  else if (patch.taxId !== undefined) next.taxId = patch.taxId;
  if (patch.externalId === null) delete next.externalId;
  else if (patch.externalId !== undefined) {
    if (patch.externalId.length > EXTERNAL_ID_MAX) {
      throw badRequest('EXTERNAL_ID_TOO_LONG', `externalId: at most ${EXTERNAL_ID_MAX} characters`);
    }
    next.externalId = patch.externalId;
  }
  if (patch.taxRates !== undefined) {
    const r = patch.taxRates;
    if (typeof r !== 'number' || !Number.isFinite(r) || r < 0 || r > 100) {
      throw badRequest('TAX_RATE_OUT_OF_RANGE', 'taxRates: a number from 0 to 100');
    }
    next.taxRates = { default: r };
  }
  if (patch.notificationSettings) {
    for (const k of ['invoiceIssued', 'invoicePaid', 'renewalReminder'] as const) {
      const v = patch.notificationSettings[k];
      if (typeof v === 'boolean') next.notificationSettings[k] = v;
    }
  }
  next.validTaxAddress = next.validTaxAddress ?? { ...VALID_TAX_ADDRESS };
  next.updatedAt = now;
  return next;
}
