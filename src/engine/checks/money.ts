import { defineCheck, is2xx, finding, isObject, describeStatus, bodyShown, type SpecView } from './types.ts';

import { DECIMAL, objectNameOf } from '../predicates.ts';

export { DECIMAL };

/**
 * The only fields the document calls decimal: Payment.amount ("Decimal format") and the
 * invoice refund's amount, taxAmount and total ("decimal dollars"). Other money-like
 * fields (auto top-up, price unitPrice/unitAmount, tiers, payment line items) are typed
 * only "string", so their format is left open.
 */
function moneyFields(rep: Record<string, unknown>, spec: SpecView): [string, unknown][] {
  if (rep.object === objectNameOf(spec, 'InvoiceRefund'))
    return [
      ['amount', rep.amount],
      ['taxAmount', rep.taxAmount],
      ['total', rep.total],
    ];
  if (rep.object === objectNameOf(spec, 'Payment')) return [['amount', rep.amount]];
  return [];
}

export const money = defineCheck({
  name: 'money',
  ruleIds: ['CONV.MONEY.DECIMAL_STRING'],
  description:
    'Payment amount and invoice refund amount, taxAmount and total (documented as decimal) hold decimal strings.',
  evaluate(ex, ctx, op) {
    if (!op || !is2xx(ex) || !isObject(ex.body) || !bodyShown(ctx, op, ex.status)) return;
    const fields = moneyFields(ex.body, ctx.spec).filter(([, v]) => v !== undefined && v !== null);
    if (!fields.length) return;
    const bad = fields.filter(([, v]) => typeof v !== 'string' || !DECIMAL.test(v));
    return {
      judged: ['CONV.MONEY.DECIMAL_STRING'],
      findings: bad.length
        ? [
            finding(
              'money',
              ['CONV.MONEY.DECIMAL_STRING'],
              `${String(ex.body.object)} amount is not a decimal string`,
              `${describeStatus(ex)}: ${bad.map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join('; ')}`,
              ex,
            ),
          ]
        : [],
    };
  },
});
