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
 * (src/spec/index.ts); see `loadContract`.
 */
export interface Contract {
  hasOperation(operationId: string): boolean;
  requestSchemas(operationId: string): RequestSchemas | undefined;
  publishedLimits(): PublishedLimits;
}

/** The document's Limits table; used only when the spec loader is not available. */
export const DOCUMENT_LIMITS: PublishedLimits = {
  listCustomers: { limit: 60, windowSeconds: 6, bucket: 'merchant' },
  createReconciliation: { limit: 2, windowSeconds: 1, bucket: 'subscription' },
  createPortalSession: { limit: 1, windowSeconds: 1, bucket: 'subscription' },
  createInvoiceLineItems: { limit: 60, windowSeconds: 60, bucket: 'merchant' },
  getCostsReport: { limit: 600, windowSeconds: 60, bucket: 'merchant' },
  listCrmAccounts: { limit: 30, windowSeconds: 60, bucket: 'merchant' },
};

/** A contract with no schemas: routes fall back to their own `config.schemas`. */
export function emptyContract(limits: PublishedLimits = DOCUMENT_LIMITS): Contract {
  return { hasOperation: () => false, requestSchemas: () => undefined, publishedLimits: () => limits };
}

let cached: Promise<Contract> | undefined;

/** The contract from spec/openapi.yaml through the shared loader (memoised). */
export function loadContract(): Promise<Contract> {
  cached ??= (async () => {
    const mod: any = await import('../../spec/index.ts');
    return contractFromSpec(await mod.loadSpec());
  })();
  return cached;
}

/** Adapts the loader's `Spec` (operations, requestSchemas, rateLimit) to `Contract`. */
export function contractFromSpec(spec: any): Contract {
  const ops: Map<string, any> = spec.operations ?? new Map();
  const limits: PublishedLimits = {};
  for (const [id, op] of ops) {
    const rl = op?.rateLimit;
    if (rl && typeof rl.limit === 'number') {
      limits[id] = { limit: rl.limit, windowSeconds: rl.windowSeconds, bucket: rl.bucket === 'subscription' ? 'subscription' : 'merchant' };
    }
  }
  return {
    hasOperation: (id) => ops.has(id),
    requestSchemas: (id) => {
      const op = ops.get(id);
      if (!op) return undefined;
      const s = spec.requestSchemas(id) ?? {};
      return { path: s.path ?? s.params, query: s.query, body: s.body, bodyRequired: s.bodyRequired ?? op.requestBody?.required ?? false };
    },
    publishedLimits: () => limits,
  };
}
