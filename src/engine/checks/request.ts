/**
 * What one exchange sent, read once against the spec: the operation its path fits, the decoded
 * path parameters, the query and the JSON body. The checks (through their context), the
 * broken-request test and the passive judge's units all read this one reading.
 */
import { compileTemplate, matchTemplate, type PathTemplate } from '../../contract/index.ts';
import type { Exchange } from '../types.ts';
import { operationOf, type OperationInfo, type SpecView } from './types.ts';

export interface SentRequest {
  /** The operation the request fits (documented or reference extension), if any. */
  operation?: OperationInfo;
  /** Its decoded path parameters ({} when no operation fits). */
  params: Record<string, string>;
  /** The query string as sent, without `?`. */
  queryString: string;
  query: URLSearchParams;
  /** The JSON body sent, parsed when it travelled as text; undefined when none or not JSON. */
  body: unknown;
  /** A body travelled as text that does not parse as JSON (blank text is no body). */
  bodyNotJson: boolean;
}

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
