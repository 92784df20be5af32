/**
 * A version migration (POST /v0/subscriptions/{id}/versionMigration) against its own request,
 * one exchange at a time: an accepted one answers {subscription, migration, lineItems} for the
 * subscription asked, moves to the version asked and pins it; a 409 states its code in
 * UPPER_SNAKE_CASE; a targetVersionNumber outside the documented range (or not an integer, or
 * left out) is refused with 400. What needs earlier exchanges is in migration-stream.ts.
 */
import type { Exchange, Finding } from '../types.ts';
import { isDateTime, numberOf, objectNameOf, patternOf, perRules, versionPolicies } from '../predicates.ts';
import { defineCheck, describeStatus, finding, is2xx, isObject, type CheckContext, type SpecView } from './types.ts';

export const MIGRATE = 'migrateSubscriptionVersion';
const SHAPE = 'MIGRATION.RESPONSE.SHAPE';
const TO_REQUESTED = 'MIGRATION.RESPONSE.VERSION_NUMBERS#to-requested';
const PINS = 'MIGRATION.EFFECT.PINS';
const CODE_VALUES = 'MIGRATION.409.CODE_VALUES';
export const TARGET_RANGE = 'MIGRATION.400.TARGET_RANGE';

/** The range of targetVersionNumber (MIGRATION.400.TARGET_RANGE) and the code form (ERRORS.CODE.UPPER_SNAKE). */
const migrationRules = perRules((rules) => ({
  minimum: numberOf(rules, TARGET_RANGE, 'minimum'),
  maximum: numberOf(rules, TARGET_RANGE, 'maximum'),
  code: patternOf(rules, 'ERRORS.CODE.UPPER_SNAKE'),
}));

/** The targetVersionNumber sent, and whether it is an integer within the documented range. */
export function targetOf(ctx: CheckContext): { value: unknown; inRange: boolean; range: string } {
  const { minimum, maximum } = migrationRules(ctx.rules);
  const body = ctx.request.body;
  const value = isObject(body) ? body.targetVersionNumber : undefined;
  const inRange = Number.isInteger(value) && (value as number) >= minimum && (value as number) <= maximum;
  return { value, inRange, range: `${minimum}..${maximum}` };
}

const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

const judgedOne = (rule: string, ok: boolean, title: string, message: () => string, ex: Exchange, check: string) => ({
  judged: [rule],
  findings: ok ? [] : [finding(check, [rule], title, `${describeStatus(ex)}: ${message()}`, ex)],
});

/** What the accepted answer's shape lacks (MIGRATION.RESPONSE.SHAPE), for the subscription `id` asked. */
function shapeProblems(body: unknown, id: string | undefined, spec: SpecView): string[] {
  const b = isObject(body) ? body : {};
  const sub = isObject(b.subscription) ? b.subscription : undefined;
  const m = isObject(b.migration) ? b.migration : undefined;
  const li = isObject(b.lineItems) ? b.lineItems : undefined;
  const p: string[] = [];
  if (!sub) p.push('subscription is not an object');
  else if (sub.object !== objectNameOf(spec, 'Subscription') || sub.id !== id)
    p.push(`subscription is ${show({ object: sub.object, id: sub.id })}, not subscription ${id}`);
  if (!m) p.push('migration is not an object');
  else {
    for (const f of ['fromVersionNumber', 'toVersionNumber'])
      if (!Number.isInteger(m[f])) p.push(`migration.${f} ${show(m[f])} is not an integer`);
    if (!isDateTime(m.effectiveAt)) p.push(`migration.effectiveAt ${show(m.effectiveAt)} is not a date-time`);
    if (typeof m.changed !== 'boolean') p.push(`migration.changed ${show(m.changed)} is not a boolean`);
    // A move to another version is a change.
    else if (Number.isInteger(m.fromVersionNumber) && m.fromVersionNumber !== m.toVersionNumber && !m.changed)
      p.push(`a move from version ${m.fromVersionNumber} to ${show(m.toVersionNumber)} answers changed false`);
  }
  if (!li) p.push('lineItems is not an object');
  else if (typeof li.syncFailed !== 'boolean') p.push(`lineItems.syncFailed ${show(li.syncFailed)} is not a boolean`);
  return p;
}

