/**
 * Each answer against the request it answers, one exchange at a time: a read by id answers
 * that id, a create holds the values sent, a toggle answers the requested state, a refund
 * belongs to the invoice of its path. Only what the document states is judged.
 */
import { Decimal } from 'decimal.js';
import type { Tally } from '../tally.ts';
import type { Observed, PassiveUnit } from '../types.ts';
import { expect, holds, is2xx, isDateTime, obj, opId, queryOf, sameJson, show, type Json } from './support.ts';

type Answer = (o: Observed, got: Json, sent: Json, t: Tally) => void;

const U = 'answers';
const DECIMAL = /^-?\d+(\.\d+)?$/;

function decimalEquals(a: unknown, b: string): boolean {
  if (typeof a !== 'string' || !DECIMAL.test(a) || !DECIMAL.test(b)) return a === b;
  return new Decimal(a).equals(b);
}

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
  getCustomer: readById('CUSTOMERS.GET.BY_ID', 'customer'),
  getPrice: readById('PRICES.GET.BY_ID', 'price'),
  getPayment: readById('PAYMENTS.GET.BY_ID', 'payment'),
  createProduct(o, got, sent, t) {
    const differs = ['name', 'description', 'merchantId'].filter((k) => sent[k] !== undefined && got[k] !== sent[k]);
    expect(
      t,
      U,
      o,
      'PRODUCTS.CREATE.OBJECT',
      differs.length === 0 && got.object === 'product',
      'The product created does not hold the values sent',
      () =>
        `object ${show(got.object)}; differs: ${differs.map((k) => `${k} sent ${show(sent[k])}, got ${show(got[k])}`).join('; ') || 'none'}`,
    );
  },
  createInvoiceRefund(o, got, sent, t) {
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
      typeof got.id === 'string' && got.id.startsWith('crn_'),
      'Credit note id without crn_',
      () => `id ${show(got.id)}`,
    );
    expect(
      t,
      U,
      o,
      'REFUNDS.STATUS.ENUM',
      got.status === 'ISSUED' || got.status === 'VOIDED',
      'Credit note status outside ISSUED, VOIDED',
      () => `status ${show(got.status)}`,
    );
    const parts = [got.amount, got.taxAmount, got.total];
    if (parts.every((v) => typeof v === 'string' && DECIMAL.test(v))) {
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
  updateWebhooks(o, got, sent, t) {
    if (typeof sent.enabled === 'boolean') {
      const rule = sent.enabled ? 'STATE.WEBHOOKS.ENABLE' : 'STATE.WEBHOOKS.DISABLE';
      expect(
        t,
        U,
        o,
        [rule, 'WEBHOOKS.CONFIG.SHAPE'],
        got.enabled === sent.enabled,
        'Webhooks not in the requested state',
        () => `sent enabled ${sent.enabled}, got ${show(got.enabled)}`,
      );
    }
    const shape =
      got.object === 'webhooks' &&
      typeof got.applicationId === 'string' &&
      got.applicationId !== '' &&
      isDateTime(got.createdAt) &&
      isDateTime(got.updatedAt) &&
      typeof got.merchantId === 'string';
    expect(
      t,
      U,
      o,
      'WEBHOOKS.CONFIG.SHAPE',
      shape,
      'Not a webhooks configuration',
      () =>
        `object ${show(got.object)}, applicationId ${show(got.applicationId)}, createdAt ${show(got.createdAt)}, updatedAt ${show(got.updatedAt)}, merchantId ${show(got.merchantId)}`,
    );
    const named = queryOf(o).get('merchantId');
    if (named !== null)
      expect(
        t,
        U,
        o,
        'WEBHOOKS.MERCHANT.NAMED',
        got.merchantId === named,
        'The configuration answered is not the merchant named',
        () => `merchantId=${named} asked, got ${show(got.merchantId)}`,
      );
  },
  updateItem(o, got, sent, t) {
    const differs = ['name', 'catalogId'].filter((k) => sent[k] !== undefined && got[k] !== sent[k]);
    if (obj(sent.metadata) && !sameJson(got.metadata, sent.metadata)) differs.push('metadata');
    if (['name', 'catalogId', 'metadata'].some((k) => sent[k] !== undefined)) {
      expect(
        t,
        U,
        o,
        'ITEMS.UPDATE.APPLIED',
        differs.length === 0,
        'The item answered does not hold what was sent',
        () => differs.map((k) => `${k} sent ${show(sent[k])}, got ${show(got[k])}`).join('; '),
      );
    }
    if (sent.archived === true)
      expect(
        t,
        U,
        o,
        ['STATE.ITEM.ARCHIVE', 'ITEMS.ARCHIVED_AT.STATE'],
        isDateTime(got.archivedAt),
        'Archiving left archivedAt unset',
        () => `archivedAt ${show(got.archivedAt)}`,
      );
    if (sent.archived === false)
      expect(
        t,
        U,
        o,
        ['STATE.ITEM.UNARCHIVE', 'ITEMS.ARCHIVED_AT.STATE'],
        got.archivedAt === null,
        'Unarchiving left archivedAt set',
        () => `archivedAt ${show(got.archivedAt)}`,
      );
  },
  updateCustomer(o, got, sent, t) {
    if (sent.taxId === null)
      expect(
        t,
        U,
        o,
        'CUSTOMERS.TAX_ID.NULL_CLEARS',
        got.taxId === undefined || got.taxId === null,
        'taxId null did not clear the tax id',
        () => `taxId ${show(got.taxId)}`,
      );
    if (sent.externalId === null)
      expect(
        t,
        U,
        o,
        'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS',
        got.externalId === undefined || got.externalId === null,
        'externalId null did not clear it',
        () => `externalId ${show(got.externalId)}`,
      );
    const rates = obj(got.taxRates);
    if (typeof sent.taxRates === 'number' && rates && Object.keys(rates).length) {
      expect(
        t,
        U,
        o,
        'CUSTOMERS.TAX_RATES.SINGLE_RATE',
        Object.values(rates).every((r) => Number(r) === sent.taxRates),
        'taxRates is not one rate for all',
        () => `sent ${sent.taxRates}, got ${show(got.taxRates)}`,
      );
    }
    const n = obj(got.notificationSettings);
    const flags = obj(sent.notificationSettings);
    if (flags && n) {
      const wrong = Object.entries(flags).filter(
        ([k, v]) => typeof v === 'boolean' && typeof n[k] === 'boolean' && n[k] !== v,
      );
      if (Object.keys(flags).some((k) => typeof n[k] === 'boolean'))
        expect(
          t,
          U,
          o,
          'CUSTOMERS.NOTIFICATIONS.PARTIAL',
          wrong.length === 0,
          'notificationSettings does not hold the flags sent',
          () => wrong.map(([k, v]) => `${k} sent ${v}, got ${n[k]}`).join('; '),
        );
    }
  },
  updateSourceRule(o, got, sent, t) {
    const differs = ['description', 'enabled', 'name', 'order', 'conditions'].filter(
      (k) => sent[k] !== undefined && !holds(got[k], sent[k]),
    );
    if (Object.keys(sent).length)
      expect(
        t,
        U,
        o,
        'SOURCE_RULES.UPDATE.PARTIAL',
        differs.length === 0,
        'The source rule answered does not hold what was sent',
        () => differs.map((k) => `${k} sent ${show(sent[k])}, got ${show(got[k])}`).join('; '),
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
    const bad = items.filter((i) => obj(i)?.object !== 'schedule_interval' || obj(i)?.scheduleId !== o.params.id);
    expect(
      t,
      U,
      o,
      'SCHEDULES.INTERVALS.PAGINATED',
      got.object === 'list' && Array.isArray(got.data) && !!obj(got.pagination) && bad.length === 0,
      'Not the intervals of the schedule asked for',
      () => `schedule ${o.params.id}: object ${show(got.object)}, ${bad.length} item(s) of another schedule or type`,
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
        'ALERTS.LIST.LIMIT_RANGE',
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
        'ALERTS.LIST.OFFSET',
        p.offset === Number(offset),
        'The alerts page does not start at the offset asked for',
        () => `offset=${offset}: pagination.offset ${show(p.offset)}`,
      );
  },
  updateAlert(o, got, _s, t) {
    expect(
      t,
      U,
      o,
      'ALERTS.UPDATE.OK',
      o.record.status === 200 && got.object === 'alert' && got.id === o.params.id,
      'The alert update does not answer the alert',
      () => `status ${o.record.status}, object ${show(got.object)}, id ${show(got.id)} for ${o.params.id}`,
    );
  },
  updateAutoTopupConfig(o, got, sent, t) {
    const limit = obj(got.limit);
    expect(
      t,
      U,
      o,
      'WALLETS.AUTO_TOPUP.SHAPE',
      got.object === 'autoTopupConfig' &&
        (got.limit === undefined || (!!limit && typeof limit.amount === 'number' && typeof limit.period === 'string')),
      'Not an autoTopupConfig',
      () => `object ${show(got.object)}, limit ${show(got.limit)}`,
    );
    const differs = ['amount', 'threshold'].filter(
      (k) => typeof sent[k] === 'string' && !decimalEquals(got[k], sent[k]),
    );
    if (sent.paymentMethod !== undefined && got.paymentMethod !== sent.paymentMethod) differs.push('paymentMethod');
    if (differs.length || ['amount', 'threshold', 'paymentMethod'].some((k) => sent[k] !== undefined))
      expect(
        t,
        U,
        o,
        'WALLETS.AUTO_TOPUP.SHAPE',
        differs.length === 0,
        'The configuration does not hold the values sent',
        () => differs.map((k) => `${k} sent ${show(sent[k])}, got ${show(got[k])}`).join('; '),
      );
    if (obj(sent.limit)?.period === 'day')
      expect(
        t,
        U,
        o,
        'WALLETS.AUTO_TOPUP.PERIOD_DAY',
        limit?.period === 'day',
        'limit.period day not kept',
        () => `limit ${show(got.limit)}`,
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
    'CUSTOMERS.GET.BY_ID',
    'PRICES.GET.BY_ID',
    'PAYMENTS.GET.BY_ID',
    'PRODUCTS.CREATE.OBJECT',
    'REFUNDS.INVOICE.MATCHES',
    'REFUNDS.ID.PREFIX',
    'REFUNDS.STATUS.ENUM',
    'REFUNDS.TOTAL.SUM',
    'REFUNDS.REASON.RECORDED',
    'STATE.WEBHOOKS.ENABLE',
    'STATE.WEBHOOKS.DISABLE',
    'WEBHOOKS.CONFIG.SHAPE',
    'WEBHOOKS.MERCHANT.NAMED',
    'ITEMS.UPDATE.APPLIED',
    'STATE.ITEM.ARCHIVE',
    'STATE.ITEM.UNARCHIVE',
    'ITEMS.ARCHIVED_AT.STATE',
    'CUSTOMERS.TAX_ID.NULL_CLEARS',
    'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS',
    'CUSTOMERS.TAX_RATES.SINGLE_RATE',
    'CUSTOMERS.NOTIFICATIONS.PARTIAL',
    'SOURCE_RULES.UPDATE.PARTIAL',
    'SCHEDULES.END_DATE.PRESENT',
    'SCHEDULES.OWNER.EXACTLY_ONE',
    'SCHEDULES.CREATE.BY_ORDER',
    'SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED',
    'SCHEDULES.INTERVALS.PAGINATED',
    'ALERTS.LIST.LIMIT_DEFAULT',
    'ALERTS.LIST.LIMIT_RANGE',
    'ALERTS.LIST.OFFSET',
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
    answer(o, got, obj(o.sent) ?? {}, ctx.server(this));
  },
};
