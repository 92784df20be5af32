import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalog, startHarness, type Harness } from './server.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const create = (body: Record<string, unknown> = {}) => h.ok('createCustomer', 201, 'POST', '/v0/customers', body);

describe('customers', () => {
  test("GET answers the customer with validTaxAddress; unknown and other merchants' ids are 404", async () => {
    const c = await create({ name: 'Ada', email: 'ada@example.com', externalId: 'crm-1', taxId: 'FR123' });
    expect(c.id).toMatch(/^cus_[a-zA-Z0-9]+$/);
    const read = await h.ok('getCustomer', 200, 'GET', `/v0/customers/${c.id}`);
    expect(read).toMatchObject({
      id: c.id,
      object: 'customer',
      merchantId: h.merchantId,
      externalId: 'crm-1',
      taxId: 'FR123',
    });
    expect(read.consumerId).toMatch(/^org_[a-zA-Z0-9]+$/);
    expect(read.validTaxAddress).toEqual({ valid: expect.any(Boolean), message: expect.anything() });
    await h.fails('getCustomer', 404, 'GET', '/v0/customers/cus_doesnotexist');
    const other = await h.newKeyForNewMerchant();
    expect((await h.call('GET', `/v0/customers/${c.id}`, undefined, other.key)).status).toBe(404);
    expect((await h.call('PATCH', `/v0/customers/${c.id}`, { taxId: null }, other.key)).status).toBe(404);
    expect((await h.call('DELETE', `/v0/customers/${c.id}`, undefined, other.key)).status).toBe(404);
    await h.fails('getCustomer', 400, 'GET', '/v0/customers/not-a-customer-id');
  });

  test('PATCH: null clears taxId and externalId; absent fields are kept', async () => {
    const c = await create({ externalId: 'crm-2', taxId: 'DE999' });
    const kept = await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${c.id}`, {});
    expect([kept.externalId, kept.taxId]).toEqual(['crm-2', 'DE999']);
    const cleared = await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${c.id}`, {
      taxId: null,
      externalId: null,
    });
    expect('taxId' in cleared).toBe(false);
    expect('externalId' in cleared).toBe(false);
    const read = await h.ok('getCustomer', 200, 'GET', `/v0/customers/${c.id}`);
    expect('taxId' in read || 'externalId' in read).toBe(false);
    const set = await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${c.id}`, { taxId: 'NL1' });
    expect(set.taxId).toBe('NL1');
  });

  test('externalId: 255 characters pass, 256 fail with a ValidationError naming the field', async () => {
    const c = await create();
    const ok = await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${c.id}`, { externalId: 'x'.repeat(255) });
    expect(ok.externalId).toHaveLength(255);
    const bad = await h.call('PATCH', `/v0/customers/${c.id}`, { externalId: 'y'.repeat(256) });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.field)).toContain('body.externalId');
    expect((await h.ok('getCustomer', 200, 'GET', `/v0/customers/${c.id}`)).externalId).toBe('x'.repeat(255));
  });

  test('taxRates: 0 and 100 pass as one rate for all plans and metrics; -1 and 100.01 fail', async () => {
    const c = await create();
    for (const rate of [0, 100, 7.5]) {
      const r = await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${c.id}`, { taxRates: rate });
      expect(r.taxRates).toEqual({ default: rate });
    }
    for (const bad of [-1, 100.01, '10']) {
      const r = await h.call('PATCH', `/v0/customers/${c.id}`, { taxRates: bad });
      expect(r.status, String(bad)).toBe(400);
      expect(r.body.errors.map((e: any) => e.field)).toContain('body.taxRates');
    }
    expect((await h.ok('getCustomer', 200, 'GET', `/v0/customers/${c.id}`)).taxRates).toEqual({ default: 7.5 });
  });

  test('notificationSettings: only the provided flags change', async () => {
    const c = await create();
    const a = await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${c.id}`, {
      notificationSettings: { renewalReminder: true },
    });
    expect(a.notificationSettings).toEqual({ invoiceIssued: true, invoicePaid: true, renewalReminder: true });
    const b = await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${c.id}`, {
      notificationSettings: { invoiceIssued: false },
    });
    expect(b.notificationSettings).toEqual({ invoiceIssued: false, invoicePaid: true, renewalReminder: true });
    const bad = await h.call('PATCH', `/v0/customers/${c.id}`, { notificationSettings: { invoicePaid: 'yes' } });
    expect(bad.status).toBe(400);
  });

  test('DELETE is refused with 409 conflict and blockers while live subscriptions exist, then succeeds', async () => {
    const cat = await catalog(h);
    const price = await cat.price({
      feeId: cat.fee.id,
      model: 'standard',
      properties: { unitPrice: '1.00' },
      cadence: 'P1M',
    });
    const plan = await h.ok('createPlan', 201, 'POST', '/v0/plans', { productId: cat.product.id, name: 'Basic' });
    await h.ok('createPlanVersion', 201, 'POST', `/v0/plans/${plan.id}/versions`, { priceIds: [price.id] });
    const c = await create();
    const subs = [];
    for (let i = 0; i < 2; i++)
      subs.push(
        await h.ok('createSubscription', 201, 'POST', '/v0/subscriptions', { customerId: c.id, planId: plan.id }),
      );
    const blocked = await h.fails(
      'deleteCustomer',
      409,
      'DELETE',
      `/v0/customers/${c.id}`,
      undefined,
      'CUSTOMER_HAS_DEPENDANTS',
    );
    expect(blocked.error).toBe('conflict');
    expect(blocked.details.blockers).toEqual([
      {
        type: 'subscriptions',
        count: 2,
        items: expect.arrayContaining(subs.map((s) => ({ id: s.id, status: 'active' }))),
      },
    ]);
    expect(blocked.details.blockers[0].items).toHaveLength(2);
    await h.ok('cancelSubscription', 200, 'POST', `/v0/subscriptions/${subs[0].id}/cancel`);
    const still = await h.fails('deleteCustomer', 409, 'DELETE', `/v0/customers/${c.id}`);
    expect(still.details.blockers[0]).toEqual({
      type: 'subscriptions',
      count: 1,
      items: [{ id: subs[1].id, status: 'active' }],
    });
    await h.ok('cancelSubscription', 200, 'POST', `/v0/subscriptions/${subs[1].id}/cancel`);
    const del = await h.call('DELETE', `/v0/customers/${c.id}`);
    expect(del.status).toBe(204);
    await h.fails('getCustomer', 404, 'GET', `/v0/customers/${c.id}`);
  });
});
