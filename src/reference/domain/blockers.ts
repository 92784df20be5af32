/** Delete blockers: 409 {error: conflict, message, details: {blockers: [{type, count, items}]}}. */
import { conflict } from './errors.ts';

export interface Blocker<T> {
  type: string;
  count: number;
  items: T[];
}

/** Items listed per blocker; count is always the full number of dependants. */
export const BLOCKER_ITEMS_MAX = 100;

export function blocker<T>(type: string, items: T[]): Blocker<T> | null {
  if (items.length === 0) return null;
  return { type, count: items.length, items: items.slice(0, BLOCKER_ITEMS_MAX) };
}

/** Throws the 409 when any blocker exists. */
export function assertNoBlockers(
  what: string,
  id: string,
  blockers: Array<Blocker<unknown> | null>,
  code: string,
): void {
  const present = blockers.filter((b): b is Blocker<unknown> => b !== null);
  if (present.length === 0) return;
  const summary = present.map((b) => `${b.count} ${b.type}`).join(', ');
  throw conflict(code, `${what} ${id} cannot be deleted while it has dependants: ${summary}`, { blockers: present });
}

export const BLOCKER_CODES = {
  customer: 'CUSTOMER_HAS_DEPENDANTS',
  fee: 'FEE_HAS_DEPENDANTS',
} as const;

/** Customer: its live subscriptions block the delete. */
export function customerBlockers(subscriptions: Array<{ id: string; status: string }>) {
  return [
    blocker(
      'subscriptions',
      subscriptions.filter((s) => s.status === 'active').map((s) => ({ id: s.id, status: s.status })),
    ),
  ];
}

/** Fee: the prices linked to it block the delete. */
export function feeBlockers(prices: Array<{ id: string; invoiceDisplayName?: string | null }>, fallbackName: string) {
  return [
    blocker(
      'prices',
      prices.map((p) => ({ id: p.id, invoiceDisplayName: p.invoiceDisplayName ?? fallbackName })),
    ),
  ];
}
