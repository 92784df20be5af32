import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { handshakeSignature, verifyHandshake } from '../../../src/contract/handshake.ts';
import { startHarness, type Harness } from './server.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

describe('webhooks', () => {
  test('PATCH is 404 while webhooks were never enabled', async () => {
    const other = await h.newKeyForNewMerchant();
    const r = await h.fails(
      'updateWebhooks',
      404,
      'PATCH',
      '/v0/webhooks',
      { enabled: true },
      'WEBHOOKS_NOT_ENABLED',
      other.key,
    );
    expect(r.error).toBe('not_found');
    expect((await h.call('GET', '/v0/webhooks/endpoints', undefined, other.key)).status).toBe(404);
  });

  test("toggling keeps endpoints and event subscriptions, createdAt, and defaults to the key's merchant", async () => {
    const endpoints = [
      { url: 'https://hooks.example.com/a', eventTypes: ['invoice.paid', 'invoice.issued'] },
      { url: 'https://hooks.example.com/b', eventTypes: ['subscription.updated'] },
    ];
    const first = await h.ok('enableWebhooks', 201, 'POST', '/v0/webhooks', { endpoints });
    expect(first).toMatchObject({ object: 'webhooks', enabled: true, merchantId: h.merchantId });
    expect(first.applicationId).toEqual(expect.any(String));
    const before = await h.ok('listWebhookEndpoints', 200, 'GET', '/v0/webhooks/endpoints');
    expect(before.data.map((e: any) => [e.url, e.eventTypes])).toEqual(endpoints.map((e) => [e.url, e.eventTypes]));
    const off = await h.ok('updateWebhooks', 200, 'PATCH', '/v0/webhooks', { enabled: false });
    expect(off).toMatchObject({
      enabled: false,
      merchantId: h.merchantId,
      createdAt: first.createdAt,
      applicationId: first.applicationId,
    });
    expect((await h.ok('listWebhookEndpoints', 200, 'GET', '/v0/webhooks/endpoints')).data).toEqual(before.data);
    const on = await h.ok('updateWebhooks', 200, 'PATCH', `/v0/webhooks?merchantId=${h.merchantId}`, { enabled: true });
    expect(on).toMatchObject({ enabled: true, createdAt: first.createdAt });
    expect((await h.ok('listWebhookEndpoints', 200, 'GET', '/v0/webhooks/endpoints')).data).toEqual(before.data);
    // Enabling again is idempotent: known urls are kept, new ones added.
    const again = await h.ok('enableWebhooks', 200, 'POST', '/v0/webhooks', {
      endpoints: [endpoints[0], { url: 'https://hooks.example.com/c', eventTypes: ['x'] }],
    });
    expect(again.createdAt).toBe(first.createdAt);
    expect((await h.ok('listWebhookEndpoints', 200, 'GET', '/v0/webhooks/endpoints')).data).toHaveLength(3);
  });

  test("another merchant's id is 403; a merchant created by the key's merchant may be managed", async () => {
    const other = await h.newKeyForNewMerchant();
    await h.fails(
      'updateWebhooks',
      403,
      'PATCH',
      `/v0/webhooks?merchantId=${h.merchantId}`,
      { enabled: false },
      undefined,
      other.key,
    );
    await h.fails('updateWebhooks', 404, 'PATCH', `/v0/webhooks?merchantId=${other.merchantId}`, { enabled: false });
    const created = await h.ok('enableWebhooks', 201, 'POST', '/v0/webhooks', {
      merchantId: other.merchantId,
      endpoints: [{ url: 'https://x.example.com', eventTypes: ['a'] }],
    });
    expect(created.merchantId).toBe(other.merchantId);
    const own = await h.ok('updateWebhooks', 200, 'PATCH', '/v0/webhooks', { enabled: false }, other.key);
    expect(own.merchantId).toBe(other.merchantId);
    const bad = await h.call('PATCH', '/v0/webhooks', { enabled: 'no' });
    expect(bad.status).toBe(400);
  });
});

