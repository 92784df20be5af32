/**
 * A target with only the documented endpoints: a proxy fault that answers 404 (Error shape)
 * to every operation spec/openapi.yaml marks `x-extension: reference`, as a vendor's sandbox
 * that has none of the reference server's extensions would. Everything else passes through.
 * In front of `conform serve` it is the documented-endpoints-only target the sandbox example
 * and its end-to-end test run against.
 */
import type { Spec } from '../contract/index.ts';
import type { Fault, ProxyResponse } from './fault-proxy.ts';

export function notFound(method: string, path: string): ProxyResponse {
  const body = { error: 'not_found', message: `No route for ${method} ${path}` };
  return {
    status: 404,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(JSON.stringify(body)),
    json: body,
  };
}

/** The fault: extension operations answer 404 as if they did not exist. */
export function documentedOnly(spec: Pick<Spec, 'findOperation'>): Fault {
  return {
    name: 'documented-endpoints-only',
    description:
      'the reference extension endpoints (x-extension: reference) answer 404: only the documented endpoints exist',
    onRequest(req, ctx) {
      const path = req.path.split('?')[0];
      if (!spec.findOperation(req.method, path)?.extension) return undefined;
      ctx.applied();
      return notFound(req.method, path);
    },
  };
}
