import { Decimal } from 'decimal.js';
import { enumOf, isDateTime, isDecimalString } from '../predicates.ts';
import { defineCheck, isObject, judgeableResponse, type CheckContext, type OperationInfo } from './types.ts';
import { expectedObjectName } from './object-name.ts';
import { answerTo, Judgement, notHeld, sentVsGot, show } from './answer.ts';

/** The `object` name the answer's schema gives (`product`, `invoice_refund`...). */
const objectOf = (ctx: CheckContext, op: OperationInfo, status: number): string | undefined =>
  expectedObjectName(judgeableResponse(ctx, op, status)?.schema);

export const productCreated = defineCheck({
  name: 'product-created',
  ruleIds: ['PRODUCTS.CREATE.OBJECT'],
  description:
    'POST /v0/products answers a product (id, createdAt, updatedAt) holding the name, description, merchantId and metadata sent.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'createProduct');
    if (!a || !op) return;
    const { got } = a;
    const object = objectOf(ctx, op, a.ex.status);
    const j = new Judgement('product-created', ex);
    j.expect(
      'PRODUCTS.CREATE.OBJECT',
      typeof got.id === 'string' &&
        (object === undefined || got.object === object) &&
        isDateTime(got.createdAt) &&
        isDateTime(got.updatedAt),
      'The product created is not a product',
      () =>
        `object ${show(got.object)}, id ${show(got.id)}, createdAt ${show(got.createdAt)}, updatedAt ${show(got.updatedAt)}`,
    );
    const differs = notHeld(a.sent, got, ['name', 'description', 'merchantId', 'metadata']);
    if (differs.length)
      j.expect('PRODUCTS.CREATE.OBJECT', false, 'The product created does not hold the values sent', () =>
        sentVsGot(differs, a.sent, got),
      );
    return j.done();
  },
});

export const refundOfInvoice = defineCheck({
  name: 'refund-of-invoice',
  ruleIds: ['REFUNDS.INVOICE.MATCHES'],
  description:
    'A credit note created through POST /v2/invoices/{id}/refunds is an invoice_refund of the invoice in the path.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'createInvoiceRefund');
    if (!a || !op) return;
    const object = objectOf(ctx, op, a.ex.status);
    const j = new Judgement('refund-of-invoice', ex);
    j.expect(
      'REFUNDS.INVOICE.MATCHES',
      (object === undefined || a.got.object === object) && a.got.invoiceId === a.params.id,
      'The credit note is not a refund of the invoice in the path',
      () => `invoice ${a.params.id}; got object ${show(a.got.object)}, invoiceId ${show(a.got.invoiceId)}`,
    );
    return j.done();
  },
});

export const refundStatus = defineCheck({
  name: 'refund-status',
  ruleIds: ['REFUNDS.STATUS.ENUM'],
  description: 'A credit note status is one of the values REFUNDS.STATUS.ENUM lists.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'createInvoiceRefund');
    if (!a) return;
    const values = enumOf(ctx.rules, 'REFUNDS.STATUS.ENUM');
    const j = new Judgement('refund-status', ex);
    j.expect(
      'REFUNDS.STATUS.ENUM',
      values.includes(a.got.status),
      `Credit note status outside ${values.join(', ')}`,
      () => `status ${show(a.got.status)}`,
    );
    return j.done();
  },
});

export const refundTotal = defineCheck({
  name: 'refund-total',
  ruleIds: ['REFUNDS.TOTAL.SUM'],
  description: "A credit note's total is amount + taxAmount, exactly, as decimals.",
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'createInvoiceRefund');
    if (!a) return;
    const { amount, taxAmount, total } = a.got;
    const j = new Judgement('refund-total', ex);
    if (![amount, taxAmount, total].every(isDecimalString))
      j.expect(
        'REFUNDS.TOTAL.SUM',
        false,
        'Credit note amounts are not decimal strings',
        () => `amount, taxAmount, total: ${show([amount, taxAmount, total])}`,
      );
    else {
      const sum = new Decimal(amount).plus(taxAmount);
      j.expect(
        'REFUNDS.TOTAL.SUM',
        new Decimal(total).equals(sum),
        'Credit note total is not amount + taxAmount',
        () => `total ${total}, amount ${amount} + taxAmount ${taxAmount} = ${sum.toFixed()}`,
      );
    }
    return j.done();
  },
});