describe('billing schedules', () => {
  async function order(lines = 3) {
    const c = await h.ok('createCustomer', 201, 'POST', '/v0/customers', {});
    const lineItems = Array.from({ length: lines }, (_, i) => ({
      description: `Line ${i}`,
      quantity: i + 1,
      unitPrice: '10.00',
    }));
    return h.ok('createOrder', 201, 'POST', '/v0/orders', { customerId: c.id, lineItems });
  }

  test('created through an order, with exactly one owner and an endDate', async () => {
    const o = await order();
    const s = await h.ok('createBillingSchedule', 201, 'POST', '/v0/billingSchedules', {
      orderId: o.id,
      startDate: '2024-01-01T00:00:00.000Z',
      paymentTermDays: 15,
      metadata: { k: 'v' },
    });
    expect(s).toMatchObject({
      object: 'billing_schedule',
      orderId: o.id,
      merchantId: h.merchantId,
      endDate: '2025-01-01T00:00:00.000Z',
      paymentTermDays: 15,
      metadata: { k: 'v' },
    });
    expect('subscriptionId' in s).toBe(false);
    expect(await h.ok('getBillingSchedule', 200, 'GET', `/v0/billingSchedules/${s.id}`)).toEqual(s);
  });

  test('creation by subscriptionId is refused with a 400 naming it, and creates nothing', async () => {
    const o = await order();
    const alone = await h.fails(
      'createBillingSchedule',
      400,
      'POST',
      '/v0/billingSchedules',
      { subscriptionId: 'sub_abc' },
      'SCHEDULE_SUBSCRIPTION_OWNER_UNSUPPORTED',
    );
    expect(alone.message).toMatch(/subscriptionId/);
    await h.fails(
      'createBillingSchedule',
      400,
      'POST',
      '/v0/billingSchedules',
      { subscriptionId: 'sub_abc', orderId: o.id },
      'SCHEDULE_SUBSCRIPTION_OWNER_UNSUPPORTED',
    );
    await h.fails('createBillingSchedule', 400, 'POST', '/v0/billingSchedules', {}, 'SCHEDULE_OWNER_REQUIRED');
    await h.fails('createBillingSchedule', 404, 'POST', '/v0/billingSchedules', { orderId: 'ord_missing' });
  });

  test('intervals are paginated; DELETE removes the schedule', async () => {
    const o = await order(12);
    const s = await h.ok('createBillingSchedule', 201, 'POST', '/v0/billingSchedules', { orderId: o.id });
    const page1 = await h.ok('listScheduleIntervals', 200, 'GET', `/v0/billingSchedules/${s.id}/intervals`);
    expect(page1.pagination).toEqual({ limit: 10, offset: 0, total: 12 });
    expect(page1.data).toHaveLength(10);
    expect(
      page1.data.every((i: any) => i.object === 'schedule_interval' && i.scheduleId === s.id && !('_customerId' in i)),
    ).toBe(true);
    const page2 = await h.ok(
      'listScheduleIntervals',
      200,
      'GET',
      `/v0/billingSchedules/${s.id}/intervals?limit=5&offset=10`,
    );
    expect(page2.data.map((i: any) => i.description)).toEqual(['Line 10', 'Line 11']);
    expect(page2.data[0]).toMatchObject({ baseQuantity: '11', unitPrice: '10', orderLineItemId: o.lineItems[10].id });
    expect((await h.call('GET', `/v0/billingSchedules/${s.id}/intervals?limit=0`)).status).toBe(400);
    expect((await h.call('DELETE', `/v0/billingSchedules/${s.id}`)).status).toBe(204);
    await h.fails('getBillingSchedule', 404, 'GET', `/v0/billingSchedules/${s.id}`);
    await h.fails('listScheduleIntervals', 404, 'GET', `/v0/billingSchedules/${s.id}/intervals`);
    await h.fails('deleteBillingSchedule', 404, 'DELETE', `/v0/billingSchedules/${s.id}`);
  });
});

