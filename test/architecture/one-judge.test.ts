/**
 * One place judges each rule part. The scenario suites judge what they provoke
 * (expectRule, softExpectRule, expectStatus); the state model judges what its sequences show;
 * the registry (src/engine/checks) judges every exchange, and the stream of them, of a run, a
 * proxy session or a HAR file; the passive judge runs the registry (its `checks` unit) and units
 * of its own for the clients. A part two of them judge with code of their own is written twice,
 * and the two can drift.
 *
 * No part is judged by two of them (each count is 0), and no judge is excepted. What one
 * exchange, or the stream of them, shows is the registry's: a suite, the rate-limit driver or a
 * model makes the exchanges happen and a finding of the registry on them fails the scenario (and
 * ends a model's sequence, through ModelHttp, or a generated property's case, which fast-check
 * then shrinks). The suites and the models judge what needs their own knowledge (what they set
 * up, the state before), under parts no check cites; where a suite and the model both judge such
 * a part, each on its own exchanges, the part is listed.
 *
 * The scan reads every file of src/engine, src/passive and suites/ for judging calls, the
 * registry's, the model's and the units' folders included; those judges are compared besides by
 * the keys they declare (a check's or a unit's ruleIds, src/engine/model/parts.ts).
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { tsFiles } from './walls.ts';
import { judgedIn, keysOfProperties, touches } from './judgements.ts';
import { createUnits } from '../../src/passive/units/index.ts';
import { CHECKS } from '../../src/engine/checks/index.ts';
import * as modelParts from '../../src/engine/model/parts.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Parts a scenario suite and the state model both judge, each on exchanges of its own with what it
 * set up (an existing resource answers, a migration to an archived version gets 404): scenarios of
 * two kinds, neither a judge of traffic. Listed, so that a new one is a decision.
 */
const SUITE_AND_MODEL = [
  'ALERTS.UPDATE.OK#updates-existing',
  'CUSTOMERS.GET.BY_ID#reads-existing',
  'ITEMS.ARCHIVED.READABLE',
  'ITEMS.UPDATE.APPLIED#accepted',
  'ITEMS.UPDATE.APPLIED#keeps-active',
  'ITEMS.UPDATE.APPLIED#read-back',
  'MIGRATION.404.ARCHIVED_VERSION',
  'MIGRATION.404.MISSING_VERSION',
  'MIGRATION.EFFECT.PERIOD_END#current-period-unchanged',
  'MIGRATION.EFFECT.PERIOD_END#effective-at-boundary',
  'MIGRATION.EFFECT.SECOND_REPLACES_FIRST#replaces-pending',
  'MIGRATION.RESPONSE.VERSION_NUMBERS#from-in-use',
  'MIGRATION.SAME_VERSION.REPEATABLE',
  'MIGRATION.TARGET.OLDER_OR_NEWER#newer',
  'MIGRATION.TARGET.OLDER_OR_NEWER#older',
  'PRICES.GET.BY_ID#reads-existing',
  'STATE.ITEM.ARCHIVE',
  'STATE.ITEM.UNARCHIVE',
  'STATE.SUBSCRIPTION.MIGRATE#pins',
  'VALIDATION.VALID_REQUEST.NOT_400',
];

/** Keys of `judged` that touch a rule key a judge cites: key to the judges' names. */
export function doubles(judged: Iterable<string>, judges: { name: string; ruleIds: readonly string[] }[]) {
  const keys = [...new Set(judged)];
  const names: Record<string, Set<string>> = {};
  for (const j of judges)
    for (const id of j.ruleIds)
      for (const k of keys.filter((key) => touches(key, id))) (names[k] ??= new Set()).add(j.name);
  return Object.fromEntries(Object.entries(names).map(([k, n]) => [k, [...n].sort().join(', ')]));
}

/**
 * What the scenario code judges with code of its own: the judging calls of every file of the
 * suites, src/engine and src/passive (the rate-limit driver, the generators, and any such call in
 * the registry, the model or a unit), the parts the contract suite's generated positives judge
 * themselves (`positives: { rules, accepted }`), and the problems generated properties return
 * (src/engine/generators/live.ts).
 */
async function suiteKeys(): Promise<string[]> {
  const keys: string[] = [];
  for (const dir of ['suites', 'src/engine', 'src/passive'])
    for (const f of await tsFiles(join(ROOT, dir))) {
      const src = await readFile(f, 'utf8');
      keys.push(...judgedIn(src, relative(ROOT, f)), ...keysOfProperties(src, ['rules', 'accepted'], 'positives'));
    }
  keys.push(...keysOfProperties(await readFile(join(ROOT, 'src/engine/generators/live.ts'), 'utf8'), ['ruleId']));
  return keys;
}

