import type { ChildProcess } from 'node:child_process';

export type ReferenceReady = { baseUrl: string; merchantId: string } | { error: string };

export interface ForkedReference {
  /** The sandbox merchant's key the child serves (never print it). */
  key: string;
  child: ChildProcess;
  /** Where it listens once it does, or why it could not start. */
  ready: Promise<ReferenceReady>;
}

export function forkReference(): ForkedReference;

/** Whether CI is set (to anything but empty, 0 or false). */
export function inCi(env?: NodeJS.ProcessEnv): boolean;

/** Whether `conform run` with these arguments tests the bundled reference, as far as its arguments tell. */
export function boundForReference(args: string[], env?: NodeJS.ProcessEnv): boolean;
