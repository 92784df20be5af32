/**
 * The target of `conform run`: the bundled reference booted in a child process
 * (src/cli/reference-process.ts) or the one configured, the probe
 * that checks it answers and takes the key, and the choice of fixture strategy.
 */
import { CliError } from '../command.ts';
import type { KeyRef, RunConfig } from '../../engine/config/index.ts';
import type { HttpClient } from '../../engine/http/client.ts';
import type { Exchange } from '../../engine/types.ts';
import { registerSecret, redact } from '../../engine/redact.ts';
import type { TargetContext } from '../../engine/context.ts';

const UNKNOWN_CUSTOMER = '/v0/customers/cus_conformprobe0';
/** No resourceId: a documented route answers 400 (a required parameter is missing), never 404. */
const NEVER_404 = '/v0/alerts';
/** A route that exists nowhere, ending like UNKNOWN_CUSTOMER so that an echoed path or id reads the same. */
const NO_SUCH_ROUTE = '/v0/conformProbeNoSuchRoute/cus_conformprobe0';

/**
 * Before the run: is anything there, does it take the key, and does the base URL lead to
 * the API? Authenticated GETs only, on endpoints without a rate bucket; nothing is created.
 * `keyFrom` says where the key was read from (KeyRef.from).
 */
export async function probe(client: HttpClient, keyFrom?: string): Promise<void> {
  const first = await client.get(UNKNOWN_CUSTOMER);
  if (first.transportError) throw new CliError(`cannot reach the target at ${client.baseUrl}: ${first.transportError}`);
  if (first.status === 401)
    throw new CliError(
      `the target at ${client.baseUrl} rejected the API key (401 on GET /v0/customers/{id})` +
        (keyFrom ? `: check the key in ${keyFrom}` : ''),
    );
  const wrong = await routeLevel404(client, first);
  if (wrong) throw new CliError(wrong);
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

/**
 * Chooses the fixture strategy through the fixtures module: explicit config > bundled
 * reference > configured file/module > extension probe (probe.ts; never a documented
 * route) > none. Then checks a file or module loads.
 */
export async function fixtureChoice(
  config: RunConfig,
  bundled: boolean,
  client: HttpClient,
  target: Omit<TargetContext, 'fixtures'>,
): Promise<TargetContext['fixtures']> {
  const fx = await import('../../engine/fixtures/index.ts');
  const choice = await fx.resolveFixtureStrategy({ bundled, fixtures: config.fixtures }, client);
  if (choice.strategy === 'file' || choice.strategy === 'module') {
    // A configuration problem must stop the run here (exit 2), not fail every scenario in the workers.
    try {
      const fixtures = await fx.createFixtures({ ...target, fixtures: choice }, client);
      await fixtures.close();
    } catch (err) {
      if ((err as Error)?.name === 'FixtureConfigError' || err instanceof fx.FixtureConfigError)
        throw new CliError(
          redact(
            String((err as Error).message)
              .split('\n')
              .join('; '),
          ),
        );
      throw err;
    }
  }
  return choice;
}

/** The target a run goes against, and how to let go of it when the run ends. */
export interface BootedTarget {
  baseUrl: string;
  apiKey: KeyRef;
  merchantId?: string;
  bundled: boolean;
  close(): Promise<void>;
}

/**
 * The bundled reference, in a child process (src/cli/reference-process.ts), on a free
 * loopback port with an in-memory database and a fresh key.
 */
export async function bootReference(): Promise<BootedTarget> {
  let ref;
  try {
    const { startReferenceProcess } = await import('../reference-process.ts');
    ref = await startReferenceProcess();
  } catch (err) {
    throw new CliError(
      `could not start the bundled reference server: ${redact(String((err as Error).message).split('\n')[0])}`,
    );
  }
  registerSecret(ref.key, 'CONFORM_API_KEY', 'the key of the bundled reference (gone with the run)');
  return {
    baseUrl: ref.baseUrl,
    apiKey: { value: ref.key, label: 'CONFORM_API_KEY' },
    merchantId: ref.merchantId,
    bundled: true,
    close: () => ref.close(),
  };
}
