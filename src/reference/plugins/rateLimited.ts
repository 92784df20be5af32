import { buildLine, taxRateFor, totals } from '../domain/billing.ts';
import type { Customer, Invoice } from '../domain/types.ts';
import { conflict, notFound } from '../errors.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { newId } from '../storage/ids.ts';

/** The list envelope of the document's conventions. */
export function listEnvelope<T>(data: T[], limit: number, offset: number, total: number) {
  return { object: 'list', data, pagination: { limit, offset, total } };
}

interface LineItemInput {
  description: string;
  amount: string;
  quantity?: number;
  taxRate?: number;
}

/**
 * The six rate-limited operations. The rate-limit hook has already counted the request
 * when these handlers run; their payloads are the reference's choice (x-reference-choice
 * in spec/openapi.yaml). Storage types read here: `customer`, `subscription`, `invoice`.
 */
export const rateLimitedPlugin: ResourcePlugin = {
  name: 'rateLimited',
  async register(app, { repo, now }) {
    app.get('/v0/customers', { config: { operationId: 'listCustomers' } }, async (request) => {
      const q = request.query as { limit?: number; offset?: number };
      const limit = q.limit ?? 10;
      const offset = q.offset ?? 0;
      const page = await repo.list('customer', request.auth!.merchantId, { limit, offset });
      return listEnvelope(page.data, limit, offset, page.total);
    });

    const subscriptionOf = async (merchantId: string, id: string) => {
      const sub = await repo.get('subscription', id, merchantId);
      if (!sub) throw notFound(`Subscription ${id} not found`);
      return sub;
    };

    app.post('/v0/subscriptions/:id/reconciliations', { config: { operationId: 'createReconciliation' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const sub = await subscriptionOf(request.auth!.merchantId, id);
      return reply.code(201).send({ id: newId('rec'), object: 'reconciliation', subscriptionId: sub.id, status: 'completed', createdAt: now().toISOString() });
    });

    app.post('/v0/subscriptions/:id/portal', { config: { operationId: 'createPortalSession' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const sub = await subscriptionOf(request.auth!.merchantId, id);
      const t = now();
      const sessionId = newId('ps');
      return reply.code(201).send({
        id: sessionId,
        object: 'portal_session',
        subscriptionId: sub.id,
        url: `https://portal.reference.invalid/sessions/${sessionId}`,
        expiresAt: new Date(t.getTime() + 3600_000).toISOString(),
        createdAt: t.toISOString(),
      });
    });

    app.post('/v2/invoices/lineItems', { config: { operationId: 'createInvoiceLineItems' } }, async (request, reply) => {
      const body = request.body as { invoiceId: string; lineItems: LineItemInput[] };
      const merchantId = request.auth!.merchantId;
      const updated = await repo.transaction(async (tx) => {
        const invoice = await tx.getForUpdate<Invoice & Record<string, unknown>>('invoice', body.invoiceId, merchantId);
        if (!invoice) throw notFound(`Invoice ${body.invoiceId} not found`);
        if (invoice.status !== 'draft') throw conflict(`Invoice ${invoice.id} is ${invoice.status}: line items can only be added to a draft invoice`, 'INVOICE_NOT_DRAFT');
        const customer = await tx.get<Customer & Record<string, unknown>>('customer', invoice.customerId, merchantId);
        const lines = [
          ...invoice.lineItems,
          ...body.lineItems.map((l) =>
            buildLine({ description: l.description, unitAmount: l.amount, quantity: l.quantity ?? 1, taxRate: l.taxRate ?? taxRateFor(customer?.taxRates, {}) }, invoice.currency),
          ),
        ];
        return tx.update('invoice', invoice.id, merchantId, { lineItems: lines, ...totals(lines, invoice.currency) });
      });
      return reply.code(201).send(updated);
    });

    app.get('/v0/costs/report', { config: { operationId: 'getCostsReport' } }, async (request) => {
      const q = request.query as { productId?: string; from?: string; to?: string };
      // No cost source exists in the reference: the report is empty but well-formed.
      return { object: 'costs_report', merchantId: request.auth!.merchantId, productId: q.productId ?? null, from: q.from ?? null, to: q.to ?? null, currency: 'USD', total: '0.00', data: [] };
    });

    app.get('/v0/integrations/:crmProvider/accounts', { config: { operationId: 'listCrmAccounts' } }, async () => {
      // No CRM is connected in the sandbox: an empty page.
      return listEnvelope([], 10, 0, 0);
    });
  },
};
