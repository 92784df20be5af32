/** For each constraint kind, an arbitrary of values that break it and only it. */
import fc from 'fast-check';
import type { Constraint } from './constraints.ts';
import { letters } from './formats.ts';
import { integerBounds, stringArbitrary } from './valid.ts';
import { hasType, regexOf, typesOf, type JsonSchema, type Location } from './schema.ts';

/** Words a lenient parser might read as a number, boolean or null: never used as a "wrong type" string. */
const AMBIGUOUS = new Set(['true', 'false', 'null', 'nan', 'infinity', 'inf', 'yes', 'no', 'on', 'off', 'e']);
const wordArbitrary = letters(1, 8).filter((s) => !AMBIGUOUS.has(s));

/** The value to put at the constraint's pointer (not used for `required`, which leaves it out). */
export function breakingValue(c: Constraint): fc.Arbitrary<unknown> {
  const s = c.schema;
  switch (c.kind) {
    case 'type':
      return wrongType(s, c.location);
    case 'enum':
      return outsideEnum(s);
    case 'pattern':
      return notMatching(s, c.location);
    case 'maxLength':
      return fc.string({
        unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'.split('')),
        minLength: s.maxLength! + 1,
        maxLength: s.maxLength! + 4,
      });
    case 'minimum':
      return below(s, s.minimum!, 1);
    case 'exclusiveMinimum':
      return below(s, s.exclusiveMinimum!, 0);
    case 'maximum':
      return above(s, s.maximum!, 1);
    case 'exclusiveMaximum':
      return above(s, s.exclusiveMaximum!, 0);
    case 'required':
      throw new Error('required is broken by leaving the property out');
  }
}

function wrongType(s: JsonSchema, location: Location): fc.Arbitrary<unknown> {
  const types = typesOf(s);
  const candidates: fc.Arbitrary<unknown>[] = [];
  const admits = (v: unknown) => hasType(v, types);
  if (!types.includes('string')) candidates.push(wordArbitrary);
  if (types.includes('integer') && !types.includes('number')) {
    // A non-integer inside the bounds breaks the type only.
    const b = integerBounds(s);
    const lo = b.min ?? Math.min(0, b.max ?? 0) - 10;
    const hi = b.max ?? lo + 10;
    if (hi > lo) candidates.push(fc.integer({ min: lo, max: hi - 1 }).map((n) => n + 0.5));
  }
  if (location === 'body') {
    if (!admits(0)) candidates.push(fc.integer({ min: 0, max: 1000 }));
    if (!admits(true)) candidates.push(fc.boolean());
    if (!admits([])) candidates.push(fc.constant([]));
    if (!admits({})) candidates.push(fc.constant({}));
  }
  return fc.oneof(...candidates);
}

function outsideEnum(s: JsonSchema): fc.Arbitrary<unknown> {
  const allowed = s.const !== undefined ? [s.const] : s.enum!;
  const inEnum = (v: unknown) => allowed.some((a) => JSON.stringify(a) === JSON.stringify(v));
  const sample = allowed[0];
  let arb: fc.Arbitrary<unknown>;
  if (typeof sample === 'string') {
    const near = fc
      .constantFrom(...allowed.filter((a): a is string => typeof a === 'string'))
      .chain((a) => fc.constantFrom(`${a}s`, a.toUpperCase(), `x${a}`, a.slice(0, -1) || 'x'));
    arb = fc.oneof(near, wordArbitrary);
  } else if (typeof sample === 'number') arb = fc.integer({ min: -1000, max: 1000 });
  else if (typeof sample === 'boolean') arb = fc.boolean();
  else arb = wordArbitrary;
  // Keep every other string constraint satisfied.
  const others: JsonSchema = { ...s, enum: undefined, const: undefined };
  return arb.filter((v) => !inEnum(v) && stringKeepsOthers(others, v));
}

