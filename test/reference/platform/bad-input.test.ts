/**
 * Input that once produced a 500 answers 4xx naming the field, or succeeds: nesting past
 * the documented depth, quantities of 1e21 and more, leap seconds, cadences of centuries,
 * numbers that overflow to Infinity, negative amounts (one rule: 400 INVALID_AMOUNT).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH } from '../../../src/reference/http/validation.ts';
import { startTestServer, type TestServer } from './helpers.ts';

let s: TestServer;
let ids: Record<string, string>;

const created = (r: { status: number; body: any }) => {
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
};
/** A raw JSON text (what JSON.stringify cannot write: 1e400, deep nesting). */
const raw = (method: string, url: string, payload: string) =>
  s.call(method, url, { payload, headers: { 'content-type': 'application/json' } });
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const fields = (r: { body: any }) => (r.body.errors ?? []).map((e: any) => e.field);

beforeAll(async () => {
  s = await startTestServer({});
  const product = created(
    await s.call('POST', '/v0/products', { body: { name: 'P', description: 'D', merchantId: s.merchantId } }),
  );
  const fee = created(
    await s.call('POST', '/v0/fees', { body: { productId: product.id, name: 'F', invoiceDisplayName: 'F' } }),
  );
  const price = created(
    await s.call('POST', '/v0/prices', {
      body: { feeId: fee.id, model: 'standard', currency: 'USD', properties: { unitPrice: '1.00' }, cadence: 'P1M' },
    }),
  );
  const plan = created(await s.call('POST', '/v0/plans', { body: { productId: product.id, name: 'Plan' } }));
  created(await s.call('POST', `/v0/plans/${plan.id}/versions`, { body: { priceIds: [price.id] } }));
  const customer = created(await s.call('POST', '/v0/customers', { body: {} }));
  const wallet = created(await s.call('POST', '/v0/wallets', { body: { customerId: customer.id } }));
  const invoice = created(
    await s.call('POST', '/v2/invoices', {
      body: { customerId: customer.id, lineItems: [{ description: 'x', amount: '1.00' }] },
    }),
  );
  const source = created(await s.call('POST', '/v0/sources', { body: { name: 'S' } }));
  ids = {
    product: product.id,
    fee: fee.id,
    price: price.id,
    plan: plan.id,
    customer: customer.id,
    wallet: wallet.id,
    invoice: invoice.id,
    source: source.id,
  };
});
afterAll(async () => s?.close());

describe('nesting depth', () => {
  it(`refuses free-form objects nested past ${MAX_NESTING_DEPTH} levels with 400 naming the field, and accepts the limit`, async () => {
    // [method, url, body around the deep value, the field named, levels above the deep value]
    const cases: Array<[string, string, (deep: string) => string, string, number]> = [
      [
        'POST',
        '/v0/products',
        (d) => `{"name":"P","description":"D","merchantId":"${s.merchantId}","metadata":${d}}`,
        'body.metadata',
        1,
      ],
      ['POST', '/v0/merchants', (d) => `{"name":"M","metadata":${d}}`, 'body.metadata', 1],
      [
        'POST',
        '/v0/alerts',
        (d) => `{"resourceId":"${ids.wallet}","type":"wallet_low_balance","config":${d}}`,
        'body.config',
        1,
      ],
      [
        'POST',
        '/v0/sourceRules',
        (d) =>
          `{"sourceId":"${ids.source}","name":"R","description":"D","conditions":[{"type":"t","operator":"eq","value":${d}}]}`,
        'body.conditions',
        3,
      ],
    ];
    for (const [method, url, body, field, above] of cases) {
      const deep = await raw(method, url, body(nested(5000)));
      expect(deep.status, `${url} ${JSON.stringify(deep.body)}`).toBe(400);
      expect(fields(deep)).toEqual([field]);
      expect(deep.body.errors[0].code).toBe('max_depth');
      // The body is level 1: a value under `above` levels may hold MAX_NESTING_DEPTH - above more.
      const ok = await raw(method, url, body(nested(MAX_NESTING_DEPTH - above)));
      expect(ok.status, `${url} at the limit: ${JSON.stringify(ok.body)}`).toBe(201);
      const over = await raw(method, url, body(nested(MAX_NESTING_DEPTH - above + 1)));
      expect(over.status, `${url} one past the limit`).toBe(400);
    }
  });
});

