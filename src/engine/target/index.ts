/**
 * What a suite knows about its target: resolved once by the run (config, flags, probe) and
 * handed to every suite worker (scenario/worker.ts reads it there).
 */
import type { FixtureCommandRef, FixtureStrategyName, KeyRef, Profile } from '../config/index.ts';
import type { Expectation } from '../config/expectations.ts';

export interface TargetContext {
  runId: string;
  baseUrl: string;
  /** The bundled reference server, started by `conform run`. */
  bundled: boolean;
  /** The reference server run apart, declared in the config: its own choices (rules of kind reference) apply. */
  referenceServer?: boolean;
  sandbox: boolean;
  apiKey: KeyRef;
  secondKey?: KeyRef;
  otherMerchantKey?: KeyRef;
  /** The primary key's merchant, when known up front. */
  merchantId?: string;
  profile: Profile;
  seed: number;
  /** Whether destructive scenarios (deletes, refunds) may run. */
  destructive: boolean;
  fixtures: {
    strategy: FixtureStrategyName;
    file?: string;
    module?: string;
    command?: FixtureCommandRef;
    reason: string;
  };
  /** One request to the target, in milliseconds. */
  timeoutMs: number;
  /** One scenario, in milliseconds (default 180 s): past it, its rules are not judged (target too slow). */
  scenarioTimeoutMs?: number;
  /** When the whole run must end (epoch milliseconds; none: unbounded): scenarios past it are not judged. */
  runDeadline?: number;
  /**
   * Where a worker lists what its fixtures made and kept because a failure of the run may name
   * it (JSON lines of removal requests): the run's report lists them. None: nothing is kept.
   */
  keptFile?: string;
  /** Known differences declared in the config (config/expectations.ts): a finding one covers fails nothing. */
  expectedFailures?: Expectation[];
}

/** The target a run goes against, as booted or configured, and how to let go of it when the run ends. */
export interface BootedTarget {
  baseUrl: string;
  apiKey: KeyRef;
  merchantId?: string;
  /** The bundled reference server, booted for this run. */
  bundled: boolean;
  close(): Promise<void>;
}

/** The run could not be done as asked (a target that does not answer, a config naming unknown rules): one line, exit 2. */
export class RunNotStarted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunNotStarted';
  }
}
