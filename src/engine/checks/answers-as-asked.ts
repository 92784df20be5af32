/**
 * Answers as asked: the 2xx answer to a write holds what its request asked for, one exchange at a
 * time. A create answers the resource it made from the fields sent (a product, a refund of the
 * invoice named, a schedule of the order named); an update answers the resource with the changes
 * asked applied and nothing else lost.
 */
import { Decimal } from 'decimal.js';
import { enumOf, isDateTime, isDecimalString, objectNameOf } from '../predicates.ts';
import { defineCheck, isObject, judgeableResponse, type CheckContext, type OperationInfo } from './types.ts';
import { expectedObjectName } from './object-name.ts';
import { answerTo, decimalEquals, holds, Judgement, notHeld, sameJson, sentFields, sentVsGot, show } from './answer.ts';

// --- creates ---------------------------------------------------------------------------

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

// --- updates ---------------------------------------------------------------------------

export const webhooksUpdated = defineCheck({
  name: 'webhooks-updated',
  ruleIds: [
    'STATE.WEBHOOKS.ENABLE',
    'STATE.WEBHOOKS.DISABLE#sets-disabled',
    'WEBHOOKS.CONFIG.SHAPE',
    'WEBHOOKS.MERCHANT.NAMED',
  ],
  description: 'PATCH /v0/webhooks answers the configuration, in the state asked for, of the merchant named.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'updateWebhooks');
    if (!a) return;
    const { got, sent } = a;
    const j = new Judgement('webhooks-updated', ex);
    if (typeof sent.enabled === 'boolean')
      j.expect(
        [sent.enabled ? 'STATE.WEBHOOKS.ENABLE' : 'STATE.WEBHOOKS.DISABLE#sets-disabled', 'WEBHOOKS.CONFIG.SHAPE'],
        got.enabled === sent.enabled,
        'Webhooks not in the requested state',
        () => `sent enabled ${sent.enabled}, got ${show(got.enabled)}`,
      );
    j.expect(
      'WEBHOOKS.CONFIG.SHAPE',
      got.object === objectNameOf(ctx.spec, 'WebhooksConfiguration') &&
        typeof got.applicationId === 'string' &&
        got.applicationId !== '' &&
        isDateTime(got.createdAt) &&
        isDateTime(got.updatedAt) &&
        typeof got.merchantId === 'string',
      'Not a webhooks configuration',
      () =>
        `object ${show(got.object)}, applicationId ${show(got.applicationId)}, ` +
        `createdAt ${show(got.createdAt)}, updatedAt ${show(got.updatedAt)}, merchantId ${show(got.merchantId)}`,
    );
    const named = a.query.get('merchantId');
    if (named !== null)
      j.expect(
        'WEBHOOKS.MERCHANT.NAMED',
        got.merchantId === named,
        'The configuration answered is not the merchant named',
        () => `merchantId=${named} asked, got ${show(got.merchantId)}`,
      );
    return j.done();
  },
});

export const itemUpdated = defineCheck({
  name: 'item-updated',
  // The transitions (STATE.ITEM.ARCHIVE, UNARCHIVE) need the state before: the scenario's and the model's.
  ruleIds: ['ITEMS.ARCHIVED_AT.STATE#set-when-archived', 'ITEMS.ARCHIVED_AT.STATE#null-while-active'],
  description:
    'PATCH /v0/items/{id} answers the item archived or active as sent (the name, catalogId and metadata sent are the round trip’s).',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'updateItem');
    if (!a) return;
    const { got, sent } = a;
    const j = new Judgement('item-updated', ex);
    if (sent.archived === true)
      j.expect(
        'ITEMS.ARCHIVED_AT.STATE#set-when-archived',
        isDateTime(got.archivedAt),
        'Archiving left archivedAt unset',
        () => `archivedAt ${show(got.archivedAt)}`,
      );
    if (sent.archived === false)
      j.expect(
        'ITEMS.ARCHIVED_AT.STATE#null-while-active',
        got.archivedAt === null,
        'Unarchiving left archivedAt set',
        () => `archivedAt ${show(got.archivedAt)}`,
      );
    return j.done();
  },
});

export const customerUpdated = defineCheck({
  name: 'customer-updated',
  ruleIds: [
    'CUSTOMERS.TAX_ID.NULL_CLEARS',
    'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS',
    'CUSTOMERS.TAX_RATES.SINGLE_RATE',
    'CUSTOMERS.NOTIFICATIONS.PARTIAL',
  ],
  description:
    'PATCH /v0/customers/{id}: taxId or externalId null clears it, taxRates is one rate for all, the notification flags sent are held.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'updateCustomer');
    if (!a) return;
    const { got, sent } = a;
    const j = new Judgement('customer-updated', ex);
    for (const [field, rule] of [
      ['taxId', 'CUSTOMERS.TAX_ID.NULL_CLEARS'],
      ['externalId', 'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS'],
    ])
      if (sent[field] === null)
        j.expect(
          rule,
          got[field] === undefined || got[field] === null,
          `${field} null did not clear it`,
          () => `${field} ${show(got[field])}`,
        );
    // The read shape of taxRates maps plans, metrics or default to a rate: every rate shown is the one sent.
    const rates = isObject(got.taxRates) ? Object.values(got.taxRates) : undefined;
    if (typeof sent.taxRates === 'number' && got.taxRates !== undefined && (!rates || rates.length))
      j.expect(
        'CUSTOMERS.TAX_RATES.SINGLE_RATE',
        !!rates && rates.every((r) => Number(r) === sent.taxRates),
        'taxRates is not one rate for all',
        () => `sent ${sent.taxRates}, got ${show(got.taxRates)}`,
      );
    // The shape of notificationSettings is not shown: only flags sent and answered as booleans compare.
    const shown = isObject(got.notificationSettings) ? got.notificationSettings : {};
    const flags = Object.entries(isObject(sent.notificationSettings) ? sent.notificationSettings : {}).filter(
      ([k, v]) => typeof v === 'boolean' && typeof shown[k] === 'boolean',
    );
    if (flags.length) {
      const wrong = flags.filter(([k, v]) => shown[k] !== v);
      j.expect(
        'CUSTOMERS.NOTIFICATIONS.PARTIAL',
        wrong.length === 0,
        'notificationSettings does not hold the flags sent',
        () => wrong.map(([k, v]) => `${k} sent ${v}, got ${shown[k]}`).join('; '),
      );
    }
    return j.done();
  },
});

