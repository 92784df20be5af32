/**
 * Everything that crosses between a run and its vitest workers, in one place. The workers are
 * threads of the run's process: nothing here leaves that process.
 *
 * - **The target** (TargetContext, keys included), run → workers: through vitest's `provide`
 *   when the run knows it before the workers start, else over a BroadcastChannel of the run's
 *   own (target/channel.ts) whose name `provide` carries. A worker waits for it in its first
 *   scenario (scenario/worker.ts, awaitTarget).
 * - **Each scenario's record** (ScenarioRecord: the rules it cites and judged, its findings,
 *   not-judged marks and engine errors), workers → run: on the test's task meta, written by
 *   scenario/index.ts and read by the collector (runner/collector.ts) as each test ends.
 * - **The setup file** every suite file loads (runner/fixture-cleanup.ts): it releases the
 *   worker's fixtures when the file is done.
 */
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import type { TestCase } from 'vitest/node';
import type { ScenarioRecord } from './types.ts';
import type { TargetContext } from '../target/index.ts';
import { offerTarget, receiveTarget } from '../target/channel.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The target, when the run knew it before starting the workers. */
    conformTarget?: TargetContext;
    /** Else the BroadcastChannel the run offers it on. */
    conformTargetChannel?: string;
  }
}

/** The run's side: what to `provide` the workers so that they get `target`, and the channel to close after the run. */
export function provideTarget(
  target: TargetContext | Promise<TargetContext>,
  channelName: string,
): { provide: { conformTarget?: TargetContext; conformTargetChannel?: string }; close(): void } {
  if (!(target instanceof Promise)) return { provide: { conformTarget: target }, close: () => undefined };
  const offer = offerTarget(channelName, target);
  return { provide: { conformTargetChannel: channelName }, close: () => offer.close() };
}

/** A worker's side: the target as provided, or a promise of it over the run's channel; undefined outside a run. */
export function providedTarget(): { target: TargetContext } | { later: () => Promise<TargetContext> } | undefined {
  const target = inject('conformTarget');
  if (target) return { target };
  const channel = inject('conformTargetChannel');
  return channel ? { later: () => receiveTarget(channel) } : undefined;
}

/** A worker's side: the record of the scenario running as `task`, where the run will read it. */
export function attachRecord(task: { meta: object }, record: ScenarioRecord): void {
  (task.meta as { conform?: ScenarioRecord }).conform = record;
}

/** The run's side: the record of an ended test, when it was a scenario. */
export function recordOf(test: TestCase): ScenarioRecord | undefined {
  return (test.meta() as { conform?: ScenarioRecord }).conform;
}

/** The files vitest loads before each suite file. */
export const SETUP_FILES = [fileURLToPath(new URL('../runner/fixture-cleanup.ts', import.meta.url))];
