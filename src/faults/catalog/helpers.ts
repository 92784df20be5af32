/** Small helpers the catalog's faults and demos share. */
import type { Fault, FaultContext, ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import type { CatalogFault, DemoOutcome } from './types.ts';

export type Json = Record<string, any>;

const JSON_TYPE = 'application/json; charset=utf-8';

export function isObj(v: unknown): v is Json {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** The JSON object body of a request or response, if any. */
export function bodyOf(x: { json?: unknown }): Json | undefined {
  return isObj(x.json) ? x.json : undefined;
}

/** A JSON response (status, body, extra headers). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): ProxyResponse {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, ...headers },
    body: Buffer.from(JSON.stringify(body)),
    json: body,
  };
}

export const pathOf = (req: ProxyRequest): string => req.path.split('?')[0];
export const queryOf = (req: ProxyRequest): URLSearchParams => new URLSearchParams(req.path.split('?')[1] ?? '');

/** Rebuilds the request path with `query` (edited URLSearchParams). */
export function withQuery(req: ProxyRequest, query: URLSearchParams): void {
  const q = query.toString();
  req.path = q ? `${pathOf(req)}?${q}` : pathOf(req);
}

/** The match of `re` on the path when the method is `method`. */
export function on(req: ProxyRequest, method: string, re: RegExp): RegExpExecArray | null {
  return req.method === method ? re.exec(pathOf(req)) : null;
}

export const is2xx = (res: ProxyResponse): boolean => res.status >= 200 && res.status < 300;
export const is4xx = (res: ProxyResponse): boolean => res.status >= 400 && res.status < 500;

/** A per-fault map kept in ctx.state under `name`. */
export function stateMap<K, V>(ctx: FaultContext, name: string): Map<K, V> {
  let m = ctx.state.get(name) as Map<K, V> | undefined;
  if (!m) {
    m = new Map<K, V>();
    ctx.state.set(name, m);
  }
  return m;
}

/** Routes the faults touch: documented operations, and the reference fixtures' extension endpoints. */
export const R = {
  customer: /^\/v0\/customers\/([^/]+)$/,
  customers: /^\/v0\/customers$/,
  item: /^\/v0\/items\/([^/]+)$/,
  externalReferences: /^\/v0\/externalReferences$/,
  webhooks: /^\/v0\/webhooks$/,
  webhookEndpoints: /^\/v0\/webhooks\/endpoints$/,
  migrate: /^\/v0\/subscriptions\/([^/]+)\/versionMigration$/,
  subscription: /^\/v0\/subscriptions\/([^/]+)$/,
  fee: /^\/v0\/fees\/([^/]+)$/,
  alerts: /^\/v0\/alerts$/,
  alert: /^\/v0\/alerts\/([^/]+)$/,
  schedules: /^\/v0\/billingSchedules$/,
  schedule: /^\/v0\/billingSchedules\/([^/]+)$/,
  intervals: /^\/v0\/billingSchedules\/([^/]+)\/intervals$/,
  refunds: /^\/v2\/invoices\/([^/]+)\/refunds$/,
  payment: /^\/v0\/payments\/([^/]+)$/,
  merchants: /^\/v0\/merchants$/,
  merchant: /^\/v0\/merchants\/([^/]+)$/,
  products: /^\/v0\/products$/,
  price: /^\/v0\/prices\/([^/]+)$/,
  sourceRule: /^\/v0\/sourceRules\/([^/]+)$/,
  autoTopup: /^\/v0\/wallets\/([^/]+)\/autoTopupConfig$/,
  apiKeys: /^\/v0\/apiKeys$/,
  apiKey: /^\/v0\/apiKeys\/([^/]+)$/,
} as const;

// ------------------------------------------------------------------ demo builders

export const DEMO_KEY = 'Bearer sk_test_demo0key0000000000';

/** A client request for a demo (JSON body when given). */
export function req(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: DEMO_KEY },
): ProxyRequest {
  return {
    method,
    path,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body)),
    json: body,
  };
}

/** The JSON the client got in a demo outcome (parsed from the bytes, as a client would). */
export function got(o: DemoOutcome): Json | undefined {
  try {
    const v = JSON.parse(o.response.body.toString('utf8'));
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The first failing expectation among `[ok, problem]` pairs, or undefined. */
export function expectAll(...checks: Array<[boolean, string]>): string | undefined {
  return checks.find(([ok]) => !ok)?.[1];
}

/** Builds a fault with its type checked (keeps the area files short). */
export function fault(f: CatalogFault): CatalogFault {
  return f;
}

/** A fixed date-time, so that demos are deterministic. */
export const T0 = '2030-01-01T00:00:00.000Z';

/**
 * One fault that does what each of `faults` does, in order: the first onRequest that answers
 * wins, and each onResponse sees what the one before it made (an edited `json` is written
 * out before the next one reads the bytes). For benign variants that combine (a compressing
 * proxy in front of a sliding-window limiter). They share one state map: at most one of them
 * may emulate buckets.
 */
export function composeFaults(name: string, ...faults: Fault[]): Fault {
  const isResponse = (x: unknown): x is ProxyResponse => !!x && typeof (x as ProxyResponse).status === 'number';
  // Each fault's onResponse gets the request as its own onRequest saw it (a fault before it may have
  // replaced it): a fault that keeps state per request object finds it again.
  const seen = new WeakMap<ProxyRequest, ProxyRequest[]>();
  return {
    name,
    description: faults.map((f) => f.description ?? f.name).join('; '),
    async onRequest(req, ctx) {
      let current = req;
      const each: ProxyRequest[] = [];
      seen.set(req, each);
      for (const f of faults) {
        each.push(current);
        const out = await f.onRequest?.(current, ctx);
        if (isResponse(out)) return out;
        if (out) current = out;
      }
      return current === req ? undefined : current;
    },
    async onResponse(req, res, ctx) {
      let current = res;
      const each = seen.get(req) ?? [];
      for (const [i, f] of faults.entries()) {
        const bytes = current.body;
        const json = JSON.stringify(current.json);
        const out = (await f.onResponse?.(each[i] ?? req, current, ctx)) ?? current;
        const edited = out.body === bytes && out.json !== undefined && JSON.stringify(out.json) !== json;
        current = edited ? { ...out, body: Buffer.from(JSON.stringify(out.json)) } : out;
      }
      return current === res ? undefined : current;
    },
  };
}
