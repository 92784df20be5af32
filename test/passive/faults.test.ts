/**
 * Through the fault proxy: faults the suites catch, and that show in traffic, are caught by
 * the passive judge too; benign variants are flagged by neither. One fault per passive
 * unit, one suite each (the whole catalog: npm run faults:passive).
 */
import { describe, expect, test } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultByName, type CatalogFault } from '../../src/faults/catalog/index.ts';
import { bundledTargets } from '../../src/cli/commands/faults.ts';
import { runPassiveFaults } from '../../src/faults/passive.ts';

const TIMEOUT_MS = 600_000;

function only(name: string, suite?: string): CatalogFault {
  const f = faultByName(name);
  if (!f) throw new Error(`no fault ${name}`);
  return suite ? { ...f, suites: [suite] } : f;
}

/** Each fault, with the passive rule that must catch it. */
const FAULTS: Array<[CatalogFault, string]> = [
  [only('conv-wrong-id-prefix'), 'CONV.ID.PATTERNS'], // the check registry
  [only('auth-no-bearer-accepted'), 'AUTH.BEARER.REQUIRED'], // auth
  [only('customers-null-keeps-taxId'), 'CUSTOMERS.TAX_ID.NULL_CLEARS'], // answers and later reads
  [only('migration-does-not-pin'), 'MIGRATION.EFFECT.PINS'], // the registry's migration answers
  [only('blockers-customer-count-low'), 'CUSTOMERS.DELETE.BLOCKER_COUNT'], // delete blockers
  [only('webhooks-createdAt-moves'), 'WEBHOOKS.CREATED_AT.FIRST_ENABLED'], // consistency
];
const BENIGN = [only('benign-extra-properties', 'customers'), only('benign-content-type-variant', 'auth')];

describe('the fault catalog through conform proxy', () => {
  test(
    'a representative subset: caught by the suites and by the passive judge, citing its rule; benign variants flagged by neither',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'conform-passive-faults-'));
      try {
        const { results, summary } = await runPassiveFaults({
          faults: [...FAULTS.map(([f]) => f), ...BENIGN],
          startTarget: bundledTargets(),
          reportDir: dir,
          profile: 'quick',
          seed: 1,
          parallel: 2,
          baseline: false,
          target: { bundled: true },
        });
        const by = new Map(results.map((r) => [r.name, r]));
        for (const [f, rule] of FAULTS) {
          const r = by.get(f.name)!;
          expect([r.name, r.suite, r.visible, r.error ?? ''], `suite rules: ${r.suiteRules.join(', ')}`).toEqual([
            f.name,
            'caught',
            true,
            '',
          ]);
          expect(r.passiveRules, `${f.name}: passive rules failed`).toContain(rule);
        }
        for (const f of BENIGN) {
          const r = by.get(f.name)!;
          expect([r.name, r.suite, r.passiveRules], r.error).toEqual([f.name, 'passed', []]);
          expect(r.exchanges).toBeGreaterThan(0);
        }
        expect(summary).toMatchObject({
          caughtVisible: FAULTS.length,
          passiveCaught: FAULTS.length,
          passiveFlagged: 0,
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});
