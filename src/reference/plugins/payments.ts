/** One-off payments: create (extension; idempotency key) and read. */
import { createHash } from 'node:crypto';
import { notFound } from '../domain/errors.ts';
import { assertAmount } from '../domain/money.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { TYPES, type Stored } from '../domain/services/store.ts';
import type { Customer } from '../domain/types.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created, lockKey, merchant } from './common.ts';

/** A deterministic alphanumeric id for (merchant, idempotency key). */
export function idempotentId(prefix: string, merchantId: string, key: string): string {
  const hex = createHash('sha256').update(`${merchantId}\u0000${key}`).digest('hex');
  return `${prefix}_idem${BigInt(`0x${hex}`).toString(36).slice(0, 24)}`;
}

export const paymentsPlugin: ResourcePlugin = {
  name: 'payments',
  async register(app, { repo, now }) {
    app.post('/v0/payments', { config: { operationId: 'createPayment' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as {
        amount: string;
        currency: string;
        customerId?: string;
        idempotencyKey?: string;
        reference?: string;
        metadata?: Record<string, unknown>;
        lineItems?: unknown[];
        expiresAt?: string;
      };
      assertAmount('amount', body.amount);
      if (body.customerId && !(await repo.getForShare<Stored<Customer>>(TYPES.customer, body.customerId, m))) {
        throw notFound('Customer', body.customerId, 'CUSTOMER_NOT_FOUND');
      }
      const id = body.idempotencyKey ? idempotentId(PREFIX.payment, m, body.idempotencyKey) : newId(PREFIX.payment);
      const payment = await repo.transaction(async (tx) => {
        await lockKey(tx, `payment:${id}`);
        const existing = await tx.get(TYPES.payment, id, m);
        if (existing) return existing;
        const data: Record<string, unknown> = {
          object: 'payment',
          amount: body.amount,
          currency: body.currency,
          status: 'pending',
          paymentUrl: `https://pay.reference.invalid/${id}`,
          metadata: body.metadata ?? {},
          lineItems: body.lineItems ?? [],
          expiresAt: body.expiresAt ?? new Date(now().getTime() + 24 * 3600_000).toISOString(),
        };
        for (const k of ['customerId', 'idempotencyKey', 'reference'] as const)
          if (body[k] !== undefined) data[k] = body[k];
        return tx.insert(TYPES.payment, m, data, { prefix: PREFIX.payment, id });
      });
      return created(reply, publicPayment(payment));
    });

    app.get('/v0/payments/:id', { config: { operationId: 'getPayment' } }, async (request) => {
      const { id } = request.params as { id: string };
      const p = await repo.get(TYPES.payment, id, merchant(request));
      if (!p) throw notFound('Payment', id, 'PAYMENT_NOT_FOUND');
      return publicPayment(p);
    });
  },
};

/** The document's payment fields (updatedAt is the repository's bookkeeping). */
function publicPayment(p: Record<string, unknown>): Record<string, unknown> {
  const { updatedAt, ...rest } = p;
  void updatedAt;
  return rest;
}
