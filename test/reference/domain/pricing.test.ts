import { describe, expect, test } from 'vitest';
import { assertCreatableProperties, chargeFor, volumeTiersProblem } from '../../../src/reference/domain/pricing.ts';
import { DomainError } from '../../../src/reference/domain/errors.ts';

const tiers = [
  { unitPrice: '10.00', upTo: '10' },
  { unitPrice: '8.00', upTo: '100' },
  { unitPrice: '5.00', upTo: null },
];

describe('pricing', () => {
  test('standard: quantity x unit price, override replaces the rate', () => {
    const p = { model: 'standard' as const, properties: { unitPrice: '2.50' } };
    expect(chargeFor(p, '4').amount.toString()).toBe('10');
    expect(chargeFor(p, '3', '1.10').amount.toString()).toBe('3.3');
  });

  test('volume: the whole quantity at the tier it falls in', () => {
    const p = { model: 'volume' as const, properties: { tiers } };
    expect(chargeFor(p, '10').amount.toString()).toBe('100');
    expect(chargeFor(p, '11').amount.toString()).toBe('88');
    expect(chargeFor(p, '100').unitPrice.toString()).toBe('8');
    expect(chargeFor(p, '101').amount.toString()).toBe('505');
    expect(chargeFor(p, '0').amount.toString()).toBe('0');
  });

  test('tier lists: ordered, only the last open', () => {
    expect(volumeTiersProblem(tiers)).toBeNull();
    expect(volumeTiersProblem([])).toMatch(/non-empty/);
    expect(volumeTiersProblem([{ unitPrice: '1', upTo: '5' }])).toMatch(/last tier/);
    expect(
      volumeTiersProblem([
        { unitPrice: '1', upTo: null },
        { unitPrice: '1', upTo: null },
      ]),
    ).toMatch(/only the last/);
    expect(
      volumeTiersProblem([
        { unitPrice: '1', upTo: '10' },
        { unitPrice: '1', upTo: '5' },
        { unitPrice: '1', upTo: null },
      ]),
    ).toMatch(/greater/);
    expect(volumeTiersProblem([{ unitPrice: 'x', upTo: null }])).toMatch(/unitPrice/);
  });

  test('only standard and volume can be created', () => {
    expect(() => assertCreatableProperties('standard', { unitPrice: '1.00' })).not.toThrow();
    expect(() => assertCreatableProperties('volume', { tiers })).not.toThrow();
    for (const legacy of ['dynamic', 'percentage']) {
      try {
        assertCreatableProperties(legacy, {});
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(DomainError);
        expect((e as DomainError).statusCode).toBe(400);
        expect((e as DomainError).code).toBe('PRICE_MODEL_NOT_CREATABLE');
      }
    }
    expect(() => assertCreatableProperties('standard', { unitPrice: 3 })).toThrow(/unitPrice/);
  });
});
