import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalog, startHarness, type Harness } from './server.ts';

let h: Harness;
let cat: Awaited<ReturnType<typeof catalog>>;
beforeAll(async () => {
  h = await startHarness();
  cat = await catalog(h);
});
afterAll(async () => h?.close());

const newItem = (name = 'Widget') => h.ok('createItem', 201, 'POST', '/v0/items', { name, catalogId: cat.product.id });
const ref = (itemId: string, externalId: string, isPrimary = true, provider = 'salesforce') =>
  h.call('POST', '/v0/externalReferences', { entityType: 'item', entityId: itemId, provider, externalId, isPrimary });

describe('products', () => {
  test('POST requires name, description and merchantId, and answers the product', async () => {
    const p = await h.ok('createProduct', 201, 'POST', '/v0/products', {
      name: 'N',
      description: 'D',
      merchantId: h.merchantId,
      metadata: { tier: 'gold' },
    });
    expect(p).toMatchObject({
      object: 'product',
      name: 'N',
      description: 'D',
      merchantId: h.merchantId,
      metadata: { tier: 'gold' },
    });
    expect(p.id).toMatch(/^prod_[a-zA-Z0-9]+$/);
    expect(await h.ok('getProduct', 200, 'GET', `/v0/products/${p.id}`)).toEqual(p);
    for (const missing of ['name', 'description', 'merchantId']) {
      const body: Record<string, unknown> = { name: 'N', description: 'D', merchantId: h.merchantId };
      delete body[missing];
      const r = await h.call('POST', '/v0/products', body);
      expect(r.status, missing).toBe(400);
      expect(r.body.errors.map((e: any) => e.field)).toContain(`body.${missing}`);
    }
  });

  test('merchantId of another merchant is 403', async () => {
    const other = await h.newKeyForNewMerchant();
    await h.fails('createProduct', 403, 'POST', '/v0/products', {
      name: 'N',
      description: 'D',
      merchantId: other.merchantId,
    });
    const own = await h.call(
      'POST',
      '/v0/products',
      { name: 'N', description: 'D', merchantId: other.merchantId },
      other.key,
    );
    expect(own.status).toBe(201);
    expect((await h.call('GET', `/v0/products/${own.body.id}`)).status).toBe(404);
  });
});