/** The rule keys src/engine/model/parts.ts names: what the state model judges. */
function modelKeys(): string[] {
  const flat = (v: unknown): string[] =>
    typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(flat) : [];
  return Object.values(modelParts)
    .flatMap(flat)
    .filter((k) => /^[A-Z][A-Z0-9_]*\./.test(k));
}

describe('one place judges each rule part', () => {
  test('the scan finds judging calls by rule key: literal, listed, a constant or a table of the file', () => {
    const src = [
      "const RULE = 'C.O.N#st';",
      "const FAMILIES = [{ body: 'F.A.M#body', name: 'x' }, { body: 'G.A.M#body' }];",
      "t.expectRule('A.B.C', ok, 'm');",
      "t.expectStatus(['VALIDATION.TYPE.400', 'X.Y.Z#part'], ex, 400);",
      "t.softExpectRule('P.Q.R#one', ok, 'm');",
      't.softExpectRule(RULE, ok, "m"); t.expectRule(fam.body, ok, "m"); t.expectRule(fam.name, ok, "m");',
      "t.note('A.B.D is mentioned'); t.ruleNotJudged('E.F.G', 'why'); t.expectRule(`T.E.${x}`, ok, 'm');",
    ].join('\n');
    expect(judgedIn(src)).toEqual([
      'A.B.C',
      'VALIDATION.TYPE.400',
      'X.Y.Z#part',
      'P.Q.R#one',
      'C.O.N#st',
      'F.A.M#body',
      'G.A.M#body',
    ]);
    expect(doubles(['X.Y.Z#part', 'A.B.C'], [{ name: 'u', ruleIds: ['X.Y.Z', 'A.B.Q'] }])).toEqual({
      'X.Y.Z#part': 'u',
    });
    const table =
      "const CASES = [{ positives: { rules: ['P.O.S#own'], accepted: 'P.O.S#ok', registry: ['R.E.G'] }, rules: { x: ['N.E.G'] } }];";
    expect(keysOfProperties(table, ['rules', 'accepted'], 'positives')).toEqual(['P.O.S#own', 'P.O.S#ok']);
    expect(keysOfProperties("return { ruleId: 'V.A.L', problem: 'p' };", ['ruleId'])).toEqual(['V.A.L']);
  });

  test('no part is judged both by a suite and by a passive unit of its own', async () => {
    const keys = await suiteKeys();
    expect(keys.length).toBeGreaterThan(150);
    // The registry's checks run for the passive judge through its `checks` unit: one judge, not two.
    const units = createUnits().filter((u) => u.name !== 'checks');
    expect(units.length).toBeGreaterThan(0);
    expect(doubles(keys, units)).toEqual({});
  });

  test('no part is judged both by a passive unit and by the registry or the state model', () => {
    const units = createUnits().filter((u) => u.name !== 'checks');
    expect(
      doubles(
        units.flatMap((u) => u.ruleIds),
        [...CHECKS],
      ),
    ).toEqual({});
    expect(doubles(modelKeys(), units)).toEqual({});
  });

  test('the parts a suite and the state model both judge are the listed ones', async () => {
    const model = modelKeys();
    const both = [...new Set((await suiteKeys()).filter((k) => model.some((m) => touches(k, m))))].sort();
    expect(both).toEqual(SUITE_AND_MODEL);
  });

  test('no part is judged both by a suite and by the registry', async () => {
    expect(doubles(await suiteKeys(), [...CHECKS])).toEqual({});
  });

  test('the doubles folded into the registry would be caught again: the driver judging a window, the model a walk', () => {
    // The rate-limit driver judged RATE.EXCEEDED.STATUS itself; the registry's rate-exceeded judge does now.
    const driver = "d.t.softExpectRule('RATE.EXCEEDED.STATUS', refused, `past the limit`, again.ex);";
    expect(doubles(judgedIn(driver, 'src/engine/ratelimit/follow-ups.ts'), [...CHECKS])).toEqual({
      'RATE.EXCEEDED.STATUS': 'rate-exceeded',
    });
    // The customers model judged CUSTOMERS.DELETE.GONE#leaves-list; deleted-gone does, with CONV.DELETE.GONE.
    expect(doubles(['CUSTOMERS.DELETE.GONE#leaves-list'], [...CHECKS])).toEqual({
      'CUSTOMERS.DELETE.GONE#leaves-list': 'deleted-gone',
    });
  });

  test('no part is judged both by the state model and by the registry', () => {
    const keys = modelKeys();
    expect(keys.length).toBeGreaterThan(20);
    expect(doubles(keys, [...CHECKS])).toEqual({});
  });
});
