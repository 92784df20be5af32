import { describe, expect, test } from 'vitest';
import {
  dec,
  formatFixed,
  formatMoney,
  formatPlain,
  isDecimalString,
  percentOf,
  sum,
  currencyScale,
} from '../../../src/reference/domain/money.ts';

describe('money', () => {
  test('decimal arithmetic is exact where binary floats are not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(dec('0.1').plus(dec('0.2')).toString()).toBe('0.3');
    expect(sum(['0.1', '0.2', '0.7']).toString()).toBe('1');
  });

  test('fixed scale formatting', () => {
    expect(formatMoney('12.5')).toBe('12.50');
    expect(formatMoney(12)).toBe('12.00');
    expect(formatMoney('0.005')).toBe('0.01');
    expect(formatMoney('2.675')).toBe('2.68');
    expect(formatMoney('100', 'JPY')).toBe('100');
    expect(formatFixed('1.23456', 4)).toBe('1.2346');
    expect(currencyScale('usd')).toBe(2);
  });

  test('plain formatting drops trailing zeros and never uses exponents', () => {
    expect(formatPlain('0.00000001')).toBe('0.00000001');
    expect(formatPlain('12.500')).toBe('12.5');
    expect(formatPlain('0.000')).toBe('0');
    expect(formatPlain(dec('1000000000000000000000'))).toBe('1000000000000000000000');
  });

  test('decimal string recognition', () => {
    expect(isDecimalString('12.50')).toBe(true);
    expect(isDecimalString('-3')).toBe(true);
    expect(isDecimalString('1e3')).toBe(false);
    expect(isDecimalString('12.')).toBe(false);
    expect(isDecimalString(12)).toBe(false);
    expect(() => dec('abc')).toThrow(RangeError);
    expect(() => dec(Number.NaN)).toThrow(RangeError);
  });

  test('percentages round to the currency', () => {
    expect(percentOf('19.99', 20, 'USD').toFixed(2)).toBe('4.00');
    expect(percentOf('10.00', '7.25', 'USD').toFixed(2)).toBe('0.73');
    expect(percentOf('10.00', 0, 'USD').toFixed(2)).toBe('0.00');
  });
});
