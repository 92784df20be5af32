/**
 * The rule parts of spec/rules.yaml the state model judges, by what the model checks. The
 * suite cites them; a judgement under a key rules.yaml lacks is an engine error.
 */
export const OWNER = 'MERCHANTS.OWNER.NAMED';
export const CREATED_FIXED = 'CONV.TIMESTAMPS.LIFECYCLE#created-fixed';
export const UPDATED_NOT_BACK = 'CONV.TIMESTAMPS.LIFECYCLE#updated-not-back';
export const VALID_NOT_400 = 'VALIDATION.VALID_REQUEST.NOT_400';

export const CUSTOMER = {
  read: 'CUSTOMERS.GET.BY_ID#answers-resource',
  holdsSent: 'CUSTOMERS.UPDATE.APPLIED#holds-sent',
  readBack: 'CUSTOMERS.UPDATE.APPLIED#read-back',
  partial: 'CUSTOMERS.UPDATE.PARTIAL',
  notifications: 'CUSTOMERS.NOTIFICATIONS.PARTIAL',
  singleRate: 'CUSTOMERS.TAX_RATES.SINGLE_RATE',
  nullClears: { taxId: 'CUSTOMERS.TAX_ID.NULL_CLEARS', externalId: 'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS' },
  gone: 'CUSTOMERS.DELETE.GONE#reads-404',
  leavesList: 'CUSTOMERS.DELETE.GONE#leaves-list',
} as const;

export const ITEM = {
  holdsSent: 'ITEMS.UPDATE.APPLIED#holds-sent',
  keepsActive: 'ITEMS.UPDATE.APPLIED#keeps-active',
  partial: 'ITEMS.UPDATE.PARTIAL',
  archive: 'STATE.ITEM.ARCHIVE',
  unarchive: 'STATE.ITEM.UNARCHIVE',
  nullWhileActive: 'ITEMS.ARCHIVED_AT.STATE#null-while-active',
  setWhenArchived: 'ITEMS.ARCHIVED_AT.STATE#set-when-archived',
  readable: 'ITEMS.ARCHIVED.READABLE',
} as const;

export const PRICE = { read: 'PRICES.GET.BY_ID#answers-resource' } as const;

export const ALERT = { ok: 'ALERTS.UPDATE.OK', partial: 'ALERTS.UPDATE.PARTIAL' } as const;

export const SOURCE_RULE = {
  appliesSent: 'SOURCE_RULES.UPDATE.PARTIAL#applies-sent',
  keepsOthers: 'SOURCE_RULES.UPDATE.PARTIAL#keeps-others',
} as const;

export const MIGRATION = {
  /** Accepted, and left pinned (an answer, a read after). */
  accepted: 'STATE.SUBSCRIPTION.MIGRATE#pins',
  fromInUse: 'MIGRATION.RESPONSE.VERSION_NUMBERS#from-in-use',
  atBoundary: 'MIGRATION.EFFECT.PERIOD_END#effective-at-boundary',
  inUseUntilBoundary: 'MIGRATION.EFFECT.PERIOD_END#current-period-unchanged',
  replaces: 'MIGRATION.EFFECT.SECOND_REPLACES_FIRST#replaces-pending',
  older: 'MIGRATION.TARGET.OLDER_OR_NEWER#older',
  newer: 'MIGRATION.TARGET.OLDER_OR_NEWER#newer',
  repeatable: 'MIGRATION.SAME_VERSION.REPEATABLE',
  archived404: 'MIGRATION.404.ARCHIVED_VERSION',
  missing404: 'MIGRATION.404.MISSING_VERSION',
} as const;
