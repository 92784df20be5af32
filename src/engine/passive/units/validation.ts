/**
 * The server's side of the documented constraints: a request that breaks one must not
 * succeed. A 2xx to it fails the VALIDATION rule of the kind broken; a 400 (400 or 404
 * for a path id outside its pattern) holds it. Any other answer (401, 403, 404, 409,
 * 429...) came for another reason first and judges nothing. Whether a valid request may
 * get 400 is not judged here: traffic does not show why a real request was refused.
 */
import { CONSTRAINT_RULE as KIND_RULE } from '../../generators/constraints.ts';
import type { PassiveUnit } from '../types.ts';
import { brokenConstraints } from '../requests.ts';

export const validationUnit: PassiveUnit = {
  name: 'validation',
  scope: 'server',
  title: 'requests breaking a documented constraint get 400',
  ruleIds: [...new Set(Object.values(KIND_RULE))],
  observe(o, ctx) {
    const status = o.record.status;
    if (!o.documented || !o.operation || status === undefined) return;
    const [, query = ''] = o.record.path.split(/\?(.*)/s);
    const { broken } = brokenConstraints(ctx.spec, {
      operationId: o.operation.operationId,
      pathParams: o.params,
      query,
      body: o.sent,
      bodyNotJson: false,
    });
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
