/** Plans with numbered versions: create, read, publish the next version, archive a version. */
import { badRequest, conflict, notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { isCadence, isOneTime, MAX_CADENCE_YEARS, parseCadence } from '../domain/periods.ts';
import { getMany, TYPES, type Stored } from '../domain/services/store.ts';
import { requirePlan } from '../domain/services/subscriptions.ts';
import type { Feature, Plan, PlanVersion, Price } from '../domain/types.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { requireProduct } from './products-items.ts';
import { created, merchant } from './common.ts';
import { requirePricingUnit } from './pricing.ts';

export const PLAN_CODES = {
  oneTimeCadence: 'PLAN_CADENCE_ONE_TIME',
  invalidCadence: 'INVALID_CADENCE',
  currencyMismatch: 'PRICE_CURRENCY_MISMATCH',
  legacyPrice: 'PRICE_MODEL_LEGACY',
  duplicateFeature: 'DUPLICATE_FEATURE_KEY',
  defaultVersion: 'DEFAULT_VERSION',
  versionNotFound: 'PLAN_VERSION_NOT_FOUND',
} as const;

export function versionView(plan: Plan, v: PlanVersion): PlanVersion {
  return {
    ...v,
    status: v.archivedAt ? 'archived' : 'published',
    isDefault: plan.defaultVersionNumber === v.versionNumber,
  };
}

export function planView(plan: Plan): Plan {
  return { ...plan, versions: plan.versions.map((v) => versionView(plan, v)) };
}

export const plansPlugin: ResourcePlugin = {
  name: 'plans',
  async register(app, { repo, now }) {
    app.post('/v0/plans', { config: { operationId: 'createPlan' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as { productId: string; name: string; billingCadence?: string; currency?: string };
      const cadence = body.billingCadence ?? 'P1M';
      if (!isCadence(cadence))
        throw badRequest(
          PLAN_CODES.invalidCadence,
          `billingCadence: an ISO 8601 duration of at most ${MAX_CADENCE_YEARS} years, such as P1M, P3M or P1Y`,
        );
      if (isOneTime(parseCadence(cadence))) {
        throw badRequest(
          PLAN_CODES.oneTimeCadence,
          'billingCadence: a plan bills in periods; P0D (one-time) is for prices only',
        );
      }
      await requireProduct(repo, m, body.productId);
      const plan = await repo.insert<Stored<Plan>>(
        TYPES.plan,
        m,
        {
          object: 'plan',
          merchantId: m,
          productId: body.productId,
          name: body.name,
          billingCadence: cadence,
          currency: body.currency ?? 'USD',
          defaultVersionNumber: null,
          versions: [],
        },
        { prefix: 'plan', id: newId(PREFIX.plan) },
      );
      return created(reply, planView(plan));
    });

    app.get('/v0/plans/:id', { config: { operationId: 'getPlan' } }, async (request) => {
      const { id } = request.params as { id: string };
      return planView(await requirePlan(repo, merchant(request), id));
    });

    app.post('/v0/plans/:id/versions', { config: { operationId: 'createPlanVersion' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      const body = request.body as { priceIds: string[]; features?: Feature[]; makeDefault?: boolean };
      const result = await repo.transaction(async (tx) => {
        const plan = await tx.getForUpdate<Stored<Plan>>(TYPES.plan, id, m);
        if (!plan) throw notFound('Plan', id, 'PLAN_NOT_FOUND');
        // Locked FOR SHARE: a concurrent delete of one of them sees this version or wins first.
        const prices = await getMany<Price>(tx, TYPES.price, m, body.priceIds, 'share');
        body.priceIds.forEach((pid, i) => {
          const p = prices.get(pid);
          if (!p) throw notFound('Price', pid, 'PRICE_NOT_FOUND');
          if (p.model !== 'standard' && p.model !== 'volume') {
            throw badRequest(
              PLAN_CODES.legacyPrice,
              `priceIds[${i}]: ${pid} has the legacy model ${p.model}, which is readable only`,
            );
          }
          if (!p.pricingUnitId && p.currency !== plan.currency) {
            throw badRequest(
              PLAN_CODES.currencyMismatch,
              `priceIds[${i}]: ${pid} is in ${p.currency}, the plan bills in ${plan.currency}`,
            );
          }
        });
        const features = body.features ?? [];
        const keys = new Set<string>();
        for (const [i, f] of features.entries()) {
          if (keys.has(f.key))
            throw badRequest(PLAN_CODES.duplicateFeature, `features[${i}].key: ${f.key} appears twice`);
          keys.add(f.key);
          if (!isCadence(f.resetPeriod))
            throw badRequest(
              PLAN_CODES.invalidCadence,
              `features[${i}].resetPeriod: an ISO 8601 duration of at most ${MAX_CADENCE_YEARS} years`,
            );
          if (f.billableMetricId && !(await tx.getForShare(TYPES.billableMetric, f.billableMetricId, m)))
            throw notFound('Billable metric', f.billableMetricId, 'BILLABLE_METRIC_NOT_FOUND');
          if (f.pricingUnitId) await requirePricingUnit(tx, m, f.pricingUnitId);
        }
        const versionNumber = plan.versions.reduce((n, v) => Math.max(n, v.versionNumber), 0) + 1;
        const version: PlanVersion = {
          id: newId(PREFIX.planVersion),
          object: 'plan_version',
          planId: plan.id,
          versionNumber,
          priceIds: [...body.priceIds],
          features: features.map(featureOf),
          archivedAt: null,
          createdAt: now().toISOString(),
        };
        const makeDefault = body.makeDefault === true || plan.defaultVersionNumber === null;
        const saved = await tx.update<Stored<Plan>>(TYPES.plan, plan.id, m, (cur) => ({
          ...cur,
          versions: [...(cur.versions as PlanVersion[]), version],
          defaultVersionNumber: makeDefault ? versionNumber : cur.defaultVersionNumber,
        }));
        return versionView(saved!, version);
      });
      return created(reply, result);
    });

    app.post(
      '/v0/plans/:id/versions/:versionNumber/archive',
      { config: { operationId: 'archivePlanVersion' } },
      async (request) => {
        const { id, versionNumber } = request.params as { id: string; versionNumber: number };
        const m = merchant(request);
        const n = Number(versionNumber);
        return repo.transaction(async (tx) => {
          const plan = await tx.getForUpdate<Stored<Plan>>(TYPES.plan, id, m);
          if (!plan) throw notFound('Plan', id, 'PLAN_NOT_FOUND');
          const v = plan.versions.find((x) => x.versionNumber === n);
          if (!v) throw notFound(`Version ${n} of plan`, id, PLAN_CODES.versionNotFound);
          if (plan.defaultVersionNumber === n)
            throw conflict(
              PLAN_CODES.defaultVersion,
              `version ${n} is the plan's default version: make another version default first`,
            );
          if (v.archivedAt) return versionView(plan, v);
          const at = now().toISOString();
          const saved = await tx.update<Stored<Plan>>(TYPES.plan, id, m, (cur) => ({
            ...cur,
            versions: (cur.versions as PlanVersion[]).map((x) =>
              x.versionNumber === n ? { ...x, archivedAt: at } : x,
            ),
          }));
          return versionView(
            saved!,
            saved!.versions.find((x) => x.versionNumber === n)!,
          );
        });
      },
    );
  },
};

/** The spec types a feature's billableMetricId / pricingUnitId as ids: absent, never null. */
function featureOf(f: Feature): Feature {
  const out: Feature = { key: f.key, resetPeriod: f.resetPeriod };
  if (f.billableMetricId) out.billableMetricId = f.billableMetricId;
  if (f.pricingUnitId) out.pricingUnitId = f.pricingUnitId;
  return out;
}
