import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `[a-zA-Z0-9]{length}` from a CSPRNG (rejection sampling keeps it unbiased). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return out;
}

/** `prefix_` + 24 alphanumerics, matching the document's id patterns (`^cus_[a-zA-Z0-9]+$`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomAlphanumeric(24)}`;
}
