import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalog, startHarness, type Harness } from './server.ts';

let h: Harness;
let env: Awaited<ReturnType<typeof setup>>;
const T0 = '2024-01-31T10:00:00.000Z';
const BOUNDARY = '2024-02-29T10:00:00.000Z';

async function setup() {
  const c = await catalog(h);
  const feeB = await h.ok('createFee', 201, 'POST', '/v0/fees', {
    productId: c.product.id,
    name: 'Support',
    invoiceDisplayName: 'Support',
  });
  const a1 = await c.price({ feeId: c.fee.id, model: 'standard', properties: { unitPrice: '10.00' }, cadence: 'P1M' });
  const a2 = await c.price({ feeId: c.fee.id, model: 'standard', properties: { unitPrice: '12.00' }, cadence: 'P1M' });
  const aVol = await c.price({
    feeId: c.fee.id,
    model: 'volume',
    properties: { tiers: [{ unitPrice: '1.00', upTo: null }] },
    cadence: 'P1M',
  });
  const b1 = await c.price({ feeId: feeB.id, model: 'standard', properties: { unitPrice: '5.00' }, cadence: 'P1M' });
  const plan = await h.ok('createPlan', 201, 'POST', '/v0/plans', { productId: c.product.id, name: 'Pro' });
  const publish = (body: Record<string, unknown>) =>
    h.ok('createPlanVersion', 201, 'POST', `/v0/plans/${plan.id}/versions`, body);
  const v1 = await publish({
    priceIds: [a1.id],
    features: [{ key: 'seats', resetPeriod: 'P1M', billableMetricId: c.metric.id }],
  });
  const v2 = await publish({
    priceIds: [a1.id, b1.id],
    features: [{ key: 'seats', resetPeriod: 'P1M', billableMetricId: c.metric.id }],
    makeDefault: true,
  });
  const v3 = await publish({
    priceIds: [a2.id, b1.id],
    features: [{ key: 'seats', resetPeriod: 'P1M', billableMetricId: c.metric.id }],
  });
  const v4 = await publish({ priceIds: [a1.id] });
  const vVolume = await publish({
    priceIds: [aVol.id, b1.id],
    features: [{ key: 'seats', resetPeriod: 'P1M', billableMetricId: c.metric.id }],
  });
  const vFeature = await publish({
    priceIds: [a1.id, b1.id],
    features: [{ key: 'seats', resetPeriod: 'P1Y', billableMetricId: c.metric.id }],
  });
  await h.ok('archivePlanVersion', 200, 'POST', `/v0/plans/${plan.id}/versions/4/archive`);
  const clock = await h.ok('createTestClock', 201, 'POST', '/v0/testClocks', {
    frozenTime: '2024-02-10T00:00:00.000Z',
  });
  const customer = await h.ok('createCustomer', 201, 'POST', '/v0/customers', { name: 'Sub customer' });
  const subscribe = async (extra: Record<string, unknown> = {}) => {
    const cus = extra.customerId ? extra.customerId : customer.id;
    return h.ok('createSubscription', 201, 'POST', '/v0/subscriptions', {
      planId: plan.id,
      testClockId: clock.id,
      startedAt: T0,
      ...extra,
      customerId: cus,
    });
  };
  return { ...c, feeB, a1, a2, aVol, b1, plan, v1, v2, v3, v4, vVolume, vFeature, clock, customer, subscribe };
}

beforeAll(async () => {
  h = await startHarness();
  env = await setup();
});
afterAll(async () => h?.close());

const migrate = (id: string, target: unknown) =>
  h.call('POST', `/v0/subscriptions/${id}/versionMigration`, { targetVersionNumber: target });

describe('plans and subscriptions (extensions)', () => {
  test('versions are numbered from 1; the first and makeDefault ones become default; archived version', async () => {
    expect([env.v1.versionNumber, env.v2.versionNumber, env.v3.versionNumber]).toEqual([1, 2, 3]);
    expect(env.v1.id).toMatch(/^plv_[a-zA-Z0-9]+$/);
    const plan = await h.ok('getPlan', 200, 'GET', `/v0/plans/${env.plan.id}`);
    expect(plan.defaultVersionNumber).toBe(2);
    expect(plan.versions.map((v: any) => [v.versionNumber, v.status, v.isDefault])).toEqual([
      [1, 'published', false],
      [2, 'published', true],
      [3, 'published', false],
      [4, 'archived', false],
      [5, 'published', false],
      [6, 'published', false],
    ]);
    await h.fails(
      'archivePlanVersion',
      409,
      'POST',
      `/v0/plans/${env.plan.id}/versions/2/archive`,
      undefined,
      'DEFAULT_VERSION',
    );
  });

  test('a new subscription floats on the default version with its current period', async () => {
    const s = await env.subscribe();
    expect(s).toMatchObject({
      object: 'subscription',
      status: 'active',
      versionPolicy: 'floating',
      versionNumber: 2,
      planVersionId: env.v2.id,
      currentPeriodStart: T0,
      currentPeriodEnd: BOUNDARY,
      pendingMigration: null,
    });
    expect(s.id).toMatch(/^sub_[a-zA-Z0-9]+$/);
    expect('endingAt' in s).toBe(false);
    const pinned = await env.subscribe({ versionNumber: 1 });
    expect([pinned.versionPolicy, pinned.versionNumber]).toEqual(['pinned', 1]);
  });
});

