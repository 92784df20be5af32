import type { Exchange } from '../../../src/engine/types.ts';

/** An exchange for check tests; the body defaults to JSON with a JSON content type. */
export function ex(
  method: string,
  path: string,
  status: number | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
  extra: Partial<Exchange> = {},
): Exchange {
  const rawBody = body === undefined ? '' : JSON.stringify(body);
  return {
    method,
    path,
    url: `http://target${path}`,
    requestHeaders: { authorization: 'Bearer $CONFORM_API_KEY' },
    status,
    responseHeaders: { ...(rawBody ? { 'content-type': 'application/json' } : {}), ...headers },
    body,
    rawBody,
    durationMs: 1,
    startedAt: new Date(0).toISOString(),
    ...extra,
  };
}
