/**
 * The fault catalog: its size and coverage, and every fault's hooks doing what its
 * description says on a sample exchange (no server: the demo is replayed in process).
 */
import { describe, expect, test } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { CATALOG, FAULT_AREAS, faultByName } from '../../src/faults/catalog/index.ts';
import { composeFaults, json, req } from '../../src/faults/catalog/helpers.ts';
import { loadRules } from '../../src/contract/rules.ts';
import { DEFAULT_SUITES_DIR, discoverSuites } from '../../src/engine/runner/index.ts';
import { digest, simulate } from './simulate.ts';

const faults = CATALOG.filter((f) => !f.benign);
const benign = CATALOG.filter((f) => f.benign);

describe('fault catalog', () => {
  test('at least 40 faults covering every area, and at least 10 benign variants', () => {
    expect(faults.length).toBeGreaterThanOrEqual(40);
    expect(benign.length).toBeGreaterThanOrEqual(10);
    const covered = new Set(faults.map((f) => f.area));
    expect(FAULT_AREAS.filter((f) => !covered.has(f))).toEqual([]);
  });

  test('names are unique kebab-case; every fault names rules and suites that exist; benign variants expect no rule', async () => {
    const names = CATALOG.map((f) => f.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(names.filter((n) => !/^[a-z0-9]+(-[a-zA-Z0-9]+)*$/.test(n))).toEqual([]);
    const rules = new Set((await loadRules()).rules.map((r) => r.id));
    const suites = new Set((await discoverSuites(DEFAULT_SUITES_DIR)).map((s) => s.name));
    for (const f of CATALOG) {
      expect(f.description.length, f.name).toBeGreaterThan(10);
      expect(
        f.rules.filter((r) => !rules.has(r)),
        f.name,
      ).toEqual([]);
      expect(
        f.suites.filter((s) => !suites.has(s)),
        f.name,
      ).toEqual([]);
      if (f.benign) expect(f.rules, f.name).toEqual([]);
      else expect(f.rules.length, f.name).toBeGreaterThan(0);
      expect(f.onRequest ?? f.onResponse, f.name).toBeDefined();
    }
  });

  test('a fault said to be off traffic is a fault, with its reason', () => {
    const off = CATALOG.filter((f) => f.offTraffic !== undefined);
    expect(off.length).toBeGreaterThan(0);
    for (const f of off) {
      expect(f.benign || f.indeterminate, f.name).toBeFalsy();
      expect(f.offTraffic!.length, f.name).toBeGreaterThan(20);
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

describe('composed benign variants', () => {
  test('each step sees what the one before made: timestamps rewritten, then the result gzip-compressed', async () => {
    const both = composeFaults(
      'offset then gzip',
      faultByName('benign-offset-timestamps')!,
      faultByName('benign-gzip')!,
    );
    const [o] = await simulate(both, [
      {
        req: req('GET', '/v0/customers/cus_1'),
        res: json(200, { object: 'customer', createdAt: '2030-01-01T00:00:00Z' }),
      },
    ]);
    expect(o.response.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(o.response.body).toString())).toEqual({
      object: 'customer',
      createdAt: '2030-01-01T00:00:00+00:00',
    });
    expect(o.applied).toBe(2);
  });

  test('an answer given by an earlier step (an emulated 429) still goes through the later ones', async () => {
    const both = composeFaults(
      'sliding then http-date',
      faultByName('benign-sliding-window')!,
      faultByName('benign-retry-after-http-date')!,
    );
    const portal = {
      req: req('POST', '/v0/subscriptions/sub_1/portal', {}),
      res: json(200, { object: 'portal_session' }),
    };
    const out = await simulate(both, [portal, portal]);
    expect(out.map((o) => o.response.status)).toEqual([200, 429]);
    expect(out[1].forwarded).toBeUndefined();
    expect(out[1].response.headers['retry-after']).toMatch(/GMT$/);
  });
});
