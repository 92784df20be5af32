import type { AuthContext } from '../auth/keys.ts';
import type { RequestSchemas } from './contract.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The spec operationId: drives validation, rate limits and error messages. */
    operationId?: string;
    /** Schemas to use when the spec does not (yet) know the operation. */
    schemas?: RequestSchemas;
    /** True for routes reachable without an API key (none by default). */
    public?: boolean;
  }
  interface FastifyRequest {
    /** Set by the auth hook on every routed request; null only on public routes and 404s. */
    auth: AuthContext | null;
  }
}

export {};
