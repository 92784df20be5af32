/**
 * Unit tests of the test vendors: each Fault's hooks driven directly with hand-built requests
 * and answers (no network). The strict and lenient vendors make the choices the document
 * leaves open and let documented-valid requests through; the over-strict faults each refuse
 * one documented-valid request and nothing else.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Fault, FaultContext, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import { matchEndpoint } from './common.ts';
import { acceptsGzip, LENIENT_CHOICES, lenientVendor } from './lenient.ts';
import { overstrictFaults } from './overstrict.ts';
import { STRICT_CHOICES, strictVendor } from './strict.ts';

const KEY = 'Bearer sk_test_vendor_a';
const OTHER_KEY = 'Bearer sk_test_vendor_b';
const OWN = 'org_own1';
const FOREIGN = 'org_foreign2';

function request(method: string, path: string, json?: unknown, headers: Record<string, string> = {}): ProxyRequest {
  const body = json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(json));
  return {
    method,
    path,
    headers: {
      authorization: KEY,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body,
    json,
  };
}

function response(status: number, json?: unknown, headers: Record<string, string> = {}): ProxyResponse {
  const body = json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(json));
  return {
    status,
    headers: json === undefined ? { ...headers } : { 'content-type': 'application/json', ...headers },
    body,
    json,
  };
}

interface TestContext extends FaultContext {
  calls: ProxyRequest[];
  appliedCount: number;
}

/** A context whose server behind answers `answer` (default: 404, a valid key reading a missing customer). */
function context(answer: (req: ProxyRequest) => ProxyResponse = () => response(404, { message: 'not found' })) {
  const ctx: TestContext = {
    state: new Map(),
    calls: [],
    appliedCount: 0,
    upstream: async (req) => {
      ctx.calls.push(req);
      return answer(req);
    },
    applied: () => {
      ctx.appliedCount += 1;
    },
  };
  return ctx;
}

async function onRequest(fault: Fault, req: ProxyRequest, ctx: FaultContext) {
  return fault.onRequest ? await fault.onRequest(req, ctx) : undefined;
}

async function onResponse(fault: Fault, req: ProxyRequest, res: ProxyResponse, ctx: FaultContext) {
  return fault.onResponse ? await fault.onResponse(req, res, ctx) : undefined;
}

function asResponse(x: unknown): ProxyResponse {
  expect(x).toBeDefined();
  expect(typeof (x as ProxyResponse).status).toBe('number');
  return x as ProxyResponse;
}

function jsonOf(res: ProxyResponse): Record<string, unknown> {
  const raw = res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.body) : res.body;
  return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
}

function expectValidationError(res: ProxyResponse, fields: string[]): void {
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = jsonOf(res);
  expect(body.error).toBe('validation_error');
  expect(typeof body.message).toBe('string');
  expect(Array.isArray(body.errors)).toBe(true);
  const errors = body.errors as Array<{ field: unknown; message: unknown; code?: unknown }>;
  for (const e of errors) {
    expect(typeof e.field).toBe('string');
    expect(typeof e.message).toBe('string');
  }
  expect(errors.map((e) => e.field).sort()).toEqual([...fields].sort());
}

const LONG_ID = 'x'.repeat(255);

