import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { compile, createAjv, run } from '../../src/contract/ajv.ts';
import {
  buildSpec,
  limitsTable,
  loadRules,
  loadSpec,
  readDocument,
  SPEC_PATH,
  type Operation,
} from '../../src/contract/index.ts';

const spec = await loadSpec();
const ops = [...spec.operations.values()];
const documented = ops.filter((o) => !o.extension);
const extensions = ops.filter((o) => o.extension);

/** operationId -> "METHOD /path" from both tables of docs/architecture.md. */
function architectureTable(): Map<string, string> {
  const text = readFileSync(fileURLToPath(new URL('../../docs/architecture.md', import.meta.url)), 'utf8');
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^\| (\w+) \| (GET|POST|PUT|PATCH|DELETE) (\S+)/gm)) out.set(m[1], `${m[2]} ${m[3]}`);
  return out;
}

// The Limits table of spec/rules.yaml, which the drift test compares with the document.
const RATE_LIMITS = limitsTable(await loadRules());
const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
// Counts of requests are whole; "seconds" are numbers (the document does not say whole seconds).
const HEADER_SCHEMAS: Record<string, object> = {
  'x-ratelimit-limit': { type: 'integer', minimum: 0 },
  'x-ratelimit-remaining': { type: 'integer', minimum: 0 },
  'x-ratelimit-reset': { type: 'number', minimum: 0 },
  'retry-after': { type: 'number', minimum: 0 },
};

