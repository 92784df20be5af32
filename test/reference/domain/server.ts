/**
 * Route-test harness: one in-memory reference server per test file, `call` through
 * app.inject with the sandbox key, and `ok`, which asserts a status and that the body
 * matches the spec's response schema for the operation.
 */
import { expect } from 'vitest';
import { startReferenceServer, type RunningReference } from '../../../src/reference/index.ts';
import { loadSpec } from '../../../src/contract/index.ts';

export interface Res {
  status: number;
  headers: Record<string, unknown>;
  body: any;
}

export interface Harness {
  ref: RunningReference;
  merchantId: string;
  call(method: string, url: string, body?: unknown, key?: string | null): Promise<Res>;
  /** Calls, expects `status`, and validates the body against the spec for `operationId`. */
  ok(
    operationId: string,
    status: number,
    method: string,
    url: string,
    body?: unknown,
    key?: string | null,
  ): Promise<any>;
  /** Calls, expects an error status, checks the Error shape (and the code when given). */
  fails(
    operationId: string,
    status: number,
    method: string,
    url: string,
    body?: unknown,
    code?: string,
    key?: string | null,
  ): Promise<any>;
  newKeyForNewMerchant(): Promise<{ key: string; merchantId: string }>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const ref = await startReferenceServer({ port: 0 });
  const spec = await loadSpec();
  const call: Harness['call'] = async (method, url, body, key) => {
    const headers: Record<string, string> = {};
    const k = key === undefined ? ref.apiKey : key;
    if (k !== null) headers.authorization = `Bearer ${k}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = await ref.app.inject({
      method: method as any,
      url,
      headers,
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    let parsed: any;
    try {
      parsed = r.body ? JSON.parse(r.body) : undefined;
    } catch {
      parsed = r.body;
    }
    return { status: r.statusCode, headers: r.headers, body: parsed };
  };
  const validate = (operationId: string, res: Res) => {
    const v = spec.validateResponseBody(operationId, res.status, res.body);
    expect(v.errors, `${operationId} ${res.status} body against the spec: ${JSON.stringify(res.body)}`).toEqual([]);
  };
  const ok: Harness['ok'] = async (operationId, status, method, url, body, key) => {
    const res = await call(method, url, body, key);
    expect(res.status, `${method} ${url} -> ${JSON.stringify(res.body)}`).toBe(status);
    validate(operationId, res);
    return res.body;
  };
  const fails: Harness['fails'] = async (operationId, status, method, url, body, code, key) => {
    const res = await call(method, url, body, key);
    expect(res.status, `${method} ${url} -> ${JSON.stringify(res.body)}`).toBe(status);
    expect(res.body.message).toEqual(expect.any(String));
    if (code) expect(res.body.code).toBe(code);
    validate(operationId, res);
    return res.body;
  };
  const newKeyForNewMerchant = async () => {
    // A merchant created by the sandbox merchant, with its own key.
    const merchant = await ok('createMerchant', 201, 'POST', '/v0/merchants', { name: 'Other merchant' });
    const key = await call('POST', '/v0/apiKeys', { merchantId: merchant.id });
    expect(key.status).toBe(201);
    return { key: key.body.secret as string, merchantId: merchant.id as string };
  };
  return { ref, merchantId: ref.merchantId, call, ok, fails, newKeyForNewMerchant, close: () => ref.close() };
}

/** Builds a small catalog: product, fee, metric and prices. */
export async function catalog(h: Harness) {
  const product = await h.ok('createProduct', 201, 'POST', '/v0/products', {
    name: 'Product',
    description: 'Sold',
    merchantId: h.merchantId,
  });
  const fee = await h.ok('createFee', 201, 'POST', '/v0/fees', {
    productId: product.id,
    name: 'Platform fee',
    invoiceDisplayName: 'Platform fee',
  });
  const metric = await h.ok('createBillableMetric', 201, 'POST', '/v0/billableMetrics', {
    name: 'API calls',
    productId: product.id,
  });
  const price = (body: Record<string, unknown>) =>
    h.ok('createPrice', 201, 'POST', '/v0/prices', { currency: 'USD', ...body });
  return { product, fee, metric, price };
}