describe('items', () => {
  test('archive is refused while a live billable metric is anchored; allowed once it is archived', async () => {
    const item = await newItem();
    const bm = await h.ok('createBillableMetric', 201, 'POST', '/v0/billableMetrics', {
      name: 'Calls',
      productId: cat.product.id,
      itemId: item.id,
    });
    expect(bm).toMatchObject({ status: 'live', itemId: item.id });
    await h.fails('updateItem', 409, 'PATCH', `/v0/items/${item.id}`, { archived: true }, 'ITEM_HAS_LIVE_ANCHORS');
    expect((await h.ok('getItem', 200, 'GET', `/v0/items/${item.id}`)).archivedAt).toBeNull();
    expect((await h.call('DELETE', `/v0/billableMetrics/${bm.id}`)).status).toBe(204);
    const archived = await h.ok('updateItem', 200, 'PATCH', `/v0/items/${item.id}`, { archived: true });
    expect(archived.archivedAt).toEqual(expect.any(String));
  });

  test('archive is refused while a fee is anchored; allowed once the fee is deleted', async () => {
    const item = await newItem();
    const fee = await h.ok('createFee', 201, 'POST', '/v0/fees', {
      productId: cat.product.id,
      name: 'F',
      invoiceDisplayName: 'F',
      itemId: item.id,
    });
    const refused = await h.fails(
      'updateItem',
      409,
      'PATCH',
      `/v0/items/${item.id}`,
      { archived: true, name: 'Renamed' },
      'ITEM_HAS_LIVE_ANCHORS',
    );
    expect(refused.details.feeIds).toEqual([fee.id]);
    expect((await h.ok('getItem', 200, 'GET', `/v0/items/${item.id}`)).name).toBe('Widget');
    expect((await h.call('DELETE', `/v0/fees/${fee.id}`)).status).toBe(204);
    expect(
      (await h.ok('updateItem', 200, 'PATCH', `/v0/items/${item.id}`, { archived: true })).archivedAt,
    ).not.toBeNull();
  });

  test('archiving demotes primary references, which stay attached; unarchiving reclaims nothing; archived items stay readable', async () => {
    const item = await newItem();
    const primary = await ref(item.id, 'SF-100');
    expect(primary.status).toBe(201);
    expect(primary.body).toMatchObject({ object: 'externalReference', isPrimary: true, entityId: item.id });
    const secondary = await ref(item.id, 'SF-101', false);
    const archived = await h.ok('updateItem', 200, 'PATCH', `/v0/items/${item.id}`, { archived: true });
    expect(archived.externalReferences.map((r: any) => [r.id, r.isPrimary]).sort()).toEqual(
      [
        [primary.body.id, false],
        [secondary.body.id, false],
      ].sort(),
    );
    const read = await h.ok('getItem', 200, 'GET', `/v0/items/${item.id}`);
    expect(read.archivedAt).toEqual(archived.archivedAt);
    expect(read.externalReferences).toHaveLength(2);
    const back = await h.ok('updateItem', 200, 'PATCH', `/v0/items/${item.id}`, { archived: false });
    expect(back.archivedAt).toBeNull();
    expect(back.externalReferences.every((r: any) => r.isPrimary === false)).toBe(true);
  });

  test('an external id is the primary reference of at most one entity per merchant', async () => {
    const a = await newItem('A');
    const b = await newItem('B');
    expect((await ref(a.id, 'SF-200')).status).toBe(201);
    const taken = await ref(b.id, 'SF-200');
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('EXTERNAL_ID_ALREADY_PRIMARY');
    expect((await ref(b.id, 'SF-200', false)).status).toBe(201);
    // Archiving A frees the external id: B may now hold it as primary.
    await h.ok('updateItem', 200, 'PATCH', `/v0/items/${a.id}`, { archived: true });
    expect((await ref(b.id, 'SF-200')).status).toBe(201);
    // Another merchant has its own namespace.
    const other = await h.newKeyForNewMerchant();
    const p = await h.call(
      'POST',
      '/v0/products',
      { name: 'N', description: 'D', merchantId: other.merchantId },
      other.key,
    );
    const item = await h.call('POST', '/v0/items', { name: 'X', catalogId: p.body.id }, other.key);
    const r = await h.call(
      'POST',
      '/v0/externalReferences',
      { entityType: 'item', entityId: item.body.id, provider: 'salesforce', externalId: 'SF-200', isPrimary: true },
      other.key,
    );
    expect(r.status).toBe(201);
    expect((await h.call('GET', `/v0/items/${item.body.id}`)).status).toBe(404);
  });

  test('PATCH changes name, catalogId and metadata; unknown product is 404', async () => {
    const item = await newItem();
    const p2 = await h.ok('createProduct', 201, 'POST', '/v0/products', {
      name: 'P2',
      description: 'D',
      merchantId: h.merchantId,
    });
    const r = await h.ok('updateItem', 200, 'PATCH', `/v0/items/${item.id}`, {
      name: 'Gadget',
      catalogId: p2.id,
      metadata: { sku: 'G-1' },
    });
    expect(r).toMatchObject({ name: 'Gadget', catalogId: p2.id, metadata: { sku: 'G-1' }, archivedAt: null });
    await h.fails('updateItem', 404, 'PATCH', `/v0/items/${item.id}`, { catalogId: 'prod_missing' });
    await h.fails('updateItem', 400, 'PATCH', `/v0/items/${item.id}`, { catalogId: 'not-a-product' });
    await h.fails('updateItem', 404, 'PATCH', '/v0/items/itm_missing', { name: 'x' });
  });
});

