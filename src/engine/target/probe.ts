/**
 * Before a run: is anything at the base URL, does it take the key, and does the base URL lead
 * to the API? A target that fails the probe is refused with one line saying what to fix.
 */
import { idPrefix, loadSpec } from '../../contract/index.ts';
import type { HttpClient } from '../http/client.ts';
import type { Exchange } from '../types.ts';
import { RunNotStarted } from './index.ts';

const spec = await loadSpec();
/** An id of CustomerId's pattern no target makes. */
const PROBE_ID = `${idPrefix(spec, 'CustomerId')}conformprobe0`;
const UNKNOWN_CUSTOMER = spec.pathFor('getCustomer', { id: PROBE_ID });
/** No resourceId: a documented route answers 400 (a required parameter is missing), never 404. */
const NEVER_404 = spec.pathFor('listAlerts');
/** A route that exists nowhere, ending like UNKNOWN_CUSTOMER so that an echoed path or id reads the same. */
// Not an operation: a path no document declares, the control a route-level 404 is compared with.
const NO_SUCH_ROUTE = `/v0/conformProbeNoSuchRoute/${PROBE_ID}`;

/**
 * Before the run: is anything there, does it take the key, and does the base URL lead to
 * the API? Authenticated GETs only, on endpoints without a rate bucket; nothing is created.
 * `keyFrom` says where the key was read from (KeyRef.from).
 */
export async function probe(client: HttpClient, keyFrom?: string): Promise<void> {
  const first = await client.get(UNKNOWN_CUSTOMER);
  if (first.transportError)
    throw new RunNotStarted(`cannot reach the target at ${client.baseUrl}: ${first.transportError}`);
  if (first.status === 401)
    throw new RunNotStarted(
      `the target at ${client.baseUrl} rejected the API key (401 on GET /v0/customers/{id})` +
        (keyFrom ? `: check the key in ${keyFrom}` : ''),
    );
  const wrong = await routeLevel404(client, first);
  if (wrong) throw new RunNotStarted(wrong);
}

/**
 * A refusal when the documented paths under the base URL answer route-level 404s: GET
 * /v0/alerts (never 404 where the route exists) answers 404, and so does an unknown customer,
 * either not in the document's Error shape (a framework's or proxy's route-not-found: HTML,
 * `{"error":"Not Found","statusCode":404}`, problem+json) or exactly as a route that exists
 * nowhere does. A target whose only 404 is the document's Error for the unknown customer
 * (`{message, error: 'not_found'}`) is not refused, nor one missing only the alerts route.
 */
async function routeLevel404(client: HttpClient, unknownCustomer: Exchange): Promise<string | undefined> {
  if (unknownCustomer.status !== 404) return undefined;
  const alerts = await client.get(NEVER_404);
  if (alerts.status !== 404) return undefined;
  if (isDocumentError(unknownCustomer)) {
    const control = await client.get(NO_SUCH_ROUTE);
    if (!sameAnswer(unknownCustomer, control)) return undefined;
  }
  return (
    `no API under the base URL ${client.baseUrl}: GET ${NEVER_404} and GET /v0/customers/{id} answered 404 as for ` +
    'routes that do not exist (not the Error of an unknown resource); check the base URL: the /v0 and /v2 paths hang under it'
  );
}

/** The document's Error: a JSON object with a string message and, if any, an `error` category such as not_found. */
function isDocumentError(ex: Exchange): boolean {
  const b = ex.body as { message?: unknown; error?: unknown } | undefined;
  if (!b || typeof b !== 'object' || Array.isArray(b) || typeof b.message !== 'string') return false;
  return b.error === undefined || (typeof b.error === 'string' && /^[a-z]+(_[a-z]+)*$/.test(b.error));
}

/** Same status, content type and body once each request's own path is blotted out. */
function sameAnswer(a: Exchange, b: Exchange): boolean {
  const text = (ex: Exchange) => ex.rawBody.split(new URL(ex.url).pathname).join('<path>');
  return (
    a.status === b.status &&
    a.responseHeaders['content-type'] === b.responseHeaders['content-type'] &&
    text(a) === text(b)
  );
}
