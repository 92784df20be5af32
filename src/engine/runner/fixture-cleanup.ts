/**
 * Loaded by vitest before each suite file (setupFiles): when the file is done, whatever
 * describe blocks it holds, the worker's fixtures release what they created. (A hook a scenario
 * registered would belong to the describe block it was defined in, and close the fixtures while
 * the file's later blocks still need them.) A worker that never learnt the target made nothing.
 */
import { afterAll } from 'vitest';
import { closeWorkerFixtures, knownTarget } from '../scenario/worker.ts';
import { DEFAULT_SCENARIO_TIMEOUT_MS } from '../target/time-limits.ts';

afterAll(() => {
  const target = knownTarget();
  if (target) return closeWorkerFixtures(target.scenarioTimeoutMs ?? DEFAULT_SCENARIO_TIMEOUT_MS, target.keptFile);
});
