/**
 * The rule parts of spec/rules.yaml the state model judges, by what the model checks. The
 * suite cites them; a judgement under a key rules.yaml lacks is an engine error. What one
 * answer shows is the check registry's (its finding ends a sequence: ModelHttp): these
 * are the parts that need what the model knows (the resource exists, the state before, a read
 * through the fixtures), none of them a part a registered check cites.
 */
export const OWNER = 'MERCHANTS.OWNER.NAMED';
export const VALID_NOT_400 = 'VALIDATION.VALID_REQUEST.NOT_400';

export const CUSTOMER = {
  read: 'CUSTOMERS.GET.BY_ID#reads-existing',
  holdsSent: 'CUSTOMERS.UPDATE.APPLIED#holds-sent',
  readBack: 'CUSTOMERS.UPDATE.APPLIED#read-back',
} as const;

export const ITEM = {
  accepted: 'ITEMS.UPDATE.APPLIED#accepted',
  readBack: 'ITEMS.UPDATE.APPLIED#read-back',
  keepsActive: 'ITEMS.UPDATE.APPLIED#keeps-active',
  archive: 'STATE.ITEM.ARCHIVE',
  unarchive: 'STATE.ITEM.UNARCHIVE',
  readable: 'ITEMS.ARCHIVED.READABLE',
} as const;

export const PRICE = { read: 'PRICES.GET.BY_ID#reads-existing' } as const;

export const ALERT = { updates: 'ALERTS.UPDATE.OK#updates-existing' } as const;

export const SOURCE_RULE = { accepted: 'SOURCE_RULES.UPDATE.PARTIAL#accepted' } as const;

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
