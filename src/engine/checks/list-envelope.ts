import { objectNameOf } from '../predicates.ts';
import { defineCheck, is2xx, finding, isObject, describeStatus, ruleOperations, type SpecView } from './types.ts';

export function listEnvelopeProblems(body: unknown, spec: SpecView): string[] {
  if (!isObject(body)) return ['body is not an object'];
  const p: string[] = [];
  const list = objectNameOf(spec, 'ListEnvelope');
  if (body.object !== list) p.push(`object is ${JSON.stringify(body.object ?? null)}, not '${list}'`);
  if (!Array.isArray(body.data)) p.push('data is not an array');
  const pg = body.pagination;
  if (!isObject(pg)) p.push('pagination is missing');
  // limit, offset and total are integers where present (rules.yaml: CONV.LIST.ENVELOPE).
  else
    for (const k of ['limit', 'offset', 'total'])
      if (pg[k] !== undefined && !Number.isInteger(pg[k]))
        p.push(`pagination.${k} is ${JSON.stringify(pg[k])}, not an integer`);
  return p;
}

/** List responses: object list, a data array, a pagination object (limit, offset, total integers where present). */
export const listEnvelope = defineCheck({
  name: 'list-envelope',
  ruleIds: ['CONV.LIST.ENVELOPE'],
  description:
    'List responses have object list, a data array and a pagination object whose limit, offset, total are integers where present.',
  evaluate(ex, ctx, op) {
    // The list operations are the ones spec/rules.yaml names for the rule.
    if (!op || !is2xx(ex) || !ruleOperations(ctx, 'CONV.LIST.ENVELOPE').includes(op.operationId)) return;
    const problems = listEnvelopeProblems(ex.body, ctx.spec);
    return {
      judged: ['CONV.LIST.ENVELOPE'],
      findings: problems.length
        ? [
            finding(
              'list-envelope',
              ['CONV.LIST.ENVELOPE'],
              `${op.operationId} is not a list envelope`,
              `${describeStatus(ex)}: ${problems.join('; ')}`,
              ex,
            ),
          ]
        : [],
    };
  },
});
