/**
 * The response headers the contract names, read from spec/rules.yaml: the three rate headers
 * (RATE.HEADERS.PRESENT) and the wait a 429 gives (RATE.RETRY_AFTER.ON_429). The client's retry,
 * the replay scripts and every judge of rate limits use these names; none writes its own.
 */
import { loadRules } from '../../contract/rules.ts';
import { nameOf, rateHeaderNames } from '../predicates.ts';

const rules = await loadRules();
/** The three rate headers, as RATE.HEADERS.PRESENT names them. */
export const RATE_HEADER_NAMES = rateHeaderNames(rules);
export const { limit: LIMIT, remaining: REMAINING, reset: RESET } = RATE_HEADER_NAMES;
/** The wait a 429 gives, as RATE.RETRY_AFTER.ON_429 names it. */
export const RETRY_AFTER = nameOf(rules, 'RATE.RETRY_AFTER.ON_429', 'header');
