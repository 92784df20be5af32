/** A rate-limited operation as published (spec `x-rate-limit`) or raised by the operator. */
export interface RateLimitRule {
  operationId: string;
  limit: number;
  windowSeconds: number;
  /** `merchant`: one bucket per merchant; `subscription`: one per (merchant, path `id`). */
  bucket: 'merchant' | 'subscription';
}

export type PublishedLimits = Record<string, Omit<RateLimitRule, 'operationId'>>;

export class RateLimitConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RateLimitConfigError';
  }
}

/**
 * The limits in force: the published ones, raised where the operator asked.
 * A published limit can rise and never fall, so an override below it (or for an
 * operation that has no published limit) is refused.
 */
export function resolveRateLimits(
  published: PublishedLimits,
  overrides: Record<string, number> = {},
): Map<string, RateLimitRule> {
  const rules = new Map<string, RateLimitRule>();
  for (const [operationId, rule] of Object.entries(published)) rules.set(operationId, { operationId, ...rule });
  for (const [operationId, value] of Object.entries(overrides)) {
    const rule = rules.get(operationId);
    if (!rule) {
      throw new RateLimitConfigError(
        `rate limit for '${operationId}': not a rate-limited operation (one of ${[...rules.keys()].join(', ')})`,
      );
    }
    if (!Number.isInteger(value) || value <= 0)
      throw new RateLimitConfigError(`rate limit for '${operationId}': '${value}' is not a positive integer`);
    if (value < rule.limit) {
      throw new RateLimitConfigError(
        `rate limit for '${operationId}': ${value} is below the published limit of ${rule.limit} ` +
          `per ${rule.windowSeconds} s; limits may only be raised`,
      );
    }
    rules.set(operationId, { ...rule, limit: value });
  }
  return rules;
}

/** Parses `op=N` (the `--rate-limit` flag). */
export function parseRateLimitFlag(value: string): [string, number] {
  const m = /^([A-Za-z][A-Za-z0-9]*)=(\d+)$/.exec(value.trim());
  if (!m) throw new RateLimitConfigError(`--rate-limit '${value}': expected operationId=N, e.g. listCustomers=1000`);
  return [m[1], Number(m[2])];
}

function windowText(seconds: number): string {
  if (seconds === 1) return 'per second';
  if (seconds === 60) return 'per minute';
  return `per ${seconds} seconds`;
}

/** The endpoint-specific 429 message. */
export function limitMessage(rule: RateLimitRule, method: string, path: string, retryAfter: number): string {
  const per = rule.bucket === 'subscription' ? 'per subscription' : 'per merchant';
  return (
    `Rate limit exceeded for ${method} ${path}: ${rule.limit} ` +
    `requests ${windowText(rule.windowSeconds)} ${per}. Retry after ${retryAfter} s.`
  );
}
