/**
 * The held-out catalog: written from the interface document alone, it runs every suite (choosing
 * suites would be tuning), names rules that exist, and each fault's hooks do what its description
 * says on a sample exchange, replayed without a server.
 */
import { describe, expect, test } from 'vitest';
import { HELDOUT_SET_1 as HELDOUT } from '../../heldout/set-1/index.ts';
import { CATALOG } from '../../src/faults/catalog/index.ts';
import { loadRules } from '../../src/contract/rules.ts';
import { digest, simulate } from './simulate.ts';

describe('held-out catalog', () => {
  test('its faults and benign variants run every suite, name existing rules and no name of the hand catalog', async () => {
    const rules = new Set((await loadRules()).rules.map((r) => r.id));
    const hand = new Set(CATALOG.map((f) => f.name));
    expect(HELDOUT.filter((f) => !f.benign).length).toBeGreaterThanOrEqual(15);
    expect(HELDOUT.filter((f) => f.benign).length).toBeGreaterThanOrEqual(4);
    for (const f of HELDOUT) {
      expect(f.suites, f.name).toEqual([]);
      expect(hand.has(f.name), f.name).toBe(false);
      expect(f.name.startsWith('ho-'), f.name).toBe(true);
      expect(
        f.rules.filter((r) => !rules.has(r)),
        f.name,
      ).toEqual([]);
      if (f.benign) expect(f.rules, f.name).toEqual([]);
      else expect(f.rules.length, f.name).toBeGreaterThan(0);
    }
  });
});

describe.each(HELDOUT.map((f) => [f.name, f] as const))('%s', (_name, f) => {
  test('its demo exchange is changed as described, and counted as applied', async () => {
    const withFault = await simulate(f, f.demo.steps);
    const last = withFault[withFault.length - 1];
    expect(f.demo.verify(last, withFault)).toBeUndefined();
    expect(last.applied).toBeGreaterThan(0);
    const untouched = await simulate(undefined, f.demo.steps);
    expect(digest(last)).not.toBe(digest(untouched[untouched.length - 1]));
    expect(f.demo.verify(untouched[untouched.length - 1], untouched)).toBeDefined();
  });
});
