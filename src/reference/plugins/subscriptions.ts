/**
 * Subscriptions: create/read/cancel (extensions), PATCH versionPolicy, version migration,
 * reconciliations and portal sessions (rate-limited).
 */
import { taxRateFor } from '../domain/billing.ts';
import { badRequest, conflict, DomainError, notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { assertAmount } from '../domain/money.ts';
import { MIGRATION_CODES } from '../domain/migration.ts';
import { TYPES, view, type Stored } from '../domain/services/store.ts';
import {
  invoiceFirstPeriod,
  migrateSubscription,
  planPrices,
  readSubscription,
  requirePlan,
  subscriptionNow,
  type TestClock,
} from '../domain/services/subscriptions.ts';
import { defaultVersion, findVersion, isLive, settle, validateOverrides } from '../domain/subscription-state.ts';
import type { Customer, Override, Plan, Subscription } from '../domain/types.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import type { Repository } from '../storage/repository.ts';
import { created, merchant } from './common.ts';

interface CreateBody {
  customerId: string;
  planId: string;
  versionNumber?: number;
  startedAt?: string;
  endingAt?: string;
  testClockId?: string;
  name?: string;
  overrides?: Override[];
}

async function requireSubscription(repo: Repository, merchantId: string, id: string): Promise<Stored<Subscription>> {
  const sub = await repo.get<Stored<Subscription>>(TYPES.subscription, id, merchantId);
  if (!sub) throw notFound('Subscription', id, 'SUBSCRIPTION_NOT_FOUND');
  return sub;
}

export const subscriptionsPlugin: ResourcePlugin = {
  name: 'subscriptions',
  async register(app, { repo, now }) {
    app.post('/v0/subscriptions', { config: { operationId: 'createSubscription' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as CreateBody;
      (body.overrides ?? []).forEach((o, i) => assertAmount(`overrides[${i}].unitPrice`, o.unitPrice));
      // Parents locked FOR SHARE until this request's transaction ends: a concurrent delete of
      // the customer sees the new subscription (409) or wins first (404 here); a version or a
      // test clock does not move under the checks below.
      const customer = await repo.getForShare<Stored<Customer>>(TYPES.customer, body.customerId, m);
      if (!customer) throw notFound('Customer', body.customerId, 'CUSTOMER_NOT_FOUND');
      const plan = await repo.getForShare<Stored<Plan>>(TYPES.plan, body.planId, m);
      if (!plan) throw notFound('Plan', body.planId, 'PLAN_NOT_FOUND');
      let version;
      if (body.versionNumber !== undefined) {
        version = findVersion(plan, body.versionNumber);
        if (!version)
          throw new DomainError(
            404,
            MIGRATION_CODES.versionNotFound,
            `plan ${plan.id} has no version ${body.versionNumber}`,
          );
        if (version.archivedAt)
          throw new DomainError(
            404,
            MIGRATION_CODES.versionArchived,
            `version ${body.versionNumber} of plan ${plan.id} is archived`,
          );
      } else version = defaultVersion(plan);
      let clockTime: Date | null = null;
      if (body.testClockId) {
        const clock = await repo.getForShare<Stored<TestClock>>(TYPES.testClock, body.testClockId, m);
        if (!clock) throw notFound('Test clock', body.testClockId, 'TEST_CLOCK_NOT_FOUND');
        clockTime = new Date(clock.frozenTime);
      }
      const at = clockTime ?? now();
      const startedAt = body.startedAt ? new Date(body.startedAt) : at;
      if (body.endingAt && new Date(body.endingAt).getTime() <= startedAt.getTime()) {
        throw badRequest('INVALID_ENDING_AT', 'endingAt: must be after startedAt');
      }
      const overrides = (body.overrides ?? []).map((o) => ({ priceId: o.priceId, unitPrice: o.unitPrice }));
      const prices = await planPrices(
        repo,
        m,
        plan,
        overrides.map((o) => o.priceId),
      );
      validateOverrides(overrides, version, prices);
      const id = newId(PREFIX.subscription);
      const iso = now().toISOString();
      const draft: Subscription = {
        id,
        object: 'subscription',
        merchantId: m,
        versionPolicy: body.versionNumber !== undefined ? 'pinned' : 'floating',
        autoCharge: false,
        taxExempt: false,
        customerId: customer.id,
        estimatedTaxRate: taxRateFor(customer.taxRates, { planId: plan.id }),
        name: body.name ?? plan.name,
        payment: null,
        planId: plan.id,
        startedAt: startedAt.toISOString(),
        status: 'active',
        terminatedAt: null,
        terminatedBy: null,
        terminationReason: null,
        planVersionId: version.id,
        versionNumber: version.versionNumber,
        billingAnchor: startedAt.toISOString(),
        testClockId: body.testClockId ?? null,
        currentPeriodStart: startedAt.toISOString(),
        currentPeriodEnd: null,
        pendingMigration: null,
        overrides,
        createdAt: iso,
        updatedAt: iso,
      };
      if (body.endingAt) draft.endingAt = new Date(body.endingAt).toISOString();
      const sub = settle(draft, plan, prices, at);
      const { id: _id, createdAt, updatedAt, ...data } = sub;
      void _id;
      void createdAt;
      void updatedAt;
      const stored = await repo.insert<Stored<Subscription>>(TYPES.subscription, m, data, {
        prefix: PREFIX.subscription,
        id,
      });
      if (clockTime) await invoiceFirstPeriod(repo, m, stored, plan, prices, clockTime);
      return created(reply, view(stored));
    });

    app.get('/v0/subscriptions/:id', { config: { operationId: 'getSubscription' } }, async (request) => {
      const { id } = request.params as { id: string };
      return view(await readSubscription(repo, merchant(request), id, now()));
    });

    app.patch('/v0/subscriptions/:id', { config: { operationId: 'updateSubscription' } }, async (request) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      const body = (request.body ?? {}) as { versionPolicy?: 'pinned' | 'floating' };
      const sub = await repo.transaction(async (tx) => {
        const current = await tx.getForUpdate<Stored<Subscription>>(TYPES.subscription, id, m);
        if (!current) throw notFound('Subscription', id, 'SUBSCRIPTION_NOT_FOUND');
        const plan = await requirePlan(tx, m, current.planId);
        const prices = await planPrices(
          tx,
          m,
          plan,
          current.overrides.map((o) => o.priceId),
        );
        const at = await subscriptionNow(tx, m, current, now());
        let next = settle(current, plan, prices, at);
        if (body.versionPolicy === 'floating') {
          // Follows the plan default again (at once); a pending move no longer applies.
          next = settle({ ...next, versionPolicy: 'floating', pendingMigration: null }, plan, prices, at);
        } else if (body.versionPolicy === 'pinned') {
          next = { ...next, versionPolicy: 'pinned' };
        }
        return tx.update<Stored<Subscription>>(TYPES.subscription, id, m, () => next as Stored<Subscription>);
      });
      return view(sub!);
    });

    app.post('/v0/subscriptions/:id/cancel', { config: { operationId: 'cancelSubscription' } }, async (request) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      const body = (request.body ?? {}) as { reason?: string };
      const current = await readSubscription(repo, m, id, now());
      if (!isLive(current))
        throw conflict(MIGRATION_CODES.notLive, `subscription ${id} is not live (status ${current.status})`);
      const at = await subscriptionNow(repo, m, current, now());
      const sub = await repo.update<Stored<Subscription>>(TYPES.subscription, id, m, (cur) => ({
        ...cur,
        status: 'cancelled',
        terminatedAt: at.toISOString(),
        terminatedBy: request.auth!.keyId,
        terminationReason: body.reason ?? 'cancelled',
        pendingMigration: null,
      }));
      return view(sub!);
    });

    // Rate-limited per subscription (the hook has counted the request); no body needed,
    // and the answers are the reference's choice (x-reference-choice in spec/openapi.yaml).
    app.post(
      '/v0/subscriptions/:id/reconciliations',
      { config: { operationId: 'createReconciliation' } },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const sub = await requireSubscription(repo, merchant(request), id);
        return created(reply, {
          id: newId('rec'),
          object: 'reconciliation',
          subscriptionId: sub.id,
          status: 'completed',
          createdAt: now().toISOString(),
        });
      },
    );

    app.post(
      '/v0/subscriptions/:id/portal',
      { config: { operationId: 'createPortalSession' } },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const sub = await requireSubscription(repo, merchant(request), id);
        const t = now();
        const sessionId = newId('ps');
        return created(reply, {
          id: sessionId,
          object: 'portal_session',
          subscriptionId: sub.id,
          url: `https://portal.reference.invalid/sessions/${sessionId}`,
          expiresAt: new Date(t.getTime() + 3600_000).toISOString(),
          createdAt: t.toISOString(),
        });
      },
    );

    app.post(
      '/v0/subscriptions/:id/versionMigration',
      { config: { operationId: 'migrateSubscriptionVersion' } },
      async (request) => {
        const { id } = request.params as { id: string };
        const body = request.body as { targetVersionNumber: number };
        return migrateSubscription(repo, merchant(request), id, body.targetVersionNumber, now());
      },
    );
  },
};
