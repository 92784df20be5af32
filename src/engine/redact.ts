/**
 * Secret scrubbing. Every API key the engine is given (from the config, from the environment,
 * from a team's fixtures) is registered here, every key it learns from a target or sends is
 * learnt here when it looks like a key, and every string written to a log, a report or a
 * replay command goes through `redact`. A secret with a label (an environment-variable name)
 * is replaced by `$LABEL`, so replay commands stay runnable; an unlabelled one becomes `***`.
 */

const MIN_SECRET_LENGTH = 6;
/** A value learnt from traffic shorter than this is not taken for a key (a placeholder such as "string"). */
export const MIN_LEARNED_SECRET_LENGTH = 12;
const secrets = new Map<string, string | undefined>();
let ordered: [string, string][] | undefined;

/** Registers a secret the user gave (config, environment, fixtures); `label` is the variable a replay should use. */
export function registerSecret(value: string | undefined | null, label?: string): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
  const known = secrets.get(value);
  if (known && !label) return;
  secrets.set(value, label ?? known);
  ordered = undefined;
}

/**
 * Whether a value learnt from a target could be a key: at least 12 characters, no
 * whitespace, and at least two kinds of character (lower case, upper case, digits, others).
 * A schema placeholder ("string"), a word or lorem text is none: redacting it would blot out
 * every occurrence of that word in the reports.
 */
export function isSecretLike(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < MIN_LEARNED_SECRET_LENGTH || /\s/.test(value)) return false;
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((k) => k.test(value)).length;
  return kinds >= 2;
}

/** Registers a key learnt from a target's answer, or sent by a scenario, when it looks like one (isSecretLike). */
export function learnSecret(value: unknown): void {
  if (isSecretLike(value)) registerSecret(value);
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
