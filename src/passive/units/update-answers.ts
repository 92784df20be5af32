/**
 * The answers unit's judgements of updates (answers.ts): the 2xx answer to a PATCH holds what
 * the request asked for (webhooks toggled, item fields and archiving, customer fields cleared,
 * source rules, alerts, auto top-up configuration).
 */
import { Decimal } from 'decimal.js';
import type { RuleIndex } from '../../contract/rules.ts';
import type { Tally } from '../tally.ts';
import type { Observed } from '../types.ts';
import {
  DECIMAL,
  expect,
  holds,
  isDateTime,
  notHeld,
  obj,
  queryOf,
  sameJson,
  sentVsGot,
  show,
  type Json,
} from './support.ts';

/** Judges one answer: the observed exchange, its JSON body, the JSON sent, and the unit's tally. */
/** Judges one answer; `rules` is spec/rules.yaml, where the constants it compares with come from. */
export type Answer = (o: Observed, got: Json, sent: Json, t: Tally, rules: RuleIndex) => void;

/** The unit these answers report under. */
export const U = 'answers';

function decimalEquals(a: unknown, b: string): boolean {
  if (typeof a !== 'string' || !DECIMAL.test(a) || !DECIMAL.test(b)) return a === b;
  return new Decimal(a).equals(b);
}

/** Answers to 2xx responses of updates, by operation. */
export const ON_UPDATE: Record<string, Answer> = {
  updateWebhooks(o, got, sent, t) {
    if (typeof sent.enabled === 'boolean') {
      const rule = sent.enabled ? 'STATE.WEBHOOKS.ENABLE' : 'STATE.WEBHOOKS.DISABLE#sets-disabled';
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
        `object ${show(got.object)}, applicationId ${show(got.applicationId)}, ` +
        `createdAt ${show(got.createdAt)}, updatedAt ${show(got.updatedAt)}, merchantId ${show(got.merchantId)}`,
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
        'ITEMS.UPDATE.APPLIED#holds-sent',
        differs.length === 0,
        'The item answered does not hold what was sent',
        () => sentVsGot(differs, sent, got),
      );
    }
    if (sent.archived === true)
      expect(
        t,
        U,
        o,
        ['STATE.ITEM.ARCHIVE', 'ITEMS.ARCHIVED_AT.STATE#set-when-archived'],
        isDateTime(got.archivedAt),
        'Archiving left archivedAt unset',
        () => `archivedAt ${show(got.archivedAt)}`,
      );
    if (sent.archived === false)
      expect(
        t,
        U,
        o,
        ['STATE.ITEM.UNARCHIVE', 'ITEMS.ARCHIVED_AT.STATE#null-while-active'],
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
    const differs = notHeld(sent, got, ['description', 'enabled', 'name', 'order', 'conditions'], holds);
    if (Object.keys(sent).length)
      expect(
        t,
        U,
        o,
        'SOURCE_RULES.UPDATE.PARTIAL#applies-sent',
        differs.length === 0,
        'The source rule answered does not hold what was sent',
        () => sentVsGot(differs, sent, got),
      );
  },
  updateAlert(o, got, sent, t) {
    expect(
      t,
      U,
      o,
      'ALERTS.UPDATE.OK',
      o.record.status === 200 && got.object === 'alert' && got.id === o.params.id,
      'The alert update does not answer the alert',
      () => `status ${o.record.status}, object ${show(got.object)}, id ${show(got.id)} for ${o.params.id}`,
    );
    // config's contents are not shown: only the fields whose form the document gives are compared.
    const compared = ['enabled', 'notifyPeriod', 'recipients'];
    const differs = notHeld(sent, got, compared);
    if (compared.some((k) => sent[k] !== undefined))
      expect(t, U, o, 'ALERTS.UPDATE.OK', differs.length === 0, 'The alert answered does not hold what was sent', () =>
        sentVsGot(differs, sent, got),
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
        () => sentVsGot(differs, sent, got),
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
