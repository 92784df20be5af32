import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { loadSpec, type Operation } from '../../src/spec/index.ts';

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

const RATE_LIMITS: Record<string, { limit: number; windowSeconds: number; bucket: string }> = {
  listCustomers: { limit: 60, windowSeconds: 6, bucket: 'merchant' },
  createReconciliation: { limit: 2, windowSeconds: 1, bucket: 'subscription' },
  createPortalSession: { limit: 1, windowSeconds: 1, bucket: 'subscription' },
  createInvoiceLineItems: { limit: 60, windowSeconds: 60, bucket: 'merchant' },
  getCostsReport: { limit: 600, windowSeconds: 60, bucket: 'merchant' },
  listCrmAccounts: { limit: 30, windowSeconds: 60, bucket: 'merchant' },
};
const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

describe('spec/openapi.yaml: structure', () => {
  test('every schema compiles under ajv 2020-12 strict mode', () => {
    expect(() => spec.compileAll()).not.toThrow();
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
    expect(extensions).toHaveLength(38);
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
        expect(spec.validateResponseBody(op.operationId, Number(code), { message: 'm', error: code === '429' ? 'rate_limit_exceeded' : 'x' }).valid).toBe(true);
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
      expect(spec.validateResponseBody(op.operationId, 400, { message: 'm', errors: [{ field: 'limit', message: 'too big' }] }).valid).toBe(true);
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
        for (const h of RATE_HEADERS.filter((n) => r.headers[n])) expect(r.headers[h].schema.type).toBe('integer');
      }
      expect(op.responses['429'].headers['retry-after'].required).toBe(true);
      expect(spec.validateResponseBody(op.operationId, 429, { error: 'rate_limit_exceeded', message: 'slow down' }).valid).toBe(true);
      expect(spec.validateResponseBody(op.operationId, 429, { error: 'too_many', message: 'slow down' }).valid).toBe(false);
    }
    // Elsewhere retry-after may be absent (the retry rule then waits one second, doubling).
    expect(spec.operations.get('getCustomer')!.responses['429'].headers['retry-after'].required).toBe(false);
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
    for (const id of ['createBillingSchedule', 'listScheduleIntervals', 'deleteBillingSchedule', 'updateItem', 'updateCustomer', 'updateSourceRule', 'createInvoiceRefund', 'getPrice', 'deleteFee', 'getPayment']) {
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
    expect(Object.keys(customer.notificationSettings.properties)).toEqual(['invoiceIssued', 'invoicePaid', 'renewalReminder']);
    expect(spec.operations.get('createProduct')!.requestBody!.schema.required).toEqual(['name', 'description', 'merchantId']);
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
    for (const name of ['Plan', 'PlanVersion', 'Fee', 'BillableMetric', 'Invoice', 'Order', 'Wallet', 'TestClock', 'ApiKey', 'Source', 'Event', 'WebhookEndpoint', 'ReferenceSubscription', 'Reconciliation', 'PortalSession', 'CostsReport', 'CrmAccount']) {
      expect(schemas[name]?.['x-extension'], name).toBe('reference');
    }
    for (const name of ['Customer', 'Item', 'Price', 'Payment', 'InvoiceRefund', 'SourceRule', 'Merchant', 'Product', 'Alert', 'AutoTopupConfig', 'WebhooksConfiguration', 'BillingSchedule', 'ScheduleInterval', 'ExternalReference', 'Subscription']) {
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
    id: 'cus_abc123', object: 'customer', consumerId: 'org_c1', merchantId: 'org_m1', createdAt: ts, updatedAt: ts,
    validTaxAddress: { valid: false, message: null },
  };

  test('Customer: accepts a good one, extra properties too', () => {
    expect(spec.validateSchema('Customer', customer)).toEqual({ valid: true, errors: [] });
    expect(spec.validateSchema('Customer', { ...customer, somethingNew: 1, taxRates: { default: 20, plan_x: 0 } }).valid).toBe(true);
  });

  test('Customer: rejects a bad id, a missing required field, a bad date, a bad tax rate', () => {
    expect(spec.validateSchema('Customer', { ...customer, id: 'cust_1' }).errors[0]).toMatchObject({ path: '/id', keyword: 'pattern' });
    const { validTaxAddress: _, ...noAddress } = customer;
    expect(spec.validateSchema('Customer', noAddress).errors[0]).toMatchObject({ path: '/validTaxAddress', keyword: 'required' });
    expect(spec.validateSchema('Customer', { ...customer, createdAt: 'yesterday' }).errors[0]).toMatchObject({ path: '/createdAt', keyword: 'format' });
    expect(spec.validateSchema('Customer', { ...customer, merchantId: 'merchant_1' }).valid).toBe(false);
    expect(spec.validateSchema('Customer', { ...customer, externalId: 'x'.repeat(256) }).valid).toBe(false);
    expect(spec.validateSchema('Customer', { ...customer, taxRates: { default: 101 } }).valid).toBe(false);
    expect(spec.validateSchema('Customer', { ...customer, object: 'client' }).errors[0]).toMatchObject({ path: '/object', keyword: 'const' });
  });

  test('Price: model and paymentTerm enums, volume tiers, merchantId on single reads', () => {
    const price = {
      id: 'price_1', object: 'price', model: 'volume', paymentTerm: 'in_advance', quantity: 1,
      properties: { tiers: [{ unitPrice: '1.00', upTo: '10' }, { unitPrice: '0.50', upTo: null }] },
    };
    expect(spec.validateSchema('Price', price).valid).toBe(true);
    for (const model of ['standard', 'dynamic', 'volume', 'percentage']) expect(spec.validateSchema('Price', { ...price, model }).valid).toBe(true);
    expect(spec.validateSchema('Price', { ...price, model: 'tiered' }).errors[0]).toMatchObject({ path: '/model', keyword: 'enum' });
    expect(spec.validateSchema('Price', { ...price, paymentTerm: 'upfront' }).valid).toBe(false);
    expect(spec.validateSchema('Price', { ...price, quantity: -1 }).valid).toBe(false);
    expect(spec.validateSchema('Price', { ...price, feeId: 'f_1' }).valid).toBe(false);
    expect(spec.validateResponseBody('getPrice', 200, price).errors).toEqual([expect.objectContaining({ path: '/merchantId', keyword: 'required' })]);
    expect(spec.validateResponseBody('getPrice', 200, { ...price, merchantId: 'org_1' }).valid).toBe(true);
  });

  test('Payment and InvoiceRefund: prefixes, statuses, decimal strings', () => {
    const payment = { id: 'pay_1', object: 'payment', amount: '10.50', currency: 'USD', status: 'pending', createdAt: ts };
    expect(spec.validateResponseBody('getPayment', 200, payment).valid).toBe(true);
    expect(spec.validateSchema('Payment', { ...payment, id: 'pm_1' }).valid).toBe(false);
    expect(spec.validateSchema('Payment', { ...payment, status: 'paid' }).valid).toBe(false);
    expect(spec.validateSchema('Payment', { ...payment, amount: 10.5 }).valid).toBe(false);
    const { status: _, ...noStatus } = payment;
    expect(spec.validateSchema('Payment', noStatus).valid).toBe(false);
    const refund = { object: 'invoice_refund', id: 'crn_1', amount: '10.00', taxAmount: '2.00', total: '12.00', status: 'ISSUED', reason: null, pdfUrl: null, voidedAt: null };
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
    const alerts = { object: 'list', data: [{ object: 'alert', id: 'a1', type: 'wallet_low_balance', recipients: ['a@example.com'] }], pagination: { limit: 10, offset: 0, total: 1 } };
    expect(spec.validateResponseBody('listAlerts', 200, alerts).valid).toBe(true);
    expect(spec.validateResponseBody('listAlerts', 200, { ...alerts, object: 'alerts' }).valid).toBe(false);
    expect(spec.validateResponseBody('listAlerts', 200, { object: 'list', data: [] }).valid).toBe(false);
    expect(spec.validateResponseBody('listAlerts', 200, { ...alerts, data: [{ object: 'alert', type: 'other' }] }).valid).toBe(false);
    expect(spec.validateResponseBody('listAlerts', 200, { ...alerts, data: [{ object: 'alert', recipients: ['not-an-email'] }] }).valid).toBe(false);
    const intervals = { object: 'list', data: [{ object: 'schedule_interval', quantityTransitions: [{ effectiveDate: ts, quantity: '2' }] }], pagination: { limit: 10, offset: 0, total: 1 } };
    expect(spec.validateResponseBody('listScheduleIntervals', 200, intervals).valid).toBe(true);
  });

  test('delete conflicts carry details.blockers', () => {
    const body = { error: 'conflict', message: 'blocked', details: { blockers: [{ type: 'subscriptions', count: 1, items: [{ id: 'sub_1', status: 'active' }] }] } };
    expect(spec.validateResponseBody('deleteCustomer', 409, body).valid).toBe(true);
    expect(spec.validateResponseBody('deleteCustomer', 409, { ...body, error: 'bad_request' }).valid).toBe(false);
    expect(spec.validateResponseBody('deleteCustomer', 409, { error: 'conflict', message: 'blocked' }).valid).toBe(false);
    const fee = { error: 'conflict', message: 'blocked', details: { blockers: [{ type: 'prices', count: 1, items: [{ id: 'price_1', invoiceDisplayName: 'Seats' }] }] } };
    expect(spec.validateResponseBody('deleteFee', 409, fee).valid).toBe(true);
    expect(spec.validateResponseBody('deleteFee', 409, { ...fee, details: { blockers: [{ type: 'prices', count: 'one', items: [] }] } }).valid).toBe(false);
  });

  test('version migration: response shape, 409 needs a code, body bounds', () => {
    const ok = {
      subscription: { id: 'sub_1', object: 'subscription', versionPolicy: 'pinned', status: 'active', terminatedAt: null, payment: null },
      migration: { fromVersionNumber: 1, toVersionNumber: 2, effectiveAt: ts, changed: true },
      lineItems: { syncFailed: false },
    };
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 200, ok).valid).toBe(true);
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 200, { ...ok, lineItems: {} }).valid).toBe(false);
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 200, { ...ok, subscription: { ...ok.subscription, versionPolicy: 'sticky' } }).valid).toBe(false);
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 409, { message: 'no', code: 'SUBSCRIPTION_NOT_LIVE' }).valid).toBe(true);
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 409, { message: 'no' }).valid).toBe(false);
    expect(spec.validateResponseBody('migrateSubscriptionVersion', 409, { message: 'no', code: 'not-upper' }).valid).toBe(false);
    expect(ops_('migrateSubscriptionVersion').requestBody!.schema.properties.targetVersionNumber).toEqual({ type: 'integer', minimum: 1, maximum: 2147483647 });
  });

  test('webhooks configuration requires every documented field', () => {
    const cfg = { object: 'webhooks', applicationId: 'app_1', createdAt: ts, enabled: true, merchantId: 'org_1', updatedAt: ts };
    expect(spec.validateResponseBody('updateWebhooks', 200, cfg).valid).toBe(true);
    for (const field of Object.keys(cfg)) {
      const copy: Record<string, unknown> = { ...cfg };
      delete copy[field];
      expect(spec.validateResponseBody('updateWebhooks', 200, copy).valid, field).toBe(false);
    }
  });

  test('ValidationError: message and errors required; items need field and message', () => {
    expect(spec.validateSchema('ValidationError', { error: 'validation_error', message: 'bad', errors: [{ field: 'x', message: 'y', code: 'Z' }] }).valid).toBe(true);
    expect(spec.validateSchema('ValidationError', { message: 'bad' }).valid).toBe(false);
    expect(spec.validateSchema('ValidationError', { message: 'bad', errors: [{ field: 'x' }] }).valid).toBe(false);
    expect(spec.document.components.schemas.ValidationError.properties.error.default).toBe('validation_error');
  });

  test('Product and SourceRule required lists', () => {
    const product = { id: 'prod_1', object: 'product', name: 'n', description: 'd', merchantId: 'org_1', metadata: {}, createdAt: ts, updatedAt: ts };
    expect(spec.validateResponseBody('createProduct', 201, product).valid).toBe(true);
    expect(spec.validateResponseBody('createProduct', 201, { ...product, metadata: undefined }).valid).toBe(false);
    const rule = {
      object: 'source_rule', id: 'r1', conditions: [{ type: 't', operator: 'eq', value: 1 }], createdAt: ts, description: 'd', enabled: true,
      evaluationCount: 0, matchCount: 0, name: 'n', order: 1, sourceId: 's1', updatedAt: ts, createdBy: null, lastEvaluatedAt: null,
    };
    expect(spec.validateResponseBody('updateSourceRule', 200, rule).valid).toBe(true);
    expect(spec.validateResponseBody('updateSourceRule', 200, { ...rule, evaluationCount: 1.5 }).valid).toBe(false);
  });

  test('validateSchema knows every component and rejects unknown names', () => {
    for (const name of spec.schemaNames) expect(spec.validateSchema(name, null).errors.every((e) => !e.message.startsWith('unknown schema'))).toBe(true);
    expect(spec.validateSchema('NoSuchThing', {}).valid).toBe(false);
  });
});
