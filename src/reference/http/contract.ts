import { loadSpec, type Spec } from '../../contract/index.ts';
import type { PublishedLimits } from '../ratelimit/limits.ts';

/** JSON Schemas of one operation's inputs (plain objects, ajv 2020-12). */
export interface RequestSchemas {
  /** Object schema of the path parameters. */
  path?: object;
  /** Object schema of the query parameters. */
  query?: object;
  /** Schema of the JSON body. */
  body?: object;
  /** When false, an absent body is accepted. */
  bodyRequired?: boolean;
}

/**
 * What the reference server needs from the contract: request schemas per
 * operationId and the published rate limits. Built from the spec loader
 * (src/contract/index.ts); see `loadContract`.
 */
export interface Contract {
  hasOperation(operationId: string): boolean;
  requestSchemas(operationId: string): RequestSchemas | undefined;
  publishedLimits(): PublishedLimits;
}

let cached: Promise<Contract> | undefined;

/** The contract from spec/openapi.yaml through the shared loader (memoised). */
export function loadContract(): Promise<Contract> {
  cached ??= loadSpec().then(contractFromSpec);
  return cached;
}

/** Adapts the loader's `Spec` (operations, requestSchemas, rateLimit) to `Contract`. */
function contractFromSpec(spec: Spec): Contract {
  const ops = spec.operations;
  const limits: PublishedLimits = {};
  for (const [id, op] of ops) {
    if (op.rateLimit) limits[id] = { ...op.rateLimit };
  }
  return {
    hasOperation: (id) => ops.has(id),
    requestSchemas: (id) => spec.requestSchemas(id),
    publishedLimits: () => limits,
  };
}
