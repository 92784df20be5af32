/**
 * Emulated rate buckets. A rate-limit fault cannot just rewrite headers: a target whose
 * buckets are per key (or shared across endpoints, or lower than published) rejects
 * different requests than the real one. So the proxy keeps buckets of its own, in
 * ctx.state, answers 429 from them, and writes their x-ratelimit headers over the
 * target's. The real bucket is hidden: on the bundled reference the fault raises the
 * reference's limits (CatalogFault.target.raiseRateLimits) so it never binds; on another
 * target a real 429 the emulated bucket would have admitted is answered with the last
 * success of the same request.
 *
 * Bucket identity is the merchant where it can be learned (a POST /v0/apiKeys answer
 * names the merchant of the new key, and of the key that made it when no merchantId was
 * sent), else the key itself.
 */
import { loadSpec } from '../../contract/index.ts';
import type { Fault, FaultContext, ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import { bodyOf, is2xx, json, on, pathOf, R, stateMap } from './helpers.ts';
import { fixedWindow, headerSeconds, type LimiterModel } from './limiters.ts';

export interface ListedEndpoint {
  operationId: string;
  label: string;
  limit: number;
  windowSeconds: number;
  bucket: 'merchant' | 'subscription';
  /** The path's subscription id, for the per-subscription endpoints. */
  subscriptionId?: string;
}

/** The listed (rate-limited) endpoint a request goes to, from spec/openapi.yaml's x-rate-limit. */
export async function listedEndpoint(req: ProxyRequest): Promise<ListedEndpoint | undefined> {
  const spec = await loadSpec();
  const m = spec.matchPath(req.method, pathOf(req));
  const rl = m?.operation.rateLimit;
  if (!m || !rl) return undefined;
  return {
    operationId: m.operation.operationId,
    label: `${m.operation.method} ${m.operation.pathTemplate}`,
    limit: rl.limit,
    windowSeconds: rl.windowSeconds,
    bucket: rl.bucket as 'merchant' | 'subscription',
    ...(rl.bucket === 'subscription' && m.params.id ? { subscriptionId: m.params.id } : {}),
  };
}

/** Who sends a request: the merchant of its key when known, else the key. */
export function whoSends(ctx: FaultContext, req: ProxyRequest): string {
  const auth = req.headers.authorization ?? '';
  return stateMap<string, string>(ctx, 'merchantOfKey').get(auth) ?? `key:${auth}`;
}

/** Learns key → merchant from POST /v0/apiKeys answers (the reference extension that makes keys). */
export function learnKeys(ctx: FaultContext, req: ProxyRequest, res: ProxyResponse): void {
  if (!on(req, 'POST', R.apiKeys) || !is2xx(res)) return;
  const key = bodyOf(res);
  if (typeof key?.secret !== 'string' || typeof key.merchantId !== 'string') return;
  const merchants = stateMap<string, string>(ctx, 'merchantOfKey');
  merchants.set(`Bearer ${key.secret}`, key.merchantId);
  if (bodyOf(req)?.merchantId === undefined && req.headers.authorization)
    merchants.set(req.headers.authorization, key.merchantId);
}

export interface BucketPolicy {
  /** Endpoints the emulation takes over (default all six). */
  applies?(ep: ListedEndpoint): boolean;
  /** Bucket identity (default: the merchant or the subscription, per endpoint, as documented). */
  key?(ep: ListedEndpoint, who: string, auth: string): string;
  /** How a bucket counts (default fixed windows, as the document describes them). */
  limiter?: LimiterModel<any>;
  /** Requests admitted per window (default the published limit). */
  enforce?(ep: ListedEndpoint): number;
  /** The x-ratelimit-limit shown (default the enforced limit). */
  advertise?(ep: ListedEndpoint): number;
  /** false: a bucket once used up stays used up (its reset header still counts down). */
  resets?: boolean;
  /** false: never answers 429; remaining stays at 0 past the limit. */
  rejects?: boolean;
}

export const documentedKey = (ep: ListedEndpoint, who: string): string =>
  ep.bucket === 'subscription' ? `sub:${ep.subscriptionId}|${ep.operationId}` : `${who}|${ep.operationId}`;

interface Bucket {
  state: unknown;
  /** When a bucket that never resets was first used up. */
  spentAt?: number;
}

interface Decision {
  ep: ListedEndpoint;
  admitted: boolean;
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: number;
}

/** Hooks that put emulated buckets with `policy` in front of the six listed endpoints. */
export function emulatedBuckets(
  policy: BucketPolicy = {},
  now: () => number = () => Date.now(),
): Pick<Fault, 'onRequest' | 'onResponse'> {
  const fakes = new WeakSet<ProxyResponse>();
  const pending = new WeakMap<ProxyRequest, Decision>();
  const model = policy.limiter ?? fixedWindow;

  const take = (ctx: FaultContext, req: ProxyRequest, ep: ListedEndpoint): Decision => {
    const buckets = stateMap<string, Bucket>(ctx, 'buckets');
    const id = (policy.key ?? documentedKey)(ep, whoSends(ctx, req), req.headers.authorization ?? '');
    const windowMs = ep.windowSeconds * 1000;
    const t = now();
    const enforce = policy.enforce?.(ep) ?? ep.limit;
    const advertised = policy.advertise?.(ep) ?? enforce;
    const b: Bucket = buckets.get(id) ?? { state: undefined };
    buckets.set(id, b);
    if (policy.resets === false && b.spentAt !== undefined) {
      // Used up for good: 429, with a reset that keeps counting down windows that never come.
      const left = windowMs - ((t - b.spentAt) % windowMs);
      return {
        ep,
        admitted: false,
        limit: advertised,
        remaining: 0,
        reset: headerSeconds(left),
        retryAfter: headerSeconds(left),
      };
    }
    const d = model.hit(b.state, t, enforce, windowMs);
    b.state = d.state;
    const admitted = policy.rejects === false || d.admitted;
    if (!d.admitted && policy.resets === false) b.spentAt = t;
    // Shown against the advertised limit: a bucket enforcing less than it advertises shows more left than it has.
    const shown = Math.max(0, d.remaining + (advertised - enforce));
    return {
      ep,
      admitted,
      limit: advertised,
      remaining: admitted ? shown : Math.min(0, shown),
      reset: headerSeconds(d.resetMs),
      retryAfter: headerSeconds(d.retryAfterMs),
    };
  };

  const headers = (d: Decision): Record<string, string> => ({
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(d.reset),
  });

  const tooMany = (d: Decision): ProxyResponse => {
    const res = json(
      429,
      { error: 'rate_limit_exceeded', message: `Too many requests to ${d.ep.label}; retry in ${d.retryAfter} s` },
      { ...headers(d), 'retry-after': String(d.retryAfter) },
    );
    fakes.add(res);
    return res;
  };

  return {
    async onRequest(req, ctx) {
      const ep = await listedEndpoint(req);
      if (!ep || (policy.applies && !policy.applies(ep))) return;
      // Only a key known to authenticate is counted before the target sees the request: anything else may deserve a 401.
      if (!stateMap<string, boolean>(ctx, 'goodKeys').get(req.headers.authorization ?? '')) return;
      const d = take(ctx, req, ep);
      if (!d.admitted) {
        ctx.applied();
        return tooMany(d);
      }
      pending.set(req, d);
    },
    async onResponse(req, res, ctx) {
      learnKeys(ctx, req, res);
      if (fakes.has(res)) return;
      const ep = await listedEndpoint(req);
      if (!ep || (policy.applies && !policy.applies(ep))) return;
      const auth = req.headers.authorization ?? '';
      const good = stateMap<string, boolean>(ctx, 'goodKeys');
      if (res.status === 401) {
        good.delete(auth);
        return;
      }
      good.set(auth, true);
      const d = pending.get(req) ?? take(ctx, req, ep);
      ctx.applied();
      if (!d.admitted) return tooMany(d);
      const cache = stateMap<string, ProxyResponse>(ctx, 'lastSuccess');
      const cacheKey = `${auth}|${req.method} ${pathOf(req)}`;
      let out = res;
      if (res.status === 429) {
        // The real bucket bound where the emulated one admits: answer as the emulated target would.
        const last = cache.get(cacheKey);
        if (last) out = { ...last, headers: { ...last.headers } };
        else delete res.headers['retry-after'];
      } else if (is2xx(res)) {
        cache.set(cacheKey, { ...res, headers: { ...res.headers } });
      }
      Object.assign(out.headers, headers(d));
      return out;
    },
  };
}
