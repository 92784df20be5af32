/**
 * The generated fault catalog: what it covers, how it classifies, and every fault's hooks
 * doing what its description says on a sample exchange (replayed in process, no server).
 */
import { describe, expect, test } from 'vitest';
import { loadSpec } from '../../src/contract/index.ts';
import { loadRules } from '../../src/contract/rules.ts';
import { DEFAULT_SUITES_DIR, discoverSuites } from '../../src/engine/runner/index.ts';
import {
  GENERATED_KINDS,
  generatedCatalog,
  INTERMITTENT_COUNT,
  sampleFaults,
} from '../../src/faults/generated/index.ts';
import { fieldSites, otherType, breakPattern, breakEnum, editAt } from '../../src/faults/generated/fields.ts';
import { CATALOG } from '../../src/faults/catalog/index.ts';
import { parseFaultsArgs, selectFaults } from '../../src/cli/commands/faults.ts';
import { digest, simulate } from './simulate.ts';
import { json, req } from '../../src/faults/catalog/helpers.ts';

const spec = await loadSpec();
const catalog = generatedCatalog(spec);

describe('generated catalog', () => {
  test('covers every kind, every documented operation that names a resource, and every documented bound both ways', () => {
    const kinds = new Set(catalog.map((f) => f.kind));
    expect(GENERATED_KINDS.filter((k) => !kinds.has(k))).toEqual([]);
    expect(catalog.filter((f) => f.kind === 'intermittent')).toHaveLength(INTERMITTENT_COUNT);
    const cross = catalog.filter((f) => f.kind === 'cross-merchant').map((f) => f.operationId);
    for (const op of [
      'getCustomer',
      'updateItem',
      'deleteFee',
      'migrateSubscriptionVersion',
      'updateWebhooks',
      'listAlerts',
      'createProduct',
      'createBillingSchedule',
    ])
      expect(cross).toContain(op);
    // A provider name is no merchant's resource; the costs report's and line items' parameters are not shown.
    for (const op of ['listCrmAccounts', 'getCostsReport', 'createInvoiceLineItems', 'listCustomers'])
      expect(cross).not.toContain(op);
    const bounds = catalog.filter((f) => f.kind === 'bound-strict' || f.kind === 'bound-lax').map((f) => f.name);
    for (const b of [
      'updateCustomer-externalId-max-length',
      'updateCustomer-taxRates-max',
      'updateCustomer-taxRates-min',
      'listAlerts-limit-min',
      'listAlerts-limit-max',
      'listAlerts-offset-min',
      'migrateSubscriptionVersion-targetVersionNumber-max',
    ]) {
      expect(bounds).toContain(`gen-${b}-too-strict`);
      expect(bounds).toContain(`gen-${b}-too-lax`);
    }
    expect(catalog.filter((f) => !f.benign && !f.indeterminate).length).toBeGreaterThan(400);
  });

  test('names are unique kebab-case, distinct from the hand-written ones; rules and suites exist', async () => {
    const names = new Set(CATALOG.map((f) => f.name));
    const rules = new Set((await loadRules()).rules.map((r) => r.id));
    const suites = new Set((await discoverSuites(DEFAULT_SUITES_DIR)).map((s) => s.name));
    for (const f of catalog) {
      expect(names.has(f.name), f.name).toBe(false);
      names.add(f.name);
      expect(f.name).toMatch(/^gen(-[a-zA-Z0-9]+)+$/);
      expect(
        f.rules.filter((r) => !rules.has(r)),
        f.name,
      ).toEqual([]);
      expect(
        f.suites.filter((s) => !suites.has(s)),
        f.name,
      ).toEqual([]);
      if (f.benign) expect(f.rules, f.name).toEqual([]);
      expect(f.benign && f.indeterminate, f.name).toBeFalsy();
    }
  });

  test('dropping a field is a fault when required, benign when the document states it optional, indeterminate when it says nothing', () => {
    const byName = new Map(catalog.map((f) => [f.name, f]));
    expect(byName.get('gen-updateWebhooks-applicationId-drop')).toMatchObject({ kind: 'drop' });
    expect(byName.get('gen-updateWebhooks-applicationId-drop')?.indeterminate).toBeUndefined();
    expect(byName.get('gen-getPayment-paymentUrl-omitted')).toMatchObject({
      kind: 'benign-omit-optional',
      benign: true,
    });
    expect(byName.get('gen-updateItem-name-drop')?.indeterminate).toMatch(/does not say/);
    // Leaving out a field the client writes (taxId) reads as wiping it: no benign variant.
    expect(
      [...byName.keys()].filter((n) => /^gen-(get|update)Customer-(taxId|externalId)-(omitted|drop)$/.test(n)),
    ).toEqual([]);
    // A note on one field ("endDate: always present", "merchantId is present on single-price reads") states no other field's presence.
    expect(byName.get('gen-createBillingSchedule-orderId-drop')?.indeterminate).toMatch(/does not say/);
    expect(byName.get('gen-getPrice-id-drop')?.indeterminate).toMatch(/does not say/);
    expect(byName.get('gen-getPrice-merchantId-drop')).toMatchObject({ kind: 'drop' });
    // A 400 is an Error or a ValidationError: without `errors` it may read as an Error.
    expect(byName.get('gen-error-400-errors-drop')?.indeterminate).toMatch(/one documented shape/);
    expect(byName.get('gen-error-400-code-omitted')).toMatchObject({ benign: true });
    // Fields the document does not define (reference choices) are never faulted.
    expect([...byName.keys()].filter((n) => /unitBasis|cadence/.test(n))).toEqual([]);
  });

  test('a valid value refused (bound-strict, or its intermittent variant) is off traffic, with its reason; no other kind is', () => {
    const off = catalog.filter((f) => f.offTraffic !== undefined);
    // Intermittent variants are a fixed-seed sample of the others: one of a bound-strict fault is off traffic too.
    const wrapsStrict = (f: (typeof catalog)[number]) =>
      f.kind === 'intermittent' &&
      catalog.some((b) => b.kind === 'bound-strict' && f.name === b.name.replace(/^gen-/, 'gen-intermittent-'));
    expect([...new Set(off.map((f) => f.kind))].filter((k) => k !== 'bound-strict' && k !== 'intermittent')).toEqual(
      [],
    );
    expect(off.some((f) => f.kind === 'bound-strict')).toBe(true);
    for (const f of catalog.filter((x) => x.kind === 'bound-strict' || wrapsStrict(x)))
      expect(f.offTraffic, f.name).toBeDefined();
    for (const f of off.filter((x) => x.kind === 'intermittent')) expect(wrapsStrict(f), f.name).toBe(true);
    for (const f of off) expect(f.offTraffic!.length, f.name).toBeGreaterThan(20);
  });

  test('field sites walk arrays and list envelopes; value breakers break what they say', () => {
    const sites = fieldSites(spec.operation('listScheduleIntervals')!.responses['2XX'].schema).map((s) =>
      s.path.join('.'),
    );
    expect(sites).toContain('data.*.scheduleId');
    expect(sites).toContain('pagination.total');
    expect(otherType('12', { type: 'string' })).toBe(12);
    expect(otherType(3, { type: 'integer' })).toBe('3');
    expect(otherType(null, { type: ['string', 'null'] })).toBe(0);
    expect(breakPattern('itm_abc', '^itm_[a-zA-Z0-9]+$')).toBe('itm-abc');
    expect(breakEnum('item', { const: 'item' })).toBe('item_other');
    const body = { data: [{ a: 1 }, { a: 2 }, { b: 3 }] };
    expect(editAt(body, ['data', '*', 'a'], (p, k) => delete p[k])).toBe(true);
    expect(body).toEqual({ data: [{}, {}, { b: 3 }] });
  });

  test('a sample is seeded, spread over the kinds, and the CLI selects it', () => {
    const a = sampleFaults(catalog, 40, 3).map((f) => f.name);
    expect(sampleFaults(catalog, 40, 3).map((f) => f.name)).toEqual(a);
    expect(sampleFaults(catalog, 40, 4).map((f) => f.name)).not.toEqual(a);
    expect(new Set(sampleFaults(catalog, 40, 3).map((f) => f.kind)).size).toBe(GENERATED_KINDS.length);
    const flags = parseFaultsArgs([
      '--catalog',
      'generated',
      '--sample',
      '12',
      '--sample-seed',
      '5',
      '--kind',
      'drop,type',
    ]);
    const picked = selectFaults(flags, catalog);
    expect(picked).toHaveLength(12);
    expect(picked.every((f) => f.kind === 'drop' || f.kind === 'type')).toBe(true);
  });
});

