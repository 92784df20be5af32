/**
 * Shared pieces of the test vendors (strict.ts, lenient.ts, overstrict.ts): the endpoints the
 * interface document lists (every other path is let through untouched), JSON answers in the
 * document's Error and ValidationError shapes, and reading an answer's JSON even when the
 * server behind compressed it.
 *
 * Written from /work/shared/source/billing-service-interface.md alone.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { FaultContext, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';

/** The operations the document's "Endpoints" section lists (with the rate-limited ones it says exist). */
export type EndpointKey =
  | 'webhooks.patch'
  | 'billingSchedules.create'
  | 'billingSchedules.intervals'
  | 'billingSchedules.delete'
  | 'items.patch'
  | 'customers.get'
  | 'customers.patch'
  | 'customers.delete'
  | 'sourceRules.patch'
  | 'invoices.refund'
  | 'merchants.create'
  | 'merchants.get'
  | 'products.create'
  | 'prices.get'
  | 'fees.delete'
  | 'payments.get'
  | 'alerts.list'
  | 'alerts.patch'
  | 'wallets.autoTopupConfig'
  | 'subscriptions.versionMigration'
  | 'subscriptions.patch'
  | 'customers.list'
  | 'subscriptions.reconciliations'
  | 'subscriptions.portal'
  | 'invoices.lineItems'
  | 'costs.report'
  | 'integrations.accounts';

const SEG = '([^/]+)';

const ENDPOINTS: ReadonlyArray<{ key: EndpointKey; method: string; pattern: RegExp }> = [
  { key: 'webhooks.patch', method: 'PATCH', pattern: /^\/v0\/webhooks$/ },
  { key: 'billingSchedules.create', method: 'POST', pattern: /^\/v0\/billingSchedules$/ },
  { key: 'billingSchedules.intervals', method: 'GET', pattern: new RegExp(`^/v0/billingSchedules/${SEG}/intervals$`) },
  { key: 'billingSchedules.delete', method: 'DELETE', pattern: new RegExp(`^/v0/billingSchedules/${SEG}$`) },
  { key: 'items.patch', method: 'PATCH', pattern: new RegExp(`^/v0/items/${SEG}$`) },
  { key: 'customers.get', method: 'GET', pattern: new RegExp(`^/v0/customers/${SEG}$`) },
  { key: 'customers.patch', method: 'PATCH', pattern: new RegExp(`^/v0/customers/${SEG}$`) },
  { key: 'customers.delete', method: 'DELETE', pattern: new RegExp(`^/v0/customers/${SEG}$`) },
  { key: 'sourceRules.patch', method: 'PATCH', pattern: new RegExp(`^/v0/sourceRules/${SEG}$`) },
  { key: 'invoices.refund', method: 'POST', pattern: new RegExp(`^/v2/invoices/${SEG}/refunds$`) },
  { key: 'merchants.create', method: 'POST', pattern: /^\/v0\/merchants$/ },
  { key: 'merchants.get', method: 'GET', pattern: new RegExp(`^/v0/merchants/${SEG}$`) },
  { key: 'products.create', method: 'POST', pattern: /^\/v0\/products$/ },
  { key: 'prices.get', method: 'GET', pattern: new RegExp(`^/v0/prices/${SEG}$`) },
  { key: 'fees.delete', method: 'DELETE', pattern: new RegExp(`^/v0/fees/${SEG}$`) },
  { key: 'payments.get', method: 'GET', pattern: new RegExp(`^/v0/payments/${SEG}$`) },
  { key: 'alerts.list', method: 'GET', pattern: /^\/v0\/alerts$/ },
  { key: 'alerts.patch', method: 'PATCH', pattern: new RegExp(`^/v0/alerts/${SEG}$`) },
  { key: 'wallets.autoTopupConfig', method: 'PATCH', pattern: new RegExp(`^/v0/wallets/${SEG}/autoTopupConfig$`) },
  {
    key: 'subscriptions.versionMigration',
    method: 'POST',
    pattern: new RegExp(`^/v0/subscriptions/${SEG}/versionMigration$`),
  },
  { key: 'subscriptions.patch', method: 'PATCH', pattern: new RegExp(`^/v0/subscriptions/${SEG}$`) },
  // "Rate-limited endpoints (see Limits) ... exist; their payloads are not shown."
  { key: 'customers.list', method: 'GET', pattern: /^\/v0\/customers$/ },
  {
    key: 'subscriptions.reconciliations',
    method: 'POST',
    pattern: new RegExp(`^/v0/subscriptions/${SEG}/reconciliations$`),
  },
  { key: 'subscriptions.portal', method: 'POST', pattern: new RegExp(`^/v0/subscriptions/${SEG}/portal$`) },
  { key: 'invoices.lineItems', method: 'POST', pattern: /^\/v2\/invoices\/lineItems$/ },
  { key: 'costs.report', method: 'GET', pattern: /^\/v0\/costs\/report$/ },
  { key: 'integrations.accounts', method: 'GET', pattern: new RegExp(`^/v0/integrations/${SEG}/accounts$`) },
];

