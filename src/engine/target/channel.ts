/**
 * How the target reaches the suite workers when vitest starts before the target is known (the
 * bundled reference still booting, the probe still out): the run offers it on a
 * BroadcastChannel of its own, and each worker asks for it when its first scenario starts.
 * The workers are threads of the run's process, so the target (and its keys) never leaves
 * that process's memory.
 */
import { BroadcastChannel } from 'node:worker_threads';
import type { TargetContext } from './index.ts';

type Message = { ask: true } | { target: TargetContext } | { error: string };

/**
 * The run's side: answers every ask once the target is known (or its error once it failed).
 * Closed before then (the workers had nothing to run), it sends nothing.
 */
export function offerTarget(name: string, target: Promise<TargetContext>): { close(): void } {
  const channel = new BroadcastChannel(name);
  let answer: Message | undefined;
  let closed = false;
  const send = () => {
    if (!closed && answer) channel.postMessage(answer);
  };
  void target
    .then(
      (t) => (answer = { target: t }),
      (err) => (answer = { error: String((err as Error)?.message ?? err).split('\n')[0] }),
    )
    .then(send);
  channel.onmessage = (event) => {
    const m = (event as { data?: Message }).data;
    if (m && 'ask' in m) send();
  };
  return {
    close: () => {
      closed = true;
      channel.close();
    },
  };
}

/** A worker's side: asks, and waits for the target (rejects with the run's reason when it has none). */
export function receiveTarget(name: string): Promise<TargetContext> {
  return new Promise((resolve, reject) => {
    const channel = new BroadcastChannel(name);
    channel.onmessage = (event) => {
      const m = (event as { data?: Message }).data;
      if (m && 'target' in m) resolve(m.target);
      else if (m && 'error' in m) reject(new Error(`the run has no target: ${m.error}`));
      else return;
      channel.close();
    };
    channel.postMessage({ ask: true } satisfies Message);
  });
}
