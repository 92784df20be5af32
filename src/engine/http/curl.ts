import type { Exchange } from '../types.ts';
import { redact } from '../redact.ts';

/** Single-quotes a string for a POSIX shell. */
function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const REPLAYED_HEADERS = new Set(['content-type', 'accept', 'idempotency-key']);

/**
 * A `curl` command reproducing the request. The key never appears: the Authorization
 * header is written as `Bearer $CONFORM_API_KEY` (double-quoted so the shell expands it),
 * or with the env var the key was registered under, or `Bearer ***` when unknown.
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
  const m = /^bearer\s+(\$[A-Z_][A-Z0-9_]*)$/i.exec(scrubbed);
  if (m) return `"Authorization: Bearer ${m[1]}"`;
  return shq(`Authorization: ${scrubbed}`);
}
