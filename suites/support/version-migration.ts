/**
 * Helpers of the version-migration suite (version-migration.suite.ts): migration requests and
 * answers, subscription reads through the fixtures, billing past the boundary, 409 conflicts.
 */
import type { ScenarioContext } from '../../src/engine/scenario/index.ts';
import type { Exchange } from '../../src/engine/types.ts';
import type { MigrationConflictKind, MigrationFixture, VersionPolicy } from '../../src/engine/fixtures/types.ts';
import { obj, is2xx, isFixtureUnavailable, requireAccepted, type Json } from '../support.ts';
import { loadRules, loadSpec, schemaConst, schemaEnum } from '../../src/contract/index.ts';
import { numberOf, versionPolicies } from '../../src/engine/predicates.ts';

const rules = await loadRules();
const spec = await loadSpec();
/** A subscription's object name, as the Subscription schema states it. */
const SUBSCRIPTION = schemaConst(spec, 'Subscription.object');
const migrationPath = (id: string) => spec.pathFor('migrateSubscriptionVersion', { id });
/** A subscription's versionPolicy values (pinned: a migration pins; floating: following the plan's default). */
export const POLICY = versionPolicies(spec);
/** The range of targetVersionNumber (MIGRATION.400.TARGET_RANGE). */
export const TARGET_MIN = numberOf(rules, 'MIGRATION.400.TARGET_RANGE', 'minimum');
export const TARGET_MAX = numberOf(rules, 'MIGRATION.400.TARGET_RANGE', 'maximum');

export const sameInstant = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' && !Number.isNaN(Date.parse(a)) && Date.parse(a) === Date.parse(b);

/** `brokenOnPurpose`: only the target is invalid, everything else set up validly (the registry expects 400). */
export function migrate(
  t: ScenarioContext,
  subscriptionId: string,
  targetVersionNumber: unknown,
  opts: { brokenOnPurpose?: boolean } = {},
): Promise<Exchange> {
  return t.http.post(migrationPath(subscriptionId), { targetVersionNumber }, opts);
}

export interface Migrated {
  subscription: Json;
  migration: Json;
}

/**
 * A successful migration answer. Its acceptance is judged under `rule` (a rule whose statement
 * says the migration is accepted), or, without one, is a precondition of what the scenario
 * judges next. The answer's shape, its toVersionNumber and the pin are the registry's
 * (checks/migration.ts): here its objects are only a precondition.
 */
export function accepted(t: ScenarioContext, rule: string | undefined, ex: Exchange): Migrated {
  if (rule) t.expectRule(rule, is2xx(ex), `the migration is accepted (2xx), got ${ex.status ?? ex.transportError}`, ex);
  else requireAccepted(t, ex, 'the migration');
  const body = obj(ex.body);
  const subscription = obj(body?.subscription);
  const migration = obj(body?.migration);
  t.precondition(subscription && migration, 'the answer carries subscription and migration objects', ex);
  return { subscription, migration };
}

/**
 * planVersionId, an integer versionNumber from 1 and a known versionPolicy. A fixture read
 * (no exchange) may come from a strategy that reads only the version fields: planVersionId
 * is judged there only when present.
 */
export function checkVersioned(t: ScenarioContext, sub: Json, where: string, ex?: Exchange): void {
  if (ex || sub.planVersionId !== undefined)
    t.softExpectRule(
      'SUBSCRIPTIONS.VERSION.NUMBERED',
      typeof sub.planVersionId === 'string' && sub.planVersionId.length > 0,
      `${where}: planVersionId is a string (${JSON.stringify(sub.planVersionId)})`,
      ex,
    );
  t.softExpectRule(
    'SUBSCRIPTIONS.VERSION.NUMBERED',
    Number.isInteger(sub.versionNumber) && sub.versionNumber >= 1,
    `${where}: versionNumber is an integer from 1 (${JSON.stringify(sub.versionNumber)})`,
    ex,
  );
  t.softExpectRule(
    'SUBSCRIPTIONS.VERSION.NUMBERED',
    schemaEnum(spec, 'VersionPolicy').includes(sub.versionPolicy),
    `${where}: versionPolicy is pinned or floating (${JSON.stringify(sub.versionPolicy)})`,
    ex,
  );
}

export const migrationFixture = (t: ScenarioContext, policy: VersionPolicy = POLICY.floating) =>
  t.fixture((f) => f.migration(policy));

/**
 * The subscription as the fixtures read it (the document shows no subscription read), or
 * undefined where they cannot: what the migration answers show is judged either way, and
 * `readOnly` (rules only a read can show) are not judged here, with the reason.
 */
