/** The 2xx answer to a PATCH holds what the request asked for, one exchange at a time. */
import { isDateTime } from '../predicates.ts';
import { defineCheck, isObject } from './types.ts';
import { answerTo, decimalEquals, holds, Judgement, notHeld, sameJson, sentFields, sentVsGot, show } from './answer.ts';

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
      got.object === 'webhooks' &&
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
      a.ex.status === 200 && got.object === 'alert' && got.id === a.params.id,
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
      got.object === 'autoTopupConfig' &&
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
