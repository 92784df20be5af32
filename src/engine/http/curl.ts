import type { Exchange } from '../types.ts';
import { redact, secretVariable } from './redact.ts';

/** Single-quotes a string for a POSIX shell. */
function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const REPLAYED_HEADERS = new Set(['content-type', 'accept', 'idempotency-key']);

/**
 * A `curl` command reproducing the request. The key never appears: the Authorization
 * header names the environment variable to read it from (double-quoted so the shell expands
 * it): the one the key came from (`$CONFORM_API_KEY`, the one apiKeyEnv names), or, for a
 * key made during the run, a variable named after the fixture that made it, which says so
 * when it is not set: `${CONFORM_KEY_SECOND:?key made by fixture secondKeySameMerchant}`; in
 * recorded traffic, one named after the client (`${CLIENT_KEY_0A1B2C3D4E5F:?...}`).
 */
export function replayCommand(exchange: Pick<Exchange, 'method' | 'url' | 'requestHeaders' | 'requestBody'>): string {
  const parts = ['curl', '-sS', '-i', '-X', exchange.method.toUpperCase(), shq(redact(exchange.url))];
  for (const [name, rawValue] of Object.entries(exchange.requestHeaders)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization') {
      parts.push('-H', authHeader(rawValue));
    } else if (REPLAYED_HEADERS.has(lower)) {
      parts.push('-H', shq(`${lower}: ${redact(rawValue)}`));
    }
  }
  if (exchange.requestBody !== undefined) {
    const text = typeof exchange.requestBody === 'string' ? exchange.requestBody : JSON.stringify(exchange.requestBody);
    parts.push('--data-raw', shq(redact(text)));
  }
  return parts.join(' ');
}

function authHeader(value: string): string {
  const scrubbed = redact(value);
  // Only `$NAME` placeholders may be left for the shell to expand; anything else is quoted literally.
  const m = /^bearer\s+\$([A-Z_][A-Z0-9_]*)$/i.exec(scrubbed);
  if (!m) return shq(`Authorization: ${scrubbed}`);
  const v = secretVariable(m[1]);
  // Recorded traffic names each client by a hash of its key (traffic/scrub.ts): its owner knows which key that is.
  if (!v && /^CLIENT_KEY_[0-9A-F]{12}$/.test(m[1]))
    return `"Authorization: Bearer ${requiredVariable(m[1], `the API key of client ${m[1]} (named by a hash of it)`)}"`;
  if (!v || v.userNamed) return `"Authorization: Bearer $${m[1]}"`;
  return `"Authorization: Bearer ${requiredVariable(m[1], v.origin)}"`;
}

/** `${NAME:?why}`: the variable's value, or the shell stops saying why it is needed. For use inside double quotes. */
export function requiredVariable(name: string, why: string): string {
  // Nothing in the message may end the expansion or the double quotes early.
  return `\${${name}:?${why.replace(/[^\w .,()'-]/g, ' ')}}`;
}