describe('POST /v0/subscriptions/{id}/versionMigration', () => {
  test('moves at the end of the current period, pins, and answers the documented shape', async () => {
    const s = await env.subscribe();
    const r = await h.ok('migrateSubscriptionVersion', 200, 'POST', `/v0/subscriptions/${s.id}/versionMigration`, {
      targetVersionNumber: 3,
    });
    expect(r.migration).toEqual({ fromVersionNumber: 2, toVersionNumber: 3, effectiveAt: BOUNDARY, changed: true });
    expect(r.lineItems).toEqual({ syncFailed: false });
    expect(r.subscription).toMatchObject({ id: s.id, versionPolicy: 'pinned', versionNumber: 2 });
    const read = await h.ok('getSubscription', 200, 'GET', `/v0/subscriptions/${s.id}`);
    expect(read.pendingMigration).toEqual({ fromVersionNumber: 2, toVersionNumber: 3, effectiveAt: BOUNDARY });
    expect(read.versionNumber).toBe(2); // the current period bills as before
  });

  test('a second migration before the boundary replaces the first; older targets work', async () => {
    const s = await env.subscribe();
    expect((await migrate(s.id, 3)).status).toBe(200);
    const second = await migrate(s.id, 1);
    expect(second.status).toBe(200);
    expect(second.body.migration).toMatchObject({ fromVersionNumber: 2, toVersionNumber: 1, changed: true });
    const read = await h.ok('getSubscription', 200, 'GET', `/v0/subscriptions/${s.id}`);
    expect(read.pendingMigration.toVersionNumber).toBe(1);
  });

  test('same version: changed false, pins a floating subscription, safe to repeat', async () => {
    const s = await env.subscribe();
    const first = await h.ok('migrateSubscriptionVersion', 200, 'POST', `/v0/subscriptions/${s.id}/versionMigration`, {
      targetVersionNumber: 2,
    });
    expect(first.migration).toEqual({
      fromVersionNumber: 2,
      toVersionNumber: 2,
      effectiveAt: BOUNDARY,
      changed: false,
    });
    expect(first.subscription.versionPolicy).toBe('pinned');
    const again = await migrate(s.id, 2);
    expect(again.status).toBe(200);
    expect(again.body.migration).toEqual(first.migration);
    expect(again.body.subscription.versionNumber).toBe(2);
    expect(again.body.subscription.pendingMigration).toBeNull();
  });

  test('404 for a missing or archived version; 400 outside 1..2147483647', async () => {
    const s = await env.subscribe();
    await h.fails(
      'migrateSubscriptionVersion',
      404,
      'POST',
      `/v0/subscriptions/${s.id}/versionMigration`,
      { targetVersionNumber: 99 },
      'PLAN_VERSION_NOT_FOUND',
    );
    await h.fails(
      'migrateSubscriptionVersion',
      404,
      'POST',
      `/v0/subscriptions/${s.id}/versionMigration`,
      { targetVersionNumber: 4 },
      'PLAN_VERSION_ARCHIVED',
    );
    for (const bad of [0, -1, 2147483648, 1.5, '2']) {
      const r = await migrate(s.id, bad);
      expect(r.status, String(bad)).toBe(400);
      expect(r.body.error).toBe('validation_error');
      expect(r.body.errors[0].field).toBe('body.targetVersionNumber');
    }
    expect((await migrate(s.id, 2147483647)).status).toBe(404);
    const nothing = await h.ok('getSubscription', 200, 'GET', `/v0/subscriptions/${s.id}`);
    expect([nothing.versionPolicy, nothing.pendingMigration]).toEqual(['floating', null]);
  });

  test('409 SUBSCRIPTION_NOT_LIVE for a cancelled subscription', async () => {
    const s = await env.subscribe();
    const cancelled = await h.ok('cancelSubscription', 200, 'POST', `/v0/subscriptions/${s.id}/cancel`, {
      reason: 'test',
    });
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      terminatedAt: '2024-02-10T00:00:00.000Z',
      terminationReason: 'test',
    });
    await h.fails(
      'migrateSubscriptionVersion',
      409,
      'POST',
      `/v0/subscriptions/${s.id}/versionMigration`,
      { targetVersionNumber: 3 },
      'SUBSCRIPTION_NOT_LIVE',
    );
  });

  test('409 SUBSCRIPTION_ENDS_BEFORE_BOUNDARY when it ends at or before the boundary', async () => {
    const atBoundary = await env.subscribe({ endingAt: BOUNDARY });
    await h.fails(
      'migrateSubscriptionVersion',
      409,
      'POST',
      `/v0/subscriptions/${atBoundary.id}/versionMigration`,
      { targetVersionNumber: 3 },
      'SUBSCRIPTION_ENDS_BEFORE_BOUNDARY',
    );
    const later = await env.subscribe({ endingAt: '2024-06-01T00:00:00.000Z' });
    expect((await migrate(later.id, 3)).status).toBe(200);
  });

  test('409 OVERRIDE_RATE_MEANING_CHANGED when a kept override changes meaning', async () => {
    const s = await env.subscribe({ overrides: [{ priceId: env.a1.id, unitPrice: '8.00' }] });
    // v3 sells a standard price for the same fee: the override is kept as is.
    expect((await migrate(s.id, 3)).status).toBe(200);
    await h.fails(
      'migrateSubscriptionVersion',
      409,
      'POST',
      `/v0/subscriptions/${s.id}/versionMigration`,
      { targetVersionNumber: env.vVolume.versionNumber },
      'OVERRIDE_RATE_MEANING_CHANGED',
    );
  });

  test('409 FEATURE_DEFINITION_CHANGED when a feature reset period changes', async () => {
    const s = await env.subscribe();
    await h.fails(
      'migrateSubscriptionVersion',
      409,
      'POST',
      `/v0/subscriptions/${s.id}/versionMigration`,
      { targetVersionNumber: env.vFeature.versionNumber },
      'FEATURE_DEFINITION_CHANGED',
    );
  });

  test('409 PRICE_COVERED_BY_INTERVAL when a continuing order interval covers a price the target sells', async () => {
    const customer = await h.ok('createCustomer', 201, 'POST', '/v0/customers', { name: 'Order customer' });
    const s = await env.subscribe({ customerId: customer.id, versionNumber: 1 });
    const order = await h.ok('createOrder', 201, 'POST', '/v0/orders', {
      customerId: customer.id,
      lineItems: [{ description: 'Support, prepaid', quantity: 1, unitPrice: '5.00', priceId: env.b1.id }],
    });
    const schedule = await h.ok('createBillingSchedule', 201, 'POST', '/v0/billingSchedules', {
      orderId: order.id,
      startDate: T0,
      endDate: '2024-12-31T00:00:00.000Z',
    });
    const refused = await h.fails(
      'migrateSubscriptionVersion',
      409,
      'POST',
      `/v0/subscriptions/${s.id}/versionMigration`,
      { targetVersionNumber: 3 },
      'PRICE_COVERED_BY_INTERVAL',
    );
    expect(refused.details).toMatchObject({ priceId: env.b1.id, scheduleId: schedule.id });
    // Once the schedule is gone, nothing covers the price.
    expect((await h.call('DELETE', `/v0/billingSchedules/${schedule.id}`)).status).toBe(204);
    expect((await migrate(s.id, 3)).status).toBe(200);
  });

  test("another merchant's subscription is 404", async () => {
    const s = await env.subscribe();
    const other = await h.newKeyForNewMerchant();
    const r = await h.call('POST', `/v0/subscriptions/${s.id}/versionMigration`, { targetVersionNumber: 3 }, other.key);
    expect(r.status).toBe(404);
    expect((await h.call('GET', `/v0/subscriptions/${s.id}`, undefined, other.key)).status).toBe(404);
  });
});

