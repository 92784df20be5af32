import { describe, expect, test } from 'vitest';
import {
  advance,
  carryOverrides,
  MAX_PERIODS_PER_ADVANCE,
  settle,
  validateOverrides,
} from '../../../src/reference/domain/subscription-state.ts';
import { migrate } from '../../../src/reference/domain/migration.ts';
import { plan, price, priceMap, subscription, version } from './factories.ts';

const prices = priceMap(
  price('price_a1', { feeId: 'fee_a' }),
  price('price_a2', { feeId: 'fee_a' }),
  price('price_b', { feeId: 'fee_b' }),
  price('price_v', { feeId: 'fee_v', model: 'volume', properties: { tiers: [{ unitPrice: '1', upTo: null }] } }),
);
const p = () => plan([version(1, ['price_a1']), version(2, ['price_a1', 'price_b']), version(3, ['price_a2'])], 2);

describe('subscription state over time', () => {
  test('settle fills the current period fields', () => {
    const s = settle(subscription(), p(), prices, new Date('2024-03-05T00:00:00Z'));
    expect(s.currentPeriodStart).toBe('2024-02-29T10:00:00.000Z');
    expect(s.currentPeriodEnd).toBe('2024-03-31T10:00:00.000Z');
  });

  test('a floating subscription follows the default; a pinned one stays', () => {
    const plan3 = { ...p(), defaultVersionNumber: 3 };
    const floating = settle(subscription(), plan3, prices, new Date('2024-02-05T00:00:00Z'));
    expect(floating.versionNumber).toBe(3);
    expect(floating.planVersionId).toBe('planv_3');
    const pinned = settle(subscription({ versionPolicy: 'pinned' }), plan3, prices, new Date('2024-02-05T00:00:00Z'));
    expect(pinned.versionNumber).toBe(2);
  });

  test('a pending migration applies once its boundary is reached, not before', () => {
    const { subscription: migrated } = migrate({
      subscription: subscription(),
      plan: p(),
      targetVersionNumber: 1,
      now: new Date('2024-02-10T00:00:00Z'),
      prices,
      linkedIntervals: [],
    });
    const before = settle(migrated, p(), prices, new Date('2024-02-29T09:59:59Z'));
    expect(before.versionNumber).toBe(2);
    expect(before.pendingMigration?.toVersionNumber).toBe(1);
    const after = settle(migrated, p(), prices, new Date('2024-02-29T10:00:00Z'));
    expect(after.versionNumber).toBe(1);
    expect(after.planVersionId).toBe('planv_1');
    expect(after.pendingMigration).toBeNull();
    expect(after.versionPolicy).toBe('pinned');
  });

  test('advance bills each closed period from the version in force', () => {
    const { subscription: migrated } = migrate({
      subscription: subscription(),
      plan: p(),
      targetVersionNumber: 3,
      now: new Date('2024-02-10T00:00:00Z'),
      prices,
      linkedIntervals: [],
    });
    const r = advance(migrated, p(), prices, new Date('2024-02-10T00:00:00Z'), new Date('2024-04-01T00:00:00Z'));
    expect(
      r.closed.map((c) => [c.period.start.toISOString(), c.version.versionNumber, c.next?.version.versionNumber]),
    ).toEqual([
      ['2024-01-31T10:00:00.000Z', 2, 3],
      ['2024-02-29T10:00:00.000Z', 3, 3],
    ]);
    expect(r.closed[0].next?.period.start.toISOString()).toBe('2024-02-29T10:00:00.000Z');
    expect(r.closed[0].next?.period.end?.toISOString()).toBe('2024-03-31T10:00:00.000Z');
    expect(r.subscription.versionNumber).toBe(3);
    expect(r.subscription._lastClosedPeriodEnd).toBe('2024-03-31T10:00:00.000Z');
    // Advancing again over the same time closes nothing twice.
    const again = advance(
      r.subscription,
      p(),
      prices,
      new Date('2024-03-01T00:00:00Z'),
      new Date('2024-04-01T00:00:00Z'),
    );
    expect(again.closed).toEqual([]);
  });

  test('advance stops at the end date and marks the subscription ended', () => {
    const s = subscription({ endingAt: '2024-03-15T00:00:00.000Z' });
    const r = advance(s, p(), prices, new Date('2024-02-01T00:00:00Z'), new Date('2024-06-01T00:00:00Z'));
    expect(r.closed.length).toBe(2);
    // The period after the end date is not started: nothing to bill in advance for it.
    expect(r.closed[0].next).not.toBeNull();
    expect(r.closed[1].next).toBeNull();
    expect(r.subscription.status).toBe('ended');
    expect(r.subscription.terminatedAt).toBe('2024-03-15T00:00:00.000Z');
  });

  test('advance refuses to close more than MAX_PERIODS_PER_ADVANCE periods at once', () => {
    const daily = plan([version(2, ['price_a1'])], 2, 'P1D');
    try {
      advance(subscription(), daily, prices, new Date('2024-02-01T00:00:00Z'), new Date('2034-02-01T00:00:00Z'));
      expect.unreachable();
    } catch (e) {
      expect((e as { statusCode: number; code: string }).statusCode).toBe(400);
      expect((e as { code: string }).code).toBe('TEST_CLOCK_ADVANCE_TOO_FAR');
    }
    expect(MAX_PERIODS_PER_ADVANCE).toBeGreaterThan(365);
    expect(
      advance(subscription(), daily, prices, new Date('2024-02-01T00:00:00Z'), new Date('2025-02-01T00:00:00Z')).closed
        .length,
    ).toBe(366);
  });

  test('overrides follow the counterpart price or are dropped', () => {
    const o = [
      { priceId: 'price_a1', unitPrice: '5' },
      { priceId: 'price_b', unitPrice: '1' },
    ];
    expect(carryOverrides(o, version(3, ['price_a2']), prices)).toEqual([{ priceId: 'price_a2', unitPrice: '5' }]);
  });

  test('overrides at creation: sold by the version, standard prices only', () => {
    const v = version(9, ['price_a1', 'price_v']);
    expect(() => validateOverrides([{ priceId: 'price_a1', unitPrice: '1' }], v, prices)).not.toThrow();
    expect(() => validateOverrides([{ priceId: 'price_b', unitPrice: '1' }], v, prices)).toThrow(/not sold/);
    expect(() => validateOverrides([{ priceId: 'price_v', unitPrice: '1' }], v, prices)).toThrow(/standard/);
  });
});
