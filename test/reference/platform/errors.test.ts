import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';

let s: TestServer;
beforeAll(async () => {
  // Raised limits: the fuzz run must not be cut short by 429s.
  s = await startTestServer({
    rateLimits: {
      listCustomers: 100000,
      createInvoiceLineItems: 100000,
      getCostsReport: 100000,
      listCrmAccounts: 100000,
      createReconciliation: 100000,
      createPortalSession: 100000,
    },
  });
});
afterAll(async () => {
  await s?.close();
});

const isError = (body: any) =>
  typeof body === 'object' && body !== null && typeof body.message === 'string' && typeof body.error === 'string';

describe('validation', () => {
  it('names each bad body field in one ValidationError', async () => {
    const r = await s.call('POST', '/v0/apiKeys', { body: { name: 5, scope: 'admin', merchantId: 'acme' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(typeof r.body.message).toBe('string');
    const fields = r.body.errors.map((e: any) => e.field).sort();
    expect(fields).toEqual(['body.merchantId', 'body.name', 'body.scope']);
    for (const e of r.body.errors) {
      expect(typeof e.message).toBe('string');
      expect(typeof e.code).toBe('string');
    }
  });

  it('names missing required fields and nested ones', async () => {
    const r = await s.call('POST', '/v2/invoices/lineItems', {
      body: { lineItems: [{ description: '', amount: 'ten' }] },
    });
    expect(r.status).toBe(400);
    const fields = r.body.errors.map((e: any) => e.field);
    expect(fields).toContain('body.invoiceId');
    expect(fields).toContain('body.lineItems[0].description');
    expect(fields.some((f: string) => f.startsWith('body.lineItems[0].amount'))).toBe(true);
    expect(r.body.errors.find((e: any) => e.field === 'body.invoiceId').code).toBe('required');
  });

  it('validates and coerces query parameters', async () => {
    const bad = await s.call('GET', '/v0/customers?limit=0&offset=-1');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.field).sort()).toEqual(['query.limit', 'query.offset']);
    const big = await s.call('GET', '/v0/customers?limit=101');
    expect(big.status).toBe(400);
    const ok = await s.call('GET', '/v0/customers?limit=5&offset=2');
    expect(ok.status).toBe(200);
    expect(ok.body.pagination).toEqual({ limit: 5, offset: 2, total: 0 });
    const far = await s.call('GET', '/v0/customers?offset=1e21');
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
    const dflt = await s.call('GET', '/v0/customers');
    expect(dflt.body.pagination).toEqual({ limit: 10, offset: 0, total: 0 });
  });

  it('validates path parameters', async () => {
    const r = await s.call('DELETE', '/v0/apiKeys/not-a-key');
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => e.field)).toEqual(['path.id']);
  });

  it('refuses a required body that is absent', async () => {
    const r = await s.call('POST', '/v2/invoices/lineItems');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('body');
  });

  it('refuses a JSON null where an object is expected', async () => {
    const r = await s.call('POST', '/v0/apiKeys', { payload: 'null', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
  });
});

describe('odd characters', () => {
  it('refuses NUL characters anywhere with a ValidationError naming the field', async () => {
    const body = await s.call('POST', '/v0/merchants', { body: { name: 'a\u0000b', address: { city: 'x\u0000' } } });
    expect(body.status).toBe(400);
    expect(body.body.errors.map((e: any) => e.field).sort()).toEqual(['body.address.city', 'body.name']);
    const path = await s.call('GET', '/v0/merchants/org_%00');
    expect(path.status).toBe(400);
    expect(path.body.errors[0].field).toBe('path.id');
    const sub = await s.call('POST', '/v0/subscriptions/%00/portal');
    expect(sub.status).toBe(400);
  });

  it('stores or refuses lone surrogates, never fails', async () => {
    const r = await s.call('POST', '/v0/merchants', {
      payload: '{"name":"a\\ud800b"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBeLessThan(500);
  });
});

describe('transport errors', () => {
  it('answers malformed JSON with 400 in the Error shape', async () => {
    const r = await s.call('POST', '/v0/merchants', {
      payload: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'bad_request', message: expect.any(String), code: 'MALFORMED_JSON' });
  });

  it('refuses prototype pollution', async () => {
    const r = await s.call('POST', '/v0/merchants', {
      payload: '{"__proto__": {"admin": true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(isError(r.body)).toBe(true);
  });

  it('answers an oversize body with 413', async () => {
    const r = await s.call('POST', '/v0/merchants', {
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: 'payload_too_large', message: expect.any(String) });
  });

  it('answers an unsupported content type with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const r = await s.call('POST', '/v0/merchants', { payload: 'name=x', headers: { 'content-type': type } });
      expect(r.status).toBe(415);
      expect(r.body).toEqual({ error: 'unsupported_media_type', message: expect.any(String) });
    }
  });

  it('accepts application/json with a charset and an empty body as no body', async () => {
    const r = await s.call('POST', '/v0/merchants', {
      payload: '{"name":"ok"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(r.status).toBe(201);
    const empty = await s.call('POST', '/v0/merchants', {
      payload: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(201);
    expect(empty.body.name).toBe('Unnamed merchant');
  });

  it('answers unknown routes and wrong methods with 404 in the Error shape', async () => {
    for (const [method, url] of [
      ['GET', '/nope'],
      ['GET', '/v0/invoices'],
      ['PUT', '/v0/merchants'],
      ['PATCH', '/v0/apiKeys'],
      ['GET', '/v0/customers/x/y/z'],
    ]) {
      const r = await s.call(method, url);
      expect(r.status, `${method} ${url}`).toBe(404);
      expect(r.body).toEqual({ error: 'not_found', message: expect.any(String) });
    }
  });

  it('answers 404 for unknown routes even without a key', async () => {
    const r = await s.call('GET', '/nope', { key: null });
    expect(r.status).toBe(404);
  });
});

describe('no input produces a 5xx', () => {
  const methods = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'];
  const segment = fc.oneof(
    fc.constantFrom(
      'sub_abc',
      'cus_x',
      'key_',
      '%00',
      '%ZZ',
      '..',
      '%2F',
      'a'.repeat(2000),
      '__proto__',
      'constructor',
      '',
    ),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
    fc.string({ unit: 'grapheme', maxLength: 10 }).map(encodeURIComponent),
  );
  const text = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.constantFrom('\u0000', 'a\ud800b', '\uffff'),
  );
  // [usual method, path]; another method one time in five.
  const route = fc.oneof(
    segment.map((x) => ['POST', `/v0/subscriptions/${x}/portal`]),
    segment.map((x) => ['POST', `/v0/subscriptions/${x}/reconciliations`]),
    segment.map((x) => ['DELETE', `/v0/apiKeys/${x}`]),
    segment.map((x) => ['GET', `/v0/merchants/${x}`]),
    segment.map((x) => ['GET', `/v0/integrations/${x}/accounts`]),
    fc.constantFrom(
      ['GET', '/v0/customers'],
      ['GET', '/v0/costs/report'],
      ['POST', '/v2/invoices/lineItems'],
      ['POST', '/v0/merchants'],
      ['POST', '/v0/apiKeys'],
    ),
  );
  const query = fc.oneof(
    fc.constant(''),
    fc
      .dictionary(
        fc.constantFrom('limit', 'offset', 'from', 'to', 'productId', 'x', 'limit[]', '__proto__'),
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('-1', '1e309', '0x10', '99999999999999999999', 'true', ''),
        ),
      )
      .map((d) => `?${new URLSearchParams(d)}`),
  );
  const body = fc.oneof(
    fc.constant(undefined),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          invoiceId: fc.oneof(fc.string(), fc.integer()),
          lineItems: fc.array(
            fc.record(
              {
                description: fc.string(),
                amount: fc.oneof(fc.string(), fc.constantFrom('1.5', '-0', '1e5', '99999999999999999999.999')),
                quantity: fc.oneof(fc.integer(), fc.double()),
                taxRate: fc.double(),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 3 },
          ),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          name: fc.oneof(text, fc.anything()),
          scope: fc.anything(),
          merchantId: fc.oneof(text, fc.constant(undefined)),
          email: text,
          address: fc.record({ city: text }),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 40 }),
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/octet-stream',
    'application/json; charset=latin1',
    '',
    'multipart/form-data; boundary=x',
  );
  const auth = fc.constantFrom(
    'sandbox',
    'sandbox',
    'sandbox',
    'none',
    'Bearer',
    'Bearer \u0000',
    'Basic Zm9vOmJhcg==',
    'Bearer sk_test_' + 'x'.repeat(600),
  );

  it('answers every generated request below 500, with an Error body when it fails', async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.option(fc.constantFrom(...methods), { freq: 4 }),
        query,
        body,
        contentType,
        auth,
        async ([usual, p], other, q, payload, type, a) => {
          const method = other ?? usual;
          const headers: Record<string, string> = {};
          if (type && payload !== undefined) headers['content-type'] = type;
          let key: string | null = s.apiKey;
          if (a === 'none') key = null;
          else if (a !== 'sandbox') {
            key = null;
            headers.authorization = a;
          }
          const r = await s.call(method, p + q, {
            key,
            headers,
            payload: method === 'GET' || method === 'HEAD' ? undefined : payload,
          });
          statuses.add(r.status);
          expect(r.status, `${method} ${p}${q} ${type} ${payload?.slice(0, 200)}`).toBeLessThan(500);
          if (r.status >= 400 && method !== 'HEAD') expect(isError(r.body), JSON.stringify(r.body)).toBe(true);
        },
      ),
      { numRuns: 400, seed: 20301 },
    );
    // The run reached the handlers, not only the error paths.
    expect([...statuses]).toEqual(expect.arrayContaining([200, 201, 400, 401, 404, 415]));
  });
});
