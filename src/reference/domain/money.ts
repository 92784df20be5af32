/** Money as decimal strings: exact arithmetic through decimal.js, never binary floats. */
import { Decimal } from 'decimal.js';
import { badRequest } from './errors.ts';

export const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
export type Dec = InstanceType<typeof D>;

const DECIMAL_RE = /^-?\d+(\.\d+)?$/;

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_RE.test(value);
}

export const INVALID_AMOUNT = 'INVALID_AMOUNT';

/**
 * The one rule for every money amount written to the reference (spec: the Amount schema's
 * x-reference-choice): a non-negative decimal string, else 400 INVALID_AMOUNT naming `field`.
 */
export function assertAmount(field: string, value: unknown): asserts value is string {
  if (!isDecimalString(value) || value.startsWith('-')) {
    throw badRequest(INVALID_AMOUNT, `${field}: a non-negative decimal string such as "10.00"`);
  }
}

export function dec(value: string | number | Dec): Dec {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    // Through the shortest round-trip text, so 0.1 stays 0.1 (and 1e21 reads as 1e+21).
    return new D(String(value));
  }
  if (typeof value === 'string' && !DECIMAL_RE.test(value)) throw new RangeError(`not a decimal string: ${value}`);
  return new D(value);
}

const ZERO_DECIMAL_CURRENCIES = new Set(['JPY', 'KRW', 'VND', 'CLP', 'ISK', 'UGX', 'XAF', 'XOF']);

/** Minor-unit scale of an ISO 4217 currency (2 unless known otherwise). */
export function currencyScale(currency: string): number {
  return ZERO_DECIMAL_CURRENCIES.has(currency.toUpperCase()) ? 0 : 2;
}

/** Rounds half-up to `scale` places and prints exactly that many: "12.50". */
export function formatFixed(value: string | number | Dec, scale: number): string {
  return dec(value).toDecimalPlaces(scale, D.ROUND_HALF_UP).toFixed(scale);
}

export function formatMoney(value: string | number | Dec, currency = 'USD'): string {
  return formatFixed(value, currencyScale(currency));
}

/** Plain decimal text without exponent or trailing zeros: "0.0025", "12.5". */
export function formatPlain(value: string | number | Dec): string {
  const d = dec(value);
  return d.isZero() ? '0' : d.toFixed();
}

export function sum(values: Array<string | number | Dec>): Dec {
  return values.reduce<Dec>((acc, v) => acc.plus(dec(v)), new D(0));
}

/** amount x rate% rounded to the currency: the tax of one line. */
export function percentOf(amount: string | Dec, ratePercent: number | string | Dec, currency: string): Dec {
  return dec(amount).times(dec(ratePercent)).dividedBy(100).toDecimalPlaces(currencyScale(currency), D.ROUND_HALF_UP);
}
