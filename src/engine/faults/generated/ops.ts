/**
 * Where a generated fault belongs: the catalog family of each documented operation, and
 * the suites run for it (the contract suite, which sends every documented operation, plus
 * each suite that drives the operation). Generous on purpose: a fault is judged by every
 * suite that could see it, not by the one written for its family only.
 */
import type { FaultFamily } from '../catalog/types.ts';

interface Placement {
  family: FaultFamily;
  suites: string[];
}

const OPS: Record<string, Placement> = {
  updateWebhooks: { family: 'webhooks', suites: ['webhooks', 'auth'] },
  createBillingSchedule: { family: 'billing-schedules', suites: ['billing-schedules'] },
  listScheduleIntervals: { family: 'billing-schedules', suites: ['billing-schedules'] },
  deleteBillingSchedule: { family: 'billing-schedules', suites: ['billing-schedules'] },
  updateItem: { family: 'items', suites: ['items'] },
  getCustomer: { family: 'customers', suites: ['customers', 'delete-blockers'] },
  updateCustomer: { family: 'customers', suites: ['customers'] },
  deleteCustomer: { family: 'delete-blockers', suites: ['delete-blockers', 'customers'] },
  updateSourceRule: { family: 'catalog', suites: ['source-rules'] },
  createInvoiceRefund: { family: 'refunds-payments', suites: ['refunds-payments'] },
  getPayment: { family: 'refunds-payments', suites: ['refunds-payments'] },
  createMerchant: { family: 'catalog', suites: ['merchants'] },
  getMerchant: { family: 'catalog', suites: ['merchants', 'auth'] },
  createProduct: { family: 'catalog', suites: ['products', 'items'] },
  getPrice: { family: 'catalog', suites: ['prices', 'delete-blockers'] },
  deleteFee: { family: 'delete-blockers', suites: ['delete-blockers'] },
  listAlerts: { family: 'alerts', suites: ['alerts'] },
  updateAlert: { family: 'alerts', suites: ['alerts'] },
  updateAutoTopupConfig: { family: 'catalog', suites: ['wallets'] },
  migrateSubscriptionVersion: { family: 'version-migration', suites: ['version-migration'] },
  updateSubscription: { family: 'version-migration', suites: ['version-migration'] },
  listCustomers: { family: 'rate-limits', suites: ['rate-limits', 'auth'] },
  createReconciliation: { family: 'rate-limits', suites: ['rate-limits'] },
  createPortalSession: { family: 'rate-limits', suites: ['rate-limits'] },
  createInvoiceLineItems: { family: 'rate-limits', suites: ['rate-limits'] },
  getCostsReport: { family: 'rate-limits', suites: ['rate-limits'] },
  listCrmAccounts: { family: 'rate-limits', suites: ['rate-limits'] },
};

/** Suites where each documented error status is provoked. */
const ERROR_SUITES: Record<string, string[]> = {
  '400': ['contract', 'alerts', 'customers', 'webhooks', 'products', 'prices', 'source-rules'],
  '401': ['auth'],
  '403': ['auth', 'webhooks'],
  '404': [
    'contract',
    'customers',
    'refunds-payments',
    'merchants',
    'prices',
    'source-rules',
    'wallets',
    'webhooks',
    'version-migration',
    'isolation',
  ],
  '409': ['delete-blockers', 'version-migration'],
  '429': ['rate-limits'],
};

export function placement(operationId: string): Placement {
  const p = OPS[operationId];
  if (!p) throw new Error(`generated faults: no placement for operation ${operationId}`);
  return { family: p.family, suites: [...new Set(['contract', ...p.suites])].sort() };
}

export function errorSuites(status: string): string[] {
  return ERROR_SUITES[status] ?? ['contract'];
}

export const ERROR_FAMILY: FaultFamily = 'conventions';
