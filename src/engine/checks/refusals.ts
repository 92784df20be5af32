/**
 * The server's side of the documented constraints, on any exchange whose request breaks one
 * (checks/request-breaks.ts reads it the same way in `conform run` and the passive judge): 400
 * holds the VALIDATION rule of each kind broken (400 or 404 for a path parameter outside its
 * pattern). A JSON body that does not parse is "not understood" (ERRORS.400.BODY): 400 holds it.
 *
 * Traffic does not say why a request was refused, so by default only a 2xx fails: any other
 * answer (401, 403, 404, 409, 429, 5xx...) may have come for another reason first and judges
 * nothing. A scenario that broke the request on purpose, everything else valid
 * (`brokenOnPurpose`), knows better: any other answer fails, except to a request sent without
 * credentials or a 429 that outlasted the retries, which judge nothing.
 */
import { CONSTRAINT_RULE } from '../generators/constraints.ts';
import type { Exchange, Finding } from '../types.ts';
import { defineCheck, finding, type CheckContext } from './types.ts';

const NOT_UNDERSTOOD = 'ERRORS.400.BODY#not-understood';
const TOO_MANY = 429;

/** A body sent as JSON (by its content type) whose text does not parse. */
function notJson(ex: Exchange, ctx: CheckContext): boolean {
  const type = Object.entries(ex.requestHeaders).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  return /json/i.test(type) && ctx.request.bodyNotJson;
}

const success = (status: number) => status >= 200 && status < 300;

export const refusals = defineCheck({
  name: 'refusals',
  ruleIds: [...new Set(Object.values(CONSTRAINT_RULE)), NOT_UNDERSTOOD],
  description:
    'A request breaking a documented constraint gets 400 (400 or 404 for a path id outside its pattern); ' +
    'a JSON body that does not parse gets 400.',
  evaluate(ex, ctx, op) {
    const status = ex.status;
    if (!op || status === undefined || !ctx.brokenRequest) return;
    const onPurpose = !!ctx.brokenOnPurpose;
    // Another reason came first: no credentials (401), or a bucket still used up after the retries.
    if (onPurpose && (ctx.unauthenticated || status === TOO_MANY)) return;
    const judged = new Set<string>();
    const findings: Finding[] = [];
    const judge = (rule: string, accepted: number[], title: string, what: string) => {
      const refused = accepted.includes(status);
      if (!refused && !onPurpose && !success(status)) return;
      judged.add(rule);
      if (refused) return;
      const why = onPurpose ? ' (the request was broken on purpose, everything else valid)' : '';
      findings.push(
        finding(
          'refusals',
          [rule],
          title,
          `${ex.method} ${op.pathTemplate} → ${status}: ${what}; the document refuses it with ${accepted.join(' or ')}${why}.`,
          ex,
        ),
      );
    };
    if (notJson(ex, ctx))
      judge(NOT_UNDERSTOOD, [400], `A body that is not JSON got ${status}`, 'the JSON body does not parse');
    else
      for (const b of ctx.brokenConstraints ?? [])
        judge(
          CONSTRAINT_RULE[b.constraint.kind],
          b.constraint.location === 'path' ? [400, 404] : [400],
          `Request breaking ${b.constraint.label} got ${status}`,
          b.what,
        );
    return judged.size ? { judged: [...judged], findings } : undefined;
  },
});