export const refundReason = defineCheck({
  name: 'refund-reason',
  ruleIds: ['REFUNDS.REASON.RECORDED'],
  description:
    'The reason sent to POST /v2/invoices/{id}/refunds is recorded on the credit note; none sent, none recorded.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'createInvoiceRefund');
    if (!a) return;
    const sent = a.sent.reason;
    // A reason of another type is the validation rules' to judge, not this one's.
    if (sent !== undefined && typeof sent !== 'string') return;
    const j = new Judgement('refund-reason', ex);
    j.expect(
      'REFUNDS.REASON.RECORDED',
      sent === undefined ? a.got.reason === undefined || a.got.reason === null : a.got.reason === sent,
      sent === undefined ? 'A reason is recorded that was not sent' : 'The reason sent is not recorded',
      () => `sent ${show(sent)}, got ${show(a.got.reason)}`,
    );
    return j.done();
  },
});

export const scheduleCreated = defineCheck({
  name: 'schedule-created',
  ruleIds: ['SCHEDULES.END_DATE.PRESENT', 'SCHEDULES.OWNER.EXACTLY_ONE', 'SCHEDULES.CREATE.BY_ORDER#owned-by-order'],
  description:
    'A billing schedule created carries endDate (the one sent, if any) and exactly one owner: the order sent.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'createBillingSchedule');
    if (!a) return;
    const { got, sent } = a;
    const j = new Judgement('schedule-created', ex);
    j.expect(
      'SCHEDULES.END_DATE.PRESENT',
      isDateTime(got.endDate),
      'Billing schedule without endDate',
      () => `endDate ${show(got.endDate)}`,
    );
    // The instant compares, not the text: the form a date-time takes is the target's.
    if (isDateTime(sent.endDate) && isDateTime(got.endDate))
      j.expect(
        'SCHEDULES.END_DATE.PRESENT',
        Date.parse(got.endDate) === Date.parse(sent.endDate),
        'The schedule does not carry the endDate sent',
        () => `endDate sent ${sent.endDate}, got ${got.endDate}`,
      );
    const owners = ['orderId', 'subscriptionId'].filter((k) => typeof got[k] === 'string' && got[k] !== '');
    j.expect(
      'SCHEDULES.OWNER.EXACTLY_ONE',
      owners.length === 1,
      'Billing schedule without exactly one owner',
      () => `orderId ${show(got.orderId)}, subscriptionId ${show(got.subscriptionId)}`,
    );
    const object = op && objectOf(ctx, op, a.ex.status);
    if (typeof sent.orderId === 'string')
      j.expect(
        'SCHEDULES.CREATE.BY_ORDER#owned-by-order',
        got.orderId === sent.orderId && (!object || got.object === object),
        'The schedule is not a billing schedule owned by the order sent',
        () => `orderId sent ${sent.orderId}, got ${show(got.orderId)}, object ${show(got.object)}`,
      );
    return j.done();
  },
});

/** Statuses that answer something else first (credentials, permission, rate), not the owner asked for. */
const REFUSED_FIRST = [401, 403, 429];

/**
 * Creation by subscriptionId alone is unsupported: a 2xx to it fails; a 4xx with a JSON body
 * (its Error shape is the error checks') holds it. The one check judging a refusal, since the
 * refusal is what the rule states.
 */
export const scheduleBySubscription = defineCheck({
  name: 'schedule-by-subscription',
  ruleIds: ['SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED'],
  description: 'POST /v0/billingSchedules naming subscriptionId instead of orderId creates no schedule (a 4xx).',
  evaluate(ex, ctx, op) {
    if (!op || op.operationId !== 'createBillingSchedule' || ex.status === undefined) return;
    if (ctx.unauthenticated || ctx.brokenRequest || !isObject(ex.body)) return;
    const sent = ctx.request.body;
    if (!isObject(sent) || typeof sent.subscriptionId !== 'string' || sent.orderId !== undefined) return;
    const created = ex.status >= 200 && ex.status < 300;
    const refused = ex.status >= 400 && ex.status < 500 && !REFUSED_FIRST.includes(ex.status);
    if (!created && !refused) return;
    const j = new Judgement('schedule-by-subscription', ex);
    j.expect(
      'SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED',
      refused,
      'A schedule was created by subscriptionId',
      () => 'creation by subscriptionId is unsupported: every schedule belongs to an order',
    );
    return j.done();
  },
});