/** Requests the document makes valid (including every bound it states): no vendor refuses them. */
const DOCUMENTED_VALID: Array<[string, ProxyRequest]> = [
  ['customer taxRates 0', request('PATCH', '/v0/customers/cus_1', { taxRates: 0 })],
  ['customer taxRates 100', request('PATCH', '/v0/customers/cus_1', { taxRates: 100 })],
  ['customer taxRates 17.5', request('PATCH', '/v0/customers/cus_1', { taxRates: 17.5 })],
  ['customer externalId of 255 characters', request('PATCH', '/v0/customers/cus_1', { externalId: LONG_ID })],
  ['customer taxId null', request('PATCH', '/v0/customers/cus_1', { taxId: null })],
  ['customer externalId null', request('PATCH', '/v0/customers/cus_1', { externalId: null })],
  [
    'customer notificationSettings booleans',
    request('PATCH', '/v0/customers/cus_1', {
      taxId: 'DE123456789',
      externalId: 'crm-42',
      notificationSettings: { invoiceIssued: true, invoicePaid: false, renewalReminder: true },
    }),
  ],
  ['customer empty patch', request('PATCH', '/v0/customers/cus_1', {})],
  ['customer read', request('GET', '/v0/customers/cus_1')],
  ['customer delete', request('DELETE', '/v0/customers/cus_1')],
  ['alerts limit 1', request('GET', '/v0/alerts?resourceId=wal_1&limit=1')],
  ['alerts limit 100', request('GET', '/v0/alerts?resourceId=wal_1&limit=100')],
  ['alerts offset 0', request('GET', '/v0/alerts?resourceId=wal_1&limit=10&offset=0')],
  ['alerts defaults', request('GET', '/v0/alerts?resourceId=wal_1')],
  [
    'alert patch resource=wallet',
    request('PATCH', '/v0/alerts/alt_1?resource=wallet', {
      enabled: true,
      notifyPeriod: 3600,
      recipients: ['ops@example.com'],
      config: { threshold: '0' },
    }),
  ],
  ['alert patch enabled false', request('PATCH', '/v0/alerts/alt_1?resource=wallet', { enabled: false })],
  ['migration to version 1', request('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 1 })],
  [
    'migration to version 2147483647',
    request('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 2147483647 }),
  ],
  ['webhooks enabled true', request('PATCH', '/v0/webhooks', { enabled: true })],
  ['webhooks enabled false', request('PATCH', '/v0/webhooks', { enabled: false })],
  [
    'product with its required fields',
    request('POST', '/v0/products', { name: 'Pro', description: 'The pro plan', merchantId: OWN }),
  ],
  [
    'product with metadata',
    request('POST', '/v0/products', { name: 'Pro', description: 'The pro plan', merchantId: OWN, metadata: {} }),
  ],
  [
    'item patch',
    request('PATCH', '/v0/items/itm_1', { name: 'Seat', catalogId: 'prod_1', archived: true, metadata: { a: '' } }),
  ],
  ['item unarchive', request('PATCH', '/v0/items/itm_1', { archived: false })],
  [
    'source rule patch',
    request('PATCH', '/v0/sourceRules/rule_1', {
      conditions: [{ type: 'amount', operator: 'lt', value: 0 }],
      description: 'Small invoices',
      enabled: true,
      name: 'Auto accept',
      order: 1,
    }),
  ],
  ['refund with reason', request('POST', '/v2/invoices/inv_1/refunds', { reason: 'duplicate charge' })],
  ['refund without body', request('POST', '/v2/invoices/inv_1/refunds')],
  [
    'schedule create',
    request('POST', '/v0/billingSchedules', {
      orderId: 'ord_1',
      startDate: '2025-01-01T00:00:00Z',
      endDate: '2026-01-01T00:00:00Z',
      billingAnchor: '2025-01-01T00:00:00Z',
      paymentTermDays: 30,
      customPeriodWindows: [],
      metadata: {},
    }),
  ],
  [
    'schedule with paymentTermDays 0',
    request('POST', '/v0/billingSchedules', { orderId: 'ord_2', paymentTermDays: 0 }),
  ],
  ['schedule intervals', request('GET', '/v0/billingSchedules/bs_1/intervals')],
  [
    'merchant create',
    request('POST', '/v0/merchants', {
      name: 'Acme',
      email: 'billing@acme.test',
      description: 'Widgets',
      metadata: {},
      vatNumber: 'GB123',
      address: {
        line1: '1 Main St',
        line2: 'Suite 2',
        city: 'Springfield',
        state: 'IL',
        country: 'US',
        zipCode: '62701',
      },
      billingAddress: { line1: '1 Main St', city: 'Springfield', country: 'US' },
      phone: '+15555550100',
      organizationId: 'org_new1',
    }),
  ],
  ['merchant read', request('GET', '/v0/merchants/org_1')],
  [
    'auto top-up',
    request('PATCH', '/v0/wallets/wal_1/autoTopupConfig', {
      amount: '50.00',
      threshold: '10',
      paymentMethod: 'pm_1',
      limit: { amount: 500, period: 'day' },
    }),
  ],
  ['price read', request('GET', '/v0/prices/price_1')],
  ['fee delete', request('DELETE', '/v0/fees/fee_1')],
  ['payment read', request('GET', '/v0/payments/pay_1')],
  ['subscription patch', request('PATCH', '/v0/subscriptions/sub_1', { versionPolicy: 'floating' })],
  ['customers list', request('GET', '/v0/customers?limit=10')],
];

/** Undocumented routes: every vendor lets them through untouched. */
const UNDOCUMENTED: ProxyRequest[] = [
  request('POST', '/v0/backoffice/reset', { anything: '', zero: 0, negative: -1 }),
  request('PATCH', '/v0/customers/cus_1/notes', { note: '' }),
  request('POST', '/v0/billingSchedules/bs_1/activate', { unknown: true }),
  request('GET', '/v1/entitlements?customerId=cus_1'),
  request('POST', '/v0/plans', { name: '' }),
];

describe('endpoint matching', () => {
  it('knows the documented operations and nothing else', () => {
    expect(matchEndpoint('PATCH', '/v0/webhooks?merchantId=org_1')?.key).toBe('webhooks.patch');
    expect(matchEndpoint('POST', '/v2/invoices/inv_1/refunds')?.key).toBe('invoices.refund');
    expect(matchEndpoint('POST', '/v2/invoices/lineItems')?.key).toBe('invoices.lineItems');
    expect(matchEndpoint('GET', '/v0/customers')?.key).toBe('customers.list');
    expect(matchEndpoint('DELETE', '/v0/billingSchedules/bs%5F1')?.params).toEqual(['bs_1']);
    expect(matchEndpoint('GET', '/v0/alerts?resourceId=w')?.query.get('resourceId')).toBe('w');
    expect(matchEndpoint('POST', '/v0/customers')).toBeUndefined();
    expect(matchEndpoint('GET', '/v0/webhooks')).toBeUndefined();
    expect(matchEndpoint('POST', '/v0/backoffice/reset')).toBeUndefined();
  });
});

describe('strict vendor', () => {
  it('quotes a sentence for every choice', () => {
    expect(STRICT_CHOICES.length).toBeGreaterThanOrEqual(6);
    for (const c of STRICT_CHOICES) {
      expect(c.name.length).toBeGreaterThan(0);
      expect(c.sentence).toMatch(/"/);
    }
  });

  it.each(DOCUMENTED_VALID)('lets a documented-valid request through: %s', async (_name, req) => {
    const ctx = context();
    const before = JSON.stringify(req);
    expect(await onRequest(strictVendor, req, ctx)).toBeUndefined();
    expect(JSON.stringify(req)).toBe(before);
    expect(ctx.calls).toHaveLength(0);
    expect(ctx.appliedCount).toBe(0);
  });

  it('lets undocumented routes through untouched, whatever they carry', async () => {
    const ctx = context();
    for (const req of UNDOCUMENTED) {
      expect(await onRequest(strictVendor, req, ctx)).toBeUndefined();
      expect(await onResponse(strictVendor, req, response(201, { id: 'x', merchantId: FOREIGN }), ctx)).toBeUndefined();
    }
    expect(ctx.calls).toHaveLength(0);
    expect(ctx.appliedCount).toBe(0);
  });

  const EMPTY_OR_NOT_POSITIVE: Array<[string, ProxyRequest, string[]]> = [
    ['source rule order 0', request('PATCH', '/v0/sourceRules/rule_1', { order: 0 }), ['order']],
    ['source rule order -1', request('PATCH', '/v0/sourceRules/rule_1', { order: -1 }), ['order']],
    [
      'source rule empty name and description',
      request('PATCH', '/v0/sourceRules/rule_1', { name: '', description: '  ' }),
      ['name', 'description'],
    ],
    [
      'source rule empty condition type',
      request('PATCH', '/v0/sourceRules/rule_1', { conditions: [{ type: '', operator: 'eq', value: 1 }] }),
      ['conditions[0].type'],
    ],
    [
      'alert notifyPeriod 0',
      request('PATCH', '/v0/alerts/alt_1?resource=wallet', { notifyPeriod: 0 }),
      ['notifyPeriod'],
    ],
    [
      'alert notifyPeriod -5',
      request('PATCH', '/v0/alerts/alt_1?resource=wallet', { notifyPeriod: -5 }),
      ['notifyPeriod'],
    ],
    [
      'alert empty recipient and organizationId',
      request('PATCH', '/v0/alerts/alt_1?resource=wallet', { recipients: ['a@b.test', ''], organizationId: '' }),
      ['recipients[1]', 'organizationId'],
    ],
    ['item empty name', request('PATCH', '/v0/items/itm_1', { name: '' }), ['name']],
    ['customer empty taxId', request('PATCH', '/v0/customers/cus_1', { taxId: '' }), ['taxId']],
    ['customer empty externalId', request('PATCH', '/v0/customers/cus_1', { externalId: '' }), ['externalId']],
    [
      'auto top-up zero and negative amounts',
      request('PATCH', '/v0/wallets/wal_1/autoTopupConfig', { amount: '0.00', threshold: '-1' }),
      ['amount', 'threshold'],
    ],
    [
      'auto top-up empty and non-decimal amounts',
      request('PATCH', '/v0/wallets/wal_1/autoTopupConfig', { amount: '', threshold: 'ten', paymentMethod: '' }),
      ['amount', 'threshold', 'paymentMethod'],
    ],
    [
      'auto top-up limit amount 0 and empty period',
      request('PATCH', '/v0/wallets/wal_1/autoTopupConfig', { limit: { amount: 0, period: '' } }),
      ['limit.amount', 'limit.period'],
    ],
    [
      'auto top-up limit amount negative',
      request('PATCH', '/v0/wallets/wal_1/autoTopupConfig', { limit: { amount: -10, period: 'day' } }),
      ['limit.amount'],
    ],
    [
      'schedule paymentTermDays negative',
      request('POST', '/v0/billingSchedules', { orderId: 'ord_1', paymentTermDays: -1 }),
      ['paymentTermDays'],
    ],
    ['schedule empty orderId', request('POST', '/v0/billingSchedules', { orderId: '' }), ['orderId']],
    ['refund empty reason', request('POST', '/v2/invoices/inv_1/refunds', { reason: '' }), ['reason']],
    [
      'product empty name and description',
      request('POST', '/v0/products', { name: '', description: '', merchantId: OWN }),
      ['name', 'description'],
    ],
    [
      'merchant empty fields',
      request('POST', '/v0/merchants', { name: '', email: '', address: { line1: '', city: 'X' } }),
      ['name', 'email', 'address.line1'],
    ],
    [
      'webhooks empty merchantId query',
      request('PATCH', '/v0/webhooks?merchantId=', { enabled: true }),
      ['merchantId'],
    ],
    ['alerts empty resourceId query', request('GET', '/v0/alerts?resourceId='), ['resourceId']],
  ];

  it.each(EMPTY_OR_NOT_POSITIVE)('refuses %s with a ValidationError', async (_name, req, fields) => {
    const ctx = context();
    const res = asResponse(await onRequest(strictVendor, req, ctx));
    expectValidationError(res, fields);
    expect(ctx.appliedCount).toBe(1);
  });

  const UNKNOWN: Array<[string, ProxyRequest, string[]]> = [
    ['webhooks', request('PATCH', '/v0/webhooks', { enabled: true, url: 'https://x.test' }), ['url']],
    [
      'customer, top level and notificationSettings',
      request('PATCH', '/v0/customers/cus_1', {
        taxRates: 10,
        email: 'a@b.test',
        notificationSettings: { invoiceIssued: true, weekly: true },
      }),
      ['email', 'notificationSettings.weekly'],
    ],
    [
      'source rule condition',
      request('PATCH', '/v0/sourceRules/rule_1', {
        conditions: [{ type: 't', operator: 'o', value: 1, negate: true }],
      }),
      ['conditions[0].negate'],
    ],
    [
      'auto top-up limit',
      request('PATCH', '/v0/wallets/wal_1/autoTopupConfig', { limit: { amount: 5, period: 'day', max: 1 } }),
      ['limit.max'],
    ],
    [
      'product',
      request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: OWN, price: 5, currency: 'usd' }),
      ['price', 'currency'],
    ],
    ['item', request('PATCH', '/v0/items/itm_1', { archivedAt: null }), ['archivedAt']],
    ['schedule', request('POST', '/v0/billingSchedules', { orderId: 'ord_9', status: 'active' }), ['status']],
    [
      'migration',
      request('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 2, immediate: true }),
      ['immediate'],
    ],
    ['refund', request('POST', '/v2/invoices/inv_1/refunds', { reason: 'r', amount: '5.00' }), ['amount']],
    ['merchant address', request('POST', '/v0/merchants', { name: 'M', address: { street: 'x' } }), ['address.street']],
    ['alert', request('PATCH', '/v0/alerts/alt_1?resource=wallet', { enabled: true, type: 'x' }), ['type']],
  ];

  it.each(UNKNOWN)('refuses unknown body fields (%s), naming each', async (_name, req, fields) => {
    const res = asResponse(await onRequest(strictVendor, req, context()));
    expectValidationError(res, fields);
    const errors = jsonOf(res).errors as Array<{ code?: string }>;
    expect(errors.every((e) => e.code === 'UNKNOWN_FIELD')).toBe(true);
  });

  it('reports every problem of a request in one ValidationError', async () => {
    const req = request('PATCH', '/v0/sourceRules/rule_1', { name: '', order: 0, colour: 'red' });
    expectValidationError(asResponse(await onRequest(strictVendor, req, context())), ['name', 'order', 'colour']);
  });

  it('leaves type errors and nulls to the server behind', async () => {
    const ctx = context();
    for (const req of [
      request('PATCH', '/v0/sourceRules/rule_1', { order: 'first', name: null }),
      request('PATCH', '/v0/wallets/wal_1/autoTopupConfig', { amount: 5, limit: null }),
      request('PATCH', '/v0/alerts/alt_1?resource=wallet', { recipients: null }),
      request('PATCH', '/v0/customers/cus_1', { taxRates: { default: 5 } }),
    ])
      expect(await onRequest(strictVendor, req, ctx)).toBeUndefined();
  });

  it('lets requests without credentials through, for the server to answer 401', async () => {
    const ctx = context();
    const req = request('PATCH', '/v0/sourceRules/rule_1', { order: 0 });
    delete req.headers.authorization;
    expect(await onRequest(strictVendor, req, ctx)).toBeUndefined();
    expect(ctx.calls).toHaveLength(0);
  });

  it('lets requests with credentials the server rejects through, for it to answer 401', async () => {
    const ctx = context(() => response(401, { error: 'unauthorized', message: 'bad key' }));
    const req = request('PATCH', '/v0/sourceRules/rule_1', { order: 0 });
    expect(await onRequest(strictVendor, req, ctx)).toBeUndefined();
    expect(ctx.calls).toHaveLength(1);
    expect(ctx.calls[0].method).toBe('GET');
    expect(ctx.calls[0].headers.authorization).toBe(KEY);
    expect(ctx.appliedCount).toBe(0);
  });

  describe('another merchant (403)', () => {
    async function learn(ctx: TestContext, key = KEY, merchant = OWN) {
      const req = request('GET', '/v0/customers/cus_1', undefined, { authorization: key });
      const res = response(200, { id: 'cus_1', object: 'customer', merchantId: merchant, consumerId: 'org_c1' });
      await onResponse(strictVendor, req, res, ctx);
    }

    it('lets a named merchant through while the key is not known yet', async () => {
      const ctx = context();
      const req = request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: FOREIGN });
      expect(await onRequest(strictVendor, req, ctx)).toBeUndefined();
    });

    it('refuses a product for another merchant once the key is known, in Error shape', async () => {
      const ctx = context();
      await learn(ctx);
      const res = asResponse(
        await onRequest(
          strictVendor,
          request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: FOREIGN }),
          ctx,
        ),
      );
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = jsonOf(res);
      expect(body.error).toBe('forbidden');
      expect(typeof body.message).toBe('string');
      expect(body.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      // Its own merchant goes through.
      expect(
        await onRequest(
          strictVendor,
          request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: OWN }),
          ctx,
        ),
      ).toBeUndefined();
    });

    it('refuses webhooks merchantId and alerts organizationId naming another merchant', async () => {
      const ctx = context();
      await learn(ctx);
      const webhooks = asResponse(
        await onRequest(strictVendor, request('PATCH', `/v0/webhooks?merchantId=${FOREIGN}`, { enabled: true }), ctx),
      );
      expect(webhooks.status).toBe(403);
      const alerts = asResponse(
        await onRequest(
          strictVendor,
          request('PATCH', '/v0/alerts/alt_1?resource=wallet', { enabled: true, organizationId: FOREIGN }),
          ctx,
        ),
      );
      expect(alerts.status).toBe(403);
      expect(jsonOf(alerts).error).toBe('forbidden');
      for (const req of [
        request('PATCH', `/v0/webhooks?merchantId=${OWN}`, { enabled: false }),
        request('PATCH', '/v0/webhooks', { enabled: false }),
        request('PATCH', '/v0/alerts/alt_1?resource=wallet', { organizationId: OWN }),
      ])
        expect(await onRequest(strictVendor, req, ctx)).toBeUndefined();
    });

    it('keeps merchants per key', async () => {
      const ctx = context();
      await learn(ctx, KEY, OWN);
      await learn(ctx, OTHER_KEY, FOREIGN);
      const forOther = request(
        'POST',
        '/v0/products',
        { name: 'P', description: 'D', merchantId: FOREIGN },
        { authorization: OTHER_KEY },
      );
      expect(await onRequest(strictVendor, forOther, ctx)).toBeUndefined();
      const forKey = request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: FOREIGN });
      expect(asResponse(await onRequest(strictVendor, forKey, ctx)).status).toBe(403);
    });

    it('does not learn from answers to requests that name the merchant, and lets webhooks without a query correct it', async () => {
      const ctx = context();
      const product = request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: FOREIGN });
      await onResponse(
        strictVendor,
        product,
        response(201, { id: 'prod_1', object: 'product', merchantId: FOREIGN }),
        ctx,
      );
      const named = request('PATCH', `/v0/webhooks?merchantId=${FOREIGN}`, { enabled: true });
      await onResponse(strictVendor, named, response(200, { object: 'webhooks', merchantId: FOREIGN }), ctx);
      const mine = request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: OWN });
      expect(await onRequest(strictVendor, mine, ctx)).toBeUndefined();

      // A first guess from an item, then the webhooks configuration of the key's own merchant.
      const item = request('PATCH', '/v0/items/itm_1', { name: 'N' });
      await onResponse(strictVendor, item, response(200, { id: 'itm_1', object: 'item', merchantId: FOREIGN }), ctx);
      const own = request('PATCH', '/v0/webhooks', { enabled: true });
      await onResponse(strictVendor, own, response(200, { object: 'webhooks', merchantId: OWN }), ctx);
      expect(await onRequest(strictVendor, mine, ctx)).toBeUndefined();
      expect(asResponse(await onRequest(strictVendor, product, ctx)).status).toBe(403);
    });

    it('learns from lists and from compressed answers', async () => {
      const ctx = context();
      const list = request('GET', '/v0/customers');
      const payload = { object: 'list', data: [{ id: 'cus_1', merchantId: OWN }], pagination: {} };
      const compressed: ProxyResponse = {
        status: 200,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(Buffer.from(JSON.stringify(payload))),
      };
      await onResponse(strictVendor, list, compressed, ctx);
      const req = request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: FOREIGN });
      expect(asResponse(await onRequest(strictVendor, req, ctx)).status).toBe(403);
    });

    it('does not learn from refusals', async () => {
      const ctx = context();
      const req = request('GET', '/v0/customers/cus_1');
      await onResponse(strictVendor, req, response(404, { message: 'no', merchantId: OWN }), ctx);
      const product = request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: FOREIGN });
      expect(await onRequest(strictVendor, product, ctx)).toBeUndefined();
    });
  });

  describe('one live schedule per order (409)', () => {
    const create = (orderId: string) =>
      request('POST', '/v0/billingSchedules', { orderId, startDate: '2025-01-01T00:00:00Z' });

    async function created(ctx: TestContext, orderId: string, id: string, status = 201) {
      await onResponse(
        strictVendor,
        create(orderId),
        response(status, { id, object: 'billing_schedule', orderId, merchantId: OWN }),
        ctx,
      );
    }

    it('refuses a second schedule for the same order in Error shape, until the first is deleted', async () => {
      const ctx = context((req) =>
        req.path.endsWith('/intervals') ? response(200, { object: 'list', data: [] }) : response(404, { message: 'x' }),
      );
      expect(await onRequest(strictVendor, create('ord_1'), ctx)).toBeUndefined();
      await created(ctx, 'ord_1', 'bs_1');

      const res = asResponse(await onRequest(strictVendor, create('ord_1'), ctx));
      expect(res.status).toBe(409);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = jsonOf(res);
      expect(body.error).toBe('conflict');
      expect(body.code).toBe('SCHEDULE_EXISTS');
      expect(typeof body.message).toBe('string');
      expect(ctx.calls.some((c) => c.path === '/v0/billingSchedules/bs_1/intervals')).toBe(true);

      // Another order is free.
      expect(await onRequest(strictVendor, create('ord_2'), ctx)).toBeUndefined();

      // A failed delete keeps it; a 2xx delete frees the order.
      await onResponse(
        strictVendor,
        request('DELETE', '/v0/billingSchedules/bs_1'),
        response(404, { message: 'x' }),
        ctx,
      );
      expect(asResponse(await onRequest(strictVendor, create('ord_1'), ctx)).status).toBe(409);
      await onResponse(strictVendor, request('DELETE', '/v0/billingSchedules/bs_1'), response(204), ctx);
      expect(await onRequest(strictVendor, create('ord_1'), ctx)).toBeUndefined();
    });

    it('does not count schedules the server refused', async () => {
      const ctx = context(() => response(200, {}));
      await onResponse(strictVendor, create('ord_3'), response(400, { message: 'bad' }), ctx);
      expect(await onRequest(strictVendor, create('ord_3'), ctx)).toBeUndefined();
    });

    it('forgets a schedule the server no longer has', async () => {
      const ctx = context(() => response(404, { message: 'gone' }));
      await created(ctx, 'ord_4', 'bs_4', 200);
      expect(await onRequest(strictVendor, create('ord_4'), ctx)).toBeUndefined();
    });
  });
});

