/** Invoices v2 (extensions: create, read, list, finalize, pay), line items (rate-limited) and refunds (credit notes). */
import { buildLine, newInvoice, taxRateFor, totals } from '../domain/billing.ts';
import { conflict, notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { assertAmount } from '../domain/money.ts';
import { refundInvoice } from '../domain/refunds.ts';
import { TYPES, type Stored } from '../domain/services/store.ts';
import type { Customer, Invoice } from '../domain/types.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created, listEnvelope, merchant, paging } from './common.ts';

export const INVOICE_CODES = {
  notDraft: 'INVOICE_NOT_DRAFT',
  notOpen: 'INVOICE_NOT_OPEN',
} as const;

interface LineItemInput {
  description: string;
  amount: string;
  quantity?: number;
  taxRate?: number;
}

export const invoicesPlugin: ResourcePlugin = {
  name: 'invoices',
  async register(app, { repo, now }) {
    const load = async (tx: typeof repo, m: string, id: string) => {
      const inv = await tx.getForUpdate<Stored<Invoice>>(TYPES.invoice, id, m);
      if (!inv) throw notFound('Invoice', id, 'INVOICE_NOT_FOUND');
      return inv;
    };

    app.post('/v2/invoices', { config: { operationId: 'createInvoice' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as { customerId: string; currency?: string; lineItems: LineItemInput[] };
      body.lineItems.forEach((l, i) => assertAmount(`lineItems[${i}].amount`, l.amount));
      const customer = await repo.getForShare<Stored<Customer>>(TYPES.customer, body.customerId, m);
      if (!customer) throw notFound('Customer', body.customerId, 'CUSTOMER_NOT_FOUND');
      const currency = body.currency ?? 'USD';
      // A line without its own rate takes the customer's default rate.
      const lines = body.lineItems.map((l) =>
        buildLine(
          {
            description: l.description,
            unitAmount: l.amount,
            quantity: l.quantity ?? 1,
            taxRate: l.taxRate ?? taxRateFor(customer.taxRates, {}),
          },
          currency,
        ),
      );
      const inv = newInvoice({ merchantId: m, customerId: customer.id, currency, lines, now: now().toISOString() });
      const { id, createdAt, updatedAt, ...data } = inv;
      void createdAt;
      void updatedAt;
      return created(reply, await repo.insert(TYPES.invoice, m, data, { prefix: PREFIX.invoice, id }));
    });

    app.get('/v2/invoices', { config: { operationId: 'listInvoices' } }, async (request) => {
      const m = merchant(request);
      const q = request.query as { subscriptionId?: string; customerId?: string };
      const { limit, offset, skip } = paging(request);
      const where: Record<string, unknown> = {};
      if (q.subscriptionId) where.subscriptionId = q.subscriptionId;
      if (q.customerId) where.customerId = q.customerId;
      const page = await repo.list(TYPES.invoice, m, {
        where,
        limit,
        offset: skip,
        orderBy: { field: 'createdAt', direction: 'desc' },
      });
      return listEnvelope(page.data, limit, offset, page.total);
    });

    app.get('/v2/invoices/:id', { config: { operationId: 'getInvoice' } }, async (request) => {
      const { id } = request.params as { id: string };
      const inv = await repo.get(TYPES.invoice, id, merchant(request));
      if (!inv) throw notFound('Invoice', id, 'INVOICE_NOT_FOUND');
      return inv;
    });

    app.post('/v2/invoices/:id/finalize', { config: { operationId: 'finalizeInvoice' } }, async (request) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      return repo.transaction(async (tx) => {
        const inv = await load(tx, m, id);
        if (inv.status !== 'draft')
          throw conflict(
            INVOICE_CODES.notDraft,
            `invoice ${id} is ${inv.status}: only a draft invoice can be finalized`,
          );
        return tx.update(TYPES.invoice, id, m, { status: 'open', finalizedAt: now().toISOString() });
      });
    });

    app.post('/v2/invoices/:id/pay', { config: { operationId: 'payInvoice' } }, async (request) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      return repo.transaction(async (tx) => {
        const inv = await load(tx, m, id);
        if (inv.status !== 'open')
          throw conflict(INVOICE_CODES.notOpen, `invoice ${id} is ${inv.status}: only an open invoice can be paid`);
        const at = now().toISOString();
        const payment = await tx.insert(
          TYPES.payment,
          m,
          {
            object: 'payment',
            amount: inv.total,
            currency: inv.currency,
            status: 'completed',
            customerId: inv.customerId,
            reference: inv.id,
            metadata: { invoiceId: inv.id },
            lineItems: [],
          },
          { prefix: PREFIX.payment, id: newId(PREFIX.payment) },
        );
        return tx.update(TYPES.invoice, id, m, { status: 'paid', paidAt: at, paymentId: payment.id });
      });
    });

    // Rate-limited (the hook has counted the request); the payload is the reference's
    // choice (x-reference-choice in spec/openapi.yaml): lines added to a draft invoice.
    app.post(
      '/v2/invoices/lineItems',
      { config: { operationId: 'createInvoiceLineItems' } },
      async (request, reply) => {
        const body = request.body as { invoiceId: string; lineItems: LineItemInput[] };
        body.lineItems.forEach((l, i) => assertAmount(`lineItems[${i}].amount`, l.amount));
        const m = merchant(request);
        const invoice = await load(repo, m, body.invoiceId);
        if (invoice.status !== 'draft')
          throw conflict(
            INVOICE_CODES.notDraft,
            `invoice ${invoice.id} is ${invoice.status}: line items can only be added to a draft invoice`,
          );
        const customer = await repo.get<Stored<Customer>>(TYPES.customer, invoice.customerId, m);
        const lines = [
          ...invoice.lineItems,
          ...body.lineItems.map((l) =>
            buildLine(
              {
                description: l.description,
                unitAmount: l.amount,
                quantity: l.quantity ?? 1,
                taxRate: l.taxRate ?? taxRateFor(customer?.taxRates, {}),
              },
              invoice.currency,
            ),
          ),
        ];
        return created(
          reply,
          await repo.update(TYPES.invoice, invoice.id, m, { lineItems: lines, ...totals(lines, invoice.currency) }),
        );
      },
    );

    app.post('/v2/invoices/:id/refunds', { config: { operationId: 'createInvoiceRefund' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      const reason = (request.body as { reason?: string } | undefined)?.reason;
      const note = await repo.transaction(async (tx) => {
        const inv = await load(tx, m, id);
        const { creditNote, invoice } = refundInvoice(
          inv,
          reason,
          now().toISOString(),
          'https://credit-notes.reference.invalid',
        );
        await tx.update(TYPES.invoice, id, m, { amountRefunded: invoice.amountRefunded });
        const { id: noteId, createdAt, ...data } = creditNote;
        return tx.insert(TYPES.creditNote, m, { ...data, createdAt }, { prefix: PREFIX.creditNote, id: noteId });
      });
      const { updatedAt, ...body } = note as Record<string, unknown>;
      void updatedAt;
      return created(reply, body);
    });
  },
};