describe('numbers', () => {
  it('bills a quantity of 1e21 and more', async () => {
    const inv = await s.call('POST', '/v2/invoices', {
      body: { customerId: ids.customer, lineItems: [{ description: 'many', amount: '2', quantity: 1e21 }] },
    });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    expect(inv.body.subtotal).toBe('2000000000000000000000.00');
    const draft = created(
      await s.call('POST', '/v2/invoices', {
        body: { customerId: ids.customer, lineItems: [{ description: 'x', amount: '1' }] },
      }),
    );
    const added = await s.call('POST', '/v2/invoices/lineItems', {
      body: { invoiceId: draft.id, lineItems: [{ description: 'more', amount: '1', quantity: 1e22 }] },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  });

  it('refuses numbers that overflow to Infinity, naming the field', async () => {
    const cases: Array<[string, string, string, string]> = [
      [
        'POST',
        '/v0/prices',
        `{"feeId":"${ids.fee}","model":"standard","currency":"USD","properties":{"unitPrice":"1"},"cadence":"P1M","quantity":1e400}`,
        'body.quantity',
      ],
      [
        'POST',
        '/v0/orders',
        `{"customerId":"${ids.customer}","lineItems":[{"description":"d","quantity":1e400,"unitPrice":"1"}]}`,
        'body.lineItems[0].quantity',
      ],
      [
        'POST',
        '/v0/alerts',
        `{"resourceId":"${ids.wallet}","type":"wallet_low_balance","notifyPeriod":1e400}`,
        'body.notifyPeriod',
      ],
      [
        'PATCH',
        `/v0/wallets/${ids.wallet}/autoTopupConfig`,
        '{"limit":{"amount":1e400,"period":"day"}}',
        'body.limit.amount',
      ],
      [
        'PATCH',
        `/v0/wallets/${ids.wallet}/autoTopupConfig`,
        '{"limit":{"amount":-1e400,"period":"day"}}',
        'body.limit.amount',
      ],
    ];
    for (const [method, url, body, field] of cases) {
      const r = await raw(method, url, body);
      expect(r.status, `${url} ${JSON.stringify(r.body)}`).toBe(400);
      expect(fields(r)).toEqual([field]);
    }
    const offset = await s.call('GET', `/v0/alerts?resourceId=${ids.wallet}&offset=1e400`);
    expect(offset.status).toBe(400);
    expect(fields(offset)).toEqual(['query.offset']);
    const list = await s.call('GET', '/v0/customers?offset=1e400');
    expect(list.status).toBe(400);
    expect(fields(list)).toEqual(['query.offset']);
  });
});

describe('time', () => {
  it('reads a leap second as the last instant of its minute', async () => {
    const clock = await s.call('POST', '/v0/testClocks', { body: { frozenTime: '2016-12-31T23:59:60Z' } });
    expect(clock.status, JSON.stringify(clock.body)).toBe(201);
    expect(clock.body.frozenTime).toBe('2016-12-31T23:59:59.999Z');
    const sub = await s.call('POST', '/v0/subscriptions', {
      body: {
        customerId: ids.customer,
        planId: ids.plan,
        startedAt: '2016-12-31T23:59:60Z',
        testClockId: clock.body.id,
      },
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    expect(sub.body.startedAt).toBe('2016-12-31T23:59:59.999Z');
    const advanced = await s.call('POST', `/v0/testClocks/${clock.body.id}/advance`, {
      body: { frozenTime: '2017-06-30T23:59:60.5+00:00' },
    });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    const order = created(
      await s.call('POST', '/v0/orders', {
        body: { customerId: ids.customer, lineItems: [{ description: 'd', quantity: 1, unitPrice: '1' }] },
      }),
    );
    const schedule = await s.call('POST', '/v0/billingSchedules', {
      body: { orderId: order.id, startDate: '2016-12-31T23:59:60Z' },
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
  });

  it('refuses cadences longer than 100 years, and bills one of 100 years', async () => {
    for (const billingCadence of ['P300000Y', 'P99999999D', 'P101Y', 'P1201M', 'P99999999999999999999Y']) {
      const r = await s.call('POST', '/v0/plans', { body: { productId: ids.product, name: 'long', billingCadence } });
      expect(r.status, billingCadence).toBe(400);
      expect(r.body.code).toBe('INVALID_CADENCE');
    }
    const price = await s.call('POST', '/v0/prices', {
      body: { feeId: ids.fee, model: 'standard', currency: 'USD', properties: { unitPrice: '1' }, cadence: 'P300000Y' },
    });
    expect(price.status).toBe(400);
    const plan = created(
      await s.call('POST', '/v0/plans', { body: { productId: ids.product, name: 'century', billingCadence: 'P100Y' } }),
    );
    created(await s.call('POST', `/v0/plans/${plan.id}/versions`, { body: { priceIds: [ids.price] } }));
    const sub = await s.call('POST', '/v0/subscriptions', { body: { customerId: ids.customer, planId: plan.id } });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  });
});

describe('negative amounts: one rule', () => {
  it('refuses a negative amount wherever money is written, with 400 INVALID_AMOUNT naming the field', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      [
        'POST',
        '/v2/invoices',
        { customerId: ids.customer, lineItems: [{ description: 'x', amount: '-1.00' }] },
        'lineItems[0].amount',
      ],
      [
        'POST',
        '/v2/invoices/lineItems',
        { invoiceId: ids.invoice, lineItems: [{ description: 'x', amount: '-0.01' }] },
        'lineItems[0].amount',
      ],
      [
        'POST',
        '/v0/orders',
        { customerId: ids.customer, lineItems: [{ description: 'd', quantity: 1, unitPrice: '-5' }] },
        'lineItems[0].unitPrice',
      ],
      [
        'POST',
        '/v0/subscriptions',
        { customerId: ids.customer, planId: ids.plan, overrides: [{ priceId: ids.price, unitPrice: '-1' }] },
        'overrides[0].unitPrice',
      ],
      ['POST', '/v0/payments', { amount: '-1.00', currency: 'USD' }, 'amount'],
      [
        'POST',
        '/v0/prices',
        { feeId: ids.fee, model: 'standard', currency: 'USD', properties: { unitPrice: '-1' }, cadence: 'P1M' },
        'properties.unitPrice',
      ],
      [
        'POST',
        '/v0/prices',
        {
          feeId: ids.fee,
          model: 'volume',
          currency: 'USD',
          properties: { tiers: [{ unitPrice: '-1', upTo: null }] },
          cadence: 'P1M',
        },
        'properties.tiers[0].unitPrice',
      ],
      ['PATCH', `/v0/wallets/${ids.wallet}/autoTopupConfig`, { amount: '-10' }, 'amount'],
    ];
    for (const [method, url, body, field] of cases) {
      const r = await s.call(method, url, { body });
      expect(r.status, `${url} ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.code, url).toBe('INVALID_AMOUNT');
      expect(r.body.message.startsWith(`${field}:`), r.body.message).toBe(true);
    }
    // Zero is an amount.
    expect(
      (
        await s.call('POST', '/v0/orders', {
          body: { customerId: ids.customer, lineItems: [{ description: 'free', quantity: 1, unitPrice: '0' }] },
        })
      ).status,
    ).toBe(201);
  });
});
