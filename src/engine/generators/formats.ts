/** Small, realistic arbitraries for the string formats request schemas use. */
import fc from 'fast-check';

const lower = 'abcdefghijklmnopqrstuvwxyz'.split('');
const alnum = [...lower, ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')];

export const letters = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...lower), minLength, maxLength });

export const alphanumerics = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alnum), minLength, maxLength });

const MIN_DATE = new Date('2000-01-01T00:00:00.000Z');
const MAX_DATE = new Date('2099-12-31T23:59:59.999Z');

export const dateTime = () =>
  fc.date({ min: MIN_DATE, max: MAX_DATE, noInvalidDate: true }).map((d) => d.toISOString());
export const date = () => dateTime().map((s) => s.slice(0, 10));
export const email = () =>
  fc
    .tuple(alphanumerics(1, 10), letters(1, 10), fc.constantFrom('com', 'org', 'net', 'example'))
    .map(([local, domain, tld]) => `${local.toLowerCase()}@${domain}.${tld}`);
export const uri = () =>
  fc
    .tuple(letters(1, 10), fc.array(alphanumerics(1, 8), { maxLength: 2 }))
    .map(([host, segs]) => `https://${host}.example/${segs.join('/')}`);

/** Arbitrary for a format, or undefined when the format is unknown (plain strings then). */
export function formatArbitrary(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'date-time':
      return dateTime();
    case 'date':
      return date();
    case 'email':
    case 'idn-email':
      return email();
    case 'uri':
    case 'url':
    case 'iri':
      return uri();
    case 'uuid':
      return fc.uuid();
    default:
      return undefined;
  }
}
