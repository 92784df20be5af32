/** Customers: create (extension), list (rate-limited), read, update, delete with blockers. */
import { applyCustomerPatch, newCustomer, type CustomerPatch } from '../domain/customers.ts';
import { assertNoBlockers, BLOCKER_CODES, customerBlockers } from '../domain/blockers.ts';
import { notFound } from '../domain/errors.ts';
import { listAll, TYPES, type Stored } from '../domain/services/store.ts';
import { subscriptionNow } from '../domain/services/subscriptions.ts';
import type { Customer, Subscription } from '../domain/types.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created, listEnvelope, merchant, noContent, paging } from './common.ts';

export const customersPlugin: ResourcePlugin = {
  name: 'customers',
  async register(app, { repo, now }) {
    const load = async (merchantId: string, id: string) => {
      const c = await repo.get<Stored<Customer>>(TYPES.customer, id, merchantId);
      if (!c) throw notFound('Customer', id, 'CUSTOMER_NOT_FOUND');
      return c;
    };

    app.post('/v0/customers', { config: { operationId: 'createCustomer' } }, async (request, reply) => {
      const m = merchant(request);
      const c = newCustomer(m, (request.body ?? {}) as Record<string, string>, now().toISOString());
      const { id, createdAt, updatedAt, ...data } = c;
      void createdAt;
      void updatedAt;
      const stored = await repo.insert(TYPES.customer, m, data, { prefix: 'cus', id });
      return created(reply, stored);
    });

    // Rate-limited (the hook has counted the request); the query and the answer are the
    // reference's choice (x-reference-choice in spec/openapi.yaml).
    app.get('/v0/customers', { config: { operationId: 'listCustomers' } }, async (request) => {
      const { limit, offset, skip } = paging(request);
      const page = await repo.list(TYPES.customer, merchant(request), { limit, offset: skip });
      return listEnvelope(page.data, limit, offset, page.total);
    });

    app.get('/v0/customers/:id', { config: { operationId: 'getCustomer' } }, async (request) => {
      const { id } = request.params as { id: string };
      return load(merchant(request), id);
    });

    app.patch('/v0/customers/:id', { config: { operationId: 'updateCustomer' } }, async (request) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      const patch = (request.body ?? {}) as CustomerPatch;
      const updated = await repo.transaction(async (tx) => {
        const current = await tx.getForUpdate<Stored<Customer>>(TYPES.customer, id, m);
        if (!current) throw notFound('Customer', id, 'CUSTOMER_NOT_FOUND');
        const next = applyCustomerPatch(current, patch, now().toISOString());
        // Replace (not merge): cleared fields must disappear.
        return tx.update(TYPES.customer, id, m, () => next as Stored<Customer>);
      });
      return updated;
    });

    app.delete('/v0/customers/:id', { config: { operationId: 'deleteCustomer' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      await repo.transaction(async (tx) => {
        const c = await tx.getForUpdate<Stored<Customer>>(TYPES.customer, id, m);
        if (!c) throw notFound('Customer', id, 'CUSTOMER_NOT_FOUND');
        const subs = await listAll<Subscription>(tx, TYPES.subscription, m, { customerId: id, status: 'active' });
        const live: Subscription[] = [];
        for (const s of subs) {
          // A subscription whose end date has passed (in its own time) is no longer live.
          const at = await subscriptionNow(tx, m, s, now());
          if (!s.endingAt || new Date(s.endingAt).getTime() > at.getTime()) live.push(s);
        }
        assertNoBlockers('Customer', id, customerBlockers(live), BLOCKER_CODES.customer);
        await tx.delete(TYPES.customer, id, m);
      });
      return noContent(reply);
    });
  },
};
