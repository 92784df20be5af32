import { describe, expect, test } from 'vitest';
import {
  addPeriods,
  isCadence,
  parseCadence,
  periodAt,
  periodsClosedBetween,
} from '../../../src/reference/domain/periods.ts';

const d = (s: string) => new Date(s);
const iso = (x: Date | null) => (x ? x.toISOString() : null);

describe('billing periods', () => {
  test('parses ISO 8601 date durations', () => {
    expect(parseCadence('P1M')).toEqual({ months: 1, days: 0 });
    expect(parseCadence('P3M')).toEqual({ months: 3, days: 0 });
    expect(parseCadence('P1Y')).toEqual({ months: 12, days: 0 });
    expect(parseCadence('P2W')).toEqual({ months: 0, days: 14 });
    expect(parseCadence('P0D')).toEqual({ months: 0, days: 0 });
    expect(() => parseCadence('P')).toThrow();
    expect(() => parseCadence('1M')).toThrow();
    expect(isCadence('P6M')).toBe(true);
    expect(isCadence('monthly')).toBe(false);
  });

  test('monthly period containing an instant', () => {
    const p = periodAt(d('2024-01-15T00:00:00Z'), 'P1M', d('2024-03-20T12:00:00Z'));
    expect(iso(p.start)).toBe('2024-03-15T00:00:00.000Z');
    expect(iso(p.end)).toBe('2024-04-15T00:00:00.000Z');
    expect(p.index).toBe(2);
  });

  test('the boundary instant belongs to the next period', () => {
    const p = periodAt(d('2024-01-15T00:00:00Z'), 'P1M', d('2024-02-15T00:00:00Z'));
    expect(iso(p.start)).toBe('2024-02-15T00:00:00.000Z');
    expect(p.index).toBe(1);
  });

  test('month-end anchors clamp without drifting', () => {
    const anchor = d('2024-01-31T10:00:00Z');
    expect(iso(addPeriods(anchor, parseCadence('P1M'), 1))).toBe('2024-02-29T10:00:00.000Z');
    expect(iso(addPeriods(anchor, parseCadence('P1M'), 2))).toBe('2024-03-31T10:00:00.000Z');
    expect(iso(addPeriods(anchor, parseCadence('P1M'), 13))).toBe('2025-02-28T10:00:00.000Z');
    const p = periodAt(anchor, 'P1M', d('2024-03-01T00:00:00Z'));
    expect(iso(p.start)).toBe('2024-02-29T10:00:00.000Z');
    expect(iso(p.end)).toBe('2024-03-31T10:00:00.000Z');
  });

  test('quarterly and yearly cadences', () => {
    const q = periodAt(d('2023-11-30T00:00:00Z'), 'P3M', d('2024-03-01T00:00:00Z'));
    expect(iso(q.start)).toBe('2024-02-29T00:00:00.000Z');
    expect(iso(q.end)).toBe('2024-05-30T00:00:00.000Z');
    const y = periodAt(d('2024-02-29T00:00:00Z'), 'P1Y', d('2025-06-01T00:00:00Z'));
    expect(iso(y.start)).toBe('2025-02-28T00:00:00.000Z');
    expect(iso(y.end)).toBe('2026-02-28T00:00:00.000Z');
  });

  test('one-time cadence has a single open period', () => {
    const p = periodAt(d('2024-01-01T00:00:00Z'), 'P0D', d('2030-01-01T00:00:00Z'));
    expect(iso(p.start)).toBe('2024-01-01T00:00:00.000Z');
    expect(p.end).toBeNull();
  });

  test('before the anchor the first period is current', () => {
    const p = periodAt(d('2024-05-01T00:00:00Z'), 'P1M', d('2024-01-01T00:00:00Z'));
    expect(iso(p.start)).toBe('2024-05-01T00:00:00.000Z');
    expect(iso(p.end)).toBe('2024-06-01T00:00:00.000Z');
  });

  test('periods closed in (from, to]', () => {
    const anchor = d('2024-01-31T00:00:00Z');
    const closed = periodsClosedBetween(anchor, 'P1M', d('2024-02-10T00:00:00Z'), d('2024-04-29T23:59:59Z'));
    expect(closed.map((p) => [iso(p.start), iso(p.end)])).toEqual([
      ['2024-01-31T00:00:00.000Z', '2024-02-29T00:00:00.000Z'],
      ['2024-02-29T00:00:00.000Z', '2024-03-31T00:00:00.000Z'],
    ]);
    // A period ending exactly at `to` is closed; one ending exactly at `from` was closed before.
    const edge = periodsClosedBetween(anchor, 'P1M', d('2024-02-29T00:00:00Z'), d('2024-03-31T00:00:00Z'));
    expect(edge.map((p) => iso(p.end))).toEqual(['2024-03-31T00:00:00.000Z']);
    expect(periodsClosedBetween(anchor, 'P0D', anchor, d('2030-01-01T00:00:00Z'))).toEqual([]);
  });
});
