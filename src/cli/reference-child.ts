/**
 * The bundled reference in a process of its own (reference-fork.js forks it for
 * reference-process.ts): it serves on a free loopback port with an in-memory database and
 * the key it was given in CONFORM_API_KEY, tells its parent where over the IPC channel, and
 * ends when the parent lets go of it (or dies: the channel closes).
 */
import type { ReferenceReady } from './reference-fork.js';

function tell(message: ReferenceReady): void {
  if (process.connected) process.send?.(message);
}

// A parent gone before the server listens (a run that stopped early) ends this process too.
let stop: () => void = () => process.exit(0);
process.once('disconnect', () => stop());
process.once('SIGTERM', () => stop());

try {
  const { startReferenceServer } = await import('./reference.ts');
  const ref = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    database: 'memory',
    apiKey: process.env.CONFORM_API_KEY,
  });
  stop = () => void ref.close().finally(() => process.exit(0));
  if (!process.connected) stop();
  else tell({ baseUrl: ref.baseUrl, merchantId: ref.merchantId });
} catch (err) {
  tell({ error: String((err as Error)?.message ?? err).split('\n')[0] });
  process.exit(1);
}
