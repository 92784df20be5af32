import { describe, expect, test } from 'vitest';
import { migrate, MIGRATION_CODES, type MigrationInput } from '../../../src/reference/domain/migration.ts';
import { DomainError } from '../../../src/reference/domain/errors.ts';
import { interval, plan, price, priceMap, subscription, version } from './factories.ts';

// Subscription anchored on Jan 31 10:00, monthly; "now" is in February's period.
const NOW = new Date('2024-02-10T00:00:00.000Z');
const BOUNDARY = '2024-02-29T10:00:00.000Z';

const prices = priceMap(
  price('price_a1', { feeId: 'fee_a' }),
  price('price_a2', { feeId: 'fee_a', properties: { unitPrice: '12.00' } }),
  price('price_b', { feeId: 'fee_b' }),
);
const basePlan = () =>
  plan(
    [
      version(1, ['price_a1']),
      version(2, ['price_a1', 'price_b']),
      version(3, ['price_a2', 'price_b']),
      version(4, ['price_b'], [], '2024-01-01T00:00:00.000Z'),
    ],
    2,
  );

function run(over: Partial<MigrationInput> = {}) {
  return migrate({
    subscription: subscription(),
    plan: basePlan(),
    targetVersionNumber: 3,
    now: NOW,
    prices,
    linkedIntervals: [],
    ...over,
  });
}

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('version migration', () => {
  test('takes effect at the end of the current period, pins, and reports the move', () => {
    const r = run();
    expect(r.migration).toEqual({ fromVersionNumber: 2, toVersionNumber: 3, effectiveAt: BOUNDARY, changed: true });
    expect(r.subscription.versionPolicy).toBe('pinned');
    expect(r.subscription.versionNumber).toBe(2);
    expect(r.subscription.pendingMigration).toEqual({
      fromVersionNumber: 2,
      toVersionNumber: 3,
      effectiveAt: BOUNDARY,
    });
  });

  test('older targets work as newer ones do', () => {
    const r = run({ targetVersionNumber: 1 });
    expect(r.migration.toVersionNumber).toBe(1);
    expect(r.migration.changed).toBe(true);
  });

  test('a second migration before the boundary replaces the first', () => {
    const first = run({ targetVersionNumber: 3 });
    const second = run({ subscription: first.subscription, targetVersionNumber: 1 });
    expect(second.subscription.pendingMigration?.toVersionNumber).toBe(1);
    expect(second.migration.fromVersionNumber).toBe(2);
  });

  test('same version: changed false, pins a floating subscription, repeatable', () => {
    const r = run({ targetVersionNumber: 2 });
    expect(r.migration).toEqual({ fromVersionNumber: 2, toVersionNumber: 2, effectiveAt: BOUNDARY, changed: false });
    expect(r.subscription.versionPolicy).toBe('pinned');
    expect(r.subscription.versionNumber).toBe(2);
    expect(r.subscription.pendingMigration).toBeNull();
    const again = run({ subscription: r.subscription, targetVersionNumber: 2 });
    expect(again.migration.changed).toBe(false);
    expect(again.subscription).toEqual(r.subscription);
  });

  test('same version after a pending move drops the pending move', () => {
    const first = run({ targetVersionNumber: 3 });
    const back = run({ subscription: first.subscription, targetVersionNumber: 2 });
    expect(back.subscription.pendingMigration).toBeNull();
    expect(back.migration.changed).toBe(false);
  });

  test('404 for a missing or archived version', () => {
    const missing = refusal(() => run({ targetVersionNumber: 99 }));
    expect([missing.statusCode, missing.code]).toEqual([404, MIGRATION_CODES.versionNotFound]);
    const archived = refusal(() => run({ targetVersionNumber: 4 }));
    expect([archived.statusCode, archived.code]).toEqual([404, MIGRATION_CODES.versionArchived]);
  });

  test('409 when the subscription is not live', () => {
    const e = refusal(() => run({ subscription: subscription({ status: 'cancelled' }) }));
    expect([e.statusCode, e.code, e.error]).toEqual([409, 'SUBSCRIPTION_NOT_LIVE', 'conflict']);
  });

  test('409 when it ends at or before the boundary; after it is fine', () => {
    const at = refusal(() => run({ subscription: subscription({ endingAt: BOUNDARY }) }));
    expect([at.statusCode, at.code]).toEqual([409, 'SUBSCRIPTION_ENDS_BEFORE_BOUNDARY']);
    const before = refusal(() => run({ subscription: subscription({ endingAt: '2024-02-20T00:00:00.000Z' }) }));
    expect(before.code).toBe('SUBSCRIPTION_ENDS_BEFORE_BOUNDARY');
    expect(run({ subscription: subscription({ endingAt: '2024-03-01T00:00:00.000Z' }) }).migration.changed).toBe(true);
  });

  test('409 when a kept override would mean something else on the new price', () => {
    const withOverride = subscription({ overrides: [{ priceId: 'price_a1', unitPrice: '9.00' }] });
    // Same model and currency on the counterpart: the override is kept as is.
    expect(run({ subscription: withOverride }).migration.changed).toBe(true);
    for (const [field, value] of [
      ['model', { model: 'volume', properties: { tiers: [{ unitPrice: '1', upTo: null }] } }],
      ['currency', { currency: 'EUR' }],
      ['pricing unit', { pricingUnitId: 'pu_1' }],
      ['unit basis', { unitBasis: 'proportion' }],
    ] as const) {
      const changed = new Map(prices);
      changed.set('price_a2', price('price_a2', { feeId: 'fee_a', ...(value as object) }));
      const e = refusal(() => run({ subscription: withOverride, prices: changed }));
      expect([e.statusCode, e.code], field).toEqual([409, 'OVERRIDE_RATE_MEANING_CHANGED']);
    }
    // An override without a counterpart in the target is dropped, not kept: no conflict.
    const changed = new Map(prices);
    changed.set('price_a2', price('price_a2', { feeId: 'fee_other', currency: 'EUR' }));
    expect(run({ subscription: withOverride, prices: changed }).migration.changed).toBe(true);
  });

  test('409 when a feature reset period, metric or pricing unit changes', () => {
    const f = { key: 'seats', resetPeriod: 'P1M', billableMetricId: 'bm_1', pricingUnitId: null };
    for (const changed of [{ resetPeriod: 'P1Y' }, { billableMetricId: 'bm_2' }, { pricingUnitId: 'pu_1' }]) {
      const p = plan([version(2, ['price_a1'], [f]), version(3, ['price_a1'], [{ ...f, ...changed }])], 2);
      const e = refusal(() => run({ plan: p }));
      expect([e.statusCode, e.code]).toEqual([409, 'FEATURE_DEFINITION_CHANGED']);
    }
    const same = plan(
      [version(2, ['price_a1'], [f]), version(3, ['price_a1'], [{ ...f }, { key: 'new', resetPeriod: 'P1D' }])],
      2,
    );
    expect(run({ plan: same }).migration.changed).toBe(true);
  });

  test('409 when the target sells a price a continuing interval covers', () => {
    const continuing = interval('si_1', 'price_a2', '2024-06-01T00:00:00.000Z');
    const e = refusal(() => run({ linkedIntervals: [continuing] }));
    expect([e.statusCode, e.code]).toEqual([409, 'PRICE_COVERED_BY_INTERVAL']);
    expect(e.details).toMatchObject({ priceId: 'price_a2', intervalId: 'si_1' });
    // Ending at the boundary: not continuing. Another price: not covered.
    expect(run({ linkedIntervals: [interval('si_2', 'price_a2', BOUNDARY)] }).migration.changed).toBe(true);
    expect(run({ linkedIntervals: [interval('si_3', 'price_zz', '2024-06-01T00:00:00.000Z')] }).migration.changed).toBe(
      true,
    );
  });

  test('404 comes before the 409 conditions; codes are UPPER_SNAKE_CASE and distinct', () => {
    const e = refusal(() => run({ subscription: subscription({ status: 'cancelled' }), targetVersionNumber: 99 }));
    expect(e.statusCode).toBe(404);
    const codes = Object.values(MIGRATION_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of codes) expect(c).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });
});