describe('spec/openapi.yaml: structure', () => {
  test('every schema compiles under ajv 2020-12 strict mode', () => {
    expect(() => spec.compileAll()).not.toThrow();
  });

  test('every schema is valid against the JSON Schema 2020-12 meta-schema (an eager build checks them)', async () => {
    const document = await readDocument();
    expect(() => buildSpec(document, SPEC_PATH, { eager: true })).not.toThrow();
  });

  test('is OpenAPI 3.1 with the interface version 0.1.0', () => {
    expect(spec.document.openapi).toBe('3.1.0');
    expect(spec.version).toBe('0.1.0');
  });

  test('every operation of docs/architecture.md exists with its method and path', () => {
    const table = architectureTable();
    expect(table.size).toBeGreaterThanOrEqual(65);
    const wrong = [...table].filter(([id, where]) => {
      const op = spec.operations.get(id);
      return !op || `${op.method} ${op.pathTemplate}` !== where;
    });
    expect(wrong).toEqual([]);
    // and nothing else: every operation in the spec is in one of the two tables
    expect(ops.map((o) => o.operationId).filter((id) => !table.has(id))).toEqual([]);
  });

  test('documented operations are untagged as extensions; extension operations are marked', () => {
    const table = architectureTable();
    expect(documented).toHaveLength(27);
    expect(extensions).toHaveLength(39);
    for (const op of extensions) {
      expect(op.tags, op.operationId).toEqual(['Reference extensions']);
      expect(spec.document.paths[op.pathTemplate][op.method.toLowerCase()]['x-extension']).toBe('reference');
    }
    for (const op of documented) expect(op.tags, op.operationId).not.toContain('Reference extensions');
    // Their other errors may have any status, always in Error shape.
    for (const op of extensions) {
      expect(spec.responseFor(op.operationId, 422)?.key, op.operationId).toBe('default');
      expect(spec.validateResponseBody(op.operationId, 422, { message: 'm', code: 'SOME_CODE' }).valid).toBe(true);
      expect(spec.validateResponseBody(op.operationId, 422, { code: 'SOME_CODE' }).valid).toBe(false);
    }
    expect(table.size).toBe(ops.length);
  });

  test('bearer security: global, as a scheme, and on each operation', () => {
    expect(spec.document.security).toEqual([{ bearerAuth: [] }]);
    expect(spec.document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const op of ops) {
      const raw = spec.document.paths[op.pathTemplate][op.method.toLowerCase()];
      expect(raw.security, op.operationId).toEqual([{ bearerAuth: [] }]);
    }
  });

  test('every operation declares 401, 403 and 429 with Error bodies, 429 with retry-after', () => {
    for (const op of ops) {
      for (const code of ['401', '403', '429']) {
        const r = op.responses[code];
        expect(r, `${op.operationId} ${code}`).toBeDefined();
        expect(
          spec.validateResponseBody(op.operationId, Number(code), {
            message: 'm',
            error: code === '429' ? 'rate_limit_exceeded' : 'x',
          }).valid,
        ).toBe(true);
        expect(spec.validateResponseBody(op.operationId, Number(code), { error: 'no message' }).valid).toBe(false);
      }
      expect(op.responses['429'].headerNames, op.operationId).toContain('retry-after');
      expect(op.responses['401'].headerNames, op.operationId).toEqual([]);
    }
  });

  test('400 accepts Error or ValidationError on every operation', () => {
    for (const op of ops) {
      expect(op.responses['400'], op.operationId).toBeDefined();
      expect(spec.validateResponseBody(op.operationId, 400, { error: 'bad_request', message: 'm' }).valid).toBe(true);
      expect(
        spec.validateResponseBody(op.operationId, 400, {
          message: 'm',
          errors: [{ field: 'limit', message: 'too big' }],
        }).valid,
      ).toBe(true);
      expect(spec.validateResponseBody(op.operationId, 400, { errors: [] }).valid).toBe(false);
    }
  });

  test('the six rate-limited operations carry their limit, the rate headers and retry-after', () => {
    const limited = ops.filter((o) => o.rateLimit);
    expect(limited.map((o) => o.operationId).sort()).toEqual(Object.keys(RATE_LIMITS).sort());
    for (const op of limited) {
      expect(op.rateLimit, op.operationId).toEqual(RATE_LIMITS[op.operationId]);
      for (const [key, r] of Object.entries(op.responses)) {
        if (key === '401') expect(r.headerNames).toEqual([]);
        else expect(r.requiredHeaders, `${op.operationId} ${key}`).toEqual(expect.arrayContaining(RATE_HEADERS));
        for (const h of Object.keys(HEADER_SCHEMAS).filter((n) => r.headers[n]))
          expect(r.headers[h].schema, `${op.operationId} ${key} ${h}`).toEqual(HEADER_SCHEMAS[h]);
      }
      expect(op.responses['429'].headers['retry-after'].required).toBe(true);
      expect(
        spec.validateResponseBody(op.operationId, 429, { error: 'rate_limit_exceeded', message: 'slow down' }).valid,
      ).toBe(true);
      expect(spec.validateResponseBody(op.operationId, 429, { error: 'too_many', message: 'slow down' }).valid).toBe(
        false,
      );
    }
    // Elsewhere retry-after may be absent (the retry rule then waits one second, doubling).
    expect(spec.operations.get('getCustomer')!.responses['429'].headers['retry-after'].required).toBe(false);
    expect(spec.operations.get('getCustomer')!.responses['429'].headers['retry-after'].schema).toEqual(
      HEADER_SCHEMAS['retry-after'],
    );
  });

  test('rate header values: counts are non-negative integers, seconds non-negative numbers', () => {
    // Header values are text: judged as parameters are, after coercion.
    const headers = spec.operations.get('listCustomers')!.responses['429'].headers;
    const ajv = createAjv(spec.document, { coerce: true });
    const accepts = (name: string, value: string) =>
      run(compile(ajv, { type: 'object', properties: { v: headers[name].schema } }), { v: value }).valid;
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining']) {
      for (const ok of ['0', '60']) expect(accepts(name, ok), `${name}: ${ok}`).toBe(true);
      for (const bad of ['1.5', '-1', 'many']) expect(accepts(name, bad), `${name}: ${bad}`).toBe(false);
    }
    for (const name of ['x-ratelimit-reset', 'retry-after']) {
      for (const ok of ['0', '6', '0.25']) expect(accepts(name, ok), `${name}: ${ok}`).toBe(true);
      for (const bad of ['-0.5', 'soon']) expect(accepts(name, bad), `${name}: ${bad}`).toBe(false);
    }
  });

  test('rules.yaml says of the rate headers what the header schemas say', async () => {
    const rules = await spec.rules();
    const present = rules.byId('RATE.HEADERS.PRESENT')!;
    const params = present.params as { headers: string[]; integers: string[]; seconds: string[] };
    expect(params.headers).toEqual(RATE_HEADERS);
    const headers = spec.operations.get('listCustomers')!.responses['429'].headers;
    expect(params.integers.map((h) => headers[h].schema.type)).toEqual(params.integers.map(() => 'integer'));
    expect(params.seconds.map((h) => headers[h].schema.type)).toEqual(params.seconds.map(() => 'number'));
    expect([...params.integers, ...params.seconds].sort()).toEqual([...RATE_HEADERS].sort());
    expect(present.statement).toMatch(/non-negative integers/);
    expect(present.statement).toMatch(/fraction allowed/);
    expect(rules.byId('RATE.RETRY_AFTER.ON_429')!.statement).toMatch(/non-negative number \(a fraction allowed\)/);
    expect(rules.byId('CONV.LIST.ENVELOPE')!.statement).toMatch(/where present/);
  });

  test('documented success codes are used where given; elsewhere 2XX with an x-not-shown note', () => {
    const given: Record<string, string> = { updateWebhooks: '200', listAlerts: '200', updateAlert: '200' };
    for (const op of documented) {
      const success = Object.keys(op.responses).filter((k) => k.startsWith('2'));
      if (given[op.operationId]) {
        expect(success, op.operationId).toEqual([given[op.operationId]]);
      } else {
        expect(success, op.operationId).toEqual(['2XX']);
        expect(op.responses['2XX'].notShown, op.operationId).toBeTruthy();
      }
    }
  });

  test('documented 404 and 409 responses', () => {
    const has = (id: string, code: string) => spec.operations.get(id)!.responses[code] !== undefined;
    expect(has('updateWebhooks', '404')).toBe(true);
    expect(has('migrateSubscriptionVersion', '404')).toBe(true);
    expect(has('migrateSubscriptionVersion', '409')).toBe(true);
    expect(has('deleteCustomer', '409')).toBe(true);
    expect(has('deleteFee', '409')).toBe(true);
    // "Errors in Error shape" without statuses: any status with an Error body.
    for (const id of [
      'createBillingSchedule',
      'listScheduleIntervals',
      'deleteBillingSchedule',
      'updateItem',
      'updateCustomer',
      'updateSourceRule',
      'createInvoiceRefund',
      'getPrice',
      'deleteFee',
      'getPayment',
    ]) {
      expect(spec.responseFor(id, 418)?.key, id).toBe('default');
      expect(spec.validateResponseBody(id, 418, { message: 'teapot', code: 'SOME_CODE' }).valid).toBe(true);
    }
  });

  test('documented parameter bounds and enums', () => {
    const param = (id: string, name: string) => spec.operations.get(id)!.parameters.find((p) => p.name === name)!;
    expect(param('listAlerts', 'limit').schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 10 });
    expect(param('listAlerts', 'offset').schema).toEqual({ type: 'integer', minimum: 0, default: 0 });
    expect(param('listAlerts', 'resourceId').required).toBe(true);
    expect(param('updateAlert', 'resource')).toMatchObject({ required: true, schema: { enum: ['wallet'] } });
    expect(param('updateWebhooks', 'merchantId').required).toBe(false);
    expect(param('updateItem', 'id').schema.pattern).toBe('^itm_[a-zA-Z0-9]+$');
    expect(param('getCustomer', 'id').schema.pattern).toBe('^cus_[a-zA-Z0-9]+$');
    expect(param('getPrice', 'id').schema.pattern).toBe('^price_[a-zA-Z0-9]+$');
    const customer = spec.operations.get('updateCustomer')!.requestBody!.schema.properties;
    expect(customer.externalId).toMatchObject({ type: ['string', 'null'], maxLength: 255 });
    expect(customer.taxRates).toMatchObject({ type: 'number', minimum: 0, maximum: 100 });
    expect(customer.taxId.type).toEqual(['string', 'null']);
    expect(Object.keys(customer.notificationSettings.properties)).toEqual([
      'invoiceIssued',
      'invoicePaid',
      'renewalReminder',
    ]);
    expect(spec.operations.get('createProduct')!.requestBody!.schema.required).toEqual([
      'name',
      'description',
      'merchantId',
    ]);
    expect(spec.operations.get('updateWebhooks')!.requestBody!.schema.required).toEqual(['enabled']);
  });

  test('no schema forbids extra properties', () => {
    const offenders: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${where}/${i}`));
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if ((k === 'additionalProperties' || k === 'unevaluatedProperties') && v === false) offenders.push(where);
          walk(v, `${where}/${k}`);
        }
      }
    };
    walk(spec.document, '#');
    expect(offenders).toEqual([]);
  });

  test('every reference choice on documented parts sits next to (or under) an x-not-shown note', () => {
    const orphans: string[] = [];
    const walk = (node: unknown, where: string, covered: boolean, extension: boolean) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`, covered, extension));
      if (!node || typeof node !== 'object') return;
      const o = node as Record<string, unknown>;
      const ext = extension || o['x-extension'] === 'reference';
      const cov = covered || o['x-not-shown'] !== undefined;
      if (o['x-reference-choice'] !== undefined && !cov && !ext) orphans.push(where);
      for (const [k, v] of Object.entries(o)) walk(v, `${where}/${k}`, cov, ext);
    };
    walk(spec.document.paths, '#/paths', false, false);
    walk(spec.document.components.schemas, '#/components/schemas', false, false);
    expect(orphans).toEqual([]);
  });

  test('extension schemas are marked as such', () => {
    const schemas = spec.document.components.schemas;
    for (const name of [
      'Plan',
      'PlanVersion',
      'Fee',
      'BillableMetric',
      'Invoice',
      'Order',
      'Wallet',
      'TestClock',
      'ApiKey',
      'Source',
      'Event',
      'WebhookEndpoint',
      'ReferenceSubscription',
      'Reconciliation',
      'PortalSession',
      'CostsReport',
      'CrmAccount',
    ]) {
      expect(schemas[name]?.['x-extension'], name).toBe('reference');
    }
    for (const name of [
      'Customer',
      'Item',
      'Price',
      'Payment',
      'InvoiceRefund',
      'SourceRule',
      'Merchant',
      'Product',
      'Alert',
      'AutoTopupConfig',
      'WebhooksConfiguration',
      'BillingSchedule',
      'ScheduleInterval',
      'ExternalReference',
      'Subscription',
    ]) {
      expect(schemas[name]?.['x-extension'], name).toBeUndefined();
    }
  });

  test('every resource schema requires its object field', () => {
    const schemas = spec.document.components.schemas;
    const resources = Object.entries(schemas).filter(([, s]: [string, any]) => s.properties?.object);
    expect(resources.length).toBeGreaterThan(30);
    for (const [name, s] of resources as [string, any][]) expect(s.required, name).toContain('object');
  });
});

