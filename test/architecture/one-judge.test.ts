/**
 * One place judges each rule part. The scenario suites judge what they provoke
 * (expectRule, softExpectRule, expectStatus); the state model judges what its sequences show;
 * the registry (src/engine/checks) judges every exchange of a run, a proxy session or a HAR
 * file; the passive judge runs the registry (its `checks` unit) and units of its own for what
 * only all of the traffic shows. A part two of them judge with code of their own is written
 * twice, and the two can drift.
 *
 * A suite and a passive unit never judge one part (the count is 0). The parts a suite or the
 * model judges and the registry judges too are listed: a new one fails the test, and so does
 * one made single (remove it from the list).
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { tsFiles } from './walls.ts';
import { judgedIn, touches } from './judgements.ts';
import { createUnits } from '../../src/passive/units/index.ts';
import { CHECKS } from '../../src/engine/checks/index.ts';
import * as modelParts from '../../src/engine/model/parts.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Parts a suite judges with code of its own that a registered check judges too (the check named). */
const SUITE_AND_REGISTRY: Record<string, string> = {
  'ALERTS.LIST.LIMIT_RANGE#accepts-range': 'alerts-page',
  'ALERTS.LIST.OFFSET#from-offset': 'alerts-page',
  'ALERTS.UPDATE.OK': 'alert-updated',
  'CUSTOMERS.GET.BY_ID#answers-resource': 'read-by-id',
  'ERRORS.ERROR.SHAPE': 'error-shape',
  'ERRORS.ERROR_RESPONSES.SHAPE': 'error-shape',
  'PAYMENTS.GET.BY_ID#answers-resource': 'read-by-id',
  'PRICES.GET.BY_ID#answers-resource': 'read-by-id',
  'SCHEDULES.CREATE.BY_ORDER': 'schedule-created',
  'SCHEDULES.END_DATE.PRESENT': 'schedule-created',
  'SCHEDULES.INTERVALS.PAGINATED#list-envelope': 'schedule-intervals',
  'STATE.ITEM.ARCHIVE': 'item-updated',
  'STATE.ITEM.UNARCHIVE': 'item-updated',
  'WALLETS.AUTO_TOPUP.PERIOD_DAY': 'auto-topup-updated',
  'WEBHOOKS.MERCHANT.NAMED': 'webhooks-updated',
};

/** Parts the state model judges (src/engine/model/parts.ts) that a registered check judges too. */
const MODEL_AND_REGISTRY: Record<string, string> = {
  'ALERTS.UPDATE.OK': 'alert-updated',
  'ALERTS.UPDATE.PARTIAL': 'partial-updates',
  'CUSTOMERS.EXTERNAL_ID.NULL_CLEARS': 'customer-updated',
  'CUSTOMERS.GET.BY_ID#answers-resource': 'read-by-id',
  'CUSTOMERS.NOTIFICATIONS.PARTIAL': 'customer-updated, partial-updates',
  'CUSTOMERS.TAX_ID.NULL_CLEARS': 'customer-updated',
  'CUSTOMERS.TAX_RATES.SINGLE_RATE': 'customer-updated',
  'CUSTOMERS.UPDATE.PARTIAL': 'partial-updates',
  'ITEMS.ARCHIVED_AT.STATE#null-while-active': 'item-updated',
  'ITEMS.ARCHIVED_AT.STATE#set-when-archived': 'item-updated',
  'ITEMS.UPDATE.APPLIED#holds-sent': 'round-trip',
  'ITEMS.UPDATE.PARTIAL': 'partial-updates',
  'PRICES.GET.BY_ID#answers-resource': 'read-by-id',
  'SOURCE_RULES.UPDATE.PARTIAL#applies-sent': 'source-rule-updated',
  'SOURCE_RULES.UPDATE.PARTIAL#keeps-others': 'partial-updates',
  'STATE.ITEM.ARCHIVE': 'item-updated',
  'STATE.ITEM.UNARCHIVE': 'item-updated',
};

/** Keys of `judged` that touch a rule key a judge cites: key to the judges' names. */
export function doubles(judged: Iterable<string>, judges: { name: string; ruleIds: readonly string[] }[]) {
  const keys = [...new Set(judged)];
  const names: Record<string, Set<string>> = {};
  for (const j of judges)
    for (const id of j.ruleIds)
      for (const k of keys.filter((key) => touches(key, id))) (names[k] ??= new Set()).add(j.name);
  return Object.fromEntries(Object.entries(names).map(([k, n]) => [k, [...n].sort().join(', ')]));
}

async function suiteKeys(): Promise<string[]> {
  const keys: string[] = [];
  for (const f of await tsFiles(join(ROOT, 'suites')))
    keys.push(...judgedIn(await readFile(f, 'utf8'), relative(ROOT, f)));
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
  });

  test('no part is judged both by a suite and by a passive unit of its own', async () => {
    const keys = await suiteKeys();
    expect(keys.length).toBeGreaterThan(150);
    // The registry's checks run for the passive judge through its `checks` unit: one judge, not two.
    const units = createUnits().filter((u) => u.name !== 'checks');
    expect(units.length).toBeGreaterThan(0);
    expect(doubles(keys, units)).toEqual({});
  });

  test('the parts a suite judges that the registry judges too are exactly the known ones', async () => {
    expect(doubles(await suiteKeys(), [...CHECKS])).toEqual(SUITE_AND_REGISTRY);
  });

  test('the parts the state model judges that the registry judges too are exactly the known ones', () => {
    const keys = modelKeys();
    expect(keys.length).toBeGreaterThan(20);
    expect(doubles(keys, [...CHECKS])).toEqual(MODEL_AND_REGISTRY);
  });
});
