import { defineCheck, is2xx, finding, isObject, describeStatus, judgeableResponse } from './types.ts';

/**
 * The `object` value a response schema fixes (properties.object.const or a one-value enum),
 * looking through allOf/$ref-free compositions.
 */
export function expectedObjectName(schema: unknown, depth = 0): string | undefined {
  if (!isObject(schema) || depth > 6) return undefined;
  const props = schema.properties;
  if (isObject(props) && isObject(props.object)) {
    const o = props.object;
    if (typeof o.const === 'string') return o.const;
    if (Array.isArray(o.enum) && o.enum.length === 1 && typeof o.enum[0] === 'string') return o.enum[0];
  }
  for (const key of ['allOf'] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) {
      for (const p of parts) {
        const name = expectedObjectName(p, depth + 1);
        if (name) return name;
      }
    }
  }
  return undefined;
}

/** Resource representations carry `object` with their type name (from the declared schema). */
export const objectName = defineCheck({
  name: 'object-name',
  ruleIds: ['CONV.OBJECT.TYPE_NAME'],
  description: 'A success body carries the `object` type name its schema declares (e.g. customer, item, list).',
  evaluate(ex, ctx, op) {
    if (!op || !is2xx(ex) || !isObject(ex.body)) return;
    const declared = judgeableResponse(ctx, op, ex.status);
    const want = expectedObjectName(declared?.schema);
    if (!want) return;
    const got = ex.body.object;
    if (got === want) return { judged: ['CONV.OBJECT.TYPE_NAME'], findings: [] };
    return {
      judged: ['CONV.OBJECT.TYPE_NAME'],
      findings: [
        finding(
          'object-name',
          ['CONV.OBJECT.TYPE_NAME'],
          `${op.operationId} returns object ${JSON.stringify(got ?? null)}, not '${want}'`,
          `${describeStatus(ex)}: the representation's object field must be '${want}'.`,
          ex,
        ),
      ],
    };
  },
});
