/**
 * Version migration (POST /v0/subscriptions/{id}/versionMigration) and version policy
 * (PATCH /v0/subscriptions/{id}): the MIGRATION and SUBSCRIPTIONS families and the
 * subscription transitions of STATE. Every scenario builds its own subscription.
 */
import { scenario } from '../src/engine/scenario/index.ts';
import {
  accepted,
  checkBilledFrom,
  checkVersioned,
  CONFLICTS,
  crossBoundary,
  judgeConflict,
  migrate,
  migrationFixture,
  migrateToSame,
  patchFloating,
  POLICY,
  readIfAvailable,
  refuseOutOfRange,
  sameInstant,
  TARGET_MAX,
} from './support/version-migration.ts';

// --------------------------------------------------------------------------- 400 / 404

// One subscription takes every refusal: none of them may change it. The archived version is
// judged where the fixture names one (cited only then would be a pass without a judgement). The
// out-of-range targets are sent broken on purpose: the registry judges their 400.
scenario(
  ['MIGRATION.400.TARGET_RANGE', 'MIGRATION.404.MISSING_VERSION'],
  'refused targets: out of range or not an integer gets 400, a missing or archived version 404, and nothing changes',
  async (t) => {
    const m = await migrationFixture(t);
    await refuseOutOfRange(t, m.subscriptionId);
    // The upper bound itself is in range: refused for not existing (404), never as a bad request.
    const top = await migrate(t, m.subscriptionId, TARGET_MAX);
    t.softExpectRule(
      'MIGRATION.404.MISSING_VERSION',
      top.status === 404,
      `version ${TARGET_MAX} does not exist on the plan: 404, got ${top.status ?? top.transportError}`,
      top,
    );
    const missing = await migrate(t, m.subscriptionId, m.missingVersionNumber);
    t.softExpectRule(
      'MIGRATION.404.MISSING_VERSION',
      missing.status === 404,
      `version ${m.missingVersionNumber} does not exist on the plan: 404, got ${missing.status ?? missing.transportError}`,
      missing,
    );
    if (m.archivedVersionNumber !== undefined) {
      const archived = await migrate(t, m.subscriptionId, m.archivedVersionNumber);
      t.softExpectRule(
        'MIGRATION.404.ARCHIVED_VERSION',
        archived.status === 404,
        `archived version ${m.archivedVersionNumber}: 404, got ${archived.status ?? archived.transportError}`,
        archived,
      );
    } else
      t.ruleNotJudged(
        'MIGRATION.404.ARCHIVED_VERSION',
        'the migration fixture names no archived plan version',
        'fixture',
      );
    // That nothing changed shows only in a read; the refusals themselves are judged above.
    const after = await readIfAvailable(t, m.subscriptionId);
    if (after) {
      const unchanged = after.versionPolicy === m.versionPolicy && after.versionNumber === m.currentVersionNumber;
      const what =
        `refused migrations leave the subscription as it was (${m.versionPolicy} ` +
        `on ${m.currentVersionNumber}); it reads ${after.versionPolicy} on ${after.versionNumber}`;
      t.softExpectRule('MIGRATION.404.MISSING_VERSION', unchanged, what);
    }
  },
  { concurrent: true },
);

// --------------------------------------------------------------------------- 409

for (const [kind, rule, what] of CONFLICTS) {
  scenario(
    [rule, 'MIGRATION.409.CODE_VALUES'],
    `migrating ${what} gets 409 with a code`,
    (t) => judgeConflict(t, kind, rule),
    { concurrent: true },
  );
}

// --------------------------------------------------------------------------- accepted migrations

