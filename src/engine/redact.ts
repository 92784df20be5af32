/**
 * Secret scrubbing. Every API key the engine learns (from the config, from the
 * environment, or sent in an Authorization header) is registered here, and every
 * string written to a log, a report or a replay command goes through `redact`.
 * A secret with a label (an environment-variable name) is replaced by `$LABEL`, so
 * replay commands stay runnable; an unlabelled one becomes `***`.
 */

const MIN_SECRET_LENGTH = 6;
const secrets = new Map<string, string | undefined>();
let ordered: [string, string][] | undefined;

/** Registers a secret; `label` is the environment variable a replay should use instead. */
export function registerSecret(value: string | undefined | null, label?: string): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
  const known = secrets.get(value);
  if (known && !label) return;
  secrets.set(value, label ?? known);
  ordered = undefined;
}

/** For tests. */
export function clearSecrets(): void {
  secrets.clear();
  ordered = undefined;
}

function placeholders(): [string, string][] {
  // Longest first, so a key that contains another key is replaced whole.
  ordered ??= [...secrets.entries()]
    .sort((a, b) => b[0].length - a[0].length)
    .map(([value, label]) => [value, label ? `$${label}` : '***']);
  return ordered;
}

/** Replaces every registered secret in `text`. */
export function redact(text: string): string {
  if (!text || secrets.size === 0) return text;
  let out = text;
  for (const [value, replacement] of placeholders()) {
    if (out.includes(value)) out = out.split(value).join(replacement);
  }
  return out;
}

/** A deep copy of a JSON-like value with every string redacted (keys included). */
export function redactDeep<T>(value: T): T {
  return walk(value, new WeakMap()) as T;
}

function walk(value: unknown, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return seen.get(value);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const v of value) out.push(walk(v, seen));
    return out;
  }
  const out: Record<string, unknown> = {};
  seen.set(value, out);
  for (const [k, v] of Object.entries(value)) out[redact(k)] = walk(v, seen);
  return out;
}

/** Redacts an Authorization header value, whether or not its token is registered. */
export function redactAuthorization(value: string): string {
  const m = /^(\s*bearer\s+)(.*)$/i.exec(value);
  if (!m) return redact(value);
  const token = m[2];
  const scrubbed = redact(token);
  return `${m[1]}${scrubbed}`;
}
