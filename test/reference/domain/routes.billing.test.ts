import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Decimal } from 'decimal.js';
import { catalog, startHarness, type Harness } from './server.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

async function paidInvoice(taxRate = 8.25, reason?: string) {
  const c = await h.ok('createCustomer', 201, 'POST', '/v0/customers', { name: 'Payer' });
  await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${c.id}`, { taxRates: taxRate });
  const inv = await h.ok('createInvoice', 201, 'POST', '/v2/invoices', {
    customerId: c.id,
    lineItems: [
      { description: 'Consulting', amount: '19.99', quantity: 2 },
      { description: 'Setup', amount: '0.10', taxRate: 0 },
    ],
  });
  await h.ok('finalizeInvoice', 200, 'POST', `/v2/invoices/${inv.id}/finalize`);
  const paid = await h.ok('payInvoice', 200, 'POST', `/v2/invoices/${inv.id}/pay`);
  void reason;
  return { customer: c, invoice: paid };
}

describe('invoices v2 (extensions)', () => {
  test('draft → open → paid, with decimal totals and tax from the customer default rate', async () => {
    const { invoice } = await paidInvoice();
    expect(invoice.id).toMatch(/^inv_[a-zA-Z0-9]+$/);
    expect(invoice.status).toBe('paid');
    // 2 x 19.99 = 39.98 taxed at 8.25% = 3.30 (3.29835); 0.10 untaxed.
    expect([invoice.subtotal, invoice.taxAmount, invoice.total]).toEqual(['40.08', '3.30', '43.38']);
    expect(invoice.lineItems[0]).toMatchObject({
      object: 'invoice_line_item',
      amount: '19.99',
      quantity: 2,
      subtotal: '39.98',
      taxRate: 8.25,
      taxAmount: '3.30',
      total: '43.28',
    });
    expect(invoice.paymentId).toMatch(/^pay_/);
    const payment = await h.ok('getPayment', 200, 'GET', `/v0/payments/${invoice.paymentId}`);
    expect(payment).toMatchObject({ object: 'payment', status: 'completed', amount: '43.38', currency: 'USD' });
    await h.fails('payInvoice', 409, 'POST', `/v2/invoices/${invoice.id}/pay`, undefined, 'INVOICE_NOT_OPEN');
    await h.fails(
      'finalizeInvoice',
      409,
      'POST',
      `/v2/invoices/${invoice.id}/finalize`,
      undefined,
      'INVOICE_NOT_DRAFT',
    );
  });

  test('another merchant cannot read, pay or refund the invoice', async () => {
    const { invoice } = await paidInvoice();
    const other = await h.newKeyForNewMerchant();
    expect((await h.call('GET', `/v2/invoices/${invoice.id}`, undefined, other.key)).status).toBe(404);
    expect((await h.call('POST', `/v2/invoices/${invoice.id}/refunds`, { reason: 'x' }, other.key)).status).toBe(404);
  });
});

describe('POST /v2/invoices/{id}/refunds', () => {
  test('issues a crn_ credit note: amount + taxAmount = total exactly, ISSUED, reason recorded', async () => {
    const { invoice } = await paidInvoice(20);
    const note = await h.ok('createInvoiceRefund', 201, 'POST', `/v2/invoices/${invoice.id}/refunds`, {
      reason: 'requested_by_customer',
    });
    expect(note.id).toMatch(/^crn_[a-zA-Z0-9]+$/);
    expect(note).toMatchObject({
      object: 'invoice_refund',
      invoiceId: invoice.id,
      merchantId: h.merchantId,
      currency: 'USD',
      status: 'ISSUED',
      reason: 'requested_by_customer',
      amount: invoice.subtotal,
      taxAmount: invoice.taxAmount,
      voidedAt: null,
    });
    expect(new Decimal(note.amount).plus(note.taxAmount).equals(new Decimal(note.total))).toBe(true);
    expect(note.total).toBe(invoice.total);
    expect((await h.ok('getInvoice', 200, 'GET', `/v2/invoices/${invoice.id}`)).amountRefunded).toBe(invoice.total);
  });

  test('the reason is null when absent; a body is optional', async () => {
    const { invoice } = await paidInvoice();
    const note = await h.ok('createInvoiceRefund', 201, 'POST', `/v2/invoices/${invoice.id}/refunds`);
    expect(note.reason).toBeNull();
  });

  test('an unpaid or already refunded invoice is refused with 409 INVOICE_NOT_REFUNDABLE', async () => {
    const c = await h.ok('createCustomer', 201, 'POST', '/v0/customers', {});
    const draft = await h.ok('createInvoice', 201, 'POST', '/v2/invoices', {
      customerId: c.id,
      lineItems: [{ description: 'x', amount: '1.00' }],
    });
    await h.fails(
      'createInvoiceRefund',
      409,
      'POST',
      `/v2/invoices/${draft.id}/refunds`,
      { reason: 'x' },
      'INVOICE_NOT_REFUNDABLE',
    );
    await h.ok('finalizeInvoice', 200, 'POST', `/v2/invoices/${draft.id}/finalize`);
    await h.fails('createInvoiceRefund', 409, 'POST', `/v2/invoices/${draft.id}/refunds`, {}, 'INVOICE_NOT_REFUNDABLE');
    const { invoice } = await paidInvoice();
    await h.ok('createInvoiceRefund', 201, 'POST', `/v2/invoices/${invoice.id}/refunds`, {});
    await h.fails(
      'createInvoiceRefund',
      409,
      'POST',
      `/v2/invoices/${invoice.id}/refunds`,
      {},
      'INVOICE_NOT_REFUNDABLE',
    );
    await h.fails('createInvoiceRefund', 404, 'POST', '/v2/invoices/inv_missing/refunds', {});
  });
});

describe('payments', () => {
  test('one-off payment: pay_ id, pending, decimal amount; idempotency key returns the same payment', async () => {
    const body = {
      amount: '12.50',
      currency: 'EUR',
      idempotencyKey: 'order-77',
      lineItems: [{ description: 'Book', amount: '12.50', quantity: 1 }],
    };
    const p = await h.ok('createPayment', 201, 'POST', '/v0/payments', body);
    expect(p).toMatchObject({
      object: 'payment',
      amount: '12.50',
      currency: 'EUR',
      status: 'pending',
      idempotencyKey: 'order-77',
    });
    expect(p.id).toMatch(/^pay_/);
    expect(p.paymentUrl).toEqual(expect.any(String));
    const again = await h.ok('createPayment', 201, 'POST', '/v0/payments', body);
    expect(again.id).toBe(p.id);
    expect(await h.ok('getPayment', 200, 'GET', `/v0/payments/${p.id}`)).toEqual(p);
    await h.fails('getPayment', 404, 'GET', '/v0/payments/pay_missing');
    for (const bad of [
      { amount: 12.5, currency: 'EUR' },
      { amount: '1e3', currency: 'EUR' },
      { amount: '1.00', currency: 'euro' },
      { amount: '-1.00', currency: 'EUR' },
    ]) {
      expect((await h.call('POST', '/v0/payments', bad)).status, JSON.stringify(bad)).toBe(400);
    }
  });
});

describe('billing core through a test clock', () => {
  test('fee (quantity x unit price), volume and metered prices, in-advance fees, tax from taxRates', async () => {
    const cat = await catalog(h);
    const platform = await cat.price({
      feeId: cat.fee.id,
      model: 'standard',
      properties: { unitPrice: '2.50' },
      cadence: 'P1M',
      quantity: 4,
    });
    const seatsFee = await h.ok('createFee', 201, 'POST', '/v0/fees', {
      productId: cat.product.id,
      name: 'Seats',
      invoiceDisplayName: 'Seats',
    });
    const seats = await cat.price({
      feeId: seatsFee.id,
      model: 'volume',
      quantity: 15,
      cadence: 'P1M',
      properties: {
        tiers: [
          { unitPrice: '1.00', upTo: '10' },
          { unitPrice: '0.80', upTo: null },
        ],
      },
    });
    const setupFee = await h.ok('createFee', 201, 'POST', '/v0/fees', {
      productId: cat.product.id,
      name: 'Setup',
      invoiceDisplayName: 'Setup',
    });
    const setup = await cat.price({
      feeId: setupFee.id,
      model: 'standard',
      properties: { unitPrice: '50.00' },
      cadence: 'P0D',
      paymentTerm: 'in_advance',
    });
    const calls = await cat.price({
      billableMetricId: cat.metric.id,
      model: 'standard',
      properties: { unitPrice: '0.002' },
    });
    const plan = await h.ok('createPlan', 201, 'POST', '/v0/plans', { productId: cat.product.id, name: 'Metered' });
    await h.ok('createPlanVersion', 201, 'POST', `/v0/plans/${plan.id}/versions`, {
      priceIds: [platform.id, seats.id, setup.id, calls.id],
    });
    const customer = await h.ok('createCustomer', 201, 'POST', '/v0/customers', {});
    await h.ok('updateCustomer', 200, 'PATCH', `/v0/customers/${customer.id}`, { taxRates: 10 });
    const clock = await h.ok('createTestClock', 201, 'POST', '/v0/testClocks', {
      frozenTime: '2024-03-01T00:00:00.000Z',
    });
    const sub = await h.ok('createSubscription', 201, 'POST', '/v0/subscriptions', {
      customerId: customer.id,
      planId: plan.id,
      testClockId: clock.id,
    });
    expect(sub.currentPeriodEnd).toBe('2024-04-01T00:00:00.000Z');
    // The in-advance setup fee is invoiced at the start.
    const start = await h.ok('listInvoices', 200, 'GET', `/v2/invoices?subscriptionId=${sub.id}`);
    expect(start.data.map((i: any) => i.lineItems.map((l: any) => l.priceId))).toEqual([[setup.id]]);
    const ev = (quantity: number, timestamp: string, idempotencyKey?: string) =>
      h.ok('ingestEvent', 201, 'POST', '/v0/events', {
        subscriptionId: sub.id,
        billableMetricId: cat.metric.id,
        quantity,
        timestamp,
        idempotencyKey,
      });
    const e1 = await ev(1000, '2024-03-05T00:00:00.000Z', 'k1');
    expect((await ev(1000, '2024-03-05T00:00:00.000Z', 'k1')).id).toBe(e1.id); // counted once
    await ev(234, '2024-03-20T00:00:00.000Z');
    await ev(999, '2024-04-02T00:00:00.000Z'); // next period
    await h.ok('advanceTestClock', 200, 'POST', `/v0/testClocks/${clock.id}/advance`, {
      frozenTime: '2024-04-01T00:00:00.000Z',
    });
    const list = await h.ok('listInvoices', 200, 'GET', `/v2/invoices?subscriptionId=${sub.id}`);
    const march = list.data.find(
      (i: any) =>
        i.periodStart === '2024-03-01T00:00:00.000Z' && i.lineItems.some((l: any) => l.priceId === platform.id),
    );
    const lines = Object.fromEntries(
      march.lineItems.map((l: any) => [l.priceId, [l.quantity, l.amount, l.subtotal, l.taxAmount]]),
    );
    expect(lines).toEqual({
      [platform.id]: [4, '2.5', '10.00', '1.00'],
      [seats.id]: [15, '0.8', '12.00', '1.20'],
      [calls.id]: [1234, '0.002', '2.47', '0.25'],
    });
    expect([march.subtotal, march.taxAmount, march.total, march.status]).toEqual(['24.47', '2.45', '26.92', 'open']);
  });
});
