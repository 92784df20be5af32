import { defineCheck, is2xx, finding, isObject, describeStatus, bodyShown } from './types.ts';
import type { Finding } from '../types.ts';
import { isDateTime } from '../predicates.ts';

/** Fields the document types date-time (alerts' lastNotifiedAt is a plain string there, so it is not here). */
export const DATE_TIME_FIELDS = new Set([
  'createdAt',
  'updatedAt',
  'archivedAt',
  'voidedAt',
  'expiresAt',
  'startedAt',
  'endingAt',
  'terminatedAt',
  'effectiveAt',
  'startDate',
  'endDate',
  'billingAnchor',
  'billDate',
  'effectiveDate',
  'deletedAt',
]);
/** Free-form or "not shown" members: never looked into. */
const OPAQUE = new Set([
  'metadata',
  'organization',
  'config',
  'details',
  'usageFilter',
  'customPeriodWindows',
  'notificationSettings',
  'properties',
  'payment',
]);

/** The documented date-time fields a body holds (null ones left out), by path. */
export function dateTimeFields(value: unknown, path = '', out: [string, unknown][] = []): [string, unknown][] {
  if (Array.isArray(value)) value.forEach((v, i) => dateTimeFields(v, `${path}[${i}]`, out));
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (OPAQUE.has(k)) continue;
      const p = path ? `${path}.${k}` : k;
      if (DATE_TIME_FIELDS.has(k) && v !== null && v !== undefined) out.push([p, v]);
      else if (typeof v === 'object') dateTimeFields(v, p, out);
    }
  }
  return out;
}

/** A documented date-time field's value that is not an ISO 8601 date-time string. */
export const notIsoDateTime = (v: unknown): boolean => !isDateTime(v);

export function timestampProblems(value: unknown): string[] {
  return dateTimeFields(value)
    .filter(([, v]) => notIsoDateTime(v))
    .map(([p, v]) => `${p} = ${JSON.stringify(v)}`);
}

export const timestamps = defineCheck({
  name: 'timestamps',
  ruleIds: ['CONV.TIMESTAMP.ISO8601'],
  description: 'Documented date-time fields hold ISO 8601 date-time strings.',
  evaluate(ex, ctx, op) {
    if (!op || !is2xx(ex) || !isObject(ex.body) || !bodyShown(ctx, op, ex.status)) return;
    // A body holding no date-time field shows nothing about the rule.
    if (!dateTimeFields(ex.body).length) return;
    const problems = timestampProblems(ex.body);
    const findings: Finding[] = problems.length
      ? [
          finding(
            'timestamps',
            ['CONV.TIMESTAMP.ISO8601'],
            'Timestamp is not ISO 8601',
            `${describeStatus(ex)}: ${problems.slice(0, 10).join('; ')}`,
            ex,
          ),
        ]
      : [];
    return { judged: ['CONV.TIMESTAMP.ISO8601'], findings };
  },
});
