import { describe, expect, test } from 'vitest';
import {
  assertNoBlockers,
  customerBlockers,
  feeBlockers,
  BLOCKER_CODES,
} from '../../../src/reference/domain/blockers.ts';
import {
  applyItemPatch,
  assertArchivable,
  assertPrimaryAvailable,
  ITEM_CODES,
} from '../../../src/reference/domain/items.ts';
import { applyCustomerPatch, newCustomer, EXTERNAL_ID_MAX } from '../../../src/reference/domain/customers.ts';
import {
  assertOrderOwner,
  intervalsFor,
  newSchedule,
  orderLinkedTo,
  SCHEDULE_CODES,
  type Order,
} from '../../../src/reference/domain/schedules.ts';
import { DomainError } from '../../../src/reference/domain/errors.ts';
import { newId } from '../../../src/reference/domain/ids.ts';
import type { BillableMetric, ExternalReference, Fee, Item } from '../../../src/reference/domain/types.ts';

const NOW = '2024-01-01T00:00:00.000Z';
function caught(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('ids', () => {
  test('prefixed and alphanumeric', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newId('cus')));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^cus_[a-zA-Z0-9]{20}$/);
  });
});

describe('delete blockers', () => {
  test('customer: live subscriptions with id and status, count consistent', () => {
    const subs = [
      { id: 'sub_1', status: 'active' },
      { id: 'sub_2', status: 'cancelled' },
      { id: 'sub_3', status: 'active' },
    ];
    const e = caught(() => assertNoBlockers('customer', 'cus_1', customerBlockers(subs), BLOCKER_CODES.customer));
    expect(e.statusCode).toBe(409);
    expect(e.toBody()).toMatchObject({ error: 'conflict', code: 'CUSTOMER_HAS_DEPENDANTS' });
    expect(e.details).toEqual({
      blockers: [
        {
          type: 'subscriptions',
          count: 2,
          items: [
            { id: 'sub_1', status: 'active' },
            { id: 'sub_3', status: 'active' },
          ],
        },
      ],
    });
    expect(() =>
      assertNoBlockers('customer', 'cus_1', customerBlockers([{ id: 'sub_2', status: 'cancelled' }]), 'X'),
    ).not.toThrow();
  });

  test('fee: prices with their invoice display names', () => {
    const e = caught(() =>
      assertNoBlockers(
        'fee',
        'fee_1',
        feeBlockers([{ id: 'price_1', invoiceDisplayName: 'Setup' }, { id: 'price_2' }], 'Fee name'),
        BLOCKER_CODES.fee,
      ),
    );
    expect(e.details).toEqual({
      blockers: [
        {
          type: 'prices',
          count: 2,
          items: [
            { id: 'price_1', invoiceDisplayName: 'Setup' },
            { id: 'price_2', invoiceDisplayName: 'Fee name' },
          ],
        },
      ],
    });
    expect(e.message).toMatch(/2 prices/);
  });
});

