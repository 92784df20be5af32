/**
 * Version-migration answers (POST /v0/subscriptions/{id}/versionMigration): the shape of an
 * accepted migration, its version numbers against the request, pinning, `changed` against
 * the two versions; a targetVersionNumber outside 1..2147483647 (or not an integer) is never
 * accepted; each 409's code, when given, is UPPER_SNAKE_CASE.
 */
import type { PassiveUnit } from '../types.ts';
import {
  expect,
  is2xx,
  isDateTime,
  obj,
  opId,
  show,
  TARGET_VERSION,
  targetVersionInRange,
  UPPER_SNAKE,
} from './support.ts';

const U = 'migration';

export const migrationUnit: PassiveUnit = {
  name: U,
  scope: 'server',
  title: 'version-migration answers against their requests',
  ruleIds: [
    'MIGRATION.RESPONSE.SHAPE',
    'MIGRATION.RESPONSE.VERSION_NUMBERS#to-requested',
    'MIGRATION.EFFECT.PINS',
    'MIGRATION.SAME_VERSION.NO_CHANGE',
    'MIGRATION.SAME_VERSION.PINS_FLOATING',
    'MIGRATION.400.TARGET_RANGE',
    'MIGRATION.409.CODE_VALUES',
  ],
  observe(o, ctx) {
    if (opId(o) !== 'migrateSubscriptionVersion' || o.record.status === undefined) return;
    const t = ctx.server(this);
    const target = obj(o.request.body)?.targetVersionNumber;
    const inRange = targetVersionInRange(target);
    if (!inRange) {
      // Out of range, not an integer, or left out: 400; another 4xx came for another reason first.
      if (o.record.status === 400) t.judge('MIGRATION.400.TARGET_RANGE');
      else if (is2xx(o))
        expect(
          t,
          U,
          o,
          'MIGRATION.400.TARGET_RANGE',
          false,
          'A migration with an invalid targetVersionNumber was accepted',
          () => `targetVersionNumber ${show(target)} is outside ${TARGET_VERSION} or not an integer`,
        );
      return;
    }
    if (o.record.status === 409) {
      const code = obj(o.got)?.code;
      if (typeof code === 'string')
        expect(
          t,
          U,
          o,
          'MIGRATION.409.CODE_VALUES',
          UPPER_SNAKE.test(code),
          'Migration 409 code is not UPPER_SNAKE_CASE',
          () => `code ${show(code)}`,
        );
      return;
    }
    if (!is2xx(o)) return;
    const got = obj(o.got) ?? {};
    const sub = obj(got.subscription);
    const m = obj(got.migration);
    const li = obj(got.lineItems);
    const shape =
      !!sub &&
      !!m &&
      !!li &&
      sub.object === 'subscription' &&
      sub.id === o.request.params.id &&
      Number.isInteger(m.fromVersionNumber) &&
      Number.isInteger(m.toVersionNumber) &&
      isDateTime(m.effectiveAt) &&
      typeof m.changed === 'boolean' &&
      typeof li.syncFailed === 'boolean';
    expect(
      t,
      U,
      o,
      'MIGRATION.RESPONSE.SHAPE',
      shape,
      'Migration answer not {subscription, migration, lineItems}',
      () =>
        `subscription ${show(sub && { id: sub.id, object: sub.object })}, migration ${show(m)}, ` +
        `lineItems ${show(li)} (for ${o.request.params.id})`,
    );
    if (!m || !sub) return;
    expect(
      t,
      U,
      o,
      'MIGRATION.RESPONSE.VERSION_NUMBERS#to-requested',
      m.toVersionNumber === target,
      'toVersionNumber is not the version asked for',
      () => `targetVersionNumber ${target}, toVersionNumber ${show(m.toVersionNumber)}`,
    );
    const same = m.fromVersionNumber === m.toVersionNumber;
    expect(
      t,
      U,
      o,
      same ? ['MIGRATION.EFFECT.PINS', 'MIGRATION.SAME_VERSION.PINS_FLOATING'] : 'MIGRATION.EFFECT.PINS',
      sub.versionPolicy === 'pinned',
      'The migrated subscription is not pinned',
      () => `versionPolicy ${show(sub.versionPolicy)}`,
    );
    if (typeof m.changed === 'boolean' && Number.isInteger(m.fromVersionNumber)) {
      if (same)
        expect(
          t,
          U,
          o,
          'MIGRATION.SAME_VERSION.NO_CHANGE',
          m.changed === false,
          'A same-version migration answered changed true',
          () => `from ${m.fromVersionNumber} to ${m.toVersionNumber}, changed ${m.changed}`,
        );
      else
        expect(
          t,
          U,
          o,
          'MIGRATION.RESPONSE.SHAPE',
          m.changed === true,
          'A move to another version answered changed false',
          () => `from ${m.fromVersionNumber} to ${m.toVersionNumber}, changed ${m.changed}`,
        );
    }
  },
};
