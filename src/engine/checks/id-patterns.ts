import { defineCheck, is2xx, finding, isObject, describeStatus, bodyShown, type CheckContext } from './types.ts';
import type { Finding } from '../types.ts';
import { objectNameOf } from '../predicates.ts';

type IdFields = Record<string, Record<string, { pattern: RegExp; rule: string }>>;

const memo = new WeakMap<CheckContext['rules'], IdFields>();

/**
 * Fields whose pattern or prefix the document gives, by resource `object` name, as
 * spec/rules.yaml carries them: CONV.ID.PATTERNS (patterns and the fields that hold them),
 * PAYMENTS.ID.PREFIX and REFUNDS.ID.PREFIX (a prefix for one object's id). Only these are
 * judged: a merchantId the document types as a plain string is left alone.
 */
export function idFields(rules: CheckContext['rules']): IdFields {
  let out = memo.get(rules);
  if (out) return out;
  out = {};
  const params = rules.byId('CONV.ID.PATTERNS')?.params ?? {};
  const patterns = (params.patterns ?? {}) as Record<string, string>;
  for (const [object, fields] of Object.entries((params.fields ?? {}) as Record<string, Record<string, string>>)) {
    out[object] = Object.fromEntries(
      Object.entries(fields).map(([field, name]) => [
        field,
        { pattern: new RegExp(patterns[name]), rule: 'CONV.ID.PATTERNS' },
      ]),
    );
  }
  for (const rule of ['PAYMENTS.ID.PREFIX', 'REFUNDS.ID.PREFIX']) {
    const { prefix, object } = (rules.byId(rule)?.params ?? {}) as { prefix?: string; object?: string };
    if (prefix && object) out[object] = { ...out[object], id: { pattern: new RegExp(`^${prefix}`), rule } };
  }
  memo.set(rules, out);
  return out;
}

/** Resource representations found in a body: the body itself, list items, and `subscription`-style members. */
function representations(body: unknown, spec: CheckContext['spec']): Record<string, unknown>[] {
  if (!isObject(body)) return [];
  if (body.object === objectNameOf(spec, 'ListEnvelope') && Array.isArray(body.data)) return body.data.filter(isObject);
  return [body];
}

export const idPatterns = defineCheck({
  name: 'id-patterns',
  ruleIds: ['CONV.ID.PATTERNS', 'PAYMENTS.ID.PREFIX', 'REFUNDS.ID.PREFIX'],
  description:
    'Ids match their documented patterns (CONV.ID.PATTERNS) and prefixes (PAYMENTS.ID.PREFIX, REFUNDS.ID.PREFIX).',
  evaluate(ex, ctx, op) {
    if (!op || !is2xx(ex) || !bodyShown(ctx, op, ex.status)) return;
    const byObject = idFields(ctx.rules);
    const judged = new Set<string>();
    const findings: Finding[] = [];
    for (const rep of representations(ex.body, ctx.spec)) {
      const fields = typeof rep.object === 'string' ? byObject[rep.object] : undefined;
      if (!fields) continue;
      for (const [field, { pattern, rule }] of Object.entries(fields)) {
        const v = rep[field];
        if (v === undefined || v === null) continue;
        judged.add(rule);
        if (typeof v !== 'string' || !pattern.test(v)) {
          findings.push(
            finding(
              'id-patterns',
              [rule],
              `${rep.object}.${field} breaks its id pattern`,
              `${describeStatus(ex)}: ${rep.object}.${field} = ${JSON.stringify(v)} does not match ${pattern.source}.`,
              ex,
            ),
          );
        }
      }
    }
    return { judged: [...judged], findings };
  },
});