describe('items', () => {
  const item: Item = {
    id: 'itm_1',
    object: 'item',
    merchantId: 'org_1',
    name: 'I',
    metadata: {},
    catalogId: 'prod_1',
    archivedAt: null,
    createdAt: NOW,
    updatedAt: NOW,
  };
  const metric = (status: 'live' | 'archived'): BillableMetric => ({
    id: 'bm_1',
    object: 'billable_metric',
    merchantId: 'org_1',
    productId: 'prod_1',
    itemId: 'itm_1',
    name: 'm',
    status,
    createdAt: NOW,
    updatedAt: NOW,
  });
  const fee: Fee = {
    id: 'fee_1',
    object: 'fee',
    merchantId: 'org_1',
    productId: 'prod_1',
    itemId: 'itm_1',
    name: 'f',
    invoiceDisplayName: 'f',
    createdAt: NOW,
    updatedAt: NOW,
  };
  const ref = (id: string, entityId: string, isPrimary: boolean, externalId = 'X-1'): ExternalReference => ({
    id,
    object: 'externalReference',
    merchantId: 'org_1',
    entityType: 'item',
    entityId,
    provider: 'crm',
    externalId,
    metadata: {},
    isPrimary,
    isDefault: false,
    createdAt: NOW,
    updatedAt: NOW,
  });

  test("archive refused while live metrics or fees are anchored (the caller lists the item's own)", () => {
    expect(caught(() => assertArchivable(item, [metric('live')], [])).code).toBe(ITEM_CODES.archiveBlocked);
    expect(caught(() => assertArchivable(item, [], [fee])).statusCode).toBe(409);
    expect(() => assertArchivable(item, [], [])).not.toThrow();
  });

  test('archiving demotes primary references; unarchiving reclaims nothing', () => {
    const refs = [ref('xref_1', 'itm_1', true), ref('xref_2', 'itm_1', false, 'X-2')];
    const archived = applyItemPatch(item, { archived: true }, refs, '2024-02-01T00:00:00.000Z');
    expect(archived.item.archivedAt).toBe('2024-02-01T00:00:00.000Z');
    expect(archived.demoted).toEqual(['xref_1']);
    const back = applyItemPatch(archived.item, { archived: false }, [{ ...refs[0], isPrimary: false }], NOW);
    expect(back.item.archivedAt).toBeNull();
    expect(back.demoted).toEqual([]);
    const renamed = applyItemPatch(item, { name: 'New', metadata: { a: 1 } }, refs, NOW);
    expect(renamed.item).toMatchObject({ name: 'New', metadata: { a: 1 }, archivedAt: null });
  });

  test('an external id is primary for at most one entity per merchant', () => {
    // The holders are the merchant's primary references of the same (provider, externalId).
    const holders = [ref('xref_1', 'itm_1', true, 'X-1')];
    const c = (externalId: string, entityId: string) => ({ externalId, entityId });
    expect(caught(() => assertPrimaryAvailable(c('X-1', 'itm_2'), holders)).code).toBe(
      ITEM_CODES.externalIdPrimaryTaken,
    );
    expect(() => assertPrimaryAvailable(c('X-1', 'itm_1'), holders)).not.toThrow();
    expect(() => assertPrimaryAvailable(c('X-1', 'itm_2'), [])).not.toThrow();
  });
});

describe('customers', () => {
  const base = () => newCustomer('org_1', { name: 'A', externalId: 'ext-1', taxId: 'VAT1' }, NOW);

  test('new customers carry validTaxAddress, ids and default notifications', () => {
    const c = base();
    expect(c.id).toMatch(/^cus_[a-zA-Z0-9]+$/);
    expect(c.consumerId).toMatch(/^org_[a-zA-Z0-9]+$/);
    expect(c.validTaxAddress).toEqual({ valid: false, message: expect.any(String) });
    expect(c.notificationSettings).toEqual({ invoiceIssued: true, invoicePaid: true, renewalReminder: false });
  });

  test('null clears taxId and externalId; absent keeps them', () => {
    const kept = applyCustomerPatch(base(), {}, NOW);
    expect([kept.taxId, kept.externalId]).toEqual(['VAT1', 'ext-1']);
    const cleared = applyCustomerPatch(base(), { taxId: null, externalId: null }, NOW);
    expect('taxId' in cleared).toBe(false);
    expect('externalId' in cleared).toBe(false);
  });

  test('externalId at most 255', () => {
    expect(applyCustomerPatch(base(), { externalId: 'x'.repeat(EXTERNAL_ID_MAX) }, NOW).externalId?.length).toBe(255);
    expect(caught(() => applyCustomerPatch(base(), { externalId: 'x'.repeat(256) }, NOW)).statusCode).toBe(400);
  });

  test('taxRates 0..100 becomes the single default rate', () => {
    expect(applyCustomerPatch(base(), { taxRates: 0 }, NOW).taxRates).toEqual({ default: 0 });
    expect(
      applyCustomerPatch({ ...base(), taxRates: { default: 5, plan_1: 7 } }, { taxRates: 100 }, NOW).taxRates,
    ).toEqual({ default: 100 });
    for (const bad of [-1, 100.01, Number.NaN])
      expect(caught(() => applyCustomerPatch(base(), { taxRates: bad }, NOW)).statusCode).toBe(400);
  });

  test('notificationSettings changes only the given flags', () => {
    const c = applyCustomerPatch(base(), { notificationSettings: { renewalReminder: true } }, NOW);
    expect(c.notificationSettings).toEqual({ invoiceIssued: true, invoicePaid: true, renewalReminder: true });
    const d = applyCustomerPatch(c, { notificationSettings: { invoicePaid: false } }, NOW);
    expect(d.notificationSettings).toEqual({ invoiceIssued: true, invoicePaid: false, renewalReminder: true });
  });
});

