import { defineCheck, finding, describeStatus, ruleOperations } from './types.ts';

/** The Errors section's status table applies to every operation. */
const GLOBAL_ERROR_STATUSES = new Set([400, 401, 403, 404, 409, 429]);

export const statusDocumented = defineCheck({
  name: 'status-documented',
  ruleIds: ['STATUS.DOCUMENTED.ONLY', 'STATUS.SUCCESS.CODE'],
  description:
    'The status is documented for the operation (exact code, range like 2XX, or the Errors status table); 5xx never is.',
  evaluate(ex, ctx, op) {
    if (ex.status === undefined || !op) return;
    const s = ex.status;
    // Where the document gives the success code (200): the operations spec/rules.yaml names for STATUS.SUCCESS.CODE.
    const explicit = ruleOperations(ctx, 'STATUS.SUCCESS.CODE').includes(op.operationId);
    const judged =
      explicit && s >= 200 && s < 300 ? ['STATUS.DOCUMENTED.ONLY', 'STATUS.SUCCESS.CODE'] : ['STATUS.DOCUMENTED.ONLY'];
    const declared = ctx.spec.responseFor(op.operationId, s);
    // A `default` response documents error shapes, not server failures: 5xx and 1xx/3xx are never documented.
    // A `default` response: the document says errors exist ("Errors in Error shape", "Six error
    // bodies in Error shape exist; which status each has: not shown") but not their status: any 4xx.
    const documented =
      s >= 200 && s < 300
        ? declared !== undefined && declared.key !== 'default' && !(explicit && s !== 200)
        : s >= 400 && s < 500 && (GLOBAL_ERROR_STATUSES.has(s) || declared !== undefined);
    if (documented) return { judged, findings: [] };
    const ruleIds = explicit && s >= 200 && s < 300 ? ['STATUS.SUCCESS.CODE'] : ['STATUS.DOCUMENTED.ONLY'];
    const keys = Object.keys(op.responses ?? {});
    const why =
      s >= 500
        ? 'a server error is not a documented outcome'
        : `documented: ${keys.length ? keys.join(', ') : 'none'} and the Errors table (400, 401, 403, 404, 409, 429)` +
          (keys.includes('default') ? '' : '; the document gives no error of open status for this operation');
    return {
      judged,
      findings: [
        finding(
          'status-documented',
          ruleIds,
          `Undocumented status ${s} for ${op.operationId}`,
          `${describeStatus(ex)}; ${why}.`,
          ex,
        ),
      ],
    };
  },
});
