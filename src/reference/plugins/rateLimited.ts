import { notFound } from '../errors.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { newId } from '../storage/ids.ts';

/** The list envelope of the document's conventions. */
export function listEnvelope<T>(data: T[], limit: number, offset: number, total: number) {
  return { object: 'list', data, pagination: { limit, offset, total } };
}

/**
 * The six rate-limited operations. The rate-limit hook has already counted the request
 * when these handlers run; their payloads are the reference's choice (x-reference-choice).
 */
export const rateLimitedPlugin: ResourcePlugin = {
  name: 'rateLimited',
  async register(app, { repo, now }) {
    app.get('/v0/customers', { config: { operationId: 'listCustomers' } }, async (request) => {
      const q = request.query as { limit?: number; offset?: number; externalId?: string };
      const limit = Number(q.limit ?? 10);
      const offset = Number(q.offset ?? 0);
      const where = q.externalId !== undefined ? { externalId: q.externalId } : undefined;
      const page = await repo.list('customer', request.auth!.merchantId, { limit, offset, where });
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
      const at = now().toISOString();
      return reply.code(201).send({ id: newId('rec'), object: 'reconciliation', subscriptionId: sub.id, status: 'completed', createdAt: at });
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
        url: `https://portal.example.com/sessions/${sessionId}`,
        expiresAt: new Date(t.getTime() + 3600_000).toISOString(),
        createdAt: t.toISOString(),
      });
    });

    app.post('/v2/invoices/lineItems', { config: { operationId: 'createInvoiceLineItems' } }, async (request, reply) => {
      const body = (request.body ?? {}) as { lineItems?: unknown[] };
      const items = Array.isArray(body.lineItems) ? body.lineItems : [];
      return reply.code(201).send(listEnvelope(items, items.length, 0, items.length));
    });

    app.get('/v0/costs/report', { config: { operationId: 'getCostsReport' } }, async (request) => {
      return { object: 'costs_report', merchantId: request.auth!.merchantId, currency: 'USD', total: '0.00', lines: [], generatedAt: now().toISOString() };
    });

    app.get('/v0/integrations/:crmProvider/accounts', { config: { operationId: 'listCrmAccounts' } }, async (request) => {
      const q = request.query as { limit?: number; offset?: number };
      return listEnvelope([], Number(q.limit ?? 10), Number(q.offset ?? 0), 0);
    });
  },
};
