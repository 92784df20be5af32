/**
 * What one exchange sent, read once against the spec: the operation its path fits, the decoded
 * path parameters, the query and the JSON body. The checks (through their context), the
 * broken-request test and the passive judge's units all read this one reading.
 */
import { compileTemplate, matchTemplate, type PathTemplate } from '../../contract/index.ts';
import type { Exchange } from '../types.ts';
import { operationOf, type SentRequest, type SpecView } from './types.ts';

export type { SentRequest } from './types.ts';

/** Path templates compiled once each: every exchange of a run is read against one of a few dozen. */
const compiled = new Map<string, PathTemplate>();
function templateOf(pathTemplate: string): PathTemplate {
  let t = compiled.get(pathTemplate);
  if (!t) compiled.set(pathTemplate, (t = compileTemplate(pathTemplate)));
  return t;
}

/** Reads `ex`'s request against `spec`. */
export function readRequest(
  spec: SpecView,
  ex: Pick<Exchange, 'operationId' | 'method' | 'path' | 'requestBody'>,
): SentRequest {
  const [path, queryString = ''] = ex.path.split(/\?(.*)/s);
  const operation = operationOf(spec, ex);
  let body = ex.requestBody;
  let bodyNotJson = false;
  if (typeof body === 'string' && body.trim() === '') body = undefined; // blank: no body, as the reference reads it
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = undefined;
      bodyNotJson = true;
    }
  }
  return {
    operation,
    params: (operation && matchTemplate(templateOf(operation.pathTemplate), path)) ?? {},
    queryString,
    query: new URLSearchParams(queryString),
    body,
    bodyNotJson,
  };
}