function ops_(id: string): Operation {
  return spec.operations.get(id)!;
}

describe('spec/openapi.yaml: resource schemas', () => {
  const ts = '2026-01-02T03:04:05Z';
  const customer = {
    id: 'cus_abc123',
    object: 'customer',
    consumerId: 'org_c1',
    merchantId: 'org_m1',
    createdAt: ts,
    updatedAt: ts,
    validTaxAddress: { valid: false, message: null },
  };

  test('Customer: accepts a good one, extra properties too', () => {
    expect(spec.validateSchema('Customer', customer)).toEqual({ valid: true, errors: [] });
    expect(
      spec.validateSchema('Customer', { ...customer, somethingNew: 1, taxRates: { default: 20, plan_x: 0 } }).valid,
    ).toBe(true);
  });

  test('Customer: rejects a bad id, a missing required field, a bad date, a bad tax rate', () => {
    expect(spec.validateSchema('Customer', { ...customer, id: 'cust_1' }).errors[0]).toMatchObject({
      path: '/id',
      keyword: 'pattern',
    });
    const { validTaxAddress: _, ...noAddress } = customer;
    expect(spec.validateSchema('Customer', noAddress).errors[0]).toMatchObject({
      path: '/validTaxAddress',
      keyword: 'required',
    });
    expect(spec.validateSchema('Customer', { ...customer, createdAt: 'yesterday' }).errors[0]).toMatchObject({
      path: '/createdAt',
      keyword: 'format',
    });
    expect(spec.validateSchema('Customer', { ...customer, merchantId: 'merchant_1' }).valid).toBe(false);
    expect(spec.validateSchema('Customer', { ...customer, externalId: 'x'.repeat(256) }).valid).toBe(false);
    expect(spec.validateSchema('Customer', { ...customer, taxRates: { default: 101 } }).valid).toBe(false);
    expect(spec.validateSchema('Customer', { ...customer, object: 'client' }).errors[0]).toMatchObject({
      path: '/object',
      keyword: 'const',
    });
  });

  test('Price: model and paymentTerm enums, volume tiers, merchantId on single reads', () => {
    const price = {
      id: 'price_1',
      object: 'price',
      model: 'volume',
      paymentTerm: 'in_advance',
      quantity: 1,
      properties: {
        tiers: [
          { unitPrice: '1.00', upTo: '10' },
          { unitPrice: '0.50', upTo: null },
        ],
      },
    };
    expect(spec.validateSchema('Price', price).valid).toBe(true);
    for (const model of ['dynamic', 'volume', 'percentage'])
      expect(spec.validateSchema('Price', { ...price, model }).valid).toBe(true);
    // properties depends on the model: a standard price holds unitPrice, a volume price tiers.
    expect(spec.validateSchema('Price', { ...price, model: 'standard' }).valid).toBe(false);
    expect(spec.validateSchema('Price', { ...price, model: 'standard', properties: { unitPrice: '2.00' } }).valid).toBe(
      true,
    );
    expect(spec.validateSchema('Price', { ...price, properties: { unitPrice: '2.00' } }).valid).toBe(false);
    expect(spec.validateSchema('Price', { ...price, properties: { tiers: [{ unitPrice: '1.00' }] } }).valid).toBe(
      false,
    );
    expect(spec.validateSchema('Price', { ...price, model: 'tiered' }).errors[0]).toMatchObject({
      path: '/model',
      keyword: 'enum',
    });
    expect(spec.validateSchema('Price', { ...price, paymentTerm: 'upfront' }).valid).toBe(false);
    expect(spec.validateSchema('Price', { ...price, quantity: -1 }).valid).toBe(false);
    expect(spec.validateSchema('Price', { ...price, feeId: 'f_1' }).valid).toBe(false);
    expect(spec.validateResponseBody('getPrice', 200, price).errors).toEqual([
      expect.objectContaining({ path: '/merchantId', keyword: 'required' }),
    ]);
    expect(spec.validateResponseBody('getPrice', 200, { ...price, merchantId: 'org_1' }).valid).toBe(true);
  });

  test('Payment and InvoiceRefund: prefixes, statuses, decimal strings', () => {
    const payment = {
      id: 'pay_1',
      object: 'payment',
      amount: '10.50',
      currency: 'USD',
      status: 'pending',
      createdAt: ts,
    };
    expect(spec.validateResponseBody('getPayment', 200, payment).valid).toBe(true);
    expect(spec.validateSchema('Payment', { ...payment, id: 'pm_1' }).valid).toBe(false);
    expect(spec.validateSchema('Payment', { ...payment, status: 'paid' }).valid).toBe(false);
    expect(spec.validateSchema('Payment', { ...payment, amount: 10.5 }).valid).toBe(false);
    const { status: _, ...noStatus } = payment;
    expect(spec.validateSchema('Payment', noStatus).valid).toBe(false);
    const refund = {
      object: 'invoice_refund',
      id: 'crn_1',
      amount: '10.00',
      taxAmount: '2.00',
      total: '12.00',
      status: 'ISSUED',
      reason: null,
      pdfUrl: null,
      voidedAt: null,
    };
    expect(spec.validateResponseBody('createInvoiceRefund', 201, refund).valid).toBe(true);
    expect(spec.validateSchema('InvoiceRefund', { ...refund, status: 'issued' }).valid).toBe(false);
    expect(spec.validateSchema('InvoiceRefund', { ...refund, id: 'cn_1' }).valid).toBe(false);
  });

  test('Item: archivedAt is nullable; catalogId is a product id', () => {
    const item = { id: 'itm_1', object: 'item', merchantId: 'org_1', catalogId: 'prod_1', archivedAt: null };
    expect(spec.validateResponseBody('updateItem', 200, item).valid).toBe(true);
    expect(spec.validateSchema('Item', { ...item, archivedAt: ts }).valid).toBe(true);
    expect(spec.validateSchema('Item', { ...item, catalogId: 'cat_1' }).valid).toBe(false);
    expect(spec.validateSchema('Item', { ...item, archivedAt: 'never' }).valid).toBe(false);
  });

  test('lists: envelope with object list, data and pagination', () => {
    const alerts = {
      object: 'list',
      data: [{ object: 'alert', id: 'a1', type: 'wallet_low_balance', recipients: ['a@example.com'] }],
      pagination: { limit: 10, offset: 0, total: 1 },
    };
    expect(spec.validateResponseBody('listAlerts', 200, alerts).valid).toBe(true);
    expect(spec.validateResponseBody('listAlerts', 200, { ...alerts, object: 'alerts' }).valid).toBe(false);
    expect(spec.validateResponseBody('listAlerts', 200, { object: 'list', data: [] }).valid).toBe(false);
    expect(
      spec.validateResponseBody('listAlerts', 200, { ...alerts, data: [{ object: 'alert', type: 'other' }] }).valid,
    ).toBe(false);
    expect(
      spec.validateResponseBody('listAlerts', 200, {
        ...alerts,
        data: [{ object: 'alert', recipients: ['not-an-email'] }],
      }).valid,
    ).toBe(false);
    const intervals = {
      object: 'list',
      data: [{ object: 'schedule_interval', quantityTransitions: [{ effectiveDate: ts, quantity: '2' }] }],
      pagination: { limit: 10, offset: 0, total: 1 },
    };
    expect(spec.validateResponseBody('listScheduleIntervals', 200, intervals).valid).toBe(true);
  });

  test('pagination: limit, offset, total are integers where present; none is required (no Required column)', () => {
    const list = (pagination: unknown) => ({ object: 'list', data: [], pagination });
    expect(spec.document.components.schemas.Pagination.required).toBeUndefined();
    expect(spec.document.components.schemas.ListEnvelope.required).toEqual(['object', 'data', 'pagination']);
    for (const p of [{ limit: 10, offset: 0, total: 0 }, { limit: 10, offset: 0 }, { total: 3 }, {}]) {
      expect(spec.validateResponseBody('listAlerts', 200, list(p)).valid, JSON.stringify(p)).toBe(true);
    }
    for (const p of [{ limit: '10' }, { offset: 1.5 }, { total: null }, 'page 1', null]) {
      expect(spec.validateResponseBody('listAlerts', 200, list(p)).valid, JSON.stringify(p)).toBe(false);
    }
  });

  test('delete conflicts carry details.blockers', () => {
    const body = {
      error: 'conflict',
      message: 'blocked',
      details: { blockers: [{ type: 'subscriptions', count: 1, items: [{ id: 'sub_1', status: 'active' }] }] },
    };
    expect(spec.validateResponseBody('deleteCustomer', 409, body).valid).toBe(true);
    expect(spec.validateResponseBody('deleteCustomer', 409, { ...body, error: 'bad_request' }).valid).toBe(false);
    expect(spec.validateResponseBody('deleteCustomer', 409, { error: 'conflict', message: 'blocked' }).valid).toBe(
      false,
    );
    const fee = {
      error: 'conflict',
      message: 'blocked',
      details: { blockers: [{ type: 'prices', count: 1, items: [{ id: 'price_1', invoiceDisplayName: 'Seats' }] }] },
    };
    expect(spec.validateResponseBody('deleteFee', 409, fee).valid).toBe(true);
    expect(
      spec.validateResponseBody('deleteFee', 409, {
        ...fee,
        details: { blockers: [{ type: 'prices', count: 'one', items: [] }] },
      }).valid,
    ).toBe(false);
  });

  test('version migration: response shape, 409 needs a code, body bounds', () => {
    const ok = {
      subscription: {
        id: 'sub_1',
        object: 'subscription',
        versionPolicy: 'pinned',
        status: 'active',
        terminatedAt: null,
        payment: null,
      },
      migration: { fromVersionNumber: 1, toVersionNumber: 2, effectiveAt: ts, changed: true },
      lineItems: { syncFailed: false },
    };
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 200, ok).valid).toBe(true);
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 200, { ...ok, lineItems: {} }).valid).toBe(false);
    expect(
      spec.validateResponseBody('migrateSubscriptionVersion', 200, {
        ...ok,
        subscription: { ...ok.subscription, versionPolicy: 'sticky' },
      }).valid,
    ).toBe(false);
    expect(
      spec.validateResponseBody('migrateSubscriptionVersion', 409, { message: 'no', code: 'SUBSCRIPTION_NOT_LIVE' })
        .valid,
    ).toBe(true);
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 409, { message: 'no' }).valid).toBe(false);
    expect(
      spec.validateResponseBody('migrateSubscriptionVersion', 409, { message: 'no', code: 'not-upper' }).valid,
    ).toBe(false);
    expect(ops_('migrateSubscriptionVersion').requestBody!.schema.properties.targetVersionNumber).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 2147483647,
    });
  });

  test('webhooks configuration requires every documented field', () => {
    const cfg = {
      object: 'webhooks',
      applicationId: 'app_1',
      createdAt: ts,
      enabled: true,
      merchantId: 'org_1',
      updatedAt: ts,
    };
    expect(spec.validateResponseBody('updateWebhooks', 200, cfg).valid).toBe(true);
    for (const field of Object.keys(cfg)) {
      const copy: Record<string, unknown> = { ...cfg };
      delete copy[field];
      expect(spec.validateResponseBody('updateWebhooks', 200, copy).valid, field).toBe(false);
    }
  });

  test('ValidationError: message and errors required; items need field and message', () => {
    expect(
      spec.validateSchema('ValidationError', {
        error: 'validation_error',
        message: 'bad',
        errors: [{ field: 'x', message: 'y', code: 'Z' }],
      }).valid,
    ).toBe(true);
    expect(spec.validateSchema('ValidationError', { message: 'bad' }).valid).toBe(false);
    expect(spec.validateSchema('ValidationError', { message: 'bad', errors: [{ field: 'x' }] }).valid).toBe(false);
    expect(spec.document.components.schemas.ValidationError.properties.error.default).toBe('validation_error');
  });

  test('Product and SourceRule required lists', () => {
    const product = {
      id: 'prod_1',
      object: 'product',
      name: 'n',
      description: 'd',
      merchantId: 'org_1',
      metadata: {},
      createdAt: ts,
      updatedAt: ts,
    };
    expect(spec.validateResponseBody('createProduct', 201, product).valid).toBe(true);
    expect(spec.validateResponseBody('createProduct', 201, { ...product, metadata: undefined }).valid).toBe(false);
    const rule = {
      object: 'source_rule',
      id: 'r1',
      conditions: [{ type: 't', operator: 'eq', value: 1 }],
      createdAt: ts,
      description: 'd',
      enabled: true,
      evaluationCount: 0,
      matchCount: 0,
      name: 'n',
      order: 1,
      sourceId: 's1',
      updatedAt: ts,
      createdBy: null,
      lastEvaluatedAt: null,
    };
    expect(spec.validateResponseBody('updateSourceRule', 200, rule).valid).toBe(true);
    expect(spec.validateResponseBody('updateSourceRule', 200, { ...rule, evaluationCount: 1.5 }).valid).toBe(false);
  });

  test('Subscription: status stays open on the documented schema; the reference uses active, cancelled, ended', () => {
    const sub = { id: 'sub_1', object: 'subscription', versionPolicy: 'pinned', status: 'active' };
    for (const status of ['active', 'paused', 'ended'])
      expect(spec.validateSchema('Subscription', { ...sub, status }).valid, status).toBe(true);
    expect(spec.validateSchema('Subscription', { ...sub, status: 3 }).valid).toBe(false);
    const status = spec.document.components.schemas.Subscription.properties.status;
    expect(status.enum).toBeUndefined();
    expect(status['x-reference-choice']).toMatch(/active, cancelled, ended/);
    const ref = {
      ...sub,
      merchantId: 'org_1',
      customerId: 'cus_1',
      planId: 'plan_1',
      planVersionId: 'plv_1',
      versionNumber: 1,
      billingAnchor: ts,
      currentPeriodStart: ts,
      currentPeriodEnd: ts,
      pendingMigration: null,
      createdAt: ts,
      updatedAt: ts,
    };
    expect(spec.validateResponseBody('getSubscription', 200, ref)).toEqual({ valid: true, errors: [] });
    for (const s of ['cancelled', 'ended'])
      expect(spec.validateSchema('ReferenceSubscription', { ...ref, status: s }).valid, s).toBe(true);
    expect(spec.validateSchema('ReferenceSubscription', { ...ref, status: 'paused' }).valid).toBe(false);
    for (const field of ['merchantId', 'billingAnchor']) {
      const copy: Record<string, unknown> = { ...ref };
      delete copy[field];
      expect(spec.validateSchema('ReferenceSubscription', copy).errors, field).toEqual([
        expect.objectContaining({ keyword: 'required' }),
      ]);
    }
    expect(spec.validateSchema('ReferenceSubscription', { ...ref, merchantId: 'm_1' }).valid).toBe(false);
    expect(spec.validateSchema('ReferenceSubscription', { ...ref, billingAnchor: 'today' }).valid).toBe(false);
  });

  test('Price: cadence and unitBasis are reference choices, never required nor constrained on the documented schema', () => {
    const price = { id: 'price_1', object: 'price', model: 'standard', properties: { unitPrice: '1.00' } };
    const documented = spec.document.components.schemas.Price;
    expect(documented.required).toEqual(['object']);
    for (const field of ['cadence', 'unitBasis']) {
      expect(documented.properties[field]['x-not-shown'], field).toBeTruthy();
      expect(documented.properties[field]['x-reference-choice'], field).toBeTruthy();
      // A target's field of that name is not judged: the document does not show the names.
      for (const value of ['P1M', 3, { every: 'month' }, null])
        expect(
          spec.validateSchema('Price', { ...price, [field]: value }).valid,
          `${field} ${JSON.stringify(value)}`,
        ).toBe(true);
    }
    expect(spec.validateResponseBody('getPrice', 200, { ...price, merchantId: 'org_1' }).valid).toBe(true);
  });

  test('ReferencePrice: what createPrice and listPrices answer', () => {
    const price = {
      id: 'price_1',
      object: 'price',
      merchantId: 'org_1',
      currency: 'USD',
      model: 'standard',
      paymentTerm: 'in_arrears',
      properties: { unitPrice: '0.02' },
      unitBasis: 'proportion',
      features: [],
      createdAt: ts,
      updatedAt: ts,
      billableMetricId: 'bm_1',
    };
    expect(spec.validateResponseBody('createPrice', 201, price)).toEqual({ valid: true, errors: [] });
    expect(
      spec.validateResponseBody('createPrice', 201, {
        ...price,
        cadence: 'P0D',
        feeId: 'fee_1',
        billableMetricId: undefined,
      }).valid,
    ).toBe(true);
    expect(spec.validateResponseBody('createPrice', 201, { ...price, unitBasis: 'percent' }).valid).toBe(false);
    expect(spec.validateResponseBody('createPrice', 201, { ...price, cadence: 'monthly' }).valid).toBe(false);
    const { unitBasis: _, ...noBasis } = price;
    expect(spec.validateResponseBody('createPrice', 201, noBasis).valid).toBe(false);
    const list = {
      object: 'list',
      data: [{ ...price, model: 'percentage', properties: { percentage: '2.5' }, unitBasis: 'amount' }],
      pagination: { limit: 10, offset: 0, total: 1 },
    };
    expect(spec.validateResponseBody('listPrices', 200, list).valid).toBe(true);
    expect(spec.validateResponseBody('listPrices', 200, { ...list, data: [noBasis] }).valid).toBe(false);
  });

  test('createPrice body: unitBasis and cadence; the legacy models are refused by the model enum', () => {
    const body = { billableMetricId: 'bm_1', model: 'standard', currency: 'USD', properties: { unitPrice: '1.00' } };
    expect(spec.validateRequestBody('createPrice', body).valid).toBe(true);
    expect(spec.validateRequestBody('createPrice', { ...body, unitBasis: 'proportion', cadence: 'P1M' }).valid).toBe(
      true,
    );
    expect(spec.validateRequestBody('createPrice', { ...body, unitBasis: 'share' }).valid).toBe(false);
    expect(spec.validateRequestBody('createPrice', { ...body, cadence: 'P1' }).valid).toBe(false);
    for (const model of ['dynamic', 'percentage']) {
      expect(spec.validateRequestBody('createPrice', { ...body, model }).errors, model).toEqual([
        expect.objectContaining({ path: '/model', keyword: 'enum' }),
      ]);
    }
    const props = ops_('createPrice').requestBody!.schema.properties;
    expect(props.unitBasis).toMatchObject({ type: 'string', enum: ['amount', 'proportion'], default: 'amount' });
    expect(spec.document.paths['/v0/prices'].post['x-reference-choice']).toMatch(/ValidationError/);
  });

  test('orders: an optional subscriptionId with the subscription id pattern', () => {
    const body = { customerId: 'cus_1', lineItems: [{ description: 'Seats', quantity: 2, unitPrice: '10.00' }] };
    expect(spec.validateRequestBody('createOrder', body).valid).toBe(true);
    expect(spec.validateRequestBody('createOrder', { ...body, subscriptionId: 'sub_1' }).valid).toBe(true);
    expect(spec.validateRequestBody('createOrder', { ...body, subscriptionId: 'subscription-1' }).valid).toBe(false);
    const order = {
      object: 'order',
      id: 'ord_1',
      merchantId: 'org_1',
      customerId: 'cus_1',
      status: 'open',
      createdAt: ts,
      updatedAt: ts,
      lineItems: [
        {
          object: 'order_line_item',
          id: 'oli_1',
          description: 'Seats',
          quantity: 2,
          unitPrice: '10.00',
          itemId: null,
          priceId: null,
        },
      ],
    };
    expect(spec.validateResponseBody('createOrder', 201, order)).toEqual({ valid: true, errors: [] });
    expect(spec.validateResponseBody('createOrder', 201, { ...order, subscriptionId: 'sub_1' }).valid).toBe(true);
    expect(spec.validateResponseBody('createOrder', 201, { ...order, subscriptionId: 'ord_1' }).valid).toBe(false);
    expect(spec.document.components.schemas.Order.required).not.toContain('subscriptionId');
  });

  test('invoice line items: optional feeId, billableMetricId and itemId, each an id or null', () => {
    const line = {
      object: 'invoice_line_item',
      id: 'ili_1',
      description: 'Seats',
      amount: '10.00',
      quantity: 1,
      subtotal: '10.00',
      taxRate: 0,
      taxAmount: '0.00',
      total: '10.00',
    };
    expect(spec.validateSchema('InvoiceLineItem', line).valid).toBe(true);
    expect(
      spec.validateSchema('InvoiceLineItem', { ...line, feeId: 'fee_1', billableMetricId: null, itemId: 'itm_1' })
        .valid,
    ).toBe(true);
    expect(
      spec.validateSchema('InvoiceLineItem', { ...line, feeId: null, billableMetricId: 'bm_1', itemId: null }).valid,
    ).toBe(true);
    for (const [field, bad] of [
      ['feeId', 'price_1'],
      ['billableMetricId', 'fee_1'],
      ['itemId', 'item_1'],
    ]) {
      expect(spec.validateSchema('InvoiceLineItem', { ...line, [field]: bad }).valid, field).toBe(false);
    }
  });

  test('updateAutoTopupConfig: amount and threshold stay strings; the decimal rule is a reference choice', () => {
    const body = ops_('updateAutoTopupConfig').requestBody!;
    expect(body.schema.properties.amount).toEqual({ type: 'string' });
    expect(body.schema.properties.threshold).toEqual({ type: 'string' });
    expect(spec.validateRequestBody('updateAutoTopupConfig', { amount: 'ten', threshold: '-1' }).valid).toBe(true);
    const raw = spec.document.paths['/v0/wallets/{id}/autoTopupConfig'].patch.requestBody;
    expect(raw['x-not-shown']).toBeTruthy();
    expect(raw['x-reference-choice']).toMatch(/INVALID_AMOUNT/);
  });

  test('updateSubscription: floating follows the plan default version at once', () => {
    expect(spec.document.paths['/v0/subscriptions/{id}'].patch['x-reference-choice']).toMatch(
      /default version at\s+once/,
    );
  });

  test('reference error codes are written next to the operations that answer them', () => {
    /** Every description and x-reference-choice under an operation, as one text. */
    const textOf = (id: string): string => {
      const op = spec.operations.get(id)!;
      const raw = spec.document.paths[op.pathTemplate][op.method.toLowerCase()];
      const out: string[] = [];
      const walk = (n: unknown) => {
        if (Array.isArray(n)) n.forEach(walk);
        else if (n && typeof n === 'object')
          for (const [k, v] of Object.entries(n))
            (k === 'description' || k === 'x-reference-choice') && typeof v === 'string' ? out.push(v) : walk(v);
      };
      walk(raw);
      return out.join(' ');
    };
    const codes: Record<string, string[]> = {
      createPlan: ['PLAN_CADENCE_ONE_TIME'],
      createPlanVersion: ['PRICE_CURRENCY_MISMATCH', 'PRICE_MODEL_LEGACY', 'DUPLICATE_FEATURE_KEY'],
      createSubscription: [
        'INVALID_ENDING_AT',
        'OVERRIDE_PRICE_NOT_IN_VERSION',
        'OVERRIDE_REQUIRES_STANDARD_PRICE',
        'PLAN_HAS_NO_DEFAULT_VERSION',
      ],
      createPrice: ['BILLABLE_METRIC_ARCHIVED'],
      advanceTestClock: ['TEST_CLOCK_BACKWARDS', 'TEST_CLOCK_ADVANCE_TOO_FAR'],
      createAlert: ['WALLET_NOT_FOUND'],
      createExternalReference: ['EXTERNAL_ID_ALREADY_PRIMARY', 'ITEM_ARCHIVED'],
      migrateSubscriptionVersion: ['PLAN_VERSION_NOT_FOUND', 'PLAN_VERSION_ARCHIVED'],
      createInvoiceRefund: ['INVOICE_NOT_REFUNDABLE'],
      createBillingSchedule: ['SCHEDULE_SUBSCRIPTION_OWNER_UNSUPPORTED', 'SCHEDULE_OWNER_REQUIRED'],
      deleteCustomer: ['CUSTOMER_HAS_DEPENDANTS'],
      deleteFee: ['FEE_HAS_DEPENDANTS'],
      updateItem: ['ITEM_HAS_LIVE_ANCHORS'],
      updateWebhooks: ['WEBHOOKS_NOT_ENABLED'],
    };
    const missing = Object.entries(codes).flatMap(([id, list]) =>
      list.filter((c) => !textOf(id).includes(c)).map((c) => `${id}: ${c}`),
    );
    expect(missing).toEqual([]);
    // 409s the extension operations answer are declared with Error bodies.
    for (const id of ['createSubscription', 'createPrice'])
      expect(spec.validateResponseBody(id, 409, { message: 'm', code: 'X_Y' }).valid, id).toBe(true);
    // Reference choices of documented operations: the success codes and the customer's stored shapes.
    expect(ops_('createInvoiceRefund').responses['2XX'].referenceChoice).toBe('201');
    expect(ops_('deleteBillingSchedule').responses['2XX'].referenceChoice).toMatch(/^204/);
    expect(
      spec.document.paths['/v0/customers/{id}'].patch.requestBody.content['application/json'].schema.properties
        .taxRates['x-reference-choice'],
    ).toMatch(/\{default: n\}/);
    expect(spec.document.components.schemas.Customer.properties.validTaxAddress['x-reference-choice']).toMatch(
      /valid: false/,
    );
    expect(spec.document.paths['/v0/prices/{id}'].get['x-reference-choice']).toMatch(/seeded per merchant/);
  });

  test('validateSchema knows every component and rejects unknown names', () => {
    for (const name of spec.schemaNames)
      expect(spec.validateSchema(name, null).errors.every((e) => !e.message.startsWith('unknown schema'))).toBe(true);
    expect(spec.validateSchema('NoSuchThing', {}).valid).toBe(false);
  });
});
