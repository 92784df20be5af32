import { defineCheck, finding, isObject, describeStatus, bodyShown } from './types.ts';
import type { Finding } from '../types.ts';

const P = {
  item: /^itm_[a-zA-Z0-9]+$/,
  product: /^prod_[a-zA-Z0-9]+$/,
  organization: /^org_[a-zA-Z0-9]+$/,
  customer: /^cus_[a-zA-Z0-9]+$/,
  price: /^price_[a-zA-Z0-9]+$/,
  billableMetric: /^bm_[a-zA-Z0-9]+$/,
  fee: /^fee_[a-zA-Z0-9]+$/,
  pricingUnit: /^pu_[a-zA-Z0-9]+$/,
};

/**
 * Fields whose pattern or prefix the document gives, by resource `object` name. Only
 * these are judged: a merchantId the document types as a plain string is left alone.
 */
export const ID_FIELDS: Record<string, Record<string, { pattern: RegExp; rule: string }>> = {
  item: { id: { pattern: P.item, rule: 'CONV.ID.PATTERNS' }, merchantId: { pattern: P.organization, rule: 'CONV.ID.PATTERNS' }, catalogId: { pattern: P.product, rule: 'CONV.ID.PATTERNS' } },
  customer: { id: { pattern: P.customer, rule: 'CONV.ID.PATTERNS' }, consumerId: { pattern: P.organization, rule: 'CONV.ID.PATTERNS' }, merchantId: { pattern: P.organization, rule: 'CONV.ID.PATTERNS' } },
  price: {
    id: { pattern: P.price, rule: 'CONV.ID.PATTERNS' },
    merchantId: { pattern: P.organization, rule: 'CONV.ID.PATTERNS' },
    billableMetricId: { pattern: P.billableMetric, rule: 'CONV.ID.PATTERNS' },
    feeId: { pattern: P.fee, rule: 'CONV.ID.PATTERNS' },
    pricingUnitId: { pattern: P.pricingUnit, rule: 'CONV.ID.PATTERNS' },
  },
  product: { id: { pattern: P.product, rule: 'CONV.ID.PATTERNS' } },
  merchant: { id: { pattern: P.organization, rule: 'CONV.ID.PATTERNS' } },
  payment: { id: { pattern: /^pay_/, rule: 'PAYMENTS.ID.PREFIX' } },
  invoice_refund: { id: { pattern: /^crn_/, rule: 'REFUNDS.ID.PREFIX' } },
};

/** Resource representations found in a body: the body itself, list items, and `subscription`-style members. */
function representations(body: unknown): Record<string, unknown>[] {
  if (!isObject(body)) return [];
  if (body.object === 'list' && Array.isArray(body.data)) return body.data.filter(isObject);
  return [body];
}

export const idPatterns = defineCheck({
  name: 'id-patterns',
  ruleIds: ['CONV.ID.PATTERNS', 'PAYMENTS.ID.PREFIX', 'REFUNDS.ID.PREFIX'],
  description: 'Ids match their documented patterns (itm_, prod_, org_, cus_, price_, bm_, fee_, pu_; pay_ and crn_ prefixes).',
  evaluate(ex, ctx, op) {
    if (ex.status === undefined || ex.status < 200 || ex.status >= 300 || !op || !bodyShown(ctx, op, ex.status)) return { judged: [], findings: [] };
    const judged = new Set<string>();
    const findings: Finding[] = [];
    for (const rep of representations(ex.body)) {
      const fields = typeof rep.object === 'string' ? ID_FIELDS[rep.object] : undefined;
      if (!fields) continue;
      for (const [field, { pattern, rule }] of Object.entries(fields)) {
        const v = rep[field];
        if (v === undefined || v === null) continue;
        judged.add(rule);
        if (typeof v !== 'string' || !pattern.test(v)) {
          findings.push(finding('id-patterns', [rule], `${rep.object}.${field} breaks its id pattern`, `${describeStatus(ex)}: ${rep.object}.${field} = ${JSON.stringify(v)} does not match ${pattern.source}.`, ex));
        }
      }
    }
    return { judged: [...judged], findings };
  },
});
