import { defineCheck, finding, describeStatus } from './types.ts';
import { rateHeadersOf } from './rate-headers.ts';
import { nameOf } from '../predicates.ts';

/** A 401 on a listed endpoint carries none of the rate headers (nor retry-after). */
export const failedAuthHeaders = defineCheck({
  name: 'failed-auth-headers',
  ruleIds: ['RATE.FAILED_AUTH.NO_HEADERS'],
  description:
    'Requests that fail authentication on the listed endpoints carry no rate-limit headers or the 429 wait header.',
  evaluate(ex, ctx, op) {
    if (ex.status !== 401 || !op?.rateLimit) return;
    const RETRY_AFTER = nameOf(ctx.rules, 'RATE.RETRY_AFTER.ON_429', 'header');
    const present = [...rateHeadersOf(ctx.rules).all, RETRY_AFTER].filter((n) => ex.responseHeaders[n] !== undefined);
    return {
      judged: ['RATE.FAILED_AUTH.NO_HEADERS'],
      findings: present.length
        ? [
            finding(
              'failed-auth-headers',
              ['RATE.FAILED_AUTH.NO_HEADERS'],
              '401 carries rate headers',
              `${describeStatus(ex)}: ${present.join(', ')} present on a request that failed authentication.`,
              ex,
            ),
          ]
        : [],
    };
  },
});
