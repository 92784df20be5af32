/**
 * Where a generated fault belongs: the catalog area of each documented operation, and
 * the suites run for it (the contract suite, which sends every documented operation, plus
 * each suite that drives the operation). Generous on purpose: a fault is judged by every
 * suite that could see it, not by the one written for its area only.
 */
import type { FaultArea } from '../catalog/types.ts';

interface Placement {
  area: FaultArea;
  suites: string[];
}

const OPS: Record<string, Placement> = {
  updateWebhooks: { area: 'webhooks', suites: ['webhooks', 'auth'] },
  createBillingSchedule: { area: 'billing-schedules', suites: ['billing-schedules'] },
  listScheduleIntervals: { area: 'billing-schedules', suites: ['billing-schedules'] },
  deleteBillingSchedule: { area: 'billing-schedules', suites: ['billing-schedules'] },
  updateItem: { area: 'items', suites: ['items'] },
  getCustomer: { area: 'customers', suites: ['customers', 'delete-blockers'] },
  updateCustomer: { area: 'customers', suites: ['customers'] },
  deleteCustomer: { area: 'delete-blockers', suites: ['delete-blockers', 'customers'] },
  updateSourceRule: { area: 'merchants-products', suites: ['source-rules'] },
  createInvoiceRefund: { area: 'refunds-payments', suites: ['refunds-payments'] },
  getPayment: { area: 'refunds-payments', suites: ['refunds-payments'] },
  createMerchant: { area: 'merchants-products', suites: ['merchants'] },
  getMerchant: { area: 'merchants-products', suites: ['merchants', 'auth'] },
  createProduct: { area: 'merchants-products', suites: ['products', 'items'] },
  getPrice: { area: 'merchants-products', suites: ['prices', 'delete-blockers'] },
  deleteFee: { area: 'delete-blockers', suites: ['delete-blockers'] },
  listAlerts: { area: 'alerts', suites: ['alerts'] },
  updateAlert: { area: 'alerts', suites: ['alerts'] },
  updateAutoTopupConfig: { area: 'merchants-products', suites: ['wallets'] },
  migrateSubscriptionVersion: { area: 'version-migration', suites: ['version-migration'] },
  updateSubscription: { area: 'version-migration', suites: ['version-migration'] },
  listCustomers: { area: 'rate-limits', suites: ['rate-limits', 'auth'] },
  createReconciliation: { area: 'rate-limits', suites: ['rate-limits'] },
  createPortalSession: { area: 'rate-limits', suites: ['rate-limits'] },
  createInvoiceLineItems: { area: 'rate-limits', suites: ['rate-limits'] },
  getCostsReport: { area: 'rate-limits', suites: ['rate-limits'] },
  listCrmAccounts: { area: 'rate-limits', suites: ['rate-limits'] },
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
  return { area: p.area, suites: [...new Set(['contract', ...p.suites])].sort() };
}

export function errorSuites(status: string): string[] {
  return ERROR_SUITES[status] ?? ['contract'];
}

export const ERROR_AREA: FaultArea = 'conventions';
