import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type Spec } from '../../../src/contract/index.ts';
import { startTestServer, type TestServer } from './helpers.ts';

let s: TestServer;
let spec: Spec;
beforeAll(async () => {
  spec = await loadSpec();
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

/** The answer must be declared for its status and match the declared schema. */
function conforms(operationId: string, r: { status: number; body: unknown }) {
  expect(spec.responseFor(operationId, r.status), `${operationId} declares ${r.status}`).toBeDefined();
  const v = spec.validateResponseBody(operationId, r.status, r.body);
  expect(v.errors, `${operationId} ${r.status} ${JSON.stringify(r.body)}`).toEqual([]);
}

describe("the platform's answers match spec/openapi.yaml", () => {
  it('merchants and API keys', async () => {
    const m = await s.call('POST', '/v0/merchants', { body: { name: 'c', address: { city: 'Oslo' } } });
    conforms('createMerchant', m);
    conforms('getMerchant', await s.call('GET', `/v0/merchants/${m.body.id}`));
    conforms('getMerchant', await s.call('GET', '/v0/merchants/org_nobody'));
    const k = await s.call('POST', '/v0/apiKeys', { body: { name: 'k', scope: 'read_only' } });
    conforms('createApiKey', k);
    conforms('createApiKey', await s.call('POST', '/v0/apiKeys', { body: { scope: 'root' } }));
    conforms('createApiKey', await s.call('POST', '/v0/apiKeys', { key: k.body.secret, body: {} }));
    conforms('revokeApiKey', await s.call('DELETE', `/v0/apiKeys/${k.body.id}`));
    conforms('revokeApiKey', await s.call('DELETE', '/v0/apiKeys/key_unknown'));
    conforms('revokeApiKey', await s.call('DELETE', '/v0/apiKeys/key_unknown', { key: null }));
  });

  it('the six rate-limited operations, and their 429', async () => {
    const customer = await s.call('POST', '/v0/customers', { body: { name: 'Ada' } });
    expect(customer.status).toBe(201);
    conforms('listCustomers', await s.call('GET', '/v0/customers?limit=1'));
    conforms('getCostsReport', await s.call('GET', '/v0/costs/report?from=2030-01-01T00:00:00Z'));
    conforms('listCrmAccounts', await s.call('GET', '/v0/integrations/hubspot/accounts'));
    const sub = await s.repo.insert(
      'subscription',
      s.merchantId,
      { object: 'subscription', status: 'active' },
      { prefix: 'sub' },
    );
    conforms('createReconciliation', await s.call('POST', `/v0/subscriptions/${sub.id}/reconciliations`));
    conforms('createPortalSession', await s.call('POST', `/v0/subscriptions/${sub.id}/portal`));
    conforms('createPortalSession', await s.call('POST', `/v0/subscriptions/${sub.id}/portal`)); // 429
    conforms('createPortalSession', await s.call('POST', '/v0/subscriptions/sub_unknown/portal')); // 404

    const invoice = await s.call('POST', '/v2/invoices', {
      body: { customerId: customer.body.id, lineItems: [{ description: 'setup', amount: '10.00' }] },
    });
    expect(invoice.status).toBe(201);
    const added = await s.call('POST', '/v2/invoices/lineItems', {
      body: { invoiceId: invoice.body.id, lineItems: [{ description: 'extra', amount: '2.50', quantity: 2 }] },
    });
    conforms('createInvoiceLineItems', added);
    expect(added.body.lineItems).toHaveLength(2);
    expect(added.body.subtotal).toBe('15.00');
    conforms(
      'createInvoiceLineItems',
      await s.call('POST', '/v2/invoices/lineItems', {
        body: { invoiceId: 'inv_unknown', lineItems: [{ description: 'x', amount: '1' }] },
      }),
    );
    conforms('createInvoiceLineItems', await s.call('POST', '/v2/invoices/lineItems', { body: {} }));
  });

  it('a non-draft invoice refuses new line items with 409 INVOICE_NOT_DRAFT', async () => {
    const customer = await s.call('POST', '/v0/customers', { body: {} });
    const invoice = await s.call('POST', '/v2/invoices', {
      body: { customerId: customer.body.id, lineItems: [{ description: 'a', amount: '1.00' }] },
    });
    expect((await s.call('POST', `/v2/invoices/${invoice.body.id}/finalize`)).status).toBeLessThan(300);
    const r = await s.call('POST', '/v2/invoices/lineItems', {
      body: { invoiceId: invoice.body.id, lineItems: [{ description: 'b', amount: '1.00' }] },
    });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'conflict', code: 'INVOICE_NOT_DRAFT' });
    conforms('createInvoiceLineItems', r);
  });

  it('a read_only key gets 403 with the rate headers on a rate-limited write', async () => {
    const k = await s.call('POST', '/v0/apiKeys', { body: { scope: 'read_only' } });
    const sub = await s.repo.insert(
      'subscription',
      s.merchantId,
      { object: 'subscription', status: 'active' },
      { prefix: 'sub' },
    );
    const r = await s.call('POST', `/v0/subscriptions/${sub.id}/reconciliations`, { key: k.body.secret });
    expect(r.status).toBe(403);
    expect(r.headers['x-ratelimit-limit']).toBe('2');
    conforms('createReconciliation', r);
  });
});