export interface Matched {
  key: EndpointKey;
  /** Decoded path parameters, in order. */
  params: string[];
  query: URLSearchParams;
}

/** The documented operation a request is for, or undefined for every other path. */
export function matchEndpoint(method: string, path: string): Matched | undefined {
  const q = path.indexOf('?');
  const pathname = q < 0 ? path : path.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : path.slice(q + 1));
  const m = method.toUpperCase();
  for (const ep of ENDPOINTS) {
    if (ep.method !== m) continue;
    const found = ep.pattern.exec(pathname);
    if (!found) continue;
    // Refunds and line items share /v2/invoices/...: "lineItems" is not an invoice id.
    if (ep.key === 'invoices.refund' && found[1] === 'lineItems') continue;
    const params = found.slice(1).map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
    return { key: ep.key, params, query };
  }
  return undefined;
}

export function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function is2xx(status: number): boolean {
  return status >= 200 && status < 300;
}

/** A JSON answer (content-type application/json). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): ProxyResponse {
  return {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(JSON.stringify(body)),
    json: body,
  };
}

export interface FieldError {
  field: string;
  message: string;
  code?: string;
}

/** 400 in the document's ValidationError shape. */
export function validationError(errors: FieldError[], message = 'Request validation failed'): ProxyResponse {
  return jsonResponse(400, { error: 'validation_error', message, errors });
}

/** An answer in the document's Error shape. */
export function errorResponse(status: number, error: string, message: string, code?: string): ProxyResponse {
  return jsonResponse(status, code === undefined ? { error, message } : { error, message, code });
}

/** The JSON of an answer, reading through a content coding the server behind may have applied. */
export function responseJson(res: ProxyResponse): unknown {
  if (res.json !== undefined) return res.json;
  const type = res.headers['content-type'];
  if (!res.body.length || !type || !/^application\/([\w.+-]*\+)?json\b/i.test(type)) return undefined;
  const coding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  try {
    const raw =
      coding === 'gzip' || coding === 'x-gzip'
        ? gunzipSync(res.body)
        : coding === 'deflate'
          ? inflateSync(res.body)
          : coding === 'br'
            ? brotliDecompressSync(res.body)
            : res.body;
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The Authorization header, the key a vendor remembers things under. */
export function authOf(req: ProxyRequest): string | undefined {
  const a = req.headers['authorization'];
  return a && a.trim() ? a : undefined;
}

/**
 * Whether the server behind rejects this request's credentials (401). A vendor refusing a
 * request by itself asks first, so a request with missing or invalid credentials still gets the
 * document's 401 ("Missing or invalid credentials yield 401"). The probe reads a customer that
 * does not exist: a valid key gets 404, an invalid one 401.
 */
export async function credentialsRejected(req: ProxyRequest, ctx: FaultContext): Promise<boolean> {
  const auth = authOf(req);
  if (!auth) return true;
  try {
    const probe = await ctx.upstream({
      method: 'GET',
      path: '/v0/customers/cus_vendorcredentialprobe',
      headers: { authorization: auth, accept: 'application/json', 'accept-encoding': 'identity' },
      body: Buffer.alloc(0),
    });
    return probe.status === 401;
  } catch {
    // Cannot tell: let the server behind answer.
    return true;
  }
}
