/**
 * The target of `conform run`: the bundled reference booted in process (through
 * src/cli/reference.ts, the CLI's one way into src/reference) or the one configured, the probe
 * that checks it answers and takes the key, and the choice of fixture strategy.
 */
import { randomBytes } from 'node:crypto';
import { CliError } from '../command.ts';
import type { KeyRef, RunConfig } from '../../engine/config/index.ts';
import type { HttpClient } from '../../engine/http/client.ts';
import { registerSecret, redact } from '../../engine/redact.ts';
import type { TargetContext } from '../../engine/context.ts';

/**
 * One authenticated GET on an unlisted endpoint (no rate bucket): is anything there, and does
 * it take the key? `keyFrom` says where the key was read from (KeyRef.from).
 */
export async function probe(client: HttpClient, keyFrom?: string): Promise<void> {
  const first = await client.get('/v0/customers/cus_conformprobe0');
  if (first.transportError) throw new CliError(`cannot reach the target at ${client.baseUrl}: ${first.transportError}`);
  if (first.status === 401)
    throw new CliError(
      `the target at ${client.baseUrl} rejected the API key (401 on GET /v0/customers/{id})` +
        (keyFrom ? `: check the key in ${keyFrom}` : ''),
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

/** The bundled reference, in process, on a free loopback port with an in-memory database and a fresh key. */
export async function bootReference(): Promise<BootedTarget> {
  const key = `sk_test_${randomBytes(12).toString('hex')}`;
  registerSecret(key, 'CONFORM_API_KEY', 'the key of the bundled reference (gone with the run)');
  let ref;
  try {
    const { startReferenceServer } = await import('../reference.ts');
    ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory', apiKey: key });
  } catch (err) {
    throw new CliError(
      `could not start the bundled reference server: ${redact(String((err as Error).message).split('\n')[0])}`,
    );
  }
  return {
    baseUrl: ref.baseUrl,
    apiKey: { value: key, label: 'CONFORM_API_KEY' },
    merchantId: ref.merchantId,
    bundled: true,
    close: () => ref.close(),
  };
}
