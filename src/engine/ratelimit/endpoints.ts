/**
 * The rate-limited endpoints of the Limits table, with the rules that cite each one. The
 * published limit, window and bucket come from spec/openapi.yaml (x-rate-limit); the rule
 * ids from spec/rules.yaml: RATE.<SUBJECT>.LIMIT and RATE.<SUBJECT>.BUCKET cite the one
 * operation they are about.
 */
import type { Spec } from '../../spec/types.ts';
import type { Rule } from '../../spec/rules.ts';

export interface RateLimitedEndpoint {
  operationId: string;
  /** RATE.<SUBJECT>.LIMIT and RATE.<SUBJECT>.BUCKET. */
  limitRule: string;
  bucketRule: string;
  method: string;
  pathTemplate: string;
  /** Published: x-ratelimit-limit may be higher, never lower. */
  limit: number;
  windowSeconds: number;
  bucket: 'merchant' | 'subscription';
  /** "GET /v0/customers". */
  label: string;
}

function ruleAbout(rules: Rule[], operationId: string, aspect: 'LIMIT' | 'BUCKET'): string {
  const found = rules.filter(
    (r) =>
      r.family === 'RATE' &&
      r.id.endsWith(`.${aspect}`) &&
      r.operations.length === 1 &&
      r.operations[0] === operationId,
  );
  if (found.length !== 1)
    throw new Error(
      `spec/rules.yaml: expected one RATE.*.${aspect} rule citing only the rate-limited ${operationId}, found ${found.length}`,
    );
  return found[0].id;
}

export async function rateLimitedEndpoints(spec: Spec): Promise<RateLimitedEndpoint[]> {
  const { rules } = await spec.rules();
  return [...spec.operations.values()]
    .filter((op) => op.rateLimit)
    .map((op) => {
      const { limit, windowSeconds, bucket } = op.rateLimit!;
      return {
        operationId: op.operationId,
        limitRule: ruleAbout(rules, op.operationId, 'LIMIT'),
        bucketRule: ruleAbout(rules, op.operationId, 'BUCKET'),
        method: op.method,
        pathTemplate: op.pathTemplate,
        limit,
        windowSeconds,
        bucket: bucket as 'merchant' | 'subscription',
        label: `${op.method} ${op.pathTemplate}`,
      };
    });
}
