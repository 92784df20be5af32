/**
 * The rate-limited endpoints of the Limits table, with the rules that cite each one. The
 * published limit, window and bucket come from spec/openapi.yaml (x-rate-limit); the rule
 * ids from spec/rules.yaml: RATE.<SUBJECT>.LIMIT and RATE.<SUBJECT>.BUCKET cite the one
 * operation they are about. Their parts are named here once (RATE_PARTS) and must be the
 * parts spec/rules.yaml lists: the keys the measuring judges under come from them. That the
 * limit header never shows less than the published limit is one rule of its own
 * (RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED), judged by the rate-headers check on every answer.
 */
import type { Spec } from '../../contract/types.ts';
import { ruleKey, type Rule } from '../../contract/rules.ts';

/** The parts of a BUCKET rule of a merchant bucket (a LIMIT rule, and a subscription bucket's rule, have one). */
export const RATE_PARTS = {
  merchantBucket: { keysShare: 'keys-share', otherUnaffected: 'other-merchant-unaffected' },
} as const;

/** The judgement keys (RULE#part) of one endpoint's LIMIT and BUCKET rules. */
export interface RateLimitKeys {
  /** A fresh window admits its limit: no 429 before it. */
  admitsLimit: string;
  /** Using one bucket up leaves another merchant's (or subscription's) bucket as it was. */
  otherBucket: string;
  /** Keys of one merchant share its bucket: merchant buckets only. */
  keysShare?: string;
}

export interface RateLimitedEndpoint {
  operationId: string;
  /** RATE.<SUBJECT>.LIMIT and RATE.<SUBJECT>.BUCKET. */
  limitRule: string;
  bucketRule: string;
  /** What is judged, part by part. */
  keys: RateLimitKeys;
  method: string;
  pathTemplate: string;
  /** Published: x-ratelimit-limit may be higher, never lower. */
  limit: number;
  windowSeconds: number;
  bucket: 'merchant' | 'subscription';
  /** "GET /v0/customers". */
  label: string;
}

export function rateLimitKeys(
  limitRule: string,
  bucketRule: string,
  bucket: 'merchant' | 'subscription',
): RateLimitKeys {
  const { merchantBucket } = RATE_PARTS;
  return {
    admitsLimit: limitRule,
    ...(bucket === 'merchant'
      ? {
          otherBucket: ruleKey(bucketRule, merchantBucket.otherUnaffected),
          keysShare: ruleKey(bucketRule, merchantBucket.keysShare),
        }
      : { otherBucket: bucketRule }),
  };
}

/** Every key an endpoint's LIMIT and BUCKET rules are judged under. */
export const rateLimitKeyList = (ep: Pick<RateLimitedEndpoint, 'keys'>): string[] =>
  Object.values(ep.keys).filter((k): k is string => k !== undefined);

function ruleAbout(rules: Rule[], operationId: string, aspect: 'LIMIT' | 'BUCKET', parts: readonly string[]): string {
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
  const listed = found[0].parts?.map((p) => p.id) ?? [];
  if (listed.join() !== parts.join())
    throw new Error(
      `spec/rules.yaml: ${found[0].id} lists parts [${listed.join(', ')}], the rate-limit measuring judges [${parts.join(', ')}]`,
    );
  return found[0].id;
}

export async function rateLimitedEndpoints(spec: Spec): Promise<RateLimitedEndpoint[]> {
  const { rules } = await spec.rules();
  const { merchantBucket } = RATE_PARTS;
  return [...spec.operations.values()]
    .filter((op) => op.rateLimit)
    .map((op) => {
      const { limit, windowSeconds, bucket: b } = op.rateLimit!;
      const bucket = b as 'merchant' | 'subscription';
      const limitRule = ruleAbout(rules, op.operationId, 'LIMIT', []);
      const bucketRule = ruleAbout(
        rules,
        op.operationId,
        'BUCKET',
        bucket === 'merchant' ? [merchantBucket.keysShare, merchantBucket.otherUnaffected] : [],
      );
      return {
        operationId: op.operationId,
        limitRule,
        bucketRule,
        keys: rateLimitKeys(limitRule, bucketRule, bucket),
        method: op.method,
        pathTemplate: op.pathTemplate,
        limit,
        windowSeconds,
        bucket,
        label: `${op.method} ${op.pathTemplate}`,
      };
    });
}
