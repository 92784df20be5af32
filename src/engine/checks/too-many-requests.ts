import { defineCheck, finding, isObject, describeStatus } from './types.ts';
import type { Finding } from '../types.ts';
import { readRetryAfter } from '../http/retry.ts';
import { categoryOf, nameOf, perRules } from '../predicates.ts';

const BODY = 'RATE.EXCEEDED.BODY#error-body';

/** The wait header RATE.RETRY_AFTER.ON_429 names, and the category ERRORS.CATEGORY.MATCHES_STATUS gives 429. */
const facts = perRules((rules) => ({
  retryAfter: nameOf(rules, 'RATE.RETRY_AFTER.ON_429', 'header'),
  category: categoryOf(rules, 429),
}));

/**
 * Every 429: an Error body with error rate_limit_exceeded and a message (RATE.EXCEEDED.BODY's
 * body part; that two endpoints' messages differ is a scenario's). retry-after is required
 * only on the six listed endpoints (op.rateLimit), where RATE.RETRY_AFTER.ON_429 is judged;
 * elsewhere the retry rule ("if absent wait one second") lets it be absent: a malformed one
 * is still a finding (seconds, or an HTTP-date, HTTP's other form of the same wait, RFC 9110
 * §10.2.3), but a well-formed one judges nothing, so the rule never passes on unlisted 429s alone.
 */
export const tooManyRequests = defineCheck({
  name: 'too-many-requests',
  ruleIds: ['RATE.RETRY_AFTER.ON_429', BODY],
  description:
    'A 429 carries an Error body with the 429 category and a message; the wait header ' +
    '(required on the listed endpoints) gives seconds or an HTTP-date.',
  evaluate(ex, ctx, op) {
    if (ex.status !== 429 || !op) return;
    const { retryAfter: RETRY_AFTER, category } = facts(ctx.rules);
    const findings: Finding[] = [];
    const ra = ex.responseHeaders[RETRY_AFTER];
    const required = op.rateLimit !== undefined;
    if ((ra === undefined && required) || (ra !== undefined && !readRetryAfter(ra, ex.responseHeaders.date))) {
      findings.push(
        finding(
          'too-many-requests',
          ['RATE.RETRY_AFTER.ON_429'],
          `429 without a readable ${RETRY_AFTER}`,
          `${describeStatus(ex)}: ${RETRY_AFTER} is ${ra === undefined ? 'missing' : JSON.stringify(ra)}; ` +
            `it must give the seconds to wait (or the HTTP-date to retry at).`,
          ex,
        ),
      );
    }
    const b = ex.body;
    // The document asks for an endpoint-specific message: an empty one says nothing.
    if (!isObject(b) || b.error !== category || typeof b.message !== 'string' || b.message.trim() === '') {
      const got = isObject(b)
        ? `error ${JSON.stringify(b.error ?? null)}, ` +
          `message ${typeof b.message === 'string' ? (b.message.trim() ? 'present' : 'empty') : 'missing'}`
        : 'no JSON object body';
      findings.push(
        finding('too-many-requests', [BODY], `429 body is not ${category}`, `${describeStatus(ex)}: ${got}.`, ex),
      );
    }
    return { judged: required ? ['RATE.RETRY_AFTER.ON_429', BODY] : [BODY], findings };
  },
});
