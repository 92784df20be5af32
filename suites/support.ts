/** Helpers shared by the scenario suites (not a suite itself: only *.suite.ts files are run). */
import type { Exchange } from '../src/engine/types.ts';
import type { ScenarioContext } from '../src/engine/scenario.ts';

/**
 * A request meeting every documented constraint is not refused with 400. Judged on an answer
 * that says something about the request (2xx to 4xx): a 5xx or no answer at all shows
 * nothing about its validation, and other rules judge those.
 */
export function notRefused(t: ScenarioContext, ex: Exchange): void {
  if (ex.status === undefined || ex.status >= 500) return;
  t.checkRule('VALIDATION.VALID_REQUEST.NOT_400', ex.status !== 400, `a request meeting every documented constraint got 400`, ex);
}
