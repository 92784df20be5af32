import { defineCheck, finding } from './types.ts';

/**
 * No response, or a body that is not JSON. A transport failure cites no rule of its
 * own: the scenario that sent the request fails with its rules (a request that ran out of
 * time never gets here in a scenario: slowness leaves its rules not judged). A non-JSON
 * body breaks "Bodies are JSON".
 */
export const transport = defineCheck({
  name: 'transport',
  ruleIds: ['CONV.CONTENT_TYPE.JSON'],
  description: 'The target answered with a complete response whose body, when present, is JSON.',
  always: true,
  evaluate(ex, _ctx, op) {
    if (ex.transportError) {
      return {
        judged: [],
        findings: [finding('transport', [], 'No usable response', `${ex.method} ${ex.path}: ${ex.transportError}`, ex)],
      };
    }
    if (!op || op.extension) return;
    if (ex.jsonError) {
      return {
        judged: ['CONV.CONTENT_TYPE.JSON'],
        findings: [
          finding(
            'transport',
            ['CONV.CONTENT_TYPE.JSON'],
            'Response body is not JSON',
            `${ex.method} ${ex.path} → ${ex.status}: ${ex.jsonError}`,
            ex,
          ),
        ],
      };
    }
    return;
  },
});
