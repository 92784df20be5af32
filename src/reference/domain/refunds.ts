/** Refunds: a crn_ credit note for the whole of a PAID invoice. */
import { conflict } from './errors.ts';
import { newId, PREFIX } from './ids.ts';
import { dec, formatMoney } from './money.ts';
import type { Invoice } from './types.ts';

/** Reference choice (spec x-reference-choice): a refund the invoice cannot take is 409 INVOICE_NOT_REFUNDABLE. */
export const REFUND_CODES = {
  notPaid: 'INVOICE_NOT_REFUNDABLE',
  alreadyRefunded: 'INVOICE_NOT_REFUNDABLE',
} as const;

export interface CreditNote {
  object: 'invoice_refund';
  id: string;
  invoiceId: string;
  merchantId: string;
  amount: string;
  taxAmount: string;
  total: string;
  currency: string;
  status: 'ISSUED' | 'VOIDED';
  externalCreditNoteId: string;
  createdAt: string;
  permalink: string;
  pdfUrl: string | null;
  reason: string | null;
  voidedAt: string | null;
}

/** Issues the credit note and returns the invoice with its refunded amount recorded. */
export function refundInvoice(
  invoice: Invoice,
  reason: string | null | undefined,
  now: string,
  baseUrl = 'https://reference.invalid',
): {
  creditNote: CreditNote;
  invoice: Invoice;
} {
  if (invoice.status !== 'paid') {
    throw conflict(
      REFUND_CODES.notPaid,
      `invoice ${invoice.id} is ${invoice.status}; only a paid invoice can be refunded`,
    );
  }
  const total = dec(invoice.total);
  if (dec(invoice.amountRefunded).greaterThanOrEqualTo(total)) {
    throw conflict(REFUND_CODES.alreadyRefunded, `invoice ${invoice.id} is already fully refunded`);
  }
  const id = newId(PREFIX.creditNote);
  const amount = formatMoney(invoice.subtotal, invoice.currency);
  const taxAmount = formatMoney(invoice.taxAmount, invoice.currency);
  const creditNote: CreditNote = {
    object: 'invoice_refund',
    id,
    invoiceId: invoice.id,
    merchantId: invoice.merchantId,
    amount,
    taxAmount,
    total: formatMoney(dec(amount).plus(dec(taxAmount)), invoice.currency),
    currency: invoice.currency,
    status: 'ISSUED',
    externalCreditNoteId: `ext_${id.slice(PREFIX.creditNote.length + 1)}`,
    createdAt: now,
    permalink: `${baseUrl}/credit-notes/${id}`,
    pdfUrl: null,
    reason: reason ?? null,
    voidedAt: null,
  };
  return {
    creditNote,
    invoice: { ...invoice, amountRefunded: formatMoney(total, invoice.currency), updatedAt: now },
  };
}
