/**
 * The small billing core: invoice lines from fee prices (quantity x unit price), standard
 * and volume prices, metered usage, and tax from the customer's taxRates. All decimal.
 */
import { D, dec, formatMoney, formatPlain, percentOf, sum, type Dec } from './money.ts';
import { chargeFor } from './pricing.ts';
import { newId, PREFIX } from './ids.ts';
import { periodAt, parseCadence, isOneTime, type Period } from './periods.ts';
import type { Customer, Invoice, InvoiceLine, Override, Plan, PlanVersion, Price, Subscription } from './types.ts';

/**
 * Tax rate (percent) for a charge: a specific rate for the metric, then the plan, then
 * `default`, else 0. A tax-exempt subscription pays none.
 */
export function taxRateFor(
  taxRates: Customer['taxRates'] | undefined,
  ids: { planId?: string | null; billableMetricId?: string | null },
  taxExempt = false,
): number {
  if (taxExempt || !taxRates) return 0;
  if (ids.billableMetricId && typeof taxRates[ids.billableMetricId] === 'number') return taxRates[ids.billableMetricId];
  if (ids.planId && typeof taxRates[ids.planId] === 'number') return taxRates[ids.planId];
  return typeof taxRates.default === 'number' ? taxRates.default : 0;
}

export interface LineInput {
  description: string;
  quantity: string | number | Dec;
  unitAmount: string | Dec;
  taxRate: number;
  priceId?: string | null;
  feeId?: string | null;
  billableMetricId?: string | null;
  itemId?: string | null;
  periodStart?: string | null;
  periodEnd?: string | null;
}

/** One invoice line: subtotal = quantity x amount rounded to the currency; tax per line. */
export function buildLine(input: LineInput, currency: string): InvoiceLine {
  const quantity = dec(input.quantity);
  const subtotal = formatMoney(dec(input.unitAmount).times(quantity), currency);
  const taxAmount = formatMoney(percentOf(subtotal, input.taxRate, currency), currency);
  const line: InvoiceLine = {
    object: 'invoice_line_item',
    id: newId(PREFIX.invoiceLine),
    description: input.description,
    amount: formatPlain(input.unitAmount),
    quantity: Number(formatPlain(quantity)),
    subtotal,
    taxRate: input.taxRate,
    taxAmount,
    total: formatMoney(dec(subtotal).plus(dec(taxAmount)), currency),
    priceId: input.priceId ?? null,
    periodStart: input.periodStart ?? null,
    periodEnd: input.periodEnd ?? null,
  };
  if (input.feeId) line.feeId = input.feeId;
  if (input.billableMetricId) line.billableMetricId = input.billableMetricId;
  if (input.itemId) line.itemId = input.itemId;
  return line;
}

export function totals(lines: InvoiceLine[], currency: string): { subtotal: string; taxAmount: string; total: string } {
  const subtotal = sum(lines.map((l) => l.subtotal));
  const tax = sum(lines.map((l) => l.taxAmount));
  return {
    subtotal: formatMoney(subtotal, currency),
    taxAmount: formatMoney(tax, currency),
    total: formatMoney(subtotal.plus(tax), currency),
  };
}

export function newInvoice(args: {
  merchantId: string;
  customerId: string;
  subscriptionId?: string | null;
  currency: string;
  lines: InvoiceLine[];
  now: string;
  periodStart?: string | null;
  periodEnd?: string | null;
  status?: Invoice['status'];
}): Invoice {
  const t = totals(args.lines, args.currency);
  const status = args.status ?? 'draft';
  return {
    id: newId(PREFIX.invoice),
    object: 'invoice',
    merchantId: args.merchantId,
    customerId: args.customerId,
    subscriptionId: args.subscriptionId ?? null,
    status,
    currency: args.currency,
    lineItems: args.lines,
    ...t,
    amountRefunded: formatMoney(0, args.currency),
    periodStart: args.periodStart ?? null,
    periodEnd: args.periodEnd ?? null,
    paymentId: null,
    finalizedAt: status === 'draft' ? null : args.now,
    paidAt: null,
    createdAt: args.now,
    updatedAt: args.now,
  };
}

/** Whether a price with its own cadence bills in the plan period starting at `periodStart`. */
export function priceBillsInPeriod(price: Pick<Price, 'cadence'>, anchor: Date, period: Period): boolean {
  if (!price.cadence) return true;
  const c = parseCadence(price.cadence);
  if (isOneTime(c)) return period.index === 0;
  return periodAt(anchor, c, period.start).start.getTime() === period.start.getTime();
}

export interface PeriodBillingInput {
  subscription: Pick<Subscription, 'id' | 'merchantId' | 'customerId' | 'billingAnchor' | 'taxExempt' | 'overrides'>;
  plan: Pick<Plan, 'id' | 'currency'>;
  version: Pick<PlanVersion, 'priceIds'>;
  prices: Map<string, Price>;
  /** Usage quantity per billable metric id within the period. */
  usage: Map<string, string>;
  taxRates?: Customer['taxRates'];
  period: Period;
  /**
   * Which charges: `in_arrears` bills the period that closed (fees in arrears and all
   * metered usage); `in_advance` bills fee prices paid in advance for the period starting.
   * Absent: both.
   */
  term?: 'in_arrears' | 'in_advance';
}

/** Metered prices always bill in arrears: usage is only known once the period closes. */
export function billingTerm(price: Pick<Price, 'paymentTerm' | 'billableMetricId'>): 'in_arrears' | 'in_advance' {
  return price.billableMetricId ? 'in_arrears' : (price.paymentTerm ?? 'in_arrears');
}

/** The lines of one closed subscription period, from the version that was in force. */
export function periodLines(input: PeriodBillingInput): InvoiceLine[] {
  const { subscription, plan, version, prices, usage, period } = input;
  const overrides = new Map<string, string>(
    (subscription.overrides ?? []).map((o: Override) => [o.priceId, o.unitPrice]),
  );
  const anchor = new Date(subscription.billingAnchor);
  const lines: InvoiceLine[] = [];
  for (const priceId of version.priceIds) {
    const price = prices.get(priceId);
    if (!price || price.model === 'dynamic' || price.model === 'percentage') continue;
    if (input.term && billingTerm(price) !== input.term) continue;
    if (!priceBillsInPeriod(price, anchor, period)) continue;
    const quantity = price.billableMetricId ? dec(usage.get(price.billableMetricId) ?? '0') : dec(price.quantity ?? 1);
    const { unitPrice } = chargeFor(price, quantity, overrides.get(priceId));
    // A pricing-unit price draws down a credit pool, not the invoice currency.
    const unitAmount = price.pricingUnitId ? new D(0) : unitPrice;
    lines.push(
      buildLine(
        {
          description: price.invoiceDisplayName ?? price.description ?? priceId,
          quantity,
          unitAmount,
          taxRate: taxRateFor(
            input.taxRates,
            { planId: plan.id, billableMetricId: price.billableMetricId },
            subscription.taxExempt,
          ),
          priceId,
          feeId: price.feeId ?? null,
          billableMetricId: price.billableMetricId ?? null,
          periodStart: period.start.toISOString(),
          periodEnd: period.end ? period.end.toISOString() : null,
        },
        plan.currency,
      ),
    );
  }
  return lines;
}