describe('billing schedules', () => {
  const order: Order = {
    id: 'ord_1',
    object: 'order',
    merchantId: 'org_1',
    customerId: 'cus_1',
    subscriptionId: null,
    createdAt: NOW,
    updatedAt: NOW,
    lineItems: [
      { id: 'oli_1', description: 'A', quantity: '2', unitPrice: '10.00', priceId: 'price_1' },
      { id: 'oli_2', description: 'B', quantity: '1.50', unitPrice: '3' },
    ],
  };

  test('owner: an order, never a subscription, exactly one', () => {
    expect(assertOrderOwner({ orderId: 'ord_1' })).toBe('ord_1');
    const bySub = caught(() => assertOrderOwner({ subscriptionId: 'sub_1' }));
    expect([bySub.statusCode, bySub.code]).toEqual([400, SCHEDULE_CODES.subscriptionOwnerUnsupported]);
    expect(bySub.message).toMatch(/subscriptionId/);
    const both = caught(() => assertOrderOwner({ orderId: 'ord_1', subscriptionId: 'sub_1' }));
    expect([both.statusCode, both.code]).toEqual([400, SCHEDULE_CODES.subscriptionOwnerUnsupported]);
    expect(both.message).toMatch(/exactly one owner/);
    expect(caught(() => assertOrderOwner({})).code).toBe(SCHEDULE_CODES.ownerRequired);
  });

  test('defaults: endDate always present, one interval per order line', () => {
    const s = newSchedule('org_1', { orderId: 'ord_1', startDate: '2024-01-31T00:00:00Z' }, NOW);
    expect(s).toMatchObject({
      object: 'billing_schedule',
      orderId: 'ord_1',
      startDate: '2024-01-31T00:00:00.000Z',
      endDate: '2025-01-31T00:00:00.000Z',
      billingAnchor: '2024-01-31T00:00:00.000Z',
      deletedAt: null,
    });
    expect(s.id).toMatch(/^bs_[a-zA-Z0-9]+$/);
    const intervals = intervalsFor(s, order, (id) => (id === 'price_1' ? 'P3M' : undefined), NOW);
    expect(
      intervals.map((i) => [i.scheduleId, i.orderLineItemId, i.priceId, i.billingCadence, i.baseQuantity, i.endDate]),
    ).toEqual([
      [s.id, 'oli_1', 'price_1', 'P3M', '2', s.endDate],
      [s.id, 'oli_2', undefined, 'P1M', '1.5', s.endDate],
    ]);
    expect(caught(() => newSchedule('org_1', { orderId: 'o', startDate: NOW, endDate: NOW }, NOW)).code).toBe(
      SCHEDULE_CODES.invalidDates,
    );
    expect(caught(() => newSchedule('org_1', { orderId: 'o', paymentTermDays: -1 }, NOW)).code).toBe(
      SCHEDULE_CODES.invalidTerm,
    );
  });

  test('order link to a subscription: named, or the same customer when none is named', () => {
    const sub = { id: 'sub_1', customerId: 'cus_1' };
    expect(orderLinkedTo({ subscriptionId: null, customerId: 'cus_1' }, sub)).toBe(true);
    expect(orderLinkedTo({ subscriptionId: 'sub_1', customerId: 'cus_9' }, sub)).toBe(true);
    expect(orderLinkedTo({ subscriptionId: 'sub_2', customerId: 'cus_1' }, sub)).toBe(false);
    expect(orderLinkedTo({ subscriptionId: null, customerId: 'cus_2' }, sub)).toBe(false);
  });
});
