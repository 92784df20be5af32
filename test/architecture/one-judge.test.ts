/**
 * One place judges each rule part. The scenario suites judge what they provoke
 * (expectRule, softExpectRule, expectStatus); the state model judges what its sequences show;
 * the registry (src/engine/checks) judges every exchange of a run, a proxy session or a HAR
 * file; the passive judge runs the registry (its `checks` unit) and units of its own for what
 * only all of the traffic shows. A part two of them judge with code of their own is written
 * twice, and the two can drift.
 *
 * No part is judged by two of them (each count is 0). What one exchange shows is the
 * registry's: a suite or a model makes the exchange happen and a finding of the registry on it
 * fails the scenario (and ends a model's sequence, through ModelHttp, or a generated
 * property's case, which fast-check then shrinks). The suites and the models judge what needs
 * their own knowledge (what they set up, the state before), under parts no check cites.
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
 * What the scenario suites judge with code of their own: their judging calls, the parts the
 * contract suite's generated positives judge themselves (`positives: { rules, accepted }`), and
 * the problems those properties return (src/engine/generators/live.ts).
 */
async function suiteKeys(): Promise<string[]> {
  const keys: string[] = [];
  for (const f of await tsFiles(join(ROOT, 'suites'))) {
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

  test('no part is judged both by a suite and by the registry', async () => {
    expect(doubles(await suiteKeys(), [...CHECKS])).toEqual({});
  });

  test('no part is judged both by the state model and by the registry', () => {
    const keys = modelKeys();
    expect(keys.length).toBeGreaterThan(20);
    expect(doubles(keys, [...CHECKS])).toEqual({});
  });
});
