/**
 * The judges every documented resource shares (src/engine/checks/resources), on streams of
 * exchanges against spec/openapi.yaml: each property holds on conformant answers (the forms the
 * document allows included) and fails on the deviation it names.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { loadRules, loadSpec, type RuleIndex, type Spec } from '../../../src/contract/index.ts';
import { Stream } from './stream.ts';

let contract: { spec: Spec; rules: RuleIndex };
beforeAll(async () => {
  contract = { spec: await loadSpec(), rules: await loadRules() };
});

const T = '2030-01-01T00:00:00.000Z';
const product = (over = {}) => ({
  object: 'product',
  id: 'prod_1',
  name: 'Seat',
  description: 'A seat on the plan',
  merchantId: 'org_primary1',
  metadata: { tier: 2 },
  createdAt: T,
  updatedAt: T,
  ...over,
});
const customer = (over = {}) => ({
  object: 'customer',
  id: 'cus_1',
  consumerId: 'org_consumer1',
  merchantId: 'org_primary1',
  createdAt: T,
  updatedAt: T,
  validTaxAddress: { valid: false, message: 'no tax product' },
  ...over,
});
const alert = (id: string, over = {}) => ({
  object: 'alert',
  id,
  resourceId: 'wal_1',
  type: 'wallet_low_balance',
  enabled: true,
  notifyPeriod: 3600,
  createdAt: T,
  updatedAt: T,
  ...over,
});
const list = (data: unknown[], offset: number, total: number, limit = 10) => ({
  object: 'list',
  data,
  pagination: { limit, offset, total },
});

describe('round trip (CONV.ROUND_TRIP.AS_SENT)', () => {
  const sent = { name: 'Seat', description: 'A seat on the plan', merchantId: 'org_primary1', metadata: { tier: 2 } };

  test('a create answering what it sent holds; one answering another value fails, naming the field', () => {
    const s = new Stream(contract);
    s.send({ method: 'POST', path: '/v0/products', sent, status: 201, got: product() });
    expect(s.judged.get('CONV.ROUND_TRIP.AS_SENT#answer')).toBe(1);
    expect(s.findings).toEqual([]);
    s.send({
      method: 'POST',
      path: '/v0/products',
      sent,
      status: 201,
      got: product({ id: 'prod_2', description: 'A seat' }),
    });
    const [f] = s.failed('CONV.ROUND_TRIP.AS_SENT#answer');
    expect(f.message).toContain('description sent "A seat on the plan", answered "A seat"');
  });

  test('a date-time compares as an instant and a decimal by value; another instant or amount fails', () => {
    const s = new Stream(contract);
    const schedule = (over = {}) => ({ object: 'billing_schedule', id: 'bs_1', orderId: 'ord_1', endDate: T, ...over });
    s.send({
      method: 'POST',
      path: '/v0/billingSchedules',
      sent: { orderId: 'ord_1', startDate: '2030-01-01T00:00:00Z', billingAnchor: '2030-01-01T00:00:00Z' },
      status: 201,
      got: schedule({ startDate: '2030-01-01T00:00:00+00:00', billingAnchor: '2030-01-01T00:00:00.000Z' }),
    });
    s.send({
      method: 'PATCH',
      path: '/v0/wallets/wal_1/autoTopupConfig',
      sent: { amount: '42.5', threshold: '10' },
      status: 200,
      got: { object: 'autoTopupConfig', amount: '42.50', threshold: '10.00' },
    });
    expect(s.findings).toEqual([]);
    expect(s.judged.get('CONV.ROUND_TRIP.AS_SENT#answer')).toBe(2);
    s.send({
      method: 'POST',
      path: '/v0/billingSchedules',
      sent: { orderId: 'ord_1', billingAnchor: '2030-01-01T00:00:00Z' },
      status: 201,
      got: schedule({ id: 'bs_2', billingAnchor: '2030-01-01T01:00:00Z' }),
    });
    s.send({
      method: 'PATCH',
      path: '/v0/wallets/wal_2/autoTopupConfig',
      sent: { amount: '42.5' },
      status: 200,
      got: { object: 'autoTopupConfig', amount: '4250' },
    });
    expect(s.failed('CONV.ROUND_TRIP.AS_SENT#answer').map((f) => f.message)).toEqual([
      expect.stringContaining('billingAnchor: another instant'),
      expect.stringContaining('amount: another amount'),
    ]);
  });

  test('a later read holds what the last write sent; a read changing it fails; fields it leaves out are not judged', () => {
    const s = new Stream(contract);
    s.send({
      method: 'PATCH',
      path: '/v0/customers/cus_1',
      sent: { externalId: 'crm-7' },
      status: 200,
      got: customer({ externalId: 'crm-7' }),
    });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer() });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer({ externalId: 'crm-7' }) });
    expect(s.findings).toEqual([]);
    expect(s.judged.get('CONV.ROUND_TRIP.AS_SENT#later-reads')).toBe(1);
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer({ externalId: 'CRM-7' }) });
    expect(s.failed('CONV.ROUND_TRIP.AS_SENT#later-reads')[0].message).toContain('externalId was sent "crm-7"');
  });

  test('fields the server transforms or sets are not expected back as sent; null sent reads back absent', () => {
    const s = new Stream(contract);
    s.send({
      method: 'PATCH',
      path: '/v0/customers/cus_1',
      sent: { taxRates: 7, taxId: null, notificationSettings: { invoicePaid: true } },
      status: 200,
      got: customer({ taxRates: { default: 7 }, notificationSettings: { invoicePaid: true, invoiceIssued: false } }),
    });
    expect(s.findings).toEqual([]);
    expect(s.judged.get('CONV.ROUND_TRIP.AS_SENT#answer')).toBeUndefined();
  });

  test('a write the stream cannot follow ends what is expected; a refusal changes nothing', () => {
    const s = new Stream(contract);
    s.send({
      method: 'PATCH',
      path: '/v0/customers/cus_1',
      sent: { externalId: 'a' },
      status: 200,
      got: customer({ externalId: 'a' }),
    });
    s.send({
      method: 'PATCH',
      path: '/v0/customers/cus_1',
      sent: { externalId: 'b' },
      status: 400,
      got: { message: 'no' },
    });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer({ externalId: 'b' }) });
    expect(s.failed('CONV.ROUND_TRIP.AS_SENT#later-reads')).toHaveLength(1);
    s.send({
      method: 'PATCH',
      path: '/v0/customers/cus_1',
      sent: { externalId: 'c' },
      status: 503,
      got: { message: 'busy' },
    });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer({ externalId: 'x' }) });
    expect(s.failed('CONV.ROUND_TRIP.AS_SENT#later-reads')).toHaveLength(1);
  });
});

describe('deleted means gone (CONV.DELETE.GONE)', () => {
  test('reads and a second delete after a delete get 404; a 200 or a 204 fails', () => {
    const s = new Stream(contract);
    s.send({ method: 'DELETE', path: '/v0/customers/cus_1', status: 204 });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 404, got: { message: 'not found' } });
    s.send({ method: 'DELETE', path: '/v0/customers/cus_1', status: 404, got: { message: 'not found' } });
    expect(s.findings).toEqual([]);
    expect(s.judged.get('CONV.DELETE.GONE#reads-404')).toBe(1);
    expect(s.judged.get('CONV.DELETE.GONE#second-delete')).toBe(1);
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer() });
    s.send({ method: 'DELETE', path: '/v0/fees/fee_1', status: 204 });
    s.send({ method: 'DELETE', path: '/v0/fees/fee_1', status: 204 });
    expect(s.failed('CONV.DELETE.GONE#reads-404')).toHaveLength(1);
    expect(s.failed('CONV.DELETE.GONE#second-delete')).toHaveLength(1);
  });

  test('a 401 or 429 after the delete judges nothing; a schedule, which may stay visible, is not judged', () => {
    const s = new Stream(contract);
    s.send({ method: 'DELETE', path: '/v0/customers/cus_1', status: 204 });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 429, got: { message: 'slow down' } });
    s.send({ method: 'DELETE', path: '/v0/billingSchedules/bs_1', status: 200, got: { message: 'Deleted' } });
    s.send({ method: 'DELETE', path: '/v0/billingSchedules/bs_1', status: 200, got: { message: 'Deleted' } });
    expect(s.judged.size).toBe(0);
  });

  test('a list holding a deleted resource fails on the second sighting; a complete walk without it holds', () => {
    const s = new Stream(contract);
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer() });
    s.send({ method: 'DELETE', path: '/v0/customers/cus_1', status: 204 });
    s.send({
      method: 'GET',
      path: '/v0/customers?limit=100&offset=0',
      status: 200,
      got: list([customer({ id: 'cus_2' })], 0, 1, 100),
    });
    expect(s.judged.get('CONV.DELETE.GONE#leaves-lists')).toBe(1);
    // The customers' own rule says the same of GET /v0/customers: judged with it, by this judge alone.
    expect(s.judged.get('CUSTOMERS.DELETE.GONE#leaves-list')).toBe(1);
    s.send({
      method: 'GET',
      path: '/v0/customers?limit=100&offset=0',
      status: 200,
      got: list([customer()], 0, 1, 100),
    });
    expect(s.findings).toEqual([]);
    s.send({
      method: 'GET',
      path: '/v0/customers?limit=100&offset=0',
      status: 200,
      got: list([customer()], 0, 1, 100),
    });
    expect(s.failed('CONV.DELETE.GONE#leaves-lists').map((f) => f.ruleIds)).toEqual([
      ['CONV.DELETE.GONE#leaves-lists', 'CUSTOMERS.DELETE.GONE#leaves-list'],
    ]);
  });

  test("a family rule's part is found from spec/rules.yaml: without it, only CONV.DELETE.GONE is judged", () => {
    const rules = contract.rules.rules.map((r) =>
      r.id === 'CUSTOMERS.DELETE.GONE' ? { ...r, parts: r.parts?.filter((p) => p.id !== 'leaves-list') } : r,
    );
    const s = new Stream({ ...contract, rules: { ...contract.rules, rules } });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer() });
    s.send({ method: 'DELETE', path: '/v0/customers/cus_1', status: 204 });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 404, got: { message: 'not found' } });
    s.send({ method: 'GET', path: '/v0/customers?limit=100&offset=0', status: 200, got: list([], 0, 0, 100) });
    expect([...s.judged.keys()].filter((k) => k.includes('DELETE.GONE')).sort()).toEqual([
      'CONV.DELETE.GONE#leaves-lists',
      'CONV.DELETE.GONE#reads-404',
      'CUSTOMERS.DELETE.GONE#reads-404',
    ]);
  });
});

describe("owned by the key's merchant (CONV.OWNER.KEY_MERCHANT)", () => {
  test('a resource the run was given names its merchant; another owner fails, and a list entry of another merchant too', () => {
    const s = new Stream(contract);
    s.stream.ledger.ownerOf.set('cus_1', { merchant: 'org_primary1', object: 'customer' });
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer() });
    expect(s.findings).toEqual([]);
    s.send({ method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer({ merchantId: 'org_other1' }) });
    s.send({
      method: 'GET',
      path: '/v0/customers?limit=10&offset=0',
      status: 200,
      got: list([customer({ id: 'cus_9', merchantId: 'org_elsewhere1' })], 0, 1),
    });
    expect(s.failed('CONV.OWNER.KEY_MERCHANT#owner-field').map((f) => f.message)).toEqual([
      expect.stringContaining('names merchantId "org_other1"'),
      expect.stringContaining('cus_9 names merchantId "org_elsewhere1"'),
    ]);
  });

  test("a list answered to another merchant's key holding the run's resource fails; one without it holds", () => {
    const s = new Stream(contract);
    const { ledger } = s.stream;
    ledger.merchantOf.set('sk_other', 'org_other1');
    ledger.declareUnrelated('org_primary1', 'org_other1');
    ledger.ownerOf.set('alr_1', { merchant: 'org_primary1', object: 'alert' });
    s.send({
      method: 'GET',
      path: '/v0/alerts?resourceId=wal_1',
      status: 200,
      got: list([], 0, 0),
      credential: 'sk_other',
    });
    expect(s.judged.get('CONV.OWNER.KEY_MERCHANT#no-foreign-ids')).toBe(1);
    expect(s.findings).toEqual([]);
    s.send({
      method: 'GET',
      path: '/v0/alerts?resourceId=wal_1',
      status: 200,
      got: list([alert('alr_1')], 0, 1),
      credential: 'sk_other',
    });
    expect(s.failed('CONV.OWNER.KEY_MERCHANT#no-foreign-ids')[0].message).toContain('alr_1 (merchant org_primary1)');
  });
});

describe('list walks (CONV.LIST.WALK, CONV.LIST.TOTAL_REACHED)', () => {
  const page = (offset: number, data: unknown[], total: number, stated = offset) => ({
    method: 'GET',
    path: `/v0/alerts?resourceId=wal_1&limit=1&offset=${offset}`,
    status: 200,
    got: list(data, stated, total, 1),
  });

  test('a clean walk holds every part; a repeat, a short total and a stated offset off the asked one fail at once on a scoped list', () => {
    const s = new Stream(contract);
    s.send(page(0, [alert('alr_1')], 2));
    s.send(page(1, [alert('alr_2')], 2));
    expect(s.findings).toEqual([]);
    for (const r of ['CONV.LIST.TOTAL_REACHED', 'CONV.LIST.WALK#no-repeats', 'CONV.LIST.WALK#offset-honoured'])
      expect(s.judged.get(r), r).toBeGreaterThan(0);
    s.send(page(0, [alert('alr_1')], 2));
    s.send(page(1, [alert('alr_1')], 2));
    expect(s.failed('CONV.LIST.WALK#no-repeats')).toHaveLength(1);
    // Meeting one element twice, that walk reached 1 of its 2 either.
    expect(s.failed('CONV.LIST.TOTAL_REACHED')).toHaveLength(1);
    s.send(page(0, [alert('alr_1')], 3));
    s.send(page(1, [alert('alr_2')], 3));
    s.send(page(2, [], 3));
    expect(s.failed('CONV.LIST.TOTAL_REACHED')).toHaveLength(2);
    s.send(page(1, [alert('alr_2')], 2, 0));
    expect(s.failed('CONV.LIST.WALK#offset-honoured')).toHaveLength(1);
  });

  test('on an unscoped list a mismatch fails only when a second walk shows the same', () => {
    const s = new Stream(contract);
    const walk = () => {
      s.send({ method: 'GET', path: '/v0/customers?limit=10&offset=0', status: 200, got: list([customer()], 0, 2) });
      s.send({ method: 'GET', path: '/v0/customers?limit=10&offset=1', status: 200, got: list([], 1, 2) });
    };
    walk();
    expect(s.findings).toEqual([]);
    walk();
    expect(s.failed('CONV.LIST.TOTAL_REACHED')).toHaveLength(1);
  });

  test('a complete walk holds what the run was given for that list; leaving it out fails', () => {
    const s = new Stream(contract);
    s.stream.ledger.ownerOf.set('alr_2', { merchant: 'org_primary1', object: 'alert' });
    s.send({
      method: 'PATCH',
      path: '/v0/alerts/alr_2?resource=wallet',
      sent: { enabled: true },
      status: 200,
      got: alert('alr_2'),
    });
    s.send(page(0, [alert('alr_1')], 2));
    s.send(page(1, [alert('alr_2')], 2));
    expect(s.judged.get('CONV.LIST.WALK#finds-known')).toBe(1);
    s.send(page(0, [alert('alr_1')], 1));
    expect(s.failed('CONV.LIST.WALK#finds-known')[0].message).toContain('alr_2');
  });
});

describe('derived amounts (CONV.DERIVED.AMOUNTS)', () => {
  const refund = (over = {}) => ({
    object: 'invoice_refund',
    id: 'crn_1',
    invoiceId: 'inv_1',
    amount: '60.07',
    taxAmount: '4.97',
    total: '65.04',
    currency: 'USD',
    status: 'ISSUED',
    ...over,
  });

  test('a credit note within its invoice, in its currency, holds; one in cents or in another currency fails', () => {
    const s = new Stream(contract);
    s.stream.ledger.fact('invoice', 'inv_1', { amount: '60.07', taxAmount: '4.97', currency: 'USD' });
    const post = (got: unknown) =>
      s.send({ method: 'POST', path: '/v2/invoices/inv_1/refunds', sent: {}, status: 201, got });
    post(refund({ amount: '60.070' }));
    expect(s.findings).toEqual([]);
    expect(s.judged.get('CONV.DERIVED.AMOUNTS#at-most')).toBe(1);
    expect(s.judged.get('CONV.DERIVED.AMOUNTS#same-unit')).toBe(1);
    post(refund({ amount: '6007', taxAmount: '497', total: '6504' }));
    post(refund({ currency: 'EUR' }));
    expect(s.failed('CONV.DERIVED.AMOUNTS#at-most')).toHaveLength(2);
    expect(s.failed('CONV.DERIVED.AMOUNTS#same-unit')).toHaveLength(1);
  });

  test('without what the invoice holds, nothing is judged', () => {
    const s = new Stream(contract);
    s.send({
      method: 'POST',
      path: '/v2/invoices/inv_9/refunds',
      sent: {},
      status: 201,
      got: refund({ invoiceId: 'inv_9' }),
    });
    expect(s.judged.has('CONV.DERIVED.AMOUNTS#at-most')).toBe(false);
  });
});