export async function readIfAvailable(
  t: ScenarioContext,
  subscriptionId: string,
  readOnly: string[] = [],
): Promise<Json | undefined> {
  try {
    return await t.fixture((f) => f.readSubscription(subscriptionId));
  } catch (err) {
    if (!isFixtureUnavailable(err)) throw err;
    if (readOnly.length) t.ruleNotJudged(readOnly, `the subscription cannot be read: ${err.reason}`, err.category);
    return undefined;
  }
}

/**
 * Crosses the boundary where the target can (test clocks); where it cannot, the scenario ends
 * there and the rules it has not judged yet are not judged, naming the missing fixture.
 */
export async function crossBoundary(t: ScenarioContext, subscriptionId: string): Promise<string[]> {
  return (await t.fixture((f) => f.advancePastBoundary(subscriptionId))).billedPriceIds;
}

/** Price ids of `version` and of every other version (for "bills from the target" checks). */
export function versionPrices(m: MigrationFixture, version: number): { own: string[]; others: string[] } | undefined {
  const byVersion = m.pricesByVersion;
  if (!byVersion?.[version]) return undefined;
  const own = byVersion[version];
  const others = Object.entries(byVersion)
    .filter(([v]) => Number(v) !== version)
    .flatMap(([, ids]) => ids)
    .filter((id) => !own.includes(id));
  return { own, others };
}

export function checkBilledFrom(
  t: ScenarioContext,
  rule: string,
  m: MigrationFixture,
  version: number,
  billed: string[],
): void {
  const prices = versionPrices(m, version);
  if (!prices?.own.length)
    return t.ruleNotJudged(
      rule,
      `the migration fixture names no prices for version ${version}: billing not compared`,
      'fixture',
    );
  t.softExpectRule(
    rule,
    prices.own.every((p) => billed.includes(p)),
    `the period after the boundary bills version ${version}'s prices ${prices.own.join(', ')} (billed: ${billed.join(', ') || 'none'})`,
  );
  const stray = billed.filter((p) => prices.others.includes(p));
  t.softExpectRule(
    rule,
    stray.length === 0,
    `the period after the boundary bills no price of another version (billed ${stray.join(', ') || 'none'})`,
  );
}

/** Each 409 condition of the document: the fixture kind, its rule, and what it is. */
export const CONFLICTS: Array<[MigrationConflictKind, string, string]> = [
  ['notLive', 'MIGRATION.409.NOT_LIVE', 'a subscription that is not live'],
  ['endsBeforeBoundary', 'MIGRATION.409.ENDS_BEFORE_BOUNDARY', 'a subscription ending at or before the boundary'],
  ['endsAtBoundary', 'MIGRATION.409.ENDS_BEFORE_BOUNDARY', 'a subscription ending exactly at the boundary'],
  [
    'overrideRateMeaning',
    'MIGRATION.409.OVERRIDE_RATE',
    'a kept override whose rate would mean something else on the new price',
  ],
  [
    'overridePricingUnitChange',
    'MIGRATION.409.OVERRIDE_RATE',
    'a kept override whose new price draws down a credit pool instead of currency',
  ],
  [
    'overrideUnitBasisChange',
    'MIGRATION.409.OVERRIDE_RATE',
    'a kept override whose new price reads the rate as a proportion, not an amount per unit',
  ],
  ['featureChange', 'MIGRATION.409.FEATURE_CHANGE', 'a feature whose reset period changes'],
  ['featureMetricChange', 'MIGRATION.409.FEATURE_CHANGE', 'a feature whose metric changes'],
  ['featurePricingUnitChange', 'MIGRATION.409.FEATURE_CHANGE', 'a feature whose pricing unit changes'],
  ['priceCoveredByInterval', 'MIGRATION.409.INTERVAL_COVERED', 'a new price a continuing interval already covers'],
];