scenario(
  [
    'MIGRATION.RESPONSE.SHAPE',
    'MIGRATION.RESPONSE.VERSION_NUMBERS',
    'MIGRATION.EFFECT.PINS',
    'MIGRATION.EFFECT.PERIOD_END',
    'STATE.SUBSCRIPTION.MIGRATE',
    'SUBSCRIPTIONS.VERSION.NUMBERED',
  ],
  'a migration of a floating subscription answers the documented shape, pins it and takes effect at the period end',
  async (t) => {
    const m = await migrationFixture(t, POLICY.floating);
    const target = m.newerVersionNumbers[0] ?? m.olderVersionNumbers[0];
    if (target === undefined) t.notJudged('the migration fixture names no other published version', 'fixture');
    const before = await readIfAvailable(t, m.subscriptionId);
    if (before) checkVersioned(t, before, 'the subscription before migrating');
    const res = await migrate(t, m.subscriptionId, target);
    // A valid migration refused does not leave the subscription pinned.
    // Its shape, toVersionNumber and the pin in the answer are the registry's (checks/migration.ts).
    const { subscription, migration } = accepted(t, 'STATE.SUBSCRIPTION.MIGRATE#pins', res);
    checkVersioned(t, subscription, 'the migrated subscription', res);
    t.softExpectRule(
      'MIGRATION.RESPONSE.VERSION_NUMBERS#from-in-use',
      migration.fromVersionNumber === m.currentVersionNumber,
      `fromVersionNumber is the version in use, ${m.currentVersionNumber} (got ${JSON.stringify(migration.fromVersionNumber)})`,
      res,
    );
    const atPeriodEnd = sameInstant(migration.effectiveAt, m.currentPeriodEnd);
    const effective =
      `effectiveAt is the end of the current billing period, ${m.currentPeriodEnd} ` +
      `(got ${JSON.stringify(migration.effectiveAt)})`;
    t.softExpectRule('MIGRATION.EFFECT.PERIOD_END#effective-at-boundary', atPeriodEnd, effective, res);
    t.softExpectRule(
      'STATE.SUBSCRIPTION.MIGRATE#pins',
      subscription.versionPolicy === POLICY.pinned,
      `the accepted migration leaves the subscription pinned (got ${JSON.stringify(subscription.versionPolicy)})`,
      res,
    );
    t.softExpectRule('STATE.SUBSCRIPTION.MIGRATE#at-period-end', atPeriodEnd, effective, res);
    // The answer shows the pin and the effective date; a read, where there is one, shows them held.
    const after = await readIfAvailable(t, m.subscriptionId, ['MIGRATION.EFFECT.PERIOD_END#current-period-unchanged']);
    if (!after) return;
    t.softExpectRule(
      'STATE.SUBSCRIPTION.MIGRATE#pins',
      after.versionPolicy === POLICY.pinned,
      `the migration left the subscription pinned: it reads ${JSON.stringify(after.versionPolicy)}`,
    );
    // The current period bills as before: until the boundary the subscription is on the version in use.
    t.softExpectRule(
      'MIGRATION.EFFECT.PERIOD_END#current-period-unchanged',
      after.versionNumber === m.currentVersionNumber,
      `before the boundary the subscription stays on version ${m.currentVersionNumber} (reads ${after.versionNumber})`,
    );
    checkVersioned(t, after, 'the subscription read after migrating');
  },
  { concurrent: true },
);

// A newer target, then an older one. Billing after the boundary is judged where the target
// can cross it (test clocks); the answers always are.
scenario(
  ['MIGRATION.EFFECT.SECOND_REPLACES_FIRST', 'MIGRATION.TARGET.OLDER_OR_NEWER'],
  'newer and older versions are both valid targets, and a second migration before the boundary replaces the first',
  async (t) => {
    const m = await migrationFixture(t, POLICY.floating);
    const first = m.newerVersionNumbers[0];
    const second = m.olderVersionNumbers[0];
    if (first === undefined || second === undefined)
      t.notJudged('the migration fixture needs an older and a newer published version', 'fixture');
    const one = await migrate(t, m.subscriptionId, first);
    const a = accepted(t, 'MIGRATION.TARGET.OLDER_OR_NEWER#newer', one).migration;
    t.softExpectRule(
      'MIGRATION.TARGET.OLDER_OR_NEWER#newer',
      a.changed === true && a.toVersionNumber === first,
      `the newer version ${first} is a real move (changed ${JSON.stringify(a.changed)}, to ${JSON.stringify(a.toVersionNumber)})`,
      one,
    );
    const res = await migrate(t, m.subscriptionId, second);
    const { migration } = accepted(t, 'MIGRATION.TARGET.OLDER_OR_NEWER#older', res);
    t.softExpectRule(
      'MIGRATION.TARGET.OLDER_OR_NEWER#older',
      migration.changed === true && migration.toVersionNumber === second,
      `the older version ${second} is a real move (changed ${JSON.stringify(migration.changed)}, ` +
        `to ${JSON.stringify(migration.toVersionNumber)})`,
      res,
    );
    t.softExpectRule(
      'MIGRATION.EFFECT.SECOND_REPLACES_FIRST#replaces-pending',
      migration.fromVersionNumber === m.currentVersionNumber,
      `the first migration did not take effect before the boundary: from is ` +
        `still ${m.currentVersionNumber} (got ${JSON.stringify(migration.fromVersionNumber)})`,
      res,
    );
    t.softExpectRule(
      'MIGRATION.EFFECT.SECOND_REPLACES_FIRST#replaces-pending',
      migration.toVersionNumber === second && sameInstant(migration.effectiveAt, m.currentPeriodEnd),
      `the second answer moves to ${second} at ${m.currentPeriodEnd} (got ${migration.toVersionNumber} at ${migration.effectiveAt})`,
      res,
    );
    const billed = await crossBoundary(t, m.subscriptionId);
    checkBilledFrom(t, 'MIGRATION.EFFECT.SECOND_REPLACES_FIRST#second-takes-effect', m, second, billed);
    checkBilledFrom(t, 'MIGRATION.EFFECT.BILLS_TARGET', m, second, billed);
    const after = await t.fixture((f) => f.readSubscription(m.subscriptionId));
    t.softExpectRule(
      'MIGRATION.EFFECT.SECOND_REPLACES_FIRST#second-takes-effect',
      after.versionNumber === second,
      `after the boundary the subscription is on version ${second}, not ${first} (reads ${after.versionNumber})`,
    );
    // The plan's default is still the fixture's current version: a pinned subscription stays on its own.
    t.softExpectRule(
      'SUBSCRIPTIONS.VERSION_POLICY.PINNED_STAYS',
      after.versionPolicy === POLICY.pinned && after.versionNumber === second,
      `the pinned subscription stays on version ${second} while the plan default ` +
        `is ${m.currentVersionNumber} (reads ${after.versionPolicy} on ${after.versionNumber})`,
    );
  },
  { concurrent: true },
);

