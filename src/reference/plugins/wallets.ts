/** Wallets (create), their auto top-up configuration, and alerts on them. */
import { badRequest, notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { assertAmount, INVALID_AMOUNT } from '../domain/money.ts';
import { TYPES, type Stored } from '../domain/services/store.ts';
import type { Customer } from '../domain/types.ts';
import { merchantOf } from '../http/auth.ts';
import { ValidationError } from '../errors.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created, listEnvelope, merchant, paging } from './common.ts';

interface AutoTopupConfig {
  object: 'autoTopupConfig';
  amount?: string;
  threshold?: string;
  paymentMethod?: string;
  limit?: { amount?: number; period?: string };
  topupIds: string[];
  createdAt: string;
  updatedAt: string;
}

const ALERT_FIELDS = ['config', 'enabled', 'notifyPeriod', 'recipients'] as const;

export const walletsPlugin: ResourcePlugin = {
  name: 'wallets',
  async register(app, { repo, now }) {
    app.post('/v0/wallets', { config: { operationId: 'createWallet' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as { customerId: string; currency?: string };
      if (!(await repo.getForShare<Stored<Customer>>(TYPES.customer, body.customerId, m)))
        throw notFound('Customer', body.customerId, 'CUSTOMER_NOT_FOUND');
      const wallet = await repo.insert(
        TYPES.wallet,
        m,
        {
          object: 'wallet',
          merchantId: m,
          customerId: body.customerId,
          currency: body.currency ?? 'USD',
          balance: '0.00',
        },
        { prefix: PREFIX.wallet, id: newId(PREFIX.wallet) },
      );
      return created(reply, wallet);
    });

    app.patch(
      '/v0/wallets/:id/autoTopupConfig',
      { config: { operationId: 'updateAutoTopupConfig' } },
      async (request) => {
        const { id } = request.params as { id: string };
        const m = merchant(request);
        const body = (request.body ?? {}) as Partial<
          Pick<AutoTopupConfig, 'amount' | 'threshold' | 'paymentMethod' | 'limit'>
        >;
        for (const k of ['amount', 'threshold'] as const) if (body[k] !== undefined) assertAmount(k, body[k]);
        if (body.limit?.amount !== undefined && body.limit.amount < 0)
          throw badRequest(INVALID_AMOUNT, 'limit.amount: must not be negative');
        const wallet = await repo.transaction(async (tx) => {
          const w = await tx.getForUpdate(TYPES.wallet, id, m);
          if (!w) throw notFound('Wallet', id, 'WALLET_NOT_FOUND');
          const at = now().toISOString();
          const current = (w.autoTopupConfig as AutoTopupConfig | undefined) ?? {
            object: 'autoTopupConfig',
            topupIds: [],
            createdAt: at,
            updatedAt: at,
          };
          const next: AutoTopupConfig = { ...current, updatedAt: at };
          if (body.amount !== undefined) next.amount = body.amount;
          if (body.threshold !== undefined) next.threshold = body.threshold;
          if (body.paymentMethod !== undefined) next.paymentMethod = body.paymentMethod;
          if (body.limit !== undefined) {
            // A limit is {amount, period}: parts sent merge into the one held, and what results must have both.
            next.limit = { ...(current.limit ?? {}), ...body.limit };
            const missing = (['amount', 'period'] as const).filter((k) => next.limit![k] === undefined);
            if (missing.length)
              throw new ValidationError(
                missing.map((k) => ({
                  field: `limit.${k}`,
                  message: `required: the wallet holds no limit ${k} to keep`,
                  code: 'LIMIT_INCOMPLETE',
                })),
              );
          }
          return tx.update(TYPES.wallet, id, m, { autoTopupConfig: next });
        });
        return wallet!.autoTopupConfig;
      },
    );

    app.post('/v0/alerts', { config: { operationId: 'createAlert' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as {
        resourceId: string;
        type: string;
        config?: object;
        enabled?: boolean;
        notifyPeriod?: number;
        recipients?: string[];
      };
      if (!(await repo.getForShare(TYPES.wallet, body.resourceId, m)))
        throw notFound('Wallet', body.resourceId, 'WALLET_NOT_FOUND');
      const alert = await repo.insert(
        TYPES.alert,
        m,
        {
          object: 'alert',
          resourceId: body.resourceId,
          type: body.type,
          config: body.config ?? {},
          enabled: body.enabled ?? true,
          notifyPeriod: body.notifyPeriod ?? 86400,
          recipients: body.recipients ?? [],
        },
        { prefix: PREFIX.alert, id: newId(PREFIX.alert) },
      );
      return created(reply, alert);
    });

    app.get('/v0/alerts', { config: { operationId: 'listAlerts' } }, async (request) => {
      const m = merchant(request);
      const { resourceId } = request.query as { resourceId: string };
      const { limit, offset, skip } = paging(request);
      const page = await repo.list(TYPES.alert, m, { where: { resourceId }, limit, offset: skip });
      return listEnvelope(page.data, limit, offset, page.total);
    });

    app.patch('/v0/alerts/:id', { config: { operationId: 'updateAlert' } }, async (request) => {
      const { id } = request.params as { id: string };
      const body = (request.body ?? {}) as Record<string, unknown>;
      // organizationId, when given, must be the key's merchant.
      const m = merchantOf(request, body.organizationId as string | undefined);
      const patch: Record<string, unknown> = {};
      for (const k of ALERT_FIELDS) if (body[k] !== undefined) patch[k] = body[k];
      const alert = await repo.update(TYPES.alert, id, m, patch);
      if (!alert) throw notFound('Alert', id, 'ALERT_NOT_FOUND');
      return alert;
    });
  },
};
