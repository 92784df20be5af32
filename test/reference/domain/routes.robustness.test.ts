/**
 * No input produces a 5xx: every operation served by the domain plugins gets odd bodies,
 * ids and query values, and must answer below 500 with a JSON Error or ValidationError.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadSpec } from '../../../src/contract/index.ts';
import { catalog, startHarness, type Harness } from './server.ts';

const PLATFORM = new Set([
  'createMerchant',
  'getMerchant',
  'createApiKey',
  'revokeApiKey',
  'listCustomers',
  'createReconciliation',
  'createPortalSession',
  'createInvoiceLineItems',
  'getCostsReport',
  'listCrmAccounts',
]);
const ODD: unknown[] = [
  null,
  -1,
  0,
  1e308,
  2.5,
  '',
  'x'.repeat(5000),
  '-0',
  '1e3',
  [],
  {},
  true,
  '2024-02-30T25:00:00Z',
  'ó\u0000',
];

let h: Harness;
let ids: Record<string, string>;
beforeAll(async () => {
  h = await startHarness();
  const c = await catalog(h);
  const customer = await h.ok('createCustomer', 201, 'POST', '/v0/customers', {});
  const price = await c.price({
    feeId: c.fee.id,
    model: 'standard',
    properties: { unitPrice: '1.00' },
    cadence: 'P1M',
  });
  const plan = await h.ok('createPlan', 201, 'POST', '/v0/plans', { productId: c.product.id, name: 'P' });
  await h.ok('createPlanVersion', 201, 'POST', `/v0/plans/${plan.id}/versions`, { priceIds: [price.id] });
  const sub = await h.ok('createSubscription', 201, 'POST', '/v0/subscriptions', {
    customerId: customer.id,
    planId: plan.id,
  });
  ids = {
    customer: customer.id,
    price: price.id,
    plan: plan.id,
    sub: sub.id,
    product: c.product.id,
    fee: c.fee.id,
    metric: c.metric.id,
  };
});
afterAll(async () => h?.close());

function bodies(schema: any): unknown[] {
  const props = Object.keys(schema?.properties ?? {});
  const out: unknown[] = [undefined, {}, [], 'text', 42, { unknownField: 1 }];
  for (const odd of ODD) out.push(Object.fromEntries(props.map((p) => [p, odd])));
  // Each property odd on its own, the others absent.
  for (const p of props) for (const odd of [null, -1, 1e308, '', [], {}]) out.push({ [p]: odd });
  // Plausible ids in every id-looking field.
  out.push(Object.fromEntries(props.map((p) => [p, /Id$/.test(p) ? Object.values(ids)[0] : 'x'])));
  return out;
}

describe('no input produces a 5xx on the domain routes', () => {
  test('odd bodies, path ids and query values', async () => {
    const spec = await loadSpec();
    let calls = 0;
    for (const [opId, op] of spec.operations) {
      if (PLATFORM.has(opId)) continue;
      const paths = [
        op.pathTemplate.replace(/\{[^}]+\}/g, 'x'),
        op.pathTemplate
          .replace(/\{id\}/g, ids.sub)
          .replace(/\{versionNumber\}/g, '1')
          .replace(/\{ruleId\}/g, 'srule_x'),
        op.pathTemplate.replace(/\{id\}/g, ids.plan).replace(/\{versionNumber\}/g, '99999999999'),
      ];
      const queries = [
        '?limit=abc&offset=-5&resourceId=',
        '?limit=100&offset=9007199254740993&resource=wallet&resourceId=x&merchantId=org_x&model=dynamic&feeId=fee_x',
      ];
      for (const path of paths) {
        for (const [qi, q] of queries.entries()) {
          // Bodies once per path (with valid-looking query values); odd queries without a body.
          for (const body of qi === 1 ? bodies(op.requestBody?.schema) : [undefined]) {
            const r = await h.call(op.method, `${path}${q}`, body);
            calls++;
            expect(
              r.status,
              `${opId} ${op.method} ${path}${q} ${JSON.stringify(body)?.slice(0, 200)} -> ${JSON.stringify(r.body)?.slice(0, 300)}`,
            ).toBeLessThan(500);
            if (r.status >= 400) expect(typeof r.body?.message, `${opId} error body`).toBe('string');
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(1000);
  }, 600_000);
});
