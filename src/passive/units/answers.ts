/**
 * Each answer against the request it answers, one exchange at a time: a read by id answers
 * that id, a create holds the values sent, a toggle answers the requested state, a refund
 * belongs to the invoice of its path. Only what the document states is judged.
 */
import { Decimal } from 'decimal.js';
import type { PassiveUnit } from '../types.ts';
import { expect, is2xx, isDateTime, isDecimalString, notHeld, obj, opId, queryOf, sentVsGot, show } from './support.ts';
import { enumOf, prefixOf } from '../../engine/predicates.ts';
import { ON_UPDATE, U, type Answer } from './update-answers.ts';

const readById =
  (rule: string, object: string): Answer =>
  (o, got, _s, t) => {
    const id = o.params.id;
    expect(
      t,
      U,
      o,
      rule,
      got.id === id && got.object === object,
      `The ${object} read is not the one asked for`,
      () => `asked for ${id}, got id ${show(got.id)}, object ${show(got.object)}`,
    );
  };

/** Answers to 2xx responses, by operation. */
const ON_SUCCESS: Record<string, Answer> = {
  ...ON_UPDATE,
  getCustomer: readById('CUSTOMERS.GET.BY_ID#answers-resource', 'customer'),
  getPrice: readById('PRICES.GET.BY_ID#answers-resource', 'price'),
  getPayment: readById('PAYMENTS.GET.BY_ID#answers-resource', 'payment'),
  createProduct(o, got, sent, t) {
    const differs = notHeld(sent, got, ['name', 'description', 'merchantId', 'metadata']);
    expect(
      t,
      U,
      o,
      'PRODUCTS.CREATE.OBJECT',
      differs.length === 0 && got.object === 'product',
      'The product created does not hold the values sent',
      () => `object ${show(got.object)}; ` + `differs: ${sentVsGot(differs, sent, got) || 'none'}`,
    );
  },
  createInvoiceRefund(o, got, sent, t, rules) {
    const invoiceId = o.params.id;
    expect(
      t,
      U,
      o,
      'REFUNDS.INVOICE.MATCHES',
      got.object === 'invoice_refund' && got.invoiceId === invoiceId,
      'The credit note is not a refund of the invoice in the path',
      () => `invoice ${invoiceId}; got object ${show(got.object)}, invoiceId ${show(got.invoiceId)}`,
    );
    expect(
      t,
      U,
      o,
      'REFUNDS.ID.PREFIX',
      typeof got.id === 'string' && got.id.startsWith(prefixOf(rules, 'REFUNDS.ID.PREFIX')),
      `Credit note id without ${prefixOf(rules, 'REFUNDS.ID.PREFIX')}`,
      () => `id ${show(got.id)}`,
    );
    expect(
      t,
      U,
      o,
      'REFUNDS.STATUS.ENUM',
      enumOf(rules, 'REFUNDS.STATUS.ENUM').includes(got.status),
      `Credit note status outside ${enumOf(rules, 'REFUNDS.STATUS.ENUM').join(', ')}`,
      () => `status ${show(got.status)}`,
    );
    const parts = [got.amount, got.taxAmount, got.total];
    if (parts.every(isDecimalString)) {
      const sum = new Decimal(got.amount).plus(got.taxAmount);
      expect(
        t,
        U,
        o,
        'REFUNDS.TOTAL.SUM',
        new Decimal(got.total).equals(sum),
        'Credit note total is not amount + taxAmount',
        () => `total ${got.total}, amount ${got.amount} + taxAmount ${got.taxAmount} = ${sum.toFixed()}`,
      );
    } else
      expect(
        t,
        U,
        o,
        'REFUNDS.TOTAL.SUM',
        false,
        'Credit note amounts are not decimal strings',
        () => `amount, taxAmount, total: ${show(parts)}`,
      );
    if (typeof sent.reason === 'string')
      expect(
        t,
        U,
        o,
        'REFUNDS.REASON.RECORDED',
        got.reason === sent.reason,
        'The reason sent is not recorded',
        () => `sent ${show(sent.reason)}, got ${show(got.reason)}`,
      );
  },
  createBillingSchedule(o, got, sent, t) {
    expect(
      t,
      U,
      o,
      'SCHEDULES.END_DATE.PRESENT',
      isDateTime(got.endDate),
      'Billing schedule without endDate',
      () => `endDate ${show(got.endDate)}`,
    );
    const owners = ['orderId', 'subscriptionId'].filter((k) => typeof got[k] === 'string' && got[k] !== '');
    expect(
      t,
      U,
      o,
      'SCHEDULES.OWNER.EXACTLY_ONE',
      owners.length === 1,
      'Billing schedule without exactly one owner',
      () => `orderId ${show(got.orderId)}, subscriptionId ${show(got.subscriptionId)}`,
    );
    if (typeof sent.orderId === 'string')
      expect(
        t,
        U,
        o,
        'SCHEDULES.CREATE.BY_ORDER',
        got.orderId === sent.orderId,
        'The schedule is not owned by the order sent',
        () => `orderId sent ${sent.orderId}, got ${show(got.orderId)}`,
      );
    if (typeof sent.subscriptionId === 'string' && sent.orderId === undefined)
      expect(
        t,
        U,
        o,
        'SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED',
        false,
        'A schedule was created by subscriptionId',
        () => 'creation by subscriptionId is unsupported: every schedule belongs to an order',
      );
  },
  listScheduleIntervals(o, got, _s, t) {
    const items = Array.isArray(got.data) ? (got.data as unknown[]) : [];
    expect(
      t,
      U,
      o,
      'SCHEDULES.INTERVALS.PAGINATED#list-envelope',
      got.object === 'list' && Array.isArray(got.data) && !!obj(got.pagination),
      'The intervals are not a list envelope',
      () =>
        `schedule ${o.params.id}: object ${show(got.object)}, data ${show(got.data)}, pagination ${show(got.pagination)}`,
    );
    // An empty page shows nothing about its elements.
    if (!items.length) return;
    const bad = items.filter((i) => obj(i)?.object !== 'schedule_interval' || obj(i)?.scheduleId !== o.params.id);
    expect(
      t,
      U,
      o,
      'SCHEDULES.INTERVALS.PAGINATED#interval-objects',
      bad.length === 0,
      'Not the intervals of the schedule asked for',
      () => `schedule ${o.params.id}: ${bad.length} item(s) of another schedule or type`,
    );
  },
  listAlerts(o, got, _s, t) {
    const q = queryOf(o);
    const p = obj(got.pagination);
    if (!p) return;
    const limit = q.get('limit');
    const count = Array.isArray(got.data) ? got.data.length : 0;
    if (limit === null)
      expect(
        t,
        U,
        o,
        'ALERTS.LIST.LIMIT_DEFAULT',
        (p.limit === undefined || p.limit === 10) && count <= 10,
        'The default alerts page is not 10',
        () => `pagination.limit ${show(p.limit)}, ${count} alerts`,
      );
    else if (/^\d+$/.test(limit))
      expect(
        t,
        U,
        o,
        'ALERTS.LIST.LIMIT_RANGE#accepts-range',
        count <= Number(limit),
        'The alerts page holds more than the limit asked for',
        () => `limit=${limit}: ${count} alerts`,
      );
    const offset = q.get('offset');
    if (offset !== null && /^\d+$/.test(offset))
      expect(
        t,
        U,
        o,
        'ALERTS.LIST.OFFSET#from-offset',
        p.offset === Number(offset),
        'The alerts page does not start at the offset asked for',
        () => `offset=${offset}: pagination.offset ${show(p.offset)}`,
      );
  },
};

