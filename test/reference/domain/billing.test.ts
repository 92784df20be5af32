import { describe, expect, test } from 'vitest';
import {
  buildLine,
  newInvoice,
  periodLines,
  priceBillsInPeriod,
  taxRateFor,
  totals,
} from '../../../src/reference/domain/billing.ts';
import { refundInvoice, REFUND_CODES } from '../../../src/reference/domain/refunds.ts';
import { DomainError } from '../../../src/reference/domain/errors.ts';
import { dec } from '../../../src/reference/domain/money.ts';
import { periodAt } from '../../../src/reference/domain/periods.ts';
import { plan, price, priceMap, subscription, version } from './factories.ts';

const anchor = new Date('2024-01-31T10:00:00.000Z');

describe('billing core', () => {
  test('tax rate: metric, then plan, then default; exempt pays none', () => {
    const rates = { default: 20, plan_1: 10, bm_1: 5 };
    expect(taxRateFor(rates, { planId: 'plan_1', billableMetricId: 'bm_1' })).toBe(5);
    expect(taxRateFor(rates, { planId: 'plan_1' })).toBe(10);
    expect(taxRateFor(rates, { planId: 'plan_2' })).toBe(20);
    expect(taxRateFor(undefined, { planId: 'plan_1' })).toBe(0);
    expect(taxRateFor(rates, { planId: 'plan_1' }, true)).toBe(0);
  });

  test('a line: quantity x unit amount rounded to the currency, tax on the rounded amount', () => {
    const l = buildLine({ description: 'Seats', quantity: '3', unitAmount: '3.335', taxRate: 20 }, 'USD');
    expect(l).toMatchObject({
      object: 'invoice_line_item',
      amount: '3.335',
      quantity: 3,
      subtotal: '10.01',
      taxAmount: '2.00',
      total: '12.01',
    });
    expect(l.id).toMatch(/^ili_[a-zA-Z0-9]+$/);
  });

  test('totals are exact decimal sums and total = subtotal + tax', () => {
    const lines = ['0.10', '0.20', '0.70'].map((a) =>
      buildLine({ description: 'x', quantity: '1', unitAmount: a, taxRate: 7.5 }, 'USD'),
    );
    const t = totals(lines, 'USD');
    // Tax is rounded per line: 0.01 + 0.02 + 0.05.
    expect(t).toEqual({ subtotal: '1.00', taxAmount: '0.08', total: '1.08' });
    expect(dec(t.subtotal).plus(dec(t.taxAmount)).equals(dec(t.total))).toBe(true);
  });

  test('period lines: fee prices, volume prices, metered usage, overrides, tax from the default rate', () => {
    const prices = priceMap(
      price('price_fee', {
        feeId: 'fee_1',
        quantity: 3,
        properties: { unitPrice: '2.50' },
        invoiceDisplayName: 'Seats',
      }),
      price('price_vol', {
        feeId: 'fee_2',
        quantity: 15,
        model: 'volume',
        properties: {
          tiers: [
            { unitPrice: '1.00', upTo: '10' },
            { unitPrice: '0.50', upTo: null },
          ],
        },
      }),
      price('price_meter', { feeId: undefined, billableMetricId: 'bm_api', properties: { unitPrice: '0.001' } }),
      price('price_once', { feeId: 'fee_3', cadence: 'P0D', properties: { unitPrice: '100.00' } }),
      price('price_legacy', { model: 'dynamic', properties: {} }),
    );
    const sub = subscription({ overrides: [{ priceId: 'price_fee', unitPrice: '2.00' }] });
    const v = version(2, ['price_fee', 'price_vol', 'price_meter', 'price_once', 'price_legacy']);
    const first = periodAt(anchor, 'P1M', anchor);
    const lines = periodLines({
      subscription: sub,
      plan: plan([v], 2),
      version: v,
      prices,
      usage: new Map([['bm_api', '12345']]),
      taxRates: { default: 10 },
      period: first,
    });
    expect(lines.map((l) => [l.priceId, l.quantity, l.amount, l.subtotal, l.taxAmount])).toEqual([
      ['price_fee', 3, '2', '6.00', '0.60'],
      ['price_vol', 15, '0.5', '7.50', '0.75'],
      ['price_meter', 12345, '0.001', '12.35', '1.24'],
      ['price_once', 1, '100', '100.00', '10.00'],
    ]);
    expect(lines[0].periodStart).toBe('2024-01-31T10:00:00.000Z');
    expect(lines[0].periodEnd).toBe('2024-02-29T10:00:00.000Z');
    // The one-time price bills in the first period only.
    const second = periodAt(anchor, 'P1M', new Date('2024-03-01T00:00:00Z'));
    const next = periodLines({
      subscription: sub,
      plan: plan([v], 2),
      version: v,
      prices,
      usage: new Map(),
      period: second,
    });
    expect(next.map((l) => l.priceId)).toEqual(['price_fee', 'price_vol', 'price_meter']);
    expect(next[2].subtotal).toBe('0.00');
  });

  test('payment terms: in_advance fee prices bill for the period starting, metered usage always in arrears', () => {
    const prices = priceMap(
      price('price_adv', { feeId: 'fee_1', paymentTerm: 'in_advance' }),
      price('price_arr', { feeId: 'fee_2' }),
      price('price_m', { feeId: undefined, billableMetricId: 'bm_1', paymentTerm: 'in_advance' }),
    );
    const v = version(1, ['price_adv', 'price_arr', 'price_m']);
    const base = {
      subscription: subscription(),
      plan: plan([v], 1),
      version: v,
      prices,
      usage: new Map(),
      period: periodAt(anchor, 'P1M', anchor),
    };
    expect(periodLines({ ...base, term: 'in_advance' }).map((l) => l.priceId)).toEqual(['price_adv']);
    expect(periodLines({ ...base, term: 'in_arrears' }).map((l) => l.priceId)).toEqual(['price_arr', 'price_m']);
  });

  test('a yearly price on a monthly plan bills on its own anniversaries', () => {
    const yearly = { cadence: 'P1Y' };
    expect(priceBillsInPeriod(yearly, anchor, periodAt(anchor, 'P1M', anchor))).toBe(true);
    expect(priceBillsInPeriod(yearly, anchor, periodAt(anchor, 'P1M', new Date('2024-03-01T00:00:00Z')))).toBe(false);
    expect(priceBillsInPeriod(yearly, anchor, periodAt(anchor, 'P1M', new Date('2025-02-01T00:00:00Z')))).toBe(true);
  });

  test('new invoices start as drafts with their totals', () => {
    const inv = newInvoice({
      merchantId: 'org_m1',
      customerId: 'cus_1',
      currency: 'USD',
      now: '2024-01-01T00:00:00.000Z',
      lines: [buildLine({ description: 'x', quantity: '2', unitAmount: '5', taxRate: 20 }, 'USD')],
    });
    expect(inv).toMatchObject({
      status: 'draft',
      subtotal: '10.00',
      taxAmount: '2.00',
      total: '12.00',
      amountRefunded: '0.00',
      finalizedAt: null,
      paymentId: null,
    });
    expect(inv.id).toMatch(/^inv_[a-zA-Z0-9]+$/);
  });
});