describe('wallets and alerts', () => {
  async function wallet() {
    const c = await h.ok('createCustomer', 201, 'POST', '/v0/customers', {});
    return h.ok('createWallet', 201, 'POST', '/v0/wallets', { customerId: c.id });
  }

  test('GET /v0/alerts: resourceId required, limit 1..100 default 10, offset >= 0', async () => {
    const w = await wallet();
    for (let i = 0; i < 12; i++)
      await h.ok('createAlert', 201, 'POST', '/v0/alerts', {
        resourceId: w.id,
        type: 'wallet_low_balance',
        recipients: ['ops@example.com'],
      });
    const first = await h.ok('listAlerts', 200, 'GET', `/v0/alerts?resourceId=${w.id}`);
    expect(first.pagination).toEqual({ limit: 10, offset: 0, total: 12 });
    expect(first.data).toHaveLength(10);
    expect(
      (await h.ok('listAlerts', 200, 'GET', `/v0/alerts?resourceId=${w.id}&limit=100&offset=10`)).data,
    ).toHaveLength(2);
    expect((await h.ok('listAlerts', 200, 'GET', `/v0/alerts?resourceId=${w.id}&limit=1`)).data).toHaveLength(1);
    for (const q of [
      '',
      `?resourceId=${w.id}&limit=0`,
      `?resourceId=${w.id}&limit=101`,
      `?resourceId=${w.id}&offset=-1`,
    ]) {
      expect((await h.call('GET', `/v0/alerts${q}`)).status, q).toBe(400);
    }
  });

  test('PATCH /v0/alerts/{id} requires resource=wallet and changes only the given fields', async () => {
    const w = await wallet();
    const a = await h.ok('createAlert', 201, 'POST', '/v0/alerts', {
      resourceId: w.id,
      type: 'wallet_low_balance',
      notifyPeriod: 60,
      recipients: ['a@example.com'],
    });
    expect(a.id).toMatch(/^alrt_/);
    for (const q of ['', '?resource=customer'])
      expect((await h.call('PATCH', `/v0/alerts/${a.id}${q}`, { enabled: false })).status, q).toBe(400);
    const r = await h.ok('updateAlert', 200, 'PATCH', `/v0/alerts/${a.id}?resource=wallet`, { enabled: false });
    expect(r).toMatchObject({ id: a.id, enabled: false, notifyPeriod: 60, recipients: ['a@example.com'] });
    await h.fails('updateAlert', 404, 'PATCH', '/v0/alerts/alrt_missing?resource=wallet', { enabled: false });
    expect((await h.call('PATCH', `/v0/alerts/${a.id}?resource=wallet`, { recipients: ['not-an-email'] })).status).toBe(
      400,
    );
  });

  test('PATCH autoTopupConfig answers the configuration; limit period day; partial updates', async () => {
    const w = await wallet();
    const cfg = await h.ok('updateAutoTopupConfig', 200, 'PATCH', `/v0/wallets/${w.id}/autoTopupConfig`, {
      amount: '50.00',
      threshold: '10.00',
      paymentMethod: 'pm_card',
      limit: { amount: 200, period: 'day' },
    });
    expect(cfg).toMatchObject({
      object: 'autoTopupConfig',
      amount: '50.00',
      threshold: '10.00',
      paymentMethod: 'pm_card',
      limit: { amount: 200, period: 'day' },
      topupIds: [],
    });
    const next = await h.ok('updateAutoTopupConfig', 200, 'PATCH', `/v0/wallets/${w.id}/autoTopupConfig`, {
      threshold: '5.00',
    });
    expect(next).toMatchObject({
      amount: '50.00',
      threshold: '5.00',
      limit: { amount: 200, period: 'day' },
      createdAt: cfg.createdAt,
    });
    await h.fails(
      'updateAutoTopupConfig',
      400,
      'PATCH',
      `/v0/wallets/${w.id}/autoTopupConfig`,
      { amount: 'lots' },
      'INVALID_AMOUNT',
    );
    await h.fails('updateAutoTopupConfig', 404, 'PATCH', '/v0/wallets/wal_missing/autoTopupConfig', { amount: '1.00' });
  });
});

describe('source rules', () => {
  test('PATCH changes only the provided fields', async () => {
    const src = await h.ok('createSource', 201, 'POST', '/v0/sources', { name: 'Stripe usage' });
    const conditions = [{ type: 'amount', operator: 'lt', value: '100' }];
    const rule = await h.ok('createSourceRule', 201, 'POST', '/v0/sourceRules', {
      sourceId: src.id,
      name: 'Small',
      description: 'Accept small',
      conditions,
      order: 3,
    });
    expect(rule).toMatchObject({ enabled: true, order: 3, evaluationCount: 0, matchCount: 0 });
    const r = await h.ok('updateSourceRule', 200, 'PATCH', `/v0/sourceRules/${rule.id}`, { enabled: false });
    expect(r).toMatchObject({
      id: rule.id,
      name: 'Small',
      description: 'Accept small',
      conditions,
      order: 3,
      enabled: false,
      sourceId: src.id,
      createdAt: rule.createdAt,
    });
    const r2 = await h.ok('updateSourceRule', 200, 'PATCH', `/v0/sourceRules/${rule.id}`, {
      name: 'Tiny',
      conditions: [],
    });
    expect(r2).toMatchObject({ name: 'Tiny', conditions: [], enabled: false, order: 3 });
    await h.fails('updateSourceRule', 404, 'PATCH', '/v0/sourceRules/srule_missing', { name: 'x' });
    await h.fails('createSourceRule', 404, 'POST', '/v0/sourceRules', {
      sourceId: 'src_missing',
      name: 'n',
      description: 'd',
      conditions,
    });
  });
});