describe('lenient vendor', () => {
  it('quotes a sentence for every choice', () => {
    expect(LENIENT_CHOICES.length).toBe(6);
    for (const c of LENIENT_CHOICES) expect(c.sentence).toMatch(/"/);
  });

  it('asks the server behind for identity on documented endpoints, on a copy', async () => {
    const req = request(
      'POST',
      '/v0/products',
      { name: 'P', description: 'D', merchantId: OWN },
      { 'accept-encoding': 'gzip' },
    );
    const forwarded = (await onRequest(lenientVendor, req, context())) as ProxyRequest;
    expect(forwarded.headers['accept-encoding']).toBe('identity');
    expect(forwarded.body.equals(req.body)).toBe(true);
    expect(forwarded.json).toBeUndefined();
    expect(req.headers['accept-encoding']).toBe('gzip');
  });

  it.each(DOCUMENTED_VALID)('never refuses a documented request: %s', async (_name, req) => {
    const out = await onRequest(lenientVendor, req, context());
    expect(out && 'status' in out).toBeFalsy();
  });

  it('lets undocumented routes through untouched', async () => {
    const ctx = context();
    for (const req of UNDOCUMENTED) {
      expect(await onRequest(lenientVendor, req, ctx)).toBeUndefined();
      const res = response(201, { id: 'x', object: 'thing', createdAt: '2025-01-01T00:00:00Z' });
      const before = res.body;
      expect(await onResponse(lenientVendor, req, res, ctx)).toBeUndefined();
      expect(res.status).toBe(201);
      expect(res.body).toBe(before);
      expect(res.headers['x-request-id']).toBeUndefined();
    }
    expect(ctx.appliedCount).toBe(0);
  });

  const identity = { 'accept-encoding': 'identity' };

  it('answers 200 instead of 201 on creates, with extra fields and +00:00 date-times, leaving metadata alone', async () => {
    const req = request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: OWN }, identity);
    const product = {
      id: 'prod_1',
      object: 'product',
      name: 'P',
      description: 'D',
      merchantId: OWN,
      metadata: { at: '2025-01-01T00:00:00Z', nested: { object: 'x' } },
      createdAt: '2025-01-02T03:04:05.678Z',
      updatedAt: '2025-01-02T03:04:05Z',
    };
    const res = asResponse(await onResponse(lenientVendor, req, response(201, product), context()));
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    const body = jsonOf(res);
    expect(body.createdAt).toBe('2025-01-02T03:04:05.678+00:00');
    expect(body.updatedAt).toBe('2025-01-02T03:04:05+00:00');
    expect(Date.parse(body.createdAt as string)).toBe(Date.parse(product.createdAt));
    expect(body.livemode).toBe(false);
    expect(body.metadata).toEqual({ at: '2025-01-01T00:00:00Z', nested: { object: 'x' } });
    expect({ ...body, livemode: undefined, createdAt: undefined, updatedAt: undefined }).toEqual({
      ...product,
      livemode: undefined,
      createdAt: undefined,
      updatedAt: undefined,
    });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]+$/);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it.each([
    ['/v0/billingSchedules/bs_1', 'bs_1', 'billing_schedule'],
    ['/v0/customers/cus_1', 'cus_1', 'customer'],
    ['/v0/fees/fee_1', 'fee_1', 'fee'],
  ])('answers 200 with a body instead of 204 on DELETE %s', async (path, id, object) => {
    const res = asResponse(
      await onResponse(lenientVendor, request('DELETE', path, undefined, identity), response(204), context()),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(jsonOf(res)).toEqual({ id, object, deleted: true });
  });

  it('keeps refusals as they are (status and body), adding only the header', async () => {
    const conflict = {
      error: 'conflict',
      message: 'blocked',
      details: { blockers: [{ type: 'subscriptions', count: 1, items: [{ id: 'sub_1', status: 'active' }] }] },
    };
    const res = asResponse(
      await onResponse(
        lenientVendor,
        request('DELETE', '/v0/customers/cus_1', undefined, identity),
        response(409, conflict),
        context(),
      ),
    );
    expect(res.status).toBe(409);
    expect(jsonOf(res)).toEqual(conflict);
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('keeps other success statuses', async () => {
    const req = request('PATCH', '/v0/webhooks', { enabled: true }, identity);
    const config = {
      object: 'webhooks',
      applicationId: 'app_1',
      enabled: true,
      merchantId: OWN,
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
    };
    const res = asResponse(await onResponse(lenientVendor, req, response(200, config), context()));
    expect(res.status).toBe(200);
    expect(jsonOf(res)).toMatchObject({ object: 'webhooks', livemode: false, updatedAt: '2025-01-01T00:00:00+00:00' });
  });

  it('adds fields to resources in lists and nested resources, not to the list or pagination', async () => {
    const list = {
      object: 'list',
      data: [
        {
          object: 'alert',
          id: 'alt_1',
          type: 'wallet_low_balance',
          config: { since: '2025-01-01T00:00:00Z' },
          lastNotifiedAt: '2025-02-01T00:00:00Z',
        },
      ],
      pagination: { limit: 10, offset: 0, total: 1 },
    };
    const res = asResponse(
      await onResponse(
        lenientVendor,
        request('GET', '/v0/alerts?resourceId=wal_1', undefined, identity),
        response(200, list),
        context(),
      ),
    );
    const body = jsonOf(res);
    expect(body.livemode).toBeUndefined();
    expect(body.pagination).toEqual({ limit: 10, offset: 0, total: 1 });
    const [alert] = body.data as Array<Record<string, unknown>>;
    expect(alert.livemode).toBe(false);
    expect(alert.lastNotifiedAt).toBe('2025-02-01T00:00:00+00:00');
    expect(alert.config).toEqual({ since: '2025-01-01T00:00:00Z' });

    const migration = {
      subscription: { id: 'sub_1', object: 'subscription', versionPolicy: 'pinned', terminatedAt: null },
      migration: { fromVersionNumber: 1, toVersionNumber: 2, effectiveAt: '2025-03-01T00:00:00Z', changed: true },
      lineItems: { syncFailed: false },
    };
    const m = jsonOf(
      asResponse(
        await onResponse(
          lenientVendor,
          request('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 2 }, identity),
          response(200, migration),
          context(),
        ),
      ),
    );
    expect(m.livemode).toBeUndefined();
    expect((m.subscription as Record<string, unknown>).livemode).toBe(false);
    expect((m.subscription as Record<string, unknown>).terminatedAt).toBeNull();
    expect((m.migration as Record<string, unknown>).effectiveAt).toBe('2025-03-01T00:00:00+00:00');
    expect(m.lineItems).toEqual({ syncFailed: false });
  });

  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8', true],
    ['*', true],
    [undefined, true],
    ['identity', false],
    ['gzip;q=0', false],
    ['*;q=0', false],
    ['br', false],
    ['', false],
  ])('compresses with gzip when Accept-Encoding is %s: %s', async (accept, compressed) => {
    const req = request('GET', '/v0/customers/cus_1');
    if (accept !== undefined) req.headers['accept-encoding'] = accept;
    expect(acceptsGzip(accept)).toBe(compressed);
    const customer = { id: 'cus_1', object: 'customer', merchantId: OWN, createdAt: '2025-01-01T00:00:00Z' };
    const res = asResponse(await onResponse(lenientVendor, req, response(200, customer), context()));
    expect(res.headers['content-encoding']).toBe(compressed ? 'gzip' : undefined);
    if (compressed) expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(jsonOf(res)).toMatchObject({ id: 'cus_1', livemode: false, createdAt: '2025-01-01T00:00:00+00:00' });
  });

  it('compresses error answers too, and leaves empty ones alone', async () => {
    const req = request('GET', '/v0/payments/pay_1', undefined, { 'accept-encoding': 'gzip' });
    const res = asResponse(
      await onResponse(lenientVendor, req, response(404, { error: 'not_found', message: 'no' }), context()),
    );
    expect(res.status).toBe(404);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(jsonOf(res)).toEqual({ error: 'not_found', message: 'no' });

    const empty = asResponse(
      await onResponse(lenientVendor, request('GET', '/v0/payments/pay_1'), response(304), context()),
    );
    expect(empty.headers['content-encoding']).toBeUndefined();
    expect(empty.body.length).toBe(0);
  });
});

describe('over-strict faults', () => {
  const TRIGGERS: Record<string, ProxyRequest> = {
    'overstrict-taxrates-0': request('PATCH', '/v0/customers/cus_1', { taxRates: 0 }),
    'overstrict-taxrates-100': request('PATCH', '/v0/customers/cus_1', { taxRates: 100 }),
    'overstrict-externalid-255': request('PATCH', '/v0/customers/cus_1', { externalId: LONG_ID }),
    'overstrict-alerts-resource-wallet': request('PATCH', '/v0/alerts/alt_1?resource=wallet', { enabled: true }),
    'overstrict-alerts-limit-100': request('GET', '/v0/alerts?resourceId=wal_1&limit=100'),
    'overstrict-alerts-limit-1': request('GET', '/v0/alerts?resourceId=wal_1&limit=1'),
    'overstrict-product-without-metadata': request('POST', '/v0/products', {
      name: 'P',
      description: 'D',
      merchantId: OWN,
    }),
    'overstrict-webhooks-enabled-only': request('PATCH', '/v0/webhooks', { enabled: false }),
    'overstrict-target-version-1': request('POST', '/v0/subscriptions/sub_1/versionMigration', {
      targetVersionNumber: 1,
    }),
  };

  /** Neighbours of each trigger that the fault must let through. */
  const NEAR_MISSES: Record<string, ProxyRequest[]> = {
    'overstrict-taxrates-0': [request('PATCH', '/v0/customers/cus_1', { taxRates: 0.5 })],
    'overstrict-taxrates-100': [request('PATCH', '/v0/customers/cus_1', { taxRates: 99 })],
    'overstrict-externalid-255': [
      request('PATCH', '/v0/customers/cus_1', { externalId: 'x'.repeat(254) }),
      request('PATCH', '/v0/customers/cus_1', { externalId: 'x'.repeat(256) }),
    ],
    'overstrict-alerts-resource-wallet': [request('PATCH', '/v0/alerts/alt_1', { enabled: true })],
    'overstrict-alerts-limit-100': [
      request('GET', '/v0/alerts?resourceId=wal_1&limit=99'),
      request('GET', '/v0/alerts?resourceId=wal_1&limit=101'),
    ],
    'overstrict-alerts-limit-1': [
      request('GET', '/v0/alerts?resourceId=wal_1&limit=2'),
      request('GET', '/v0/alerts?resourceId=wal_1&limit=0'),
    ],
    'overstrict-product-without-metadata': [
      request('POST', '/v0/products', { name: 'P', description: 'D', merchantId: OWN, metadata: {} }),
      request('POST', '/v0/products', { name: 'P', merchantId: OWN }),
    ],
    'overstrict-webhooks-enabled-only': [request('PATCH', '/v0/webhooks', { enabled: true, other: 1 })],
    'overstrict-target-version-1': [
      request('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 2 }),
      request('POST', '/v0/subscriptions/sub_1/versionMigration', { targetVersionNumber: 0 }),
    ],
  };

  it('has one fault per documented-valid case, each quoting its sentence', () => {
    expect(overstrictFaults.map((f) => f.name).sort()).toEqual(Object.keys(TRIGGERS).sort());
    for (const f of overstrictFaults) {
      expect(f.fault.name).toBe(f.name);
      expect(f.sentence.length).toBeGreaterThan(20);
    }
  });

  it.each(overstrictFaults.map((f) => [f.name, f] as const))(
    '%s refuses its case with a ValidationError',
    async (name, f) => {
      const ctx = context();
      const res = asResponse(await onRequest(f.fault, TRIGGERS[name], ctx));
      expect(res.status).toBe(400);
      const body = jsonOf(res);
      expect(body.error).toBe('validation_error');
      expect(typeof body.message).toBe('string');
      expect((body.errors as unknown[]).length).toBe(1);
      expect(ctx.appliedCount).toBe(1);
      expect(ctx.calls).toHaveLength(0);
    },
  );

  /** The one case each fault is about, written independently of the faults. */
  const bodyOf = (req: ProxyRequest) => (req.json ?? {}) as Record<string, unknown>;
  const pathOf = (req: ProxyRequest) => req.path.split('?')[0];
  const queryOf = (req: ProxyRequest) => new URLSearchParams(req.path.split('?')[1] ?? '');
  const CASE: Record<string, (req: ProxyRequest) => boolean> = {
    'overstrict-taxrates-0': (r) =>
      r.method === 'PATCH' && /^\/v0\/customers\/[^/]+$/.test(pathOf(r)) && bodyOf(r).taxRates === 0,
    'overstrict-taxrates-100': (r) =>
      r.method === 'PATCH' && /^\/v0\/customers\/[^/]+$/.test(pathOf(r)) && bodyOf(r).taxRates === 100,
    'overstrict-externalid-255': (r) =>
      r.method === 'PATCH' &&
      /^\/v0\/customers\/[^/]+$/.test(pathOf(r)) &&
      typeof bodyOf(r).externalId === 'string' &&
      (bodyOf(r).externalId as string).length === 255,
    'overstrict-alerts-resource-wallet': (r) =>
      r.method === 'PATCH' && /^\/v0\/alerts\/[^/]+$/.test(pathOf(r)) && queryOf(r).get('resource') === 'wallet',
    'overstrict-alerts-limit-100': (r) =>
      r.method === 'GET' && pathOf(r) === '/v0/alerts' && queryOf(r).get('limit') === '100',
    'overstrict-alerts-limit-1': (r) =>
      r.method === 'GET' && pathOf(r) === '/v0/alerts' && queryOf(r).get('limit') === '1',
    'overstrict-product-without-metadata': (r) =>
      r.method === 'POST' &&
      pathOf(r) === '/v0/products' &&
      Object.keys(bodyOf(r)).sort().join() === 'description,merchantId,name',
    'overstrict-webhooks-enabled-only': (r) =>
      r.method === 'PATCH' && pathOf(r) === '/v0/webhooks' && Object.keys(bodyOf(r)).join() === 'enabled',
    'overstrict-target-version-1': (r) =>
      r.method === 'POST' && /\/versionMigration$/.test(pathOf(r)) && bodyOf(r).targetVersionNumber === 1,
  };

  it.each(overstrictFaults.map((f) => [f.name, f] as const))('%s refuses only its case', async (name, f) => {
    const ctx = context();
    const pool = [
      ...Object.values(NEAR_MISSES).flat(),
      ...Object.values(TRIGGERS),
      ...DOCUMENTED_VALID.map(([, r]) => r),
      ...UNDOCUMENTED,
    ];
    let refused = 0;
    let passed = 0;
    for (const req of pool) {
      const out = await onRequest(f.fault, req, ctx);
      const expected = CASE[name](req);
      expect(out !== undefined, `${name}: ${req.method} ${req.path} ${JSON.stringify(req.json)}`).toBe(expected);
      if (out === undefined) passed += 1;
      else {
        refused += 1;
        expect(asResponse(out).status).toBe(400);
      }
    }
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(passed).toBeGreaterThan(30);
    for (const req of NEAR_MISSES[name]) expect(await onRequest(f.fault, req, ctx)).toBeUndefined();
    // Without credentials, the trigger still reaches the server (for its 401).
    const anonymous = { ...TRIGGERS[name], headers: { ...TRIGGERS[name].headers } };
    delete anonymous.headers.authorization;
    expect(await onRequest(f.fault, anonymous, ctx)).toBeUndefined();
    expect(f.fault.onResponse).toBeUndefined();
  });
});
