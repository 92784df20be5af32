/**
 * Integrity under concurrency: every check-then-write on a delete blocker or a state
 * transition holds when the requests race. Each round fires the two sides of one race at
 * once and then reads what was stored; a violation is a state the checks exist to forbid
 * (a subscription of a deleted customer, a price of a deleted fee, a published version
 * selling a deleted price, two cancellations of one subscription).
 * RACE_ROUNDS sets the rounds per race (default 25).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drivers, isolatedPgUrl, type DriverCase } from './drivers.ts';
import { startTestServer, type TestServer } from './helpers.ts';

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 25);
/** Creators fired beside each delete: more than one widens the window. */
const CREATORS = 3;

async function serverOn(driver: DriverCase): Promise<{ s: TestServer; dispose(): Promise<void> }> {
  if (driver.name.startsWith('PGlite')) {
    const s = await startTestServer({});
    return { s, dispose: () => s.close() };
  }
  const { url, drop } = await isolatedPgUrl();
  const s = await startTestServer({ database: url });
  return {
    s,
    dispose: async () => {
      await s.close();
      await drop();
    },
  };
}

function expectStatus(r: { status: number; body: unknown }, status: number) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body as any;
}

describe.each(drivers)('races on $name', (driver) => {
  let s: TestServer;
  let dispose: () => Promise<void>;
  let product: any;
  let plan: any;

  beforeAll(async () => {
    if (driver.skip) return;
    ({ s, dispose } = await serverOn(driver));
    product = expectStatus(
      await s.call('POST', '/v0/products', { body: { name: 'P', description: 'D', merchantId: s.merchantId } }),
      201,
    );
    const fee = expectStatus(
      await s.call('POST', '/v0/fees', { body: { productId: product.id, name: 'F', invoiceDisplayName: 'F' } }),
      201,
    );
    const price = expectStatus(
      await s.call('POST', '/v0/prices', {
        body: { feeId: fee.id, model: 'standard', currency: 'USD', properties: { unitPrice: '1.00' }, cadence: 'P1M' },
      }),
      201,
    );
    plan = expectStatus(await s.call('POST', '/v0/plans', { body: { productId: product.id, name: 'Plan' } }), 201);
    expectStatus(await s.call('POST', `/v0/plans/${plan.id}/versions`, { body: { priceIds: [price.id] } }), 201);
  });
  afterAll(async () => dispose?.());

  it.skipIf(driver.skip)(
    `DELETE /v0/customers/{id} racing POST /v0/subscriptions: no subscription outlives its customer (${ROUNDS} rounds)`,
    async () => {
      let violations = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const customer = expectStatus(await s.call('POST', '/v0/customers', { body: { name: `c${round}` } }), 201);
        const [del, ...creates] = await Promise.all([
          s.call('DELETE', `/v0/customers/${customer.id}`),
          ...Array.from({ length: CREATORS }, () =>
            s.call('POST', '/v0/subscriptions', { body: { customerId: customer.id, planId: plan.id } }),
          ),
        ]);
        for (const r of [del, ...creates]) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
        const gone = (await s.call('GET', `/v0/customers/${customer.id}`)).status === 404;
        const created = creates.filter((r) => r.status === 201);
        const stored = await Promise.all(created.map((r) => s.call('GET', `/v0/subscriptions/${r.body.id}`)));
        const orphans = stored.filter((r) => r.status === 200 && r.body.status === 'active');
        if (gone && orphans.length > 0) violations++;
        // The delete answers 204 only when it really happened, 409 only when it was blocked.
        expect(
          del.status === 204 ? gone : !gone,
          `round ${round}: delete ${del.status}, customer ${gone ? 'gone' : 'kept'}`,
        ).toBe(true);
      }
      expect(violations, `${violations} of ${ROUNDS} rounds left subscriptions of a deleted customer`).toBe(0);
    },
  );

  it.skipIf(driver.skip)(
    `DELETE /v0/fees/{id} racing POST /v0/prices: no price outlives its fee (${ROUNDS} rounds)`,
    async () => {
      let violations = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const fee = expectStatus(
          await s.call('POST', '/v0/fees', {
            body: { productId: product.id, name: `f${round}`, invoiceDisplayName: 'F' },
          }),
          201,
        );
        const [del, ...creates] = await Promise.all([
          s.call('DELETE', `/v0/fees/${fee.id}`),
          ...Array.from({ length: CREATORS }, () =>
            s.call('POST', '/v0/prices', {
              body: {
                feeId: fee.id,
                model: 'standard',
                currency: 'USD',
                properties: { unitPrice: '2.00' },
                cadence: 'P1M',
              },
            }),
          ),
        ]);
        for (const r of [del, ...creates]) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
        const listed = expectStatus(await s.call('GET', `/v0/prices?feeId=${fee.id}&limit=100`), 200);
        if (del.status === 204 && listed.data.length > 0) violations++;
      }
      expect(violations, `${violations} of ${ROUNDS} rounds left prices of a deleted fee`).toBe(0);
    },
  );

  it.skipIf(driver.skip)(
    `DELETE /v0/prices/{id} racing the publication of a plan version selling it (${ROUNDS} rounds)`,
    async () => {
      let violations = 0;
      const fee = expectStatus(
        await s.call('POST', '/v0/fees', { body: { productId: product.id, name: 'race', invoiceDisplayName: 'F' } }),
        201,
      );
      for (let round = 0; round < ROUNDS; round++) {
        const price = expectStatus(
          await s.call('POST', '/v0/prices', {
            body: {
              feeId: fee.id,
              model: 'standard',
              currency: 'USD',
              properties: { unitPrice: '3.00' },
              cadence: 'P1M',
            },
          }),
          201,
        );
        const p = expectStatus(
          await s.call('POST', '/v0/plans', { body: { productId: product.id, name: `p${round}` } }),
          201,
        );
        const [del, ...publishes] = await Promise.all([
          s.call('DELETE', `/v0/prices/${price.id}`),
          ...Array.from({ length: CREATORS }, () =>
            s.call('POST', `/v0/plans/${p.id}/versions`, { body: { priceIds: [price.id] } }),
          ),
        ]);
        for (const r of [del, ...publishes]) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
        const gone = (await s.call('GET', `/v0/prices/${price.id}`)).status === 404;
        const stored = expectStatus(await s.call('GET', `/v0/plans/${p.id}`), 200);
        const selling = stored.versions.filter((v: any) => v.status !== 'archived' && v.priceIds.includes(price.id));
        if (gone && selling.length > 0) violations++;
      }
      expect(violations, `${violations} of ${ROUNDS} rounds published a version selling a deleted price`).toBe(0);
    },
  );

  it.skipIf(driver.skip)(
    `DELETE /v0/billingSchedules/{id} racing POST /v0/billingSchedules of its order: no deadlock, no orphan interval (${ROUNDS} rounds)`,
    async () => {
      // Creating a schedule writes a schedule, then its intervals; deleting one removes its
      // intervals, then the schedule: two kinds of row of one merchant, in opposite orders.
      const customer = expectStatus(await s.call('POST', '/v0/customers', { body: { name: 'schedules' } }), 201);
      const lineItems = [1, 2, 3].map((n) => ({ description: `line ${n}`, quantity: n, unitPrice: '1.00' }));
      const retriedBefore = s.db.retriedTransactions();
      let violations = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const order = expectStatus(
          await s.call('POST', '/v0/orders', { body: { customerId: customer.id, lineItems } }),
          201,
        );
        const first = expectStatus(await s.call('POST', '/v0/billingSchedules', { body: { orderId: order.id } }), 201);
        const [del, ...creates] = await Promise.all([
          s.call('DELETE', `/v0/billingSchedules/${first.id}`),
          ...Array.from({ length: CREATORS }, () =>
            s.call('POST', '/v0/billingSchedules', { body: { orderId: order.id } }),
          ),
        ]);
        expectStatus(del, 204);
        for (const r of creates) expectStatus(r, 201);
        if ((await s.call('GET', `/v0/billingSchedules/${first.id}/intervals`)).status !== 404) violations++;
        for (const r of creates) {
          const page = expectStatus(await s.call('GET', `/v0/billingSchedules/${r.body.id}/intervals`), 200);
          if (page.pagination.total !== lineItems.length) violations++;
        }
      }
      expect(violations, `${violations} schedules of ${ROUNDS} rounds kept or lost intervals`).toBe(0);
      // Each retry is a deadlock or serialization failure PostgreSQL detected (after its deadlock_timeout).
      expect(s.db.retriedTransactions() - retriedBefore, 'transactions run again after a deadlock').toBe(0);
    },
  );

  it.skipIf(driver.skip)(
    `concurrent POST /v0/subscriptions/{id}/cancel: one succeeds, its reason is kept (${ROUNDS} rounds)`,
    async () => {
      let violations = 0;
      const customer = expectStatus(await s.call('POST', '/v0/customers', { body: { name: 'cancel' } }), 201);
      for (let round = 0; round < ROUNDS; round++) {
        const sub = expectStatus(
          await s.call('POST', '/v0/subscriptions', { body: { customerId: customer.id, planId: plan.id } }),
          201,
        );
        const results = await Promise.all(
          Array.from({ length: CREATORS + 1 }, (_, i) =>
            s.call('POST', `/v0/subscriptions/${sub.id}/cancel`, { body: { reason: `reason ${i}` } }),
          ),
        );
        for (const r of results) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
        const ok = results.filter((r) => r.status === 200);
        const stored = expectStatus(await s.call('GET', `/v0/subscriptions/${sub.id}`), 200);
        if (ok.length !== 1 || stored.terminationReason !== ok[0].body.terminationReason) violations++;
        expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409)).toBe(true);
      }
      expect(violations, `${violations} of ${ROUNDS} rounds cancelled one subscription more than once`).toBe(0);
    },
  );
});