/** A migration the target must refuse with 409 and an UPPER_SNAKE_CASE code, changing nothing. */
export async function judgeConflict(t: ScenarioContext, kind: MigrationConflictKind, rule: string): Promise<void> {
  const c = await t.fixture((f) => f.migrationConflict(kind));
  // The 409 and its code are in the answer itself; that nothing changed shows only where the subscription can be read.
  const before = await readIfAvailable(t, c.subscriptionId);
  const res = await migrate(t, c.subscriptionId, c.targetVersionNumber);
  t.expectStatus(rule, res, 409);
  const after = before && (await readIfAvailable(t, c.subscriptionId));
  if (before && after)
    t.softExpectRule(
      rule,
      after.versionPolicy === before.versionPolicy && after.versionNumber === before.versionNumber,
      `the refused migration changes nothing (${before.versionPolicy} on ${before.versionNumber} ` +
        `before, ${after.versionPolicy} on ${after.versionNumber} after)`,
    );
  const code = obj(res.body)?.code;
  t.softExpectRule(
    rule,
    typeof code === 'string' && code.length > 0,
    `the 409 carries a code (${JSON.stringify(code)})`,
    res,
  );
  // Which codes: not shown. Their form is the registry's (checks/migration.ts), where there is a code.
  if (code === undefined || code === null)
    return t.ruleNotJudged('MIGRATION.409.CODE_VALUES', 'the 409 carries no code', 'target');
  t.note(`${kind}: code ${JSON.stringify(code)} (code values are not shown in the document; not judged)`);
}

/**
 * Migrates the floating fixture to the version in use: the first time it is pinned
 * (PINS_FLOATING: the fixture says it was floating); the repeat (`first` false) answers as the
 * first did. That the repeat changes nothing (NO_CHANGE) and moves to the version asked are the
 * registry's (checks/migration-stream.ts, checks/migration.ts).
 */
export async function migrateToSame(
  t: ScenarioContext,
  m: MigrationFixture,
  first: boolean,
): Promise<{ subscription: Json; migration: Json }> {
  const res = await migrate(t, m.subscriptionId, m.currentVersionNumber);
  const rule = first ? 'MIGRATION.SAME_VERSION.PINS_FLOATING' : 'MIGRATION.SAME_VERSION.REPEATABLE';
  const { subscription, migration } = accepted(t, rule, res);
  t.softExpectRule(
    'MIGRATION.RESPONSE.VERSION_NUMBERS#from-in-use',
    migration.fromVersionNumber === m.currentVersionNumber,
    `fromVersionNumber is the version in use, ${m.currentVersionNumber} (got ${migration.fromVersionNumber})`,
    res,
  );
  t.softExpectRule(
    rule,
    subscription.versionPolicy === POLICY.pinned,
    `the ${first ? POLICY.floating : POLICY.pinned} subscription is pinned (got ${JSON.stringify(subscription.versionPolicy)})`,
    res,
  );
  if (first) return { subscription, migration };
  t.softExpectRule(
    rule,
    migration.changed === false,
    `a repeated same-version migration answers changed false (got ${JSON.stringify(migration.changed)})`,
    res,
  );
  t.softExpectRule(
    rule,
    subscription.versionNumber === undefined || subscription.versionNumber === m.currentVersionNumber,
    `the subscription stays on version ${m.currentVersionNumber} (answer says ${subscription.versionNumber})`,
    res,
  );
  return { subscription, migration };
}

/** PATCH versionPolicy floating, accepted (2xx: a refusal does not make it floating); its answer judged only on the reference. */
export async function patchFloating(t: ScenarioContext, subscriptionId: string): Promise<void> {
  const res = await t.http.patch(spec.pathFor('updateSubscription', { id: subscriptionId }), {
    versionPolicy: POLICY.floating,
  });
  t.expectRule(
    'STATE.SUBSCRIPTION.FLOATING#becomes-floating',
    is2xx(res),
    `PATCH versionPolicy floating is accepted (2xx), got ${res.status ?? res.transportError}`,
    res,
  );
  // The PATCH answer is not shown: judged only as a promise of the bundled reference.
  if (t.target.referenceServer) {
    const body = obj(res.body);
    t.softExpectRule(
      'SUBSCRIPTIONS.UPDATE.BODY',
      body?.object === SUBSCRIPTION && body?.id === subscriptionId && body?.versionPolicy === POLICY.floating,
      'the reference answers the floating subscription',
      res,
    );
  } else
    t.ruleNotJudged(
      'SUBSCRIPTIONS.UPDATE.BODY',
      'a reference rule (the PATCH answer is not shown): not judged on this target',
      'not-applicable',
    );
}

/**
 * Out-of-range and non-integer targets, and a body without one, on a live subscription: each
 * broken on purpose, so the registry expects 400 and no other answer (checks/migration.ts).
 */
export async function refuseOutOfRange(t: ScenarioContext, subscriptionId: string): Promise<void> {
  for (const bad of [TARGET_MIN - 1, TARGET_MIN - 2, TARGET_MAX + 1, TARGET_MIN + 0.5, '3', null])
    await migrate(t, subscriptionId, bad, { brokenOnPurpose: true });
  await t.http.post(migrationPath(subscriptionId), {}, { brokenOnPurpose: true });
}
