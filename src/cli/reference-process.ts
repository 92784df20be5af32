/**
 * The bundled reference of `conform run`, in a process of its own: it boots on the other core
 * while this process loads vitest and the spec, and it serves the run without sharing this
 * process's event loop (which relays the suite workers' messages) or its memory. bin/conform.js
 * forks it first thing when a run looks bound for the bundled reference; a run adopts that
 * child, or forks one now.
 */
import { forkReference, type ForkedReference } from './reference-fork.js';

/** Where bin/conform.js leaves the child it forked early. */
const EARLY = Symbol.for('billing-conform.reference-child');

export interface ReferenceProcess {
  baseUrl: string;
  merchantId: string;
  /** The sandbox merchant's key (never print it). */
  key: string;
  /** Lets the child go and waits for it to end. */
  close(): Promise<void>;
}

/** The early child, taken once, if it is still alive. */
function takeEarly(): ForkedReference | undefined {
  const g = globalThis as Record<symbol, ForkedReference | undefined>;
  const early = g[EARLY];
  delete g[EARLY];
  return early && early.child.exitCode === null && early.child.signalCode === null ? early : undefined;
}

/** Starts (or adopts) the reference child; rejects with the child's reason when it cannot listen. */
export async function startReferenceProcess(): Promise<ReferenceProcess> {
  const { key, child, ready } = takeEarly() ?? forkReference();
  // Adopted: this process now waits for it.
  child.ref();
  child.channel?.ref();
  const answer = await ready;
  if ('error' in answer) {
    child.kill('SIGKILL');
    throw new Error(answer.error);
  }
  return {
    key,
    baseUrl: answer.baseUrl,
    merchantId: answer.merchantId,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        if (child.connected) child.disconnect();
        else child.kill('SIGTERM');
      }),
  };
}
