import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { limitMessage, type RateLimitRule } from '../ratelimit/limits.ts';
import type { Buckets } from '../ratelimit/store.ts';

/** `/v0/subscriptions/:id/portal` → `/v0/subscriptions/{id}/portal`. */
const template = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * onRequest, after auth: counts the request in its bucket and sets the three
 * x-ratelimit headers (so every answer but a 401 carries them), or answers 429
 * with retry-after. Buckets: per merchant per operation, or per (merchant,
 * subscription) per operation for `bucket: subscription`; an unknown subscription
 * id gets its own bucket like any other (its 404 is counted).
 */
export function rateLimitHook(store: Buckets, rules: Map<string, RateLimitRule>) {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const operationId = request.routeOptions.config.operationId;
    const rule = operationId ? rules.get(operationId) : undefined;
    if (!rule || !request.auth) return;
    let key = `${rule.operationId}:m:${request.auth.merchantId}`;
    // Both per-subscription routes name the subscription in their path (`:id`).
    if (rule.bucket === 'subscription') key += `:s:${encodeURIComponent((request.params as { id: string }).id)}`;
    const a = await store.hit(key, rule.limit, rule.windowSeconds);
    reply.header('x-ratelimit-limit', String(a.limit));
    reply.header('x-ratelimit-remaining', String(a.remaining));
    reply.header('x-ratelimit-reset', String(a.resetSeconds));
    if (!a.allowed) {
      const message = limitMessage(
        rule,
        request.method,
        template(request.routeOptions.url ?? request.url),
        a.resetSeconds,
      );
      throw new ApiError(429, message, { headers: { 'retry-after': String(a.resetSeconds) } });
    }
  };
}