function notMatching(s: JsonSchema, location: Location): fc.Arbitrary<string> {
  const re = regexOf(s.pattern!);
  const valid = stringArbitrary({ pattern: s.pattern });
  const near = fc.tuple(valid, fc.constantFrom('suffix', 'prefix', 'drop', 'upper', 'dash')).map(([v, how]) => {
    switch (how) {
      case 'suffix':
        return `${v}!`;
      case 'prefix':
        return `x${v}`;
      case 'drop':
        return v.slice(1);
      case 'upper':
        return v.toUpperCase();
      default:
        return v.replace(/_/g, '-');
    }
  });
  const random = fc.string({ minLength: 1, maxLength: 12 });
  return fc
    .oneof(near, random)
    .filter(
      (v) => !re.test(v) && stringKeepsOthers({ ...s, pattern: undefined }, v) && (location !== 'path' || pathSafe(v)),
    );
}

/** A path segment that stays one segment of the same route once encoded. */
function pathSafe(v: string): boolean {
  return v.trim() !== '' && v !== '.' && v !== '..';
}

function stringKeepsOthers(s: JsonSchema, v: unknown): boolean {
  if (typeof v !== 'string') return true;
  const n = [...v].length;
  if (s.minLength !== undefined && n < s.minLength) return false;
  if (s.maxLength !== undefined && n > s.maxLength) return false;
  if (s.pattern !== undefined && !regexOf(s.pattern).test(v)) return false;
  return true;
}

const isInteger = (s: JsonSchema) => typesOf(s).includes('integer') && !typesOf(s).includes('number');

/** Values under a lower bound (`gap` 1: strictly under `bound`; 0: `bound` itself allowed). Shrinks towards the bound. */
function below(s: JsonSchema, bound: number, gap: 0 | 1): fc.Arbitrary<number> {
  if (isInteger(s)) {
    const top = gap ? Math.ceil(bound) - 1 : Math.floor(bound);
    return fc.integer({ min: 0, max: 1000 }).map((k) => top - k);
  }
  return fc
    .integer({ min: gap, max: 10_000 })
    .map((k) => (Math.round(bound * 100) - k) / 100 + 0)
    .filter((v) => (gap ? v < bound : v <= bound));
}

function above(s: JsonSchema, bound: number, gap: 0 | 1): fc.Arbitrary<number> {
  if (isInteger(s)) {
    const bottom = gap ? Math.floor(bound) + 1 : Math.ceil(bound);
    return fc.integer({ min: 0, max: 1000 }).map((k) => bottom + k);
  }
  return fc
    .integer({ min: gap, max: 10_000 })
    .map((k) => (Math.round(bound * 100) + k) / 100 + 0)
    .filter((v) => (gap ? v > bound : v >= bound));
}

/**
 * The edge values the document names for a bound (256 characters for maxLength 255,
 * -1 and -0.01 under 0, 100.01 and 101 over 100, 0 under 1, 2147483648 over 2147483647),
 * sent on every run besides the random ones. Empty for the other kinds.
 */
export function edgeBreakingValues(c: Constraint): unknown[] {
  const s = c.schema;
  const int = isInteger(s);
  const cents = (v: number) => Math.round(v * 100) / 100;
  switch (c.kind) {
    case 'maxLength':
      return ['a'.repeat(s.maxLength! + 1)];
    case 'minimum':
      return int ? [Math.ceil(s.minimum!) - 1] : [cents(s.minimum! - 0.01), s.minimum! - 1];
    case 'maximum':
      return int ? [Math.floor(s.maximum!) + 1] : [cents(s.maximum! + 0.01), s.maximum! + 1];
    case 'exclusiveMinimum':
      return [s.exclusiveMinimum!];
    case 'exclusiveMaximum':
      return [s.exclusiveMaximum!];
    default:
      return [];
  }
}

/** Valid values at the same bound: 255 characters, 0 and 100, 1 and 2147483647. */
export function edgeValidValues(c: Constraint): unknown[] {
  const s = c.schema;
  const int = isInteger(s);
  switch (c.kind) {
    case 'maxLength':
      return ['a'.repeat(s.maxLength!)];
    case 'minimum':
      return [s.minimum!];
    case 'maximum':
      return [s.maximum!];
    case 'exclusiveMinimum':
      return [int ? Math.floor(s.exclusiveMinimum!) + 1 : Math.round(s.exclusiveMinimum! * 100 + 1) / 100];
    case 'exclusiveMaximum':
      return [int ? Math.ceil(s.exclusiveMaximum!) - 1 : Math.round(s.exclusiveMaximum! * 100 - 1) / 100];
    default:
      return [];
  }
}