describe('refunds', () => {
  const paid = () => ({
    ...newInvoice({
      merchantId: 'org_m1',
      customerId: 'cus_1',
      currency: 'USD',
      now: '2024-01-01T00:00:00.000Z',
      lines: [buildLine({ description: 'x', quantity: '1', unitAmount: '19.99', taxRate: 8.25 }, 'USD')],
    }),
    status: 'paid' as const,
  });

  test('a paid invoice gets a crn_ credit note: total = amount + taxAmount, ISSUED, reason recorded', () => {
    const { creditNote, invoice } = refundInvoice(paid(), 'duplicate charge', '2024-01-02T00:00:00.000Z');
    expect(creditNote.id).toMatch(/^crn_[a-zA-Z0-9]+$/);
    expect(creditNote).toMatchObject({
      object: 'invoice_refund',
      amount: '19.99',
      taxAmount: '1.65',
      total: '21.64',
      currency: 'USD',
      status: 'ISSUED',
      reason: 'duplicate charge',
      voidedAt: null,
    });
    expect(dec(creditNote.amount).plus(dec(creditNote.taxAmount)).equals(dec(creditNote.total))).toBe(true);
    expect(invoice.amountRefunded).toBe('21.64');
    expect(invoice.status).toBe('paid');
    expect(refundInvoice(paid(), undefined, 'now').creditNote.reason).toBeNull();
  });

  test('an unpaid or fully refunded invoice is refused with 409 and a code', () => {
    const draft = { ...paid(), status: 'open' as const };
    try {
      refundInvoice(draft, null, 'now');
      expect.unreachable();
    } catch (e) {
      expect((e as DomainError).statusCode).toBe(409);
      expect((e as DomainError).code).toBe(REFUND_CODES.notPaid);
    }
    const { invoice } = refundInvoice(paid(), null, 'now');
    try {
      refundInvoice(invoice, null, 'now');
      expect.unreachable();
    } catch (e) {
      expect((e as DomainError).code).toBe(REFUND_CODES.alreadyRefunded);
    }
  });
});
