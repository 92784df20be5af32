import { defineCheck, finding, isObject, describeStatus, bodyShown } from './types.ts';

export const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Documented decimal-string money fields, by resource `object` name. */
function moneyFields(rep: Record<string, unknown>): [string, unknown][] {
  switch (rep.object) {
    case 'invoice_refund':
      return [['amount', rep.amount], ['taxAmount', rep.taxAmount], ['total', rep.total]];
    case 'payment': {
      const items = Array.isArray(rep.lineItems) ? rep.lineItems : [];
      return [['amount', rep.amount], ...items.map((li, i): [string, unknown] => [`lineItems[${i}].amount`, isObject(li) ? li.amount : undefined])];
    }
    case 'autoTopupConfig':
      return [['amount', rep.amount], ['threshold', rep.threshold]];
    case 'price': {
      const props = isObject(rep.properties) ? rep.properties : {};
      const tiers = Array.isArray(props.tiers) ? props.tiers : [];
      return [
        ['properties.unitPrice', props.unitPrice],
        ...tiers.map((t, i): [string, unknown] => [`properties.tiers[${i}].unitPrice`, isObject(t) ? t.unitPrice : undefined]),
      ];
    }
    default:
      return [];
  }
}

export const money = defineCheck({
  name: 'money',
  ruleIds: ['CONV.MONEY.DECIMAL_STRING'],
  description: 'Money amounts documented as strings (amount, taxAmount, total, unitPrice, threshold) hold decimal numbers.',
  evaluate(ex, ctx, op) {
    if (ex.status === undefined || ex.status < 200 || ex.status >= 300 || !op || !isObject(ex.body) || !bodyShown(ctx, op, ex.status)) return { judged: [], findings: [] };
    const fields = moneyFields(ex.body).filter(([, v]) => v !== undefined && v !== null);
    if (!fields.length) return { judged: [], findings: [] };
    const bad = fields.filter(([, v]) => typeof v !== 'string' || !DECIMAL.test(v));
    return {
      judged: ['CONV.MONEY.DECIMAL_STRING'],
      findings: bad.length
        ? [finding('money', ['CONV.MONEY.DECIMAL_STRING'], `${String(ex.body.object)} amount is not a decimal string`, `${describeStatus(ex)}: ${bad.map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join('; ')}`, ex)]
        : [],
    };
  },
});