export const sourceRuleUpdated = defineCheck({
  name: 'source-rule-updated',
  ruleIds: ['SOURCE_RULES.UPDATE.PARTIAL#applies-sent'],
  description: 'PATCH /v0/sourceRules/{ruleId} answers the rule holding each field sent.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'updateSourceRule');
    const fields = ['description', 'enabled', 'name', 'order', 'conditions'];
    if (!a || !sentFields(a.sent, fields).length) return;
    const differs = notHeld(a.sent, a.got, fields, holds);
    const j = new Judgement('source-rule-updated', ex);
    j.expect(
      'SOURCE_RULES.UPDATE.PARTIAL#applies-sent',
      differs.length === 0,
      'The source rule answered does not hold what was sent',
      () => sentVsGot(differs, a.sent, a.got),
    );
    return j.done();
  },
});

export const alertUpdated = defineCheck({
  name: 'alert-updated',
  ruleIds: ['ALERTS.UPDATE.OK#answers-alert'],
  description:
    'PATCH /v0/alerts/{id}?resource=wallet answers 200 with the alert, holding the enabled, notifyPeriod and recipients sent.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'updateAlert');
    if (!a) return;
    const { got, sent } = a;
    const j = new Judgement('alert-updated', ex);
    j.expect(
      'ALERTS.UPDATE.OK#answers-alert',
      a.ex.status === 200 && got.object === objectNameOf(ctx.spec, 'Alert') && got.id === a.params.id,
      'The alert update does not answer the alert',
      () => `status ${a.ex.status}, object ${show(got.object)}, id ${show(got.id)} for ${a.params.id}`,
    );
    // config's contents are not shown: only the fields whose form the document gives are compared.
    const differs = notHeld(sent, got, ['enabled', 'notifyPeriod', 'recipients']);
    if (sentFields(sent, ['enabled', 'notifyPeriod', 'recipients']).length)
      j.expect(
        'ALERTS.UPDATE.OK#answers-alert',
        differs.length === 0,
        'The alert answered does not hold what was sent',
        () => sentVsGot(differs, sent, got),
      );
    return j.done();
  },
});

export const autoTopupUpdated = defineCheck({
  name: 'auto-topup-updated',
  ruleIds: ['WALLETS.AUTO_TOPUP.SHAPE', 'WALLETS.AUTO_TOPUP.PERIOD_DAY#kept'],
  description:
    'PATCH /v0/wallets/{id}/autoTopupConfig answers the autoTopupConfig, limit {amount, period}, holding the values sent.',
  evaluate(ex, ctx, op) {
    const a = answerTo(ex, ctx, op, 'updateAutoTopupConfig');
    if (!a) return;
    const { got, sent } = a;
    const limit = isObject(got.limit) ? got.limit : undefined;
    const j = new Judgement('auto-topup-updated', ex);
    j.expect(
      'WALLETS.AUTO_TOPUP.SHAPE',
      got.object === objectNameOf(ctx.spec, 'AutoTopupConfig') &&
        (got.limit === undefined || (!!limit && typeof limit.amount === 'number' && typeof limit.period === 'string')),
      'Not an autoTopupConfig',
      () => `object ${show(got.object)}, limit ${show(got.limit)}`,
    );
    // Amounts sent as decimal text compare as decimals (10.5 holds 10.50).
    const compared = sentFields(sent, ['amount', 'threshold', 'paymentMethod']);
    const sentLimit = isObject(sent.limit) ? sent.limit : {};
    if (compared.length || sentLimit.amount !== undefined) {
      const differs = notHeld(sent, got, compared, (g, s) =>
        typeof s === 'string' ? decimalEquals(g, s) : sameJson(g, s),
      );
      if (sentLimit.amount !== undefined && !sameJson(limit?.amount, sentLimit.amount)) differs.push('limit');
      j.expect(
        'WALLETS.AUTO_TOPUP.SHAPE',
        differs.length === 0,
        'The configuration does not hold the values sent',
        () => sentVsGot(differs, sent, got),
      );
    }
    if (sentLimit.period === 'day')
      j.expect(
        'WALLETS.AUTO_TOPUP.PERIOD_DAY#kept',
        limit?.period === 'day',
        'limit.period day not kept',
        () => `limit ${show(got.limit)}`,
      );
    return j.done();
  },
});
