/** Billable metrics, fees, prices (standard/volume created; legacy seeded, read-only) and pricing units. */
import { assertNoBlockers, BLOCKER_CODES, feeBlockers } from '../domain/blockers.ts';
import { badRequest, conflict, notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { assertCreatableProperties } from '../domain/pricing.ts';
import { isCadence, MAX_CADENCE_YEARS } from '../domain/periods.ts';
import { listAll, TYPES, insertOnce, type Stored } from '../domain/services/store.ts';
import type { BillableMetric, Fee, Plan, Price, UnitBasis } from '../domain/types.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import type { Repository } from '../storage/repository.ts';
import { requireItem, requireProduct } from './products-items.ts';
import { created, listEnvelope, merchant, noContent, paging } from './common.ts';

export const PRICE_CODES = {
  cadenceRequired: 'PRICE_CADENCE_REQUIRED',
  invalidCadence: 'INVALID_CADENCE',
  inUse: 'PRICE_IN_USE',
  metricArchived: 'BILLABLE_METRIC_ARCHIVED',
  unitBasis: 'INVALID_UNIT_BASIS',
} as const;

/**
 * Legacy prices (dynamic, percentage) cannot be created; the reference seeds one of each
 * per merchant, under ids derived from the merchant id, so that they can be read.
 */
export function legacyPriceIds(merchantId: string): { dynamic: string; percentage: string } {
  const suffix = merchantId.replace(/^org_/, '').replace(/[^a-zA-Z0-9]/g, '');
  return { dynamic: `price_legacydyn${suffix}`, percentage: `price_legacypct${suffix}` };
}

const seeded = new WeakMap<Repository, Set<string>>();

export async function ensureLegacyPrices(repo: Repository, merchantId: string): Promise<void> {
  let done = seeded.get(repo);
  if (!done) seeded.set(repo, (done = new Set()));
  if (done.has(merchantId)) return;
  const ids = legacyPriceIds(merchantId);
  const base = {
    object: 'price',
    merchantId,
    currency: 'USD',
    paymentTerm: 'in_arrears',
    features: [],
    unitBasis: 'amount',
  };
  await insertOnce(repo, TYPES.price, merchantId, ids.dynamic, {
    ...base,
    model: 'dynamic',
    description: 'Legacy dynamic price (read-only)',
    invoiceDisplayName: 'Legacy dynamic',
    properties: { source: 'usage_event_value' },
  });
  await insertOnce(repo, TYPES.price, merchantId, ids.percentage, {
    ...base,
    model: 'percentage',
    description: 'Legacy percentage price (read-only)',
    invoiceDisplayName: 'Legacy percentage',
    properties: { percentage: '2.5' },
  });
  done.add(merchantId);
}

/** The fee a new price points at, locked FOR SHARE: a concurrent delete sees the price or wins first. */
async function requireFee(repo: Repository, merchantId: string, id: string) {
  const fee = await repo.getForShare<Stored<Fee>>(TYPES.fee, id, merchantId);
  if (!fee) throw notFound('Fee', id, 'FEE_NOT_FOUND');
  return fee;
}

/** The billable metric a new price points at, locked FOR SHARE: it stays live until the price is stored. */
async function requireMetric(repo: Repository, merchantId: string, id: string) {
  const bm = await repo.getForShare<Stored<BillableMetric>>(TYPES.billableMetric, id, merchantId);
  if (!bm) throw notFound('Billable metric', id, 'BILLABLE_METRIC_NOT_FOUND');
  return bm;
}

/** The pricing unit a write points at, locked FOR SHARE. */
export async function requirePricingUnit(repo: Repository, merchantId: string, id: string) {
  const pu = await repo.getForShare(TYPES.pricingUnit, id, merchantId);
  if (!pu) throw notFound('Pricing unit', id, 'PRICING_UNIT_NOT_FOUND');
  return pu;
}

interface PriceBody {
  feeId?: string;
  billableMetricId?: string;
  model: string;
  currency: string;
  properties: Record<string, unknown>;
  paymentTerm?: 'in_arrears' | 'in_advance';
  quantity?: number;
  pricingUnitId?: string;
  invoiceDisplayName?: string;
  description?: string;
  cadence?: string;
  unitBasis?: UnitBasis;
}

export const pricingPlugin: ResourcePlugin = {
  name: 'pricing',
  async register(app, { repo, now }) {
    app.post('/v0/billableMetrics', { config: { operationId: 'createBillableMetric' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as {
        name: string;
        description?: string;
        unit?: string;
        productId: string;
        itemId?: string;
      };
      await requireProduct(repo, m, body.productId);
      if (body.itemId) await requireItem(repo, m, body.itemId);
      const bm = await repo.insert(
        TYPES.billableMetric,
        m,
        {
          object: 'billable_metric',
          merchantId: m,
          name: body.name,
          description: body.description ?? null,
          unit: body.unit ?? null,
          productId: body.productId,
          itemId: body.itemId ?? null,
          status: 'live',
          archivedAt: null,
        },
        { prefix: PREFIX.billableMetric, id: newId(PREFIX.billableMetric) },
      );
      return created(reply, bm);
    });

    app.delete(
      '/v0/billableMetrics/:id',
      { config: { operationId: 'archiveBillableMetric' } },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const m = merchant(request);
        const bm = await repo.getForUpdate<Stored<BillableMetric>>(TYPES.billableMetric, id, m);
        if (!bm) throw notFound('Billable metric', id, 'BILLABLE_METRIC_NOT_FOUND');
        if (bm.status === 'live')
          await repo.update(TYPES.billableMetric, id, m, (cur) => ({
            ...cur,
            status: 'archived',
            archivedAt: now().toISOString(),
          }));
        return noContent(reply);
      },
    );

    app.post('/v0/fees', { config: { operationId: 'createFee' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as { productId: string; name: string; invoiceDisplayName: string; itemId?: string };
      await requireProduct(repo, m, body.productId);
      if (body.itemId) await requireItem(repo, m, body.itemId);
      const fee = await repo.insert(
        TYPES.fee,
        m,
        {
          object: 'fee',
          merchantId: m,
          productId: body.productId,
          name: body.name,
          invoiceDisplayName: body.invoiceDisplayName,
          itemId: body.itemId ?? null,
        },
        { prefix: PREFIX.fee, id: newId(PREFIX.fee) },
      );
      return created(reply, fee);
    });

    app.delete('/v0/fees/:id', { config: { operationId: 'deleteFee' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      await repo.transaction(async (tx) => {
        const fee = await tx.getForUpdate<Stored<Fee>>(TYPES.fee, id, m);
        if (!fee) throw notFound('Fee', id, 'FEE_NOT_FOUND');
        const prices = await listAll<Price>(tx, TYPES.price, m, { feeId: id });
        assertNoBlockers('Fee', id, feeBlockers(prices, fee.invoiceDisplayName), BLOCKER_CODES.fee);
        await tx.delete(TYPES.fee, id, m);
      });
      return noContent(reply);
    });

    app.post('/v0/pricingUnits', { config: { operationId: 'createPricingUnit' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as { name: string };
      const pu = await repo.insert(
        TYPES.pricingUnit,
        m,
        { object: 'pricing_unit', merchantId: m, name: body.name },
        { prefix: PREFIX.pricingUnit, id: newId(PREFIX.pricingUnit) },
      );
      return created(reply, pu);
    });

    app.post('/v0/prices', { config: { operationId: 'createPrice' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as PriceBody;
      assertCreatableProperties(body.model, body.properties ?? {});
      const isFee = typeof body.feeId === 'string';
      if (isFee) await requireFee(repo, m, body.feeId!);
      else {
        const bm = await requireMetric(repo, m, body.billableMetricId!);
        if (bm.status !== 'live')
          throw conflict(PRICE_CODES.metricArchived, `billable metric ${bm.id} is archived: it takes no new prices`);
      }
      if (body.pricingUnitId) await requirePricingUnit(repo, m, body.pricingUnitId);
      if (body.cadence !== undefined && !isCadence(body.cadence))
        throw badRequest(
          PRICE_CODES.invalidCadence,
          `cadence: an ISO 8601 duration of at most ${MAX_CADENCE_YEARS} years, such as P0D, P1M or P1Y`,
        );
      if (isFee && body.cadence === undefined)
        throw badRequest(
          PRICE_CODES.cadenceRequired,
          'cadence: required for fee prices (P0D one-time, P1M monthly, P1Y yearly...)',
        );
      const unitBasis: UnitBasis = body.unitBasis ?? 'amount';
      if (unitBasis !== 'amount' && unitBasis !== 'proportion')
        throw badRequest(PRICE_CODES.unitBasis, 'unitBasis: amount or proportion');
      if (unitBasis === 'proportion' && (body.model !== 'standard' || isFee || body.pricingUnitId)) {
        throw badRequest(
          PRICE_CODES.unitBasis,
          'unitBasis: proportion requires a standard metered price in real currency',
        );
      }
      const data: Record<string, unknown> = {
        object: 'price',
        merchantId: m,
        currency: body.currency,
        model: body.model,
        paymentTerm: body.paymentTerm ?? 'in_arrears',
        properties: body.properties,
        unitBasis,
        features: [],
      };
      if (isFee) {
        data.feeId = body.feeId;
        data.quantity = body.quantity ?? 1;
      } else data.billableMetricId = body.billableMetricId;
      if (body.model === 'standard') data.unitAmount = body.properties.unitPrice;
      for (const k of ['pricingUnitId', 'invoiceDisplayName', 'description', 'cadence'] as const)
        if (body[k] !== undefined) data[k] = body[k];
      const price = await repo.insert(TYPES.price, m, data, { prefix: PREFIX.price, id: newId(PREFIX.price) });
      return created(reply, price);
    });

    app.get('/v0/prices', { config: { operationId: 'listPrices' } }, async (request) => {
      const m = merchant(request);
      await ensureLegacyPrices(repo, m);
      const q = request.query as { model?: string; feeId?: string };
      const { limit, offset, skip } = paging(request);
      const where: Record<string, unknown> = {};
      if (q.model) where.model = q.model;
      if (q.feeId) where.feeId = q.feeId;
      const page = await repo.list(TYPES.price, m, { where, limit, offset: skip });
      return listEnvelope(page.data, limit, offset, page.total);
    });

    app.get('/v0/prices/:id', { config: { operationId: 'getPrice' } }, async (request) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      await ensureLegacyPrices(repo, m);
      const price = await repo.get(TYPES.price, id, m);
      if (!price) throw notFound('Price', id, 'PRICE_NOT_FOUND');
      return price;
    });

    app.delete('/v0/prices/:id', { config: { operationId: 'deletePrice' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      await repo.transaction(async (tx) => {
        const price = await tx.getForUpdate(TYPES.price, id, m);
        if (!price) throw notFound('Price', id, 'PRICE_NOT_FOUND');
        const plans = await listAll<Plan>(tx, TYPES.plan, m, { versions: [{ priceIds: [id] }] });
        const selling = plans.flatMap((p) =>
          p.versions
            .filter((v) => v.archivedAt === null && v.priceIds.includes(id))
            .map((v) => `${p.id} v${v.versionNumber}`),
        );
        if (selling.length)
          throw conflict(PRICE_CODES.inUse, `price ${id} is sold by published plan versions: ${selling.join(', ')}`, {
            planVersions: selling,
          });
        await tx.delete(TYPES.price, id, m);
      });
      return noContent(reply);
    });
  },
};