export const migrationAnswer = defineCheck({
  name: 'migration-answer',
  ruleIds: [SHAPE, TO_REQUESTED, PINS],
  description:
    'An accepted migration answers {subscription, migration, lineItems} for the subscription asked, ' +
    'moves to the targetVersionNumber asked and pins the subscription.',
  evaluate(ex, ctx, op) {
    // A request breaking a constraint is the validation rules' and migration-target-range's.
    if (op?.operationId !== MIGRATE || !is2xx(ex) || ctx.brokenRequest) return;
    const target = targetOf(ctx);
    if (!target.inRange) return;
    const id = ctx.request.params.id;
    const judged = [SHAPE];
    const findings: Finding[] = [];
    const fail = (rule: string, title: string, message: string) =>
      findings.push(finding('migration-answer', [rule], title, `${describeStatus(ex)}: ${message}`, ex));
    const problems = shapeProblems(ex.body, id, ctx.spec);
    if (problems.length) fail(SHAPE, 'Migration answer not {subscription, migration, lineItems}', problems.join('; '));
    const body = isObject(ex.body) ? ex.body : {};
    if (isObject(body.migration)) {
      judged.push(TO_REQUESTED);
      const to = body.migration.toVersionNumber;
      if (to !== target.value)
        fail(
          TO_REQUESTED,
          'toVersionNumber is not the version asked for',
          `asked ${target.value}, answered ${show(to)}`,
        );
    }
    if (isObject(body.subscription)) {
      judged.push(PINS);
      const policy = body.subscription.versionPolicy;
      if (policy !== versionPolicies(ctx.spec).pinned)
        fail(
          PINS,
          'The migrated subscription is not pinned',
          `subscription ${id} answers versionPolicy ${show(policy)}`,
        );
    }
    return { judged, findings };
  },
});

export const migrationConflictCode = defineCheck({
  name: 'migration-conflict-code',
  ruleIds: [CODE_VALUES],
  description: 'A migration refused with 409 states its code in UPPER_SNAKE_CASE (which codes is not shown).',
  evaluate(ex, ctx, op) {
    if (op?.operationId !== MIGRATE || ex.status !== 409 || !isObject(ex.body)) return;
    const code = ex.body.code;
    // A 409 without a code breaks the rule of its condition, which only a scenario knows.
    if (code === undefined || code === null) return;
    return judgedOne(
      CODE_VALUES,
      typeof code === 'string' && migrationRules(ctx.rules).code.test(code),
      'Migration 409 code is not UPPER_SNAKE_CASE',
      () => `code ${show(code)}`,
      ex,
      'migration-conflict-code',
    );
  },
});

export const migrationTargetRange = defineCheck({
  name: 'migration-target-range',
  ruleIds: [TARGET_RANGE],
  description:
    'A targetVersionNumber outside the documented range, not an integer or left out gets 400: never accepted, ' +
    'and no other refusal when the scenario broke only that.',
  evaluate(ex, ctx, op) {
    const status = ex.status;
    if (op?.operationId !== MIGRATE || status === undefined || ctx.request.bodyNotJson) return;
    const target = targetOf(ctx);
    if (target.inRange) return;
    const onPurpose = !!ctx.brokenOnPurpose;
    // Traffic does not say why a request was refused: only a 2xx fails, unless the scenario broke
    // this alone on purpose (then only missing credentials or a bucket still used up excuse it).
    const excused = onPurpose ? ctx.unauthenticated || status === 429 : !is2xx(ex);
    if (status !== 400 && excused) return;
    return judgedOne(
      TARGET_RANGE,
      status === 400,
      is2xx(ex)
        ? 'A migration with an invalid targetVersionNumber was accepted'
        : 'An invalid targetVersionNumber got no 400',
      () =>
        `targetVersionNumber ${show(target.value)} is outside ${target.range} or not an integer: 400` +
        (onPurpose ? ' (only it was broken, on purpose)' : ''),
      ex,
      'migration-target-range',
    );
  },
});
