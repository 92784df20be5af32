/**
 * The server's side of the documented constraints: a request that breaks one must not
 * succeed. A 2xx to it fails the VALIDATION rule of the kind broken; a 400 (400 or 404
 * for a path id outside its pattern) holds it. Any other answer (401, 403, 404, 409,
 * 429...) came for another reason first and judges nothing. Whether a valid request may
 * get 400 is not judged here: traffic does not show why a real request was refused.
 * A JSON body that does not parse is "not understood": 400 holds ERRORS.400.BODY, a 2xx
 * fails it (as the contract suite's malformed-body scenario judges it).
 */
import { CONSTRAINT_RULE as KIND_RULE } from '../../engine/generators/constraints.ts';
import type { Observed, PassiveUnit } from '../types.ts';
import { brokenConstraints } from '../../engine/generators/broken.ts';

const NOT_UNDERSTOOD = 'ERRORS.400.BODY';

/** A body sent as JSON (by its content type) whose text does not parse. */
function notJson(o: Observed): boolean {
  const type = o.record.requestHeaders['content-type'] ?? '';
  return /json/i.test(type) && o.request.bodyNotJson;
}

export const validationUnit: PassiveUnit = {
  name: 'validation',
  scope: 'server',
  title: 'requests breaking a documented constraint get 400',
  ruleIds: [...new Set([...Object.values(KIND_RULE), NOT_UNDERSTOOD])],
  observe(o, ctx) {
    const status = o.record.status;
    if (!o.documented || !o.operation || status === undefined) return;
    if (notJson(o)) {
      const tally = ctx.server(this);
      if (status === 400) tally.judge(NOT_UNDERSTOOD);
      else if (status >= 200 && status < 300)
        tally.check([NOT_UNDERSTOOD], false, () => ({
          source: 'passive:validation',
          title: 'A body that is not JSON accepted',
          message:
            `${o.record.method} ${o.operation!.pathTemplate} → ${status}: the JSON body does not parse; ` +
            'the document answers a request it does not understand with 400.',
          exchange: o.exchange,
        }));
      return;
    }
    const { broken } = brokenConstraints(ctx.spec, { ...o.request, operationId: o.operation.operationId });
    if (!broken.length) return;
    const accepted = (b: (typeof broken)[number]) => (b.constraint.location === 'path' ? [400, 404] : [400]);
    const tally = ctx.server(this);
    for (const b of broken) {
      const rule = KIND_RULE[b.constraint.kind];
      if (accepted(b).includes(status)) tally.judge(rule);
      else if (status >= 200 && status < 300) {
        tally.check([rule], false, () => ({
          source: 'passive:validation',
          title: `Request breaking ${b.constraint.label} accepted`,
          message: `${o.record.method} ${o.operation!.pathTemplate} → ${status}: ${b.what}; the document refuses it with 400.`,
          exchange: o.exchange,
        }));
      }
    }
  },
};
