/**
 * The bundled reference server as a run's target: booted in a child process
 * (src/cli/reference-process.ts) on a free loopback port with an in-memory database and a
 * fresh key, let go when the run ends.
 */
import { CliError } from './command.ts';
import { registerSecret, redact } from '../engine/http/redact.ts';
import type { BootedTarget } from '../engine/target/index.ts';

/**
 * The bundled reference, in a child process (src/cli/reference-process.ts), on a free
 * loopback port with an in-memory database and a fresh key.
 */
export async function bootReference(): Promise<BootedTarget> {
  let ref;
  try {
    const { startReferenceProcess } = await import('./reference-process.ts');
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
