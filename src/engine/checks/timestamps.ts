import { defineCheck, is2xx, finding, isObject, describeStatus, bodyShown } from './types.ts';
import type { Finding } from '../types.ts';

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

export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export function timestampProblems(value: unknown, path = '', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => timestampProblems(v, `${path}[${i}]`, out));
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (OPAQUE.has(k)) continue;
      const p = path ? `${path}.${k}` : k;
      if (DATE_TIME_FIELDS.has(k) && v !== null && v !== undefined) {
        if (typeof v !== 'string' || !ISO_DATE_TIME.test(v) || Number.isNaN(Date.parse(v)))
          out.push(`${p} = ${JSON.stringify(v)}`);
      } else if (typeof v === 'object') timestampProblems(v, p, out);
    }
  }
  return out;
}

export const timestamps = defineCheck({
  name: 'timestamps',
  ruleIds: ['CONV.TIMESTAMP.ISO8601'],
  description: 'Documented date-time fields hold ISO 8601 date-time strings.',
  evaluate(ex, ctx, op) {
    if (!op || !is2xx(ex) || !isObject(ex.body) || !bodyShown(ctx, op, ex.status)) return;
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
