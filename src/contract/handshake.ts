/**
 * The reference server's handshake (`POST /v0/referenceHandshake`, a reference extension):
 * the server signs the caller's random challenge with HMAC-SHA256 keyed by the API key the
 * request carries. Shared here so that the server that signs and the probe that checks
 * cannot drift apart. A mock of spec/openapi.yaml answers the route with a placeholder or a
 * random string, never with this signature: it holds no key and computes nothing.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const HANDSHAKE_PATH = '/v0/referenceHandshake';
export const HANDSHAKE_ALGORITHM = 'HMAC-SHA256';
/** Domain separation: the key signs nothing else that could be confused with this. */
const CONTEXT = 'billing-conform reference handshake v1:';

/** A fresh challenge: 32 base64url characters (24 random bytes). */
export function newChallenge(): string {
  return randomBytes(24).toString('base64url');
}

/** base64url(HMAC-SHA256(apiKey, CONTEXT + challenge)). */
export function handshakeSignature(apiKey: string, challenge: string): string {
  return createHmac('sha256', apiKey).update(`${CONTEXT}${challenge}`, 'utf8').digest('base64url');
}

/** Whether `signature` is the signature of `challenge` under `apiKey` (constant time). */
export function verifyHandshake(apiKey: string, challenge: string, signature: unknown): boolean {
  if (typeof signature !== 'string') return false;
  const want = Buffer.from(handshakeSignature(apiKey, challenge));
  const got = Buffer.from(signature);
  return got.length === want.length && timingSafeEqual(got, want);
}
