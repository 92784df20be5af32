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
