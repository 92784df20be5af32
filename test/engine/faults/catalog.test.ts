/**
 * The fault catalog: its size and coverage, and every fault's hooks doing what its
 * description says on a sample exchange (no server: the demo is replayed in process).
 */
import { describe, expect, test } from 'vitest';
import { CATALOG, FAMILIES } from '../../../src/engine/faults/catalog/index.ts';
import { loadRules } from '../../../src/spec/rules.ts';
import { DEFAULT_SUITES_DIR, discoverSuites } from '../../../src/engine/runner/index.ts';
import { digest, simulate } from './simulate.ts';

const faults = CATALOG.filter((f) => !f.benign);
const benign = CATALOG.filter((f) => f.benign);

describe('fault catalog', () => {
  test('at least 40 faults covering every family, and at least 10 benign variants', () => {
    expect(faults.length).toBeGreaterThanOrEqual(40);
    expect(benign.length).toBeGreaterThanOrEqual(10);
    const covered = new Set(faults.map((f) => f.family));
    expect(FAMILIES.filter((f) => !covered.has(f))).toEqual([]);
  });

  test('names are unique kebab-case; every fault names rules and suites that exist; benign variants expect no rule', async () => {
    const names = CATALOG.map((f) => f.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(names.filter((n) => !/^[a-z0-9]+(-[a-zA-Z0-9]+)*$/.test(n))).toEqual([]);
    const rules = new Set((await loadRules()).rules.map((r) => r.id));
    const suites = new Set((await discoverSuites(DEFAULT_SUITES_DIR)).map((s) => s.name));
    for (const f of CATALOG) {
      expect(f.description.length, f.name).toBeGreaterThan(10);
      expect(f.rules.filter((r) => !rules.has(r)), f.name).toEqual([]);
      expect(f.suites.filter((s) => !suites.has(s)), f.name).toEqual([]);
      if (f.benign) expect(f.rules, f.name).toEqual([]);
      else expect(f.rules.length, f.name).toBeGreaterThan(0);
      expect(f.onRequest ?? f.onResponse, f.name).toBeDefined();
    }
  });
});

describe.each(CATALOG.map((f) => [f.name, f] as const))('%s', (_name, f) => {
  test('its demo exchange is changed as described, and counted as applied', async () => {
    const withFault = await simulate(f, f.demo.steps);
    const last = withFault[withFault.length - 1];
    expect(f.demo.verify(last, withFault)).toBeUndefined();
    expect(last.applied).toBeGreaterThan(0);
    const untouched = await simulate(undefined, f.demo.steps);
    expect(digest(last)).not.toBe(digest(untouched[untouched.length - 1]));
    // Without the fault the claim does not hold: the demo's verify really looks at the change.
    expect(f.demo.verify(untouched[untouched.length - 1], untouched)).toBeDefined();
  });
});