describe('version policy', () => {
  test('PATCH versionPolicy floating follows the default again; pinned stays when the default changes', async () => {
    const floatingLater = await env.subscribe();
    const pinned = await env.subscribe();
    await migrate(pinned.id, 3);
    const patched = await h.ok('updateSubscription', 200, 'PATCH', `/v0/subscriptions/${pinned.id}`, {
      versionPolicy: 'floating',
    });
    expect(patched).toMatchObject({ versionPolicy: 'floating', versionNumber: 2 });
    expect(patched.pendingMigration).toBeNull();
    const stay = await env.subscribe({ versionNumber: 1 });
    // Publish a new default: floating subscriptions follow, pinned ones stay.
    const plan2 = await h.ok('createPlan', 201, 'POST', '/v0/plans', { productId: env.product.id, name: 'Solo' });
    void plan2;
    const v7 = await h.ok('createPlanVersion', 201, 'POST', `/v0/plans/${env.plan.id}/versions`, {
      priceIds: [env.a1.id, env.b1.id],
      features: [{ key: 'seats', resetPeriod: 'P1M', billableMetricId: env.metric.id }],
      makeDefault: true,
    });
    expect(v7.isDefault).toBe(true);
    for (const id of [floatingLater.id, pinned.id]) {
      const s = await h.ok('getSubscription', 200, 'GET', `/v0/subscriptions/${id}`);
      expect([s.versionNumber, s.planVersionId], id).toEqual([v7.versionNumber, v7.id]);
    }
    const still = await h.ok('getSubscription', 200, 'GET', `/v0/subscriptions/${stay.id}`);
    expect([still.versionPolicy, still.versionNumber]).toEqual(['pinned', 1]);
    // Put the default back for the other tests.
    const back = await h.call('POST', `/v0/plans/${env.plan.id}/versions`, {
      priceIds: [env.a1.id, env.b1.id],
      features: [{ key: 'seats', resetPeriod: 'P1M', billableMetricId: env.metric.id }],
      makeDefault: true,
    });
    expect(back.status).toBe(201);
  });
});