scenario(
  ['MIGRATION.EFFECT.BILLS_TARGET', 'SUBSCRIPTIONS.VERSION_POLICY.PINNED_STAYS'],
  'after the boundary the subscription bills from the target version',
  async (t) => {
    const m = await migrationFixture(t, POLICY.pinned);
    const target = m.newerVersionNumbers[0] ?? m.olderVersionNumbers[0];
    if (target === undefined) t.notJudged('the migration fixture names no other published version', 'fixture');
    // Accepting the migration is the transition's rule (judged above); here a precondition of what the next period bills.
    const { migration } = accepted(t, undefined, await migrate(t, m.subscriptionId, target));
    t.softExpectRule(
      'MIGRATION.EFFECT.PERIOD_END#effective-at-boundary',
      sameInstant(migration.effectiveAt, m.currentPeriodEnd),
      `effectiveAt is ${m.currentPeriodEnd} (got ${JSON.stringify(migration.effectiveAt)})`,
    );
    const billed = await crossBoundary(t, m.subscriptionId);
    checkBilledFrom(t, 'MIGRATION.EFFECT.BILLS_TARGET', m, target, billed);
    const after = await t.fixture((f) => f.readSubscription(m.subscriptionId));
    t.softExpectRule(
      'MIGRATION.EFFECT.BILLS_TARGET',
      after.versionNumber === target,
      `after the boundary the subscription is on version ${target} (reads ${after.versionNumber})`,
    );
    t.softExpectRule(
      'SUBSCRIPTIONS.VERSION_POLICY.PINNED_STAYS',
      after.versionPolicy === POLICY.pinned && after.versionNumber === target,
      `the pinned subscription stays on version ${target} while the plan default ` +
        `is ${m.currentVersionNumber} (reads ${after.versionPolicy} on ${after.versionNumber})`,
    );
  },
  { concurrent: true },
);

// --------------------------------------------------------------------------- same version