describe('prices and fees', () => {
  test('standard and volume prices; merchantId on single reads; feeId when linked', async () => {
    const std = await cat.price({
      feeId: cat.fee.id,
      model: 'standard',
      properties: { unitPrice: '9.99' },
      cadence: 'P1M',
      quantity: 3,
    });
    expect(std).toMatchObject({
      object: 'price',
      model: 'standard',
      feeId: cat.fee.id,
      quantity: 3,
      currency: 'USD',
      paymentTerm: 'in_arrears',
    });
    const tiers = [
      { unitPrice: '1.00', upTo: '100' },
      { unitPrice: '0.50', upTo: null },
    ];
    const vol = await cat.price({ billableMetricId: cat.metric.id, model: 'volume', properties: { tiers } });
    const read = await h.ok('getPrice', 200, 'GET', `/v0/prices/${vol.id}`);
    expect(read).toMatchObject({
      id: vol.id,
      model: 'volume',
      merchantId: h.merchantId,
      billableMetricId: cat.metric.id,
      properties: { tiers },
    });
    expect('feeId' in read).toBe(false);
    expect((await h.ok('getPrice', 200, 'GET', `/v0/prices/${std.id}`)).merchantId).toBe(h.merchantId);
    await h.fails('getPrice', 404, 'GET', '/v0/prices/price_missing');
  });

  test('legacy models are readable (seeded) but cannot be created', async () => {
    for (const model of ['dynamic', 'percentage']) {
      const list = await h.ok('listPrices', 200, 'GET', `/v0/prices?model=${model}`);
      expect(list.data).toHaveLength(1);
      const one = await h.ok('getPrice', 200, 'GET', `/v0/prices/${list.data[0].id}`);
      expect(one).toMatchObject({ model, merchantId: h.merchantId });
      const r = await h.call('POST', '/v0/prices', {
        feeId: cat.fee.id,
        model,
        currency: 'USD',
        properties: {},
        cadence: 'P1M',
      });
      expect(r.status).toBe(400);
    }
  });

  test('price input rules: tiers, cadence on fee prices, exactly one of fee and metric', async () => {
    const bad = [
      {
        feeId: cat.fee.id,
        model: 'volume',
        currency: 'USD',
        properties: { tiers: [{ unitPrice: '1', upTo: '5' }] },
        cadence: 'P1M',
      },
      { feeId: cat.fee.id, model: 'standard', currency: 'USD', properties: { unitPrice: '1' } },
      {
        feeId: cat.fee.id,
        billableMetricId: cat.metric.id,
        model: 'standard',
        currency: 'USD',
        properties: { unitPrice: '1' },
        cadence: 'P1M',
      },
      { model: 'standard', currency: 'USD', properties: { unitPrice: '1' } },
      { feeId: cat.fee.id, model: 'standard', currency: 'USD', properties: { unitPrice: 'abc' }, cadence: 'P1M' },
      {
        billableMetricId: cat.metric.id,
        model: 'standard',
        currency: 'USD',
        properties: { unitPrice: '1' },
        unitBasis: 'percent',
      },
      {
        feeId: cat.fee.id,
        model: 'standard',
        currency: 'USD',
        properties: { unitPrice: '1' },
        cadence: 'P1M',
        unitBasis: 'proportion',
      },
    ];
    for (const body of bad) {
      const r = await h.call('POST', '/v0/prices', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toEqual(expect.any(String));
    }
  });

  test('DELETE fee with prices: 409 with blockers naming them; succeeds once they are deleted', async () => {
    const fee = await h.ok('createFee', 201, 'POST', '/v0/fees', {
      productId: cat.product.id,
      name: 'Setup',
      invoiceDisplayName: 'Setup fee',
    });
    const p1 = await cat.price({
      feeId: fee.id,
      model: 'standard',
      properties: { unitPrice: '1.00' },
      cadence: 'P0D',
      invoiceDisplayName: 'Setup (EU)',
    });
    const p2 = await cat.price({ feeId: fee.id, model: 'standard', properties: { unitPrice: '2.00' }, cadence: 'P0D' });
    const blocked = await h.fails('deleteFee', 409, 'DELETE', `/v0/fees/${fee.id}`, undefined, 'FEE_HAS_DEPENDANTS');
    expect(blocked.error).toBe('conflict');
    expect(blocked.details.blockers).toEqual([
      {
        type: 'prices',
        count: 2,
        items: [
          { id: p1.id, invoiceDisplayName: 'Setup (EU)' },
          { id: p2.id, invoiceDisplayName: 'Setup fee' },
        ],
      },
    ]);
    for (const p of [p1, p2]) expect((await h.call('DELETE', `/v0/prices/${p.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/v0/fees/${fee.id}`)).status).toBe(204);
    await h.fails('deleteFee', 404, 'DELETE', `/v0/fees/${fee.id}`);
  });

  test('unitBasis (reference extension): proportion on a standard metered price in real currency', async () => {
    const p = await cat.price({
      billableMetricId: cat.metric.id,
      model: 'standard',
      properties: { unitPrice: '0.02' },
      unitBasis: 'proportion',
    });
    expect(p.unitBasis).toBe('proportion');
    expect(
      (await cat.price({ billableMetricId: cat.metric.id, model: 'standard', properties: { unitPrice: '1' } }))
        .unitBasis,
    ).toBe('amount');
  });

  test('a price sold by a published plan version cannot be deleted', async () => {
    const p = await cat.price({
      feeId: cat.fee.id,
      model: 'standard',
      properties: { unitPrice: '1.00' },
      cadence: 'P1M',
    });
    const plan = await h.ok('createPlan', 201, 'POST', '/v0/plans', { productId: cat.product.id, name: 'X' });
    await h.ok('createPlanVersion', 201, 'POST', `/v0/plans/${plan.id}/versions`, { priceIds: [p.id] });
    await h.fails('deletePrice', 409, 'DELETE', `/v0/prices/${p.id}`, undefined, 'PRICE_IN_USE');
  });

  test('pricing units get pu_ ids', async () => {
    const pu = await h.ok('createPricingUnit', 201, 'POST', '/v0/pricingUnits', { name: 'Credits' });
    expect(pu.id).toMatch(/^pu_[a-zA-Z0-9]+$/);
  });
});
