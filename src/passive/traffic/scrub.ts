/**
 * Keys never enter the judge. At capture, the bearer token becomes the client's id (a
 * hash of the key: the same key always gets the same id, and the id cannot be turned back
 * into the key), every occurrence of the token in the exchange is replaced by it, cookies
 * are masked, and JSON fields that carry secrets (a new key's `secret`) are masked too.
 */
import { createHash } from 'node:crypto';

export const ANONYMOUS = 'anonymous';
const CLIENT_ID = /^\$?(CLIENT_KEY_[0-9A-F]{12})$/;
const MASKED_HEADERS = new Set(['cookie', 'set-cookie', 'proxy-authorization', 'x-api-key']);
const SECRET_FIELD = /^(secret\w*|api_?key|apiKeySecret|token|access_?token|refresh_?token|password|client_?secret)$/i;
const SECRET_HINT = /secret|api_?key|token|password/i;
export const MASK = '***';

/** The client id of a bearer token (a HAR recorded by `conform proxy` already carries ids). */
export function clientIdOf(token: string): string {
  const known = CLIENT_ID.exec(token.trim());
  if (known) return known[1];
  return `CLIENT_KEY_${createHash('sha256').update(token).digest('hex').slice(0, 12).toUpperCase()}`;
}

/** The bearer token of an Authorization header value, if any. */
export function bearerToken(value: string | undefined): string | undefined {
  const m = value === undefined ? null : /^\s*bearer\s+(\S.*?)\s*$/i.exec(value);
  return m ? m[1] : undefined;
}

export interface Scrubbed {
  client: string;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  requestBody: string;
  responseBody: string;
  path: string;
}

function replaceAll(text: string, token: string | undefined, by: string): string {
  return token && token.length >= 6 && text.includes(token) ? text.split(token).join(by) : text;
}

function maskHeaders(h: Record<string, string>, token: string | undefined, by: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = MASKED_HEADERS.has(k) ? MASK : replaceAll(v, token, by);
  return out;
}

/** Masks secret-named string fields of a JSON text; the text is left alone when none is found. */
export function maskSecretFields(text: string): string {
  if (!SECRET_HINT.test(text)) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  let changed = false;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    for (const [k, x] of Object.entries(o)) {
      if (SECRET_FIELD.test(k) && typeof x === 'string' && x !== MASK) {
        o[k] = MASK;
        changed = true;
      } else walk(x);
    }
  };
  walk(value);
  return changed ? JSON.stringify(value) : text;
}

/** Scrubs one exchange; lower-case header names expected. */
export function scrub(input: Omit<Scrubbed, 'client'>): Scrubbed {
  const token = bearerToken(input.requestHeaders.authorization);
  const client = token === undefined ? ANONYMOUS : clientIdOf(token);
  const by = `$${client}`;
  const requestHeaders = maskHeaders(input.requestHeaders, token, by);
  if (input.requestHeaders.authorization !== undefined)
    requestHeaders.authorization = token === undefined ? MASK : `Bearer ${by}`;
  return {
    client,
    requestHeaders,
    responseHeaders: maskHeaders(input.responseHeaders, token, by),
    requestBody: maskSecretFields(replaceAll(input.requestBody, token, by)),
    responseBody: maskSecretFields(replaceAll(input.responseBody, token, by)),
    path: replaceAll(input.path, token, by),
  };
}