describe('after the boundary the subscription bills from the target version', () => {
  test('advancing the test clock closes periods, applies the migration and invoices each period', async () => {
    const product = env.product;
    const clock = await h.ok('createTestClock', 201, 'POST', '/v0/testClocks', {
      frozenTime: '2024-02-10T00:00:00.000Z',
    });
    const customer = await h.ok('createCustomer', 201, 'POST', '/v0/customers', { name: 'Billing' });
    await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${customer.id}`, { taxRates: 10 });
    void product;
    const s = await h.ok('createSubscription', 201, 'POST', '/v0/subscriptions', {
      customerId: customer.id,
      planId: env.plan.id,
      versionNumber: 2,
      testClockId: clock.id,
      startedAt: T0,
    });
    await migrate(s.id, 3);
    await h.fails(
      'advanceTestClock',
      400,
      'POST',
      `/v0/testClocks/${clock.id}/advance`,
      { frozenTime: '2024-01-01T00:00:00.000Z' },
      'TEST_CLOCK_BACKWARDS',
    );
    const advanced = await h.ok('advanceTestClock', 200, 'POST', `/v0/testClocks/${clock.id}/advance`, {
      frozenTime: '2024-04-01T00:00:00.000Z',
    });
    expect(advanced.frozenTime).toBe('2024-04-01T00:00:00.000Z');
    const sub = await h.ok('getSubscription', 200, 'GET', `/v0/subscriptions/${s.id}`);
    expect(sub).toMatchObject({
      versionNumber: 3,
      planVersionId: env.v3.id,
      versionPolicy: 'pinned',
      pendingMigration: null,
      currentPeriodStart: '2024-03-31T10:00:00.000Z',
    });
    const list = await h.ok('listInvoices', 200, 'GET', `/v2/invoices?subscriptionId=${s.id}`);
    const byStart = [...list.data].sort((a: any, b: any) => a.periodStart.localeCompare(b.periodStart));
    expect(byStart.map((i: any) => [i.periodStart, i.status])).toEqual([
      [T0, 'open'],
      [BOUNDARY, 'open'],
    ]);
    expect(byStart[0].lineItems.map((l: any) => l.priceId).sort()).toEqual([env.a1.id, env.b1.id].sort());
    expect(byStart[1].lineItems.map((l: any) => l.priceId).sort()).toEqual([env.a2.id, env.b1.id].sort());
    // 10 + 5 at 10% tax, then 12 + 5.
    expect([byStart[0].subtotal, byStart[0].taxAmount, byStart[0].total]).toEqual(['15.00', '1.50', '16.50']);
    expect([byStart[1].subtotal, byStart[1].taxAmount, byStart[1].total]).toEqual(['17.00', '1.70', '18.70']);
    // Advancing again over the same time bills nothing twice.
    await h.ok('advanceTestClock', 200, 'POST', `/v0/testClocks/${clock.id}/advance`, {
      frozenTime: '2024-04-01T00:00:00.000Z',
    });
    expect((await h.ok('listInvoices', 200, 'GET', `/v2/invoices?subscriptionId=${s.id}`)).pagination.total).toBe(2);
  });
});
