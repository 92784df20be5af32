/**
 * Billing periods from an anchor and an ISO 8601 duration (date part only:
 * PnYnMnWnD). Period k starts at anchor + k x cadence, computed from the anchor each
 * time so a month-end anchor clamps (Jan 31 -> Feb 28/29 -> Mar 31) without drifting.
 */
export interface Cadence {
  months: number;
  days: number;
}

export interface Period {
  start: Date;
  /** Exclusive end; null for a one-time (P0D) cadence, whose single period never closes. */
  end: Date | null;
  /** 0 for the first period. */
  index: number;
}

const DURATION_RE = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?$/;

/**
 * The longest cadence the reference accepts (a reference choice; the document gives
 * none): 100 years. Longer ones (P300000Y) would put period ends beyond any date.
 */
export const MAX_CADENCE_YEARS = 100;
const DAYS_PER_MONTH = 365.2425 / 12;
const MAX_CADENCE_DAYS = Math.ceil(MAX_CADENCE_YEARS * 365.2425);

function read(text: string): Cadence | null {
  const m = DURATION_RE.exec(text);
  if (!m || text === 'P') return null;
  const [, y, mo, w, d] = m;
  const c = { months: Number(y ?? 0) * 12 + Number(mo ?? 0), days: Number(w ?? 0) * 7 + Number(d ?? 0) };
  return c.months * DAYS_PER_MONTH + c.days <= MAX_CADENCE_DAYS ? c : null;
}

export function parseCadence(text: string): Cadence {
  const c = read(text);
  if (!c) throw new RangeError(`not an ISO 8601 date duration of at most ${MAX_CADENCE_YEARS} years: ${text}`);
  return c;
}

/** An ISO 8601 date duration (PnYnMnWnD) of at most MAX_CADENCE_YEARS. */
export function isCadence(text: unknown): text is string {
  return typeof text === 'string' && read(text) !== null;
}

export function isOneTime(c: Cadence): boolean {
  return c.months === 0 && c.days === 0;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** anchor + k x cadence, clamping the anchor's day of month to the target month. */
export function addPeriods(anchor: Date, cadence: Cadence, k: number): Date {
  const totalMonths = anchor.getUTCMonth() + k * cadence.months;
  const year = anchor.getUTCFullYear() + Math.floor(totalMonths / 12);
  const month = ((totalMonths % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  const shifted = Date.UTC(
    year,
    month,
    day,
    anchor.getUTCHours(),
    anchor.getUTCMinutes(),
    anchor.getUTCSeconds(),
    anchor.getUTCMilliseconds(),
  );
  return new Date(shifted + k * cadence.days * 86_400_000);
}

const AVG_MONTH_MS = 30.436875 * 86_400_000;

/**
 * The period [start, end) containing `at`. Before the anchor, the first period is
 * current (a subscription that has not started yet is in its first period).
 */
export function periodAt(anchor: Date, cadenceText: string | Cadence, at: Date): Period {
  const cadence = typeof cadenceText === 'string' ? parseCadence(cadenceText) : cadenceText;
  if (isOneTime(cadence)) return { start: anchor, end: null, index: 0 };
  if (at.getTime() < anchor.getTime()) return { start: anchor, end: addPeriods(anchor, cadence, 1), index: 0 };
  const approx = cadence.months * AVG_MONTH_MS + cadence.days * 86_400_000;
  let k = Math.max(0, Math.floor((at.getTime() - anchor.getTime()) / approx));
  while (k > 0 && addPeriods(anchor, cadence, k).getTime() > at.getTime()) k--;
  while (addPeriods(anchor, cadence, k + 1).getTime() <= at.getTime()) k++;
  return { start: addPeriods(anchor, cadence, k), end: addPeriods(anchor, cadence, k + 1), index: k };
}

/** Thrown when more periods would close at once than `max`. */
export class TooManyPeriods extends RangeError {}

/**
 * Periods that closed in (from, to]: every period whose end is after `from` and at or
 * before `to`. More than `max` throws TooManyPeriods (a clock moved centuries ahead).
 */
export function periodsClosedBetween(
  anchor: Date,
  cadenceText: string,
  from: Date,
  to: Date,
  max = Infinity,
): Period[] {
  const cadence = parseCadence(cadenceText);
  if (isOneTime(cadence) || to.getTime() <= from.getTime()) return [];
  const out: Period[] = [];
  let p = periodAt(anchor, cadence, from);
  while (p.end && p.end.getTime() <= to.getTime()) {
    if (p.end.getTime() > from.getTime()) out.push(p);
    if (out.length > max) throw new TooManyPeriods(`more than ${max} billing periods would close at once`);
    const start: Date = p.end;
    p = { start, end: addPeriods(anchor, cadence, p.index + 2), index: p.index + 1 };
  }
  return out;
}
