/** Metering events (extension): usage against a subscription's billable metric; idempotency key. */
import { badRequest, notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { TYPES, type Stored } from '../domain/services/store.ts';
import { subscriptionNow } from '../domain/services/subscriptions.ts';
import type { Subscription } from '../domain/types.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created, lockKey, merchant } from './common.ts';
import { idempotentId } from './payments.ts';

export const eventsPlugin: ResourcePlugin = {
  name: 'events',
  async register(app, { repo, now }) {
    app.post('/v0/events', { config: { operationId: 'ingestEvent' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as {
        subscriptionId: string;
        billableMetricId: string;
        quantity: number;
        timestamp?: string;
        idempotencyKey?: string;
      };
      const sub = await repo.getForShare<Stored<Subscription>>(TYPES.subscription, body.subscriptionId, m);
      if (!sub) throw notFound('Subscription', body.subscriptionId, 'SUBSCRIPTION_NOT_FOUND');
      if (!(await repo.getForShare(TYPES.billableMetric, body.billableMetricId, m)))
        throw notFound('Billable metric', body.billableMetricId, 'BILLABLE_METRIC_NOT_FOUND');
      if (!Number.isFinite(body.quantity) || body.quantity < 0)
        throw badRequest('INVALID_QUANTITY', 'quantity: a number >= 0');
      const timestamp = body.timestamp ? new Date(body.timestamp) : await subscriptionNow(repo, m, sub, now());
      const id = body.idempotencyKey ? idempotentId(PREFIX.event, m, body.idempotencyKey) : newId(PREFIX.event);
      const event = await repo.transaction(async (tx) => {
        await lockKey(tx, `event:${id}`);
        const existing = await tx.get(TYPES.event, id, m);
        if (existing) return existing;
        return tx.insert(
          TYPES.event,
          m,
          {
            object: 'event',
            subscriptionId: sub.id,
            billableMetricId: body.billableMetricId,
            quantity: body.quantity,
            timestamp: timestamp.toISOString(),
            idempotencyKey: body.idempotencyKey ?? null,
          },
          { prefix: PREFIX.event, id },
        );
      });
      const { updatedAt, ...out } = event as Record<string, unknown>;
      void updatedAt;
      return created(reply, out);
    });
  },
};