scenario(
  [
    'MIGRATION.SAME_VERSION.NO_CHANGE',
    'MIGRATION.SAME_VERSION.PINS_FLOATING',
    'MIGRATION.SAME_VERSION.REPEATABLE',
    'MIGRATION.RESPONSE.VERSION_NUMBERS',
    'MIGRATION.EFFECT.PERIOD_END#current-period-unchanged',
  ],
  'migrating to the version in use changes nothing but pins, and can be repeated',
  async (t) => {
    const m = await migrationFixture(t, POLICY.floating);
    const answers = [];
    const subscriptions = [];
    for (let i = 0; i < 2; i++) {
      const { subscription, migration } = await migrateToSame(t, m, i === 0);
      answers.push(migration);
      subscriptions.push(subscription);
    }
    const [a, b] = answers;
    t.softExpectRule(
      'MIGRATION.SAME_VERSION.REPEATABLE',
      a.changed === b.changed && a.fromVersionNumber === b.fromVersionNumber && a.toVersionNumber === b.toVersionNumber,
      'repeating gives the same outcome',
    );
    // The repeat finds the subscription pinned already: it "changes nothing", not even updatedAt.
    const [s1, s2] = subscriptions;
    if (typeof s1.updatedAt === 'string')
      t.softExpectRule(
        'MIGRATION.SAME_VERSION.REPEATABLE',
        s2.updatedAt === s1.updatedAt,
        `the repeat leaves the pinned subscription untouched (updatedAt ${s1.updatedAt} then ${s2.updatedAt})`,
      );
    // The repeat changing nothing is the registry's (checks/migration-stream.ts); a read shows what stayed.
    const after = await readIfAvailable(t, m.subscriptionId, ['MIGRATION.EFFECT.PERIOD_END#current-period-unchanged']);
    if (!after) return;
    t.softExpectRule(
      'MIGRATION.SAME_VERSION.PINS_FLOATING',
      after.versionPolicy === POLICY.pinned,
      `the subscription reads pinned (got ${after.versionPolicy})`,
    );
    t.softExpectRule(
      'MIGRATION.EFFECT.PERIOD_END#current-period-unchanged',
      after.versionNumber === m.currentVersionNumber,
      `the subscription reads version ${m.currentVersionNumber} (got ${after.versionNumber})`,
    );
  },
  { concurrent: true },
);

// --------------------------------------------------------------------------- floating again

scenario(
  [
    'STATE.SUBSCRIPTION.FLOATING',
    'SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT',
    'SUBSCRIPTIONS.UPDATE.BODY',
    'SUBSCRIPTIONS.VERSION.NUMBERED',
  ],
  'PATCH versionPolicy floating returns a pinned subscription to the plan default',
  async (t) => {
    const m = await migrationFixture(t, POLICY.floating);
    const target = m.newerVersionNumbers[0] ?? m.olderVersionNumbers[0];
    if (target === undefined) t.notJudged('the migration fixture names no other published version', 'fixture');
    // A floating subscription is on the plan's default version: the fixture's current one. Only a read shows the policy.
    const start = await readIfAvailable(t, m.subscriptionId, [
      'SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT#on-default',
    ]);
    if (start)
      t.softExpectRule(
        'SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT#on-default',
        start.versionPolicy === POLICY.floating && start.versionNumber === m.currentVersionNumber,
        `a floating subscription is on the default version ${m.currentVersionNumber} ` +
          `(reads ${start.versionPolicy} on ${start.versionNumber})`,
      );
    accepted(t, undefined, await migrate(t, m.subscriptionId, target));
    await patchFloating(t, m.subscriptionId);
    // The PATCH answer is not shown: that the subscription is floating again shows only in a read.
    const after = await readIfAvailable(t, m.subscriptionId, [
      'STATE.SUBSCRIPTION.FLOATING#becomes-floating',
      'STATE.SUBSCRIPTION.FLOATING#follows-default',
      'SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT#refloated-follows',
    ]);
    if (!after) return;
    checkVersioned(t, after, 'the subscription read after PATCH');
    t.softExpectRule(
      'STATE.SUBSCRIPTION.FLOATING#becomes-floating',
      after.versionPolicy === POLICY.floating,
      `the subscription reads floating (got ${JSON.stringify(after.versionPolicy)})`,
    );
    const onDefault = `it follows the default version ${m.currentVersionNumber} (reads ${after.versionNumber})`;
    for (const key of [
      'STATE.SUBSCRIPTION.FLOATING#follows-default',
      'SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT#refloated-follows',
    ])
      t.softExpectRule(key, after.versionNumber === m.currentVersionNumber, onDefault);
    const billed = await crossBoundary(t, m.subscriptionId);
    checkBilledFrom(
      t,
      'SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT#refloated-follows',
      m,
      m.currentVersionNumber,
      billed,
    );
    const later = await t.fixture((f) => f.readSubscription(m.subscriptionId));
    t.softExpectRule(
      'STATE.SUBSCRIPTION.FLOATING#follows-default',
      later.versionPolicy === POLICY.floating && later.versionNumber === m.currentVersionNumber,
      `after the boundary the subscription is still floating on the ` +
        `default ${m.currentVersionNumber}, the dropped migration to ${target} did not happen ` +
        `(reads ${later.versionPolicy} on ${later.versionNumber})`,
    );
  },
  { concurrent: true },
);
