/**
 * Orders (extension) and their billing schedules: created through an order (never by
 * subscription), one interval per order line item, intervals paginated, delete.
 */
import { notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { assertAmount, formatPlain } from '../domain/money.ts';
import {
  intervalsFor,
  newSchedule,
  type BillingSchedule,
  type Order,
  type ScheduleInput,
} from '../domain/schedules.ts';
import { getMany, listAll, TYPES, view, type Stored } from '../domain/services/store.ts';
import type { Price, Subscription } from '../domain/types.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { requireItem } from './products-items.ts';
import { created, listEnvelope, merchant, noContent, paging } from './common.ts';

interface OrderBody {
  customerId: string;
  /** Reference extension: the subscription this order's schedules bill beside. */
  subscriptionId?: string;
  lineItems: Array<{ description: string; quantity: number; unitPrice: string; itemId?: string; priceId?: string }>;
}

function orderView(o: Stored<Order>) {
  const { subscriptionId, ...rest } = o;
  return subscriptionId ? { ...rest, subscriptionId } : rest;
}

export const ordersPlugin: ResourcePlugin = {
  name: 'orders',
  async register(app, { repo, now }) {
    app.post('/v0/orders', { config: { operationId: 'createOrder' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as OrderBody;
      body.lineItems.forEach((l, i) => assertAmount(`lineItems[${i}].unitPrice`, l.unitPrice));
      // Every parent locked FOR SHARE until the request's transaction ends (see server.ts).
      if (!(await repo.getForShare(TYPES.customer, body.customerId, m)))
        throw notFound('Customer', body.customerId, 'CUSTOMER_NOT_FOUND');
      if (body.subscriptionId) {
        const sub = await repo.getForShare<Stored<Subscription>>(TYPES.subscription, body.subscriptionId, m);
        if (!sub) throw notFound('Subscription', body.subscriptionId, 'SUBSCRIPTION_NOT_FOUND');
      }
      const prices = await getMany<Price>(
        repo,
        TYPES.price,
        m,
        body.lineItems.flatMap((l) => (l.priceId ? [l.priceId] : [])),
        'share',
      );
      for (const l of body.lineItems) {
        if (l.priceId && !prices.has(l.priceId)) throw notFound('Price', l.priceId, 'PRICE_NOT_FOUND');
        if (l.itemId) await requireItem(repo, m, l.itemId);
      }
      const lineItems = body.lineItems.map((l) => {
        const li: Record<string, unknown> = {
          object: 'order_line_item',
          id: newId(PREFIX.orderLineItem),
          description: l.description,
          quantity: l.quantity,
          unitPrice: formatPlain(l.unitPrice),
          itemId: l.itemId ?? null,
          priceId: l.priceId ?? null,
        };
        return li;
      });
      const order = await repo.insert<Stored<Order>>(
        TYPES.order,
        m,
        {
          object: 'order',
          merchantId: m,
          customerId: body.customerId,
          subscriptionId: body.subscriptionId ?? null,
          status: 'open',
          lineItems,
        },
        { prefix: PREFIX.order, id: newId(PREFIX.order) },
      );
      return created(reply, orderView(order));
    });

    app.post('/v0/billingSchedules', { config: { operationId: 'createBillingSchedule' } }, async (request, reply) => {
      const m = merchant(request);
      const input = (request.body ?? {}) as ScheduleInput;
      const at = now().toISOString();
      const schedule = newSchedule(m, input, at); // owner rules first: 400 before any lookup
      const order = await repo.getForShare<Stored<Order>>(TYPES.order, schedule.orderId, m);
      if (!order) throw notFound('Order', schedule.orderId, 'ORDER_NOT_FOUND');
      const prices = await getMany<Price>(
        repo,
        TYPES.price,
        m,
        order.lineItems.flatMap((l) => (l.priceId ? [l.priceId] : [])),
        'share',
      );
      const intervals = intervalsFor(schedule, order, (id) => prices.get(id)?.cadence, at);
      const stored = await repo.transaction(async (tx) => {
        const { id, createdAt, updatedAt, deletedAt, ...data } = schedule;
        void createdAt;
        void updatedAt;
        void deletedAt;
        const s = await tx.insert(TYPES.billingSchedule, m, data, { prefix: PREFIX.billingSchedule, id });
        for (const i of intervals) {
          const { id: iid, createdAt: c, updatedAt: u, ...idata } = i;
          void c;
          void u;
          // Internal link fields, read by version migration (continuing intervals).
          await tx.insert(
            TYPES.scheduleInterval,
            m,
            { ...idata, _customerId: order.customerId, _subscriptionId: order.subscriptionId ?? null },
            { prefix: PREFIX.scheduleInterval, id: iid },
          );
        }
        return s;
      });
      return created(reply, stored);
    });

    app.get('/v0/billingSchedules/:id', { config: { operationId: 'getBillingSchedule' } }, async (request) => {
      const { id } = request.params as { id: string };
      const s = await repo.get<Stored<BillingSchedule>>(TYPES.billingSchedule, id, merchant(request));
      if (!s) throw notFound('Billing schedule', id, 'BILLING_SCHEDULE_NOT_FOUND');
      return s;
    });

    app.get(
      '/v0/billingSchedules/:id/intervals',
      { config: { operationId: 'listScheduleIntervals' } },
      async (request) => {
        const { id } = request.params as { id: string };
        const m = merchant(request);
        if (!(await repo.get(TYPES.billingSchedule, id, m)))
          throw notFound('Billing schedule', id, 'BILLING_SCHEDULE_NOT_FOUND');
        const { limit, offset, skip } = paging(request);
        const page = await repo.list(TYPES.scheduleInterval, m, { where: { scheduleId: id }, limit, offset: skip });
        return listEnvelope(
          page.data.map((i) => view(i)),
          limit,
          offset,
          page.total,
        );
      },
    );

    app.delete(
      '/v0/billingSchedules/:id',
      { config: { operationId: 'deleteBillingSchedule' } },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const m = merchant(request);
        await repo.transaction(async (tx) => {
          if (!(await tx.getForUpdate(TYPES.billingSchedule, id, m)))
            throw notFound('Billing schedule', id, 'BILLING_SCHEDULE_NOT_FOUND');
          for (const i of await listAll<{ id: string }>(tx, TYPES.scheduleInterval, m, { scheduleId: id }))
            await tx.delete(TYPES.scheduleInterval, i.id, m);
          await tx.delete(TYPES.billingSchedule, id, m);
        });
        return noContent(reply);
      },
    );
  },
};