describe('events', () => {
  test('usage events need a known subscription and metric; quantity >= 0', async () => {
    const product = await h.ok('createProduct', 201, 'POST', '/v0/products', {
      name: 'P',
      description: 'D',
      merchantId: h.merchantId,
    });
    const bm = await h.ok('createBillableMetric', 201, 'POST', '/v0/billableMetrics', {
      name: 'GB',
      productId: product.id,
    });
    const fee = await h.ok('createFee', 201, 'POST', '/v0/fees', {
      productId: product.id,
      name: 'F',
      invoiceDisplayName: 'F',
    });
    const price = await h.ok('createPrice', 201, 'POST', '/v0/prices', {
      feeId: fee.id,
      model: 'standard',
      currency: 'USD',
      properties: { unitPrice: '1' },
      cadence: 'P1M',
    });
    const plan = await h.ok('createPlan', 201, 'POST', '/v0/plans', { productId: product.id, name: 'P' });
    await h.ok('createPlanVersion', 201, 'POST', `/v0/plans/${plan.id}/versions`, { priceIds: [price.id] });
    const c = await h.ok('createCustomer', 201, 'POST', '/v0/customers', {});
    const sub = await h.ok('createSubscription', 201, 'POST', '/v0/subscriptions', {
      customerId: c.id,
      planId: plan.id,
    });
    const e = await h.ok('ingestEvent', 201, 'POST', '/v0/events', {
      subscriptionId: sub.id,
      billableMetricId: bm.id,
      quantity: 2.5,
    });
    expect(e).toMatchObject({ object: 'event', quantity: 2.5, subscriptionId: sub.id, idempotencyKey: null });
    expect(e.id).toMatch(/^evt_[a-zA-Z0-9]+$/);
    await h.fails('ingestEvent', 404, 'POST', '/v0/events', {
      subscriptionId: 'sub_missing',
      billableMetricId: bm.id,
      quantity: 1,
    });
    await h.fails('ingestEvent', 404, 'POST', '/v0/events', {
      subscriptionId: sub.id,
      billableMetricId: 'bm_missing',
      quantity: 1,
    });
    expect(
      (await h.call('POST', '/v0/events', { subscriptionId: sub.id, billableMetricId: bm.id, quantity: -1 })).status,
    ).toBe(400);
  });

  test('pagination offsets past every row find nothing (never an error)', async () => {
    const r = await h.ok('listPrices', 200, 'GET', '/v0/prices?offset=100000000000000000000');
    expect(r.data).toEqual([]);
    expect(r.pagination.offset).toBe(1e20);
  });
});

describe('reference handshake', () => {
  test('signs the challenge under the key the request carries; a mock of the document could not', async () => {
    const challenge = 'Zk3q_-challenge-0123456789abcdefgh';
    const signed = await h.ok('referenceHandshake', 200, 'POST', '/v0/referenceHandshake', { challenge });
    expect(signed).toEqual({
      object: 'reference_handshake',
      challenge,
      algorithm: 'HMAC-SHA256',
      signature: handshakeSignature(h.ref.apiKey, challenge),
    });
    expect(verifyHandshake(h.ref.apiKey, challenge, signed.signature)).toBe(true);
    // Another key, another signature: it is the caller's key that signs, not a fixed secret.
    const other = await h.newKeyForNewMerchant();
    const again = await h.ok('referenceHandshake', 200, 'POST', '/v0/referenceHandshake', { challenge }, other.key);
    expect(again.signature).toBe(handshakeSignature(other.key, challenge));
    expect(again.signature).not.toBe(signed.signature);
    await h.fails('referenceHandshake', 400, 'POST', '/v0/referenceHandshake', { challenge: 'short' });
    await h.fails('referenceHandshake', 401, 'POST', '/v0/referenceHandshake', { challenge }, undefined, null);
  });
});
