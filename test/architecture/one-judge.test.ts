/**
 * One place judges each rule part. The scenario suites judge what they provoke
 * (expectRule, softExpectRule, expectStatus); the passive judge judges recorded or live traffic
 * through its units; a registered check (src/engine/checks) serves both. A part a suite judges
 * with code of its own and a passive unit also judges with code of its own is written twice,
 * and the two can drift.
 *
 * DOUBLES lists the parts judged in both places today, with the unit that repeats the suite:
 * a new one fails this test, and so does one that has been made single (remove it from the
 * list). Moving a family into one registered judge is how the list shrinks.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { tsFiles } from './walls.ts';
import { createUnits } from '../../src/passive/units/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const JUDGING_CALLS = new Set(['expectRule', 'softExpectRule', 'expectStatus']);

/** Parts judged both by a suite and by a passive unit's own code (the unit named), today. */
const DOUBLES: Record<string, string> = {
  'ERRORS.400.BODY': 'validation',
  'ITEMS.ARCHIVED_AT.STATE#null-while-active': 'later-reads',
  'ITEMS.ARCHIVED_AT.STATE#set-when-archived': 'later-reads',
  'ITEMS.UPDATE.APPLIED#holds-sent': 'later-reads',
  'ITEMS.UPDATE.PARTIAL': 'partial-updates',
  'MERCHANTS.GET.ROUND_TRIP': 'consistency',
  'MIGRATION.400.TARGET_RANGE': 'migration, migration-range',
  'MIGRATION.409.CODE_VALUES': 'migration',
  'MIGRATION.EFFECT.PINS': 'migration',
  'MIGRATION.RESPONSE.SHAPE': 'migration',
  'MIGRATION.RESPONSE.VERSION_NUMBERS#to-requested': 'migration',
  'MIGRATION.SAME_VERSION.NO_CHANGE': 'migration',
  'MIGRATION.SAME_VERSION.PINS_FLOATING': 'migration',
  'RATE.EXCEEDED.BODY#endpoint-specific': 'consistency',
  'VALIDATION.BOUNDS.400': 'validation',
  'VALIDATION.ENUM.400': 'validation',
  'VALIDATION.PATTERN.400': 'validation',
  'VALIDATION.REQUIRED.400': 'validation',
  'VALIDATION.TYPE.400': 'validation',
};

/** Rule keys (`RULE` or `RULE#part`) a source judges through the scenario's judging calls. */
export function judgedIn(source: string, fileName = 'suite.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const keys = (n: ts.Node | undefined): string[] =>
    !n
      ? []
      : ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)
        ? [n.text]
        : ts.isArrayLiteralExpression(n)
          ? n.elements.flatMap((e) => keys(e))
          : [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      JUDGING_CALLS.has(node.expression.name.text)
    )
      out.push(...keys(node.arguments[0]).filter((k) => /^[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)+(#[a-z0-9-]+)?$/.test(k)));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

const touches = (a: string, b: string) => a === b || a.startsWith(`${b}#`) || b.startsWith(`${a}#`);

/** Parts a passive unit other than the registry's judges and a suite judges too: key to unit names. */
export function doubles(suiteKeys: Iterable<string>, units: { name: string; ruleIds: readonly string[] }[]) {
  const judged = [...new Set(suiteKeys)];
  const out: Record<string, string> = {};
  for (const u of units)
    for (const id of u.ruleIds)
      if (judged.some((j) => touches(j, id))) out[id] = out[id] ? `${out[id]}, ${u.name}` : u.name;
  return out;
}

describe('one place judges each rule part', () => {
  test('the scan finds judging calls by rule key, single or listed, and nothing else', () => {
    const src = [
      "t.expectRule('A.B.C', ok, 'm');",
      "t.expectStatus(['VALIDATION.TYPE.400', 'X.Y.Z#part'], ex, 400);",
      "t.softExpectRule('P.Q.R#one', ok, 'm');",
      "t.note('A.B.D is mentioned'); t.ruleNotJudged('E.F.G', 'why');",
    ].join('\n');
    expect(judgedIn(src)).toEqual(['A.B.C', 'VALIDATION.TYPE.400', 'X.Y.Z#part', 'P.Q.R#one']);
    expect(doubles(['X.Y.Z#part', 'A.B.C'], [{ name: 'u', ruleIds: ['X.Y.Z', 'A.B.Q'] }])).toEqual({ 'X.Y.Z': 'u' });
  });

  test('the parts judged both by a suite and by a passive unit’s own code are exactly the known ones', async () => {
    const keys: string[] = [];
    for (const f of await tsFiles(join(ROOT, 'suites')))
      keys.push(...judgedIn(await readFile(f, 'utf8'), relative(ROOT, f)));
    expect(keys.length).toBeGreaterThan(200);
    // The registry's checks run for the passive judge through its `checks` unit: one judge, not two.
    const units = createUnits().filter((u) => u.name !== 'checks');
    expect(doubles(keys, units)).toEqual(DOUBLES);
  });
});