test("a cross-merchant fault on a filtered list shows the other merchant's items where a scoped target shows none", async () => {
  const f = catalog.find((x) => x.name === 'gen-listAlerts-cross-merchant')!;
  const path = '/v0/alerts?resourceId=wal_demo1';
  const owner = 'Bearer sk_test_demo0key0000000000';
  const items = {
    object: 'list',
    data: [{ object: 'alert', id: 'alert_1' }],
    pagination: { limit: 10, offset: 0, total: 1 },
  };
  const scoped = (r: { headers: Record<string, string> }) =>
    json(
      200,
      r.headers.authorization === owner
        ? items
        : { ...items, data: [], pagination: { limit: 10, offset: 0, total: 0 } },
    );
  const out = await simulate(f, [
    { req: req('GET', path, undefined, { authorization: owner }), res: scoped },
    { req: req('GET', path, undefined, { authorization: 'Bearer sk_test_other0key' }), res: scoped },
  ]);
  expect(JSON.parse(out[1].response.body.toString()).data).toHaveLength(1);
  expect(out[1].applied).toBe(1);
});

describe('generated faults: each demo is changed as described, and counted as applied', () => {
  test.each(catalog.filter((f) => f.kind !== 'intermittent').map((f) => [f.name, f] as const))(
    '%s',
    async (_name, f) => {
      const withFault = await simulate(f, f.demo.steps);
      const last = withFault[withFault.length - 1];
      expect(f.demo.verify(last, withFault)).toBeUndefined();
      expect(last.applied).toBeGreaterThan(0);
      // Raised limits are the target's doing (target.raiseRateLimits): the proxy only counts them.
      if (f.target?.raiseRateLimits && !f.onRequest) return;
      const untouched = await simulate(undefined, f.demo.steps);
      expect(digest(last)).not.toBe(digest(untouched[untouched.length - 1]));
      expect(f.demo.verify(untouched[untouched.length - 1], untouched)).toBeDefined();
    },
  );

  test.each(catalog.filter((f) => f.kind === 'intermittent').map((f) => [f.name, f] as const))(
    '%s strikes on some exchanges only',
    async (_name, f) => {
      const withFault = await simulate(f, f.demo.steps);
      expect(f.demo.verify(withFault[withFault.length - 1], withFault)).toBeUndefined();
    },
  );
});
