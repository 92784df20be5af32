/**
 * Places where the interface document states a constraint although spec/openapi.yaml puts
 * an `x-not-shown` / `x-reference-choice` note on the node or an ancestor (notes there may
 * be about something else: a behaviour, the required fields). Negatives are built from these
 * too. Pointers are JSON Pointers inside the location; each entry quotes the document.
 */
import type { Location } from './schema.ts';

export const DOCUMENT_STATES: Record<string, Partial<Record<Location, string[]>>> = {
  // "PATCH /v0/customers/{id} — body (all optional): ... taxRates number 0..100"
  // (the note is about how the rate is stored in the customer's map).
  updateCustomer: { body: ['/taxRates'] },
  // "POST /v0/billingSchedules — Body fields: startDate, endDate, billingAnchor (date-time),
  // orderId (string), subscriptionId (string), paymentTermDays (integer),
  // customPeriodWindows (array), metadata (object)" (the note: which are required).
  createBillingSchedule: {
    body: [
      '/startDate',
      '/endDate',
      '/billingAnchor',
      '/orderId',
      '/subscriptionId',
      '/paymentTermDays',
      '/customPeriodWindows',
      '/metadata',
    ],
  },
  // "PATCH /v0/wallets/{id}/autoTopupConfig — Body: amount string, threshold string,
  // paymentMethod string, limit object {amount number, period string}" (the notes: the
  // formats of the amounts, the period values other than day).
  updateAutoTopupConfig: {
    body: ['/amount', '/threshold', '/paymentMethod', '/limit', '/limit/amount', '/limit/period'],
  },
};

/** What the document states for an operation's location, plus any the caller adds. */
export function statedFor(operationId: string, location: Location, extra: string[] = []): string[] {
  return [...(DOCUMENT_STATES[operationId]?.[location] ?? []), ...extra];
}
