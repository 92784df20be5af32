import { describe, expect, test } from 'vitest';
import { buildSpec, loadSpec, parseDocument, SpecError } from '../../src/contract/index.ts';

describe('spec loader', () => {
  test('loads once (memoised) and exposes version and operations', async () => {
    const a = await loadSpec();
    const b = await loadSpec();
    expect(a).toBe(b);
    expect(a.version).toBe('0.1.0');
    expect(a.document.openapi).toMatch(/^3\.1\./);
    expect(a.operations).toBeInstanceOf(Map);
    expect(a.operations.size).toBeGreaterThanOrEqual(65);
  });

  test('operations are a Map by operationId', async () => {
    const spec = await loadSpec();
    expect(spec.operations.get('getCustomer')?.pathTemplate).toBe('/v0/customers/{id}');
    expect([...spec.operations.keys()]).toContain('listCustomers');
  });

  test('findOperation prefers literal segments over templates', async () => {
    const spec = await loadSpec();
    expect(spec.findOperation('POST', '/v2/invoices/lineItems')?.operationId).toBe('createInvoiceLineItems');
    expect(spec.findOperation('GET', '/v2/invoices/inv_123')?.operationId).toBe('getInvoice');
    expect(spec.findOperation('GET', '/v0/webhooks/endpoints')?.operationId).toBe('listWebhookEndpoints');
    expect(spec.findOperation('get', '/v0/customers/cus_1?expand=x')?.operationId).toBe('getCustomer');
    expect(spec.findOperation('GET', '/v0/customers')?.operationId).toBe('listCustomers');
    expect(spec.findOperation('GET', '/v0/integrations/hubspot/accounts')?.operationId).toBe('listCrmAccounts');
    expect(spec.findOperation('PUT', '/v0/customers/cus_1')).toBeUndefined();
    expect(spec.findOperation('GET', '/v0/nowhere')).toBeUndefined();
    expect(spec.matchPath('POST', '/v0/plans/plan_1/versions/3/archive')?.params).toEqual({
      id: 'plan_1',
      versionNumber: '3',
    });
  });

  test('literal-first matching does not depend on declaration order', () => {
    const doc = parseDocument(`
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /a/{id}:
    get: { operationId: byId, responses: { '200': { description: ok } } }
  /a/special:
    get: { operationId: special, responses: { '200': { description: ok } } }
`);
    const spec = buildSpec(doc);
    expect(spec.findOperation('GET', '/a/special')?.operationId).toBe('special');
    expect(spec.findOperation('GET', '/a/other')?.operationId).toBe('byId');
  });

  test('responseFor picks the exact code, then the range key, then default', async () => {
    const spec = await loadSpec();
    expect(spec.responseFor('updateWebhooks', 200)?.key).toBe('200');
    expect(spec.responseFor('getCustomer', 200)?.key).toBe('2XX');
    expect(spec.responseFor('getCustomer', 204)?.key).toBe('2XX');
    expect(spec.responseFor('updateItem', 409)?.key).toBe('default');
    expect(spec.responseFor('updateItem', 404)?.key).toBe('404');
    expect(spec.responseFor('updateWebhooks', 500)).toBeUndefined();
    expect(spec.responseFor('nope', 200)).toBeUndefined();
  });

  test('operation details: extension flag, rate limit, parameters, body, headers, notes', async () => {
    const spec = await loadSpec();
    const list = spec.operations.get('listCustomers')!;
    expect(list.method).toBe('GET');
    expect(list.extension).toBe(false);
    expect(list.rateLimit).toEqual({ limit: 60, windowSeconds: 6, bucket: 'merchant' });
    expect(list.security).toEqual(['bearerAuth']);
    expect(list.notShown.length).toBeGreaterThan(0);
    expect(list.responses['429'].requiredHeaders).toEqual(
      expect.arrayContaining(['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']),
    );
    expect(list.responses['401'].headerNames).toEqual([]);

    const create = spec.operations.get('createCustomer')!;
    expect(create.extension).toBe(true);
    expect(create.tags).toEqual(['Reference extensions']);

    const alerts = spec.operations.get('listAlerts')!;
    expect(alerts.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['resourceId', 'query', true],
      ['limit', 'query', false],
      ['offset', 'query', false],
    ]);
    const migrate = spec.operations.get('migrateSubscriptionVersion')!;
    expect(migrate.requestBody?.required).toBe(true);
    expect(migrate.requestBody?.schema.properties.targetVersionNumber).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 2147483647,
    });
  });

  test('validateParameters coerces query strings and fills defaults', async () => {
    const spec = await loadSpec();
    const ok = spec.validateParameters('listAlerts', 'query', { resourceId: 'wal_1', limit: '25' });
    expect(ok).toEqual({ valid: true, errors: [], values: { resourceId: 'wal_1', limit: 25, offset: 0 } });
    const bad = spec.validateParameters('listAlerts', 'query', { limit: '0', offset: '-1' });
    expect(bad.valid).toBe(false);
    expect(bad.errors.map((e) => e.path).sort()).toEqual(['/limit', '/offset', '/resourceId']);
    const notInt = spec.validateParameters('listAlerts', 'query', { resourceId: 'w', limit: 'ten' });
    expect(notInt.valid).toBe(false);
    expect(spec.validateParameters('getCustomer', 'path', { id: 'cus_abc' }).valid).toBe(true);
    expect(spec.validateParameters('getCustomer', 'path', { id: 'cust_abc' }).valid).toBe(false);
    expect(spec.validateParameters('updateAlert', 'query', { resource: 'customer' }).valid).toBe(false);
    expect(spec.validateParameters('updateAlert', 'query', { resource: 'wallet' }).valid).toBe(true);
  });

  test('validateRequestBody applies documented bounds and required flags', async () => {
    const spec = await loadSpec();
    expect(
      spec.validateRequestBody('updateCustomer', { externalId: 'x'.repeat(255), taxRates: 100, taxId: null }).valid,
    ).toBe(true);
    expect(spec.validateRequestBody('updateCustomer', { externalId: 'x'.repeat(256) }).valid).toBe(false);
    expect(spec.validateRequestBody('updateCustomer', { taxRates: 100.01 }).valid).toBe(false);
    expect(spec.validateRequestBody('updateCustomer', { taxRates: -1 }).valid).toBe(false);
    expect(spec.validateRequestBody('updateCustomer', { somethingElse: true }).valid).toBe(true);
    expect(spec.validateRequestBody('migrateSubscriptionVersion', { targetVersionNumber: 0 }).valid).toBe(false);
    expect(spec.validateRequestBody('migrateSubscriptionVersion', { targetVersionNumber: 2147483648 }).valid).toBe(
      false,
    );
    expect(spec.validateRequestBody('migrateSubscriptionVersion', { targetVersionNumber: 2147483647 }).valid).toBe(
      true,
    );
    expect(spec.validateRequestBody('createProduct', { name: 'n', description: 'd' }).errors).toEqual([
      { path: '/merchantId', message: "must have required property 'merchantId'", keyword: 'required' },
    ]);
    expect(spec.validateRequestBody('updateWebhooks', undefined).valid).toBe(false);
    expect(spec.validateRequestBody('createInvoiceRefund', undefined).valid).toBe(true);
    expect(spec.validateRequestBody('getCustomer', {}).valid).toBe(false);
  });

  test('requestSchemas gives plain JSON Schemas with references inlined', async () => {
    const spec = await loadSpec();
    const s = spec.requestSchemas('createSubscription')!;
    expect(JSON.stringify(s)).not.toContain('$ref');
    expect(s.body?.properties.customerId.pattern).toBe('^cus_[a-zA-Z0-9]+$');
    expect(s.bodyRequired).toBe(true);
    const item = spec.requestSchemas('updateItem')!;
    expect(item.path).toEqual({
      type: 'object',
      properties: { id: { type: 'string', pattern: '^itm_[a-zA-Z0-9]+$' } },
      required: ['id'],
    });
    // Parameter-level notes travel into the schema, where the generators look for them.
    expect(spec.requestSchemas('listCustomers')!.query!.properties.limit['x-reference-choice']).toBeTruthy();
    expect(spec.requestSchemas('createMerchant')!.body!['x-reference-choice']).toBeTruthy();
    const stripped = spec.requestSchemas('listCustomers', { stripExtensions: true })!;
    expect(JSON.stringify(stripped)).not.toContain('x-');
    // Fresh copies: mutating one does not leak into the next.
    s.body!.properties.customerId.pattern = 'mutated';
    expect(spec.requestSchemas('createSubscription')!.body!.properties.customerId.pattern).toBe('^cus_[a-zA-Z0-9]+$');
    expect(spec.requestSchemas('nope')).toBeUndefined();
  });

  test('broken documents are refused with a clear error', () => {
    expect(() => parseDocument('openapi: 3.0.0\ninfo: {}\npaths: {}')).toThrow(SpecError);
    expect(() => parseDocument(': : :')).toThrow(SpecError);
    const badRef = parseDocument(`
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /a:
    get:
      operationId: a
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Missing' } } } } }
`);
    expect(() => buildSpec(badRef)).toThrow(/Missing/);
    const badSchema = parseDocument(`
openapi: 3.1.0
info: { title: t, version: '1' }
paths: {}
components:
  schemas:
    Bad: { type: object, required: [x], properties: { y: { type: strang } } }
`);
    // An eager build checks the schemas against the meta-schema; a lazy one fails where the schema is used.
    expect(() => buildSpec(badSchema, 'x', { eager: true })).toThrow(/components\/schemas\/Bad/);
    expect(() => buildSpec(badSchema).validateSchema('Bad', {})).toThrow(/Bad/);
  });

  test('strict mode: an unknown keyword fails at compileAll (or at an eager build), naming the schema', () => {
    const doc = parseDocument(`
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /a:
    get:
      operationId: a
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Odd' } } } } }
components:
  schemas:
    Odd: { type: object, colour: blue }
    Fine: { type: object, x-anything: 1, example: {} }
`);
    const lazy = buildSpec(doc);
    expect(lazy.validateSchema('Fine', {}).valid).toBe(true);
    expect(() => lazy.compileAll()).toThrow(/Odd.*colour|colour.*Odd/s);
    expect(() => lazy.validateResponseBody('a', 200, {})).toThrow(SpecError);
    expect(() => buildSpec(doc, 'x', { eager: true })).toThrow(SpecError);
  });
});
