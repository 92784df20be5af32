/**
 * The CLI's one way into the reference server. Commands import this module (lazily, so
 * that a run against a remote target never loads the server); no other file of the CLI,
 * the engine or the suites imports src/reference (test/architecture/walls.test.ts).
 */
export {
  optionsFromEnv,
  startReferenceServer,
  type ReferenceOptions,
  type RunningReference,
} from '../reference/index.ts';
export { parseRateLimitFlag, RateLimitConfigError } from '../reference/ratelimit/limits.ts';