/** Answers to 4xx responses, by operation. */
const ON_REFUSAL: Record<string, Answer> = {
  createBillingSchedule(o, _g, sent, t) {
    if (typeof sent.subscriptionId === 'string' && sent.orderId === undefined)
      t.judge('SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED');
  },
};

export const answersUnit: PassiveUnit = {
  name: U,
  scope: 'server',
  title: 'each answer against the request it answers',
  ruleIds: [
    'CUSTOMERS.GET.BY_ID#answers-resource',
    'PRICES.GET.BY_ID#answers-resource',
    'PAYMENTS.GET.BY_ID#answers-resource',
    'PRODUCTS.CREATE.OBJECT',
    'REFUNDS.INVOICE.MATCHES',
    'REFUNDS.ID.PREFIX',
    'REFUNDS.STATUS.ENUM',
    'REFUNDS.TOTAL.SUM',
    'REFUNDS.REASON.RECORDED',
    'STATE.WEBHOOKS.ENABLE',
    'STATE.WEBHOOKS.DISABLE#sets-disabled',
    'WEBHOOKS.CONFIG.SHAPE',
    'WEBHOOKS.MERCHANT.NAMED',
    'ITEMS.UPDATE.APPLIED#holds-sent',
    'STATE.ITEM.ARCHIVE',
    'STATE.ITEM.UNARCHIVE',
    'ITEMS.ARCHIVED_AT.STATE#set-when-archived',
    'ITEMS.ARCHIVED_AT.STATE#null-while-active',
    'CUSTOMERS.TAX_ID.NULL_CLEARS',
    'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS',
    'CUSTOMERS.TAX_RATES.SINGLE_RATE',
    'CUSTOMERS.NOTIFICATIONS.PARTIAL',
    'SOURCE_RULES.UPDATE.PARTIAL#applies-sent',
    'SCHEDULES.END_DATE.PRESENT',
    'SCHEDULES.OWNER.EXACTLY_ONE',
    'SCHEDULES.CREATE.BY_ORDER',
    'SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED',
    'SCHEDULES.INTERVALS.PAGINATED#list-envelope',
    'SCHEDULES.INTERVALS.PAGINATED#interval-objects',
    'ALERTS.LIST.LIMIT_DEFAULT',
    'ALERTS.LIST.LIMIT_RANGE#accepts-range',
    'ALERTS.LIST.OFFSET#from-offset',
    'ALERTS.UPDATE.OK',
    'WALLETS.AUTO_TOPUP.SHAPE',
    'WALLETS.AUTO_TOPUP.PERIOD_DAY',
  ],
  observe(o, ctx) {
    const id = opId(o);
    const status = o.record.status;
    if (!id || status === undefined) return;
    const answer = is2xx(o) ? ON_SUCCESS[id] : status >= 400 && status < 500 ? ON_REFUSAL[id] : undefined;
    const got = obj(o.got);
    if (!answer || !got) return;
    answer(o, got, obj(o.sent) ?? {}, ctx.server(this), ctx.rules);
  },
};
