import { defineCheck, finding, describeStatus } from './types.ts';
import type { Finding } from '../types.ts';
import { perRules, rateHeaderNames } from '../predicates.ts';

/** The rate headers RATE.HEADERS.PRESENT names, from the context's rules. */
export const rateHeadersOf = perRules(rateHeaderNames);
const NON_NEGATIVE_INT = /^\d+$/;
const NON_NEGATIVE_NUMBER = /^\d+(\.\d+)?$/;

/**
 * On the six listed endpoints, every authenticated request (any status but 401) gets the
 * three x-ratelimit headers: limit and remaining as non-negative integers, reset as a
 * non-negative number of seconds (a fraction allowed); the limit is at least the
 * published one (it may rise, never fall) and reset is within the window. Unlisted
 * endpoints' x-ratelimit headers are never judged (RATE.UNLISTED.NOT_JUDGED).
 */
export const rateHeaders = defineCheck({
  name: 'rate-headers',
  ruleIds: [
    'RATE.HEADERS.PRESENT',
    'RATE.REMAINING.NON_NEGATIVE',
    'RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED',
    'RATE.RESET.WITHIN_WINDOW',
    'RATE.REMAINING.HONOURED#counted',
  ],
  description:
    'the limit and remaining (integers) and reset (seconds) headers are present, limit >= published, ' +
    'reset within the window, remaining below limit on an admitted request, on the listed endpoints.',
  evaluate(ex, ctx, op) {
    const NAMES = rateHeadersOf(ctx.rules);
    const { limit: LIMIT, remaining: REMAINING, reset: RESET } = NAMES;
    const rl = op?.rateLimit;
    if (!rl || ex.status === undefined || ex.status === 401 || ctx.unauthenticated) return;
    const findings: Finding[] = [];
    const h = ex.responseHeaders;
    const judged = ['RATE.HEADERS.PRESENT'];
    // Counts are whole; reset is seconds, and the document does not say whole seconds.
    const bad = NAMES.all.filter(
      (n) =>
        h[n] === undefined || !(NAMES.seconds.includes(n) ? NON_NEGATIVE_NUMBER : NON_NEGATIVE_INT).test(h[n].trim()),
    );
    if (bad.length) {
      const what = bad.map((n) => (h[n] === undefined ? `${n} missing` : `${n} = ${JSON.stringify(h[n])}`)).join('; ');
      const ruleIds =
        bad.includes(REMAINING) && /^-\d+$/.test(h[REMAINING]?.trim() ?? '')
          ? ['RATE.HEADERS.PRESENT', 'RATE.REMAINING.NON_NEGATIVE']
          : ['RATE.HEADERS.PRESENT'];
      findings.push(
        finding(
          'rate-headers',
          ruleIds,
          `Rate headers missing or not integers on ${op!.operationId}`,
          `${describeStatus(ex)}: ${what}.`,
          ex,
        ),
      );
    }
    if (h[REMAINING] !== undefined) judged.push('RATE.REMAINING.NON_NEGATIVE');
    const limit = Number(h[LIMIT]);
    if (h[LIMIT] !== undefined && Number.isFinite(limit)) {
      judged.push('RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED');
      if (limit < rl.limit)
        findings.push(
          finding(
            'rate-headers',
            ['RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED'],
            `${LIMIT} ${limit} below the published ${rl.limit}`,
            `${describeStatus(ex)}: the published limit is ${rl.limit} per ${rl.windowSeconds} s and does not fall.`,
            ex,
          ),
        );
    }
    // An admitted request was counted: what remains after it is below the limit, whatever the limiter.
    const remaining = Number(h[REMAINING]);
    if (ex.status >= 200 && ex.status < 300 && !bad.includes(REMAINING) && !bad.includes(LIMIT)) {
      judged.push('RATE.REMAINING.HONOURED#counted');
      if (remaining >= limit)
        findings.push(
          finding(
            'rate-headers',
            ['RATE.REMAINING.HONOURED#counted'],
            `${REMAINING} ${remaining} not below ${LIMIT} ${limit} on an admitted request`,
            `${describeStatus(ex)}: the request was admitted, so it was counted: at most ${limit - 1} can remain.`,
            ex,
          ),
        );
    }
    const reset = Number(h[RESET]);
    if (h[RESET] !== undefined && Number.isFinite(reset)) {
      judged.push('RATE.RESET.WITHIN_WINDOW');
      if (reset > rl.windowSeconds)
        findings.push(
          finding(
            'rate-headers',
            ['RATE.RESET.WITHIN_WINDOW'],
            `${RESET} ${reset} beyond the ${rl.windowSeconds} s window`,
            `${describeStatus(ex)}: reset counts the seconds until the window resets.`,
            ex,
          ),
        );
    }
    return { judged, findings };
  },
});
