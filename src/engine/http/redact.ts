/**
 * Secret scrubbing. Every API key the engine is given (from the config, from the environment,
 * from a team's fixtures) is registered here, every key it learns from a target or sends is
 * learnt here when it looks like a key, and every string written to a log, a report or a
 * replay command goes through `redact`.
 * A secret is replaced by `$NAME`, the environment variable a replay reads it from: the
 * variable the key came from (CONFORM_API_KEY, the one apiKeyEnv names...), one per fixture
 * key (CONFORM_KEY_SECOND for the key secondKeySameMerchant made), else CONFORM_KEY_<n>.
 * `variablesIn` says where each variable of a text comes from, so replays can name it.
 */

const MIN_SECRET_LENGTH = 6;
/** A value learnt from traffic shorter than this is not taken for a key (a placeholder such as "string"). */
export const MIN_LEARNED_SECRET_LENGTH = 12;

interface Secret {
  /** The environment variable a replay reads the key from; assigned on first use when none was given. */
  label?: string;
  /** Where the key comes from, for the person replaying: "the primary API key", "key made by fixture X". */
  origin?: string;
  /** 2: named by the user (an environment variable); 1: named after the fixture that made it; 0: numbered. */
  rank: number;
}

const secrets = new Map<string, Secret>();
const byLabel = new Map<string, Secret>();
let ordered: [string, string][] | undefined;
let generic = 0;

function setLabel(value: string, s: Secret, label: string, origin: string | undefined, rank: number): void {
  if (s.label && byLabel.get(s.label) === s) byLabel.delete(s.label);
  s.label = label;
  s.origin = origin;
  s.rank = rank;
  byLabel.set(label, s);
  secrets.set(value, s);
  ordered = undefined;
}

/**
 * Registers a secret; `label` is the environment variable a replay should use instead, and
 * wins over any name given before. Without one, the secret keeps the name it has.
 */
export function registerSecret(value: string | undefined | null, label?: string, origin?: string): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
  const known = secrets.get(value);
  if (label) {
    const s = known ?? { rank: -1 };
    setLabel(value, s, label, origin ?? (s.label === label ? s.origin : undefined), 2);
  } else if (!known) {
    secrets.set(value, { rank: 0, origin });
    ordered = undefined;
  }
}

const FIXTURE_VARIABLES: Record<string, string> = {
  secondKeySameMerchant: 'CONFORM_KEY_SECOND',
  otherMerchantKey: 'CONFORM_KEY_OTHER_MERCHANT',
  revokedKey: 'CONFORM_KEY_REVOKED',
  forbiddenAction: 'CONFORM_KEY_FORBIDDEN',
  merchantWithoutWebhooks: 'CONFORM_KEY_NO_WEBHOOKS',
  unmanagedMerchant: 'CONFORM_KEY_UNMANAGED',
};
const madeBy = new Map<string, number>();

/**
 * Names a key a fixture handed out after that fixture (CONFORM_KEY_SECOND for
 * secondKeySameMerchant; CONFORM_KEY_SECOND_2 for the second distinct key it gave). A key
 * the user named by environment variable (secondKeyEnv...) keeps that name; a value not
 * registered before is taken only when it looks like a key.
 */
export function registerFixtureKey(value: string | undefined | null, fixture: string): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
  // A value never registered must look like a key (isSecretLike): a mock's "string" would blot out every "string".
  if (!secrets.has(value) && !isSecretLike(value)) return;
  const known = secrets.get(value) ?? { rank: -1 };
  if (known.rank >= 1) return;
  const n = (madeBy.get(fixture) ?? 0) + 1;
  madeBy.set(fixture, n);
  const base = FIXTURE_VARIABLES[fixture] ?? `CONFORM_KEY_${fixture.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
  const label = n === 1 ? base : `${base}_${n}`;
  setLabel(value, known, label, `key made by fixture ${fixture}${n === 1 ? '' : ` (the ${ordinal(n)} it made)`}`, 1);
}

function ordinal(n: number): string {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${tail}`;
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
  byLabel.clear();
  madeBy.clear();
  generic = 0;
  ordered = undefined;
}

function placeholders(): [string, string][] {
  if (ordered) return ordered;
  for (const [value, s] of secrets) {
    if (s.label) continue;
    generic += 1;
    setLabel(value, s, `CONFORM_KEY_${generic}`, s.origin ?? 'a key the run created (it is in no report)', 0);
  }
  // Longest first, so a key that contains another key is replaced whole.
  ordered = [...secrets.entries()]
    .sort((a, b) => b[0].length - a[0].length)
    .map(([value, s]) => [value, `$${s.label}`]);
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

/**
 * The secret behind `$NAME`, when NAME stands for one: where it comes from, and whether the
 * user named the variable (the key came from it) or the engine did (a key made during the run).
 */
export function secretVariable(name: string): { origin: string; userNamed: boolean } | undefined {
  const s = byLabel.get(name);
  return s ? { origin: s.origin ?? `the key the run read from ${name}`, userNamed: s.rank >= 2 } : undefined;
}

/** The variables standing for secrets in a redacted text (`$NAME` or `${NAME...}`), in order of appearance. */
export function variablesIn(text: string): { name: string; origin: string }[] {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) {
    const v = secretVariable(m[1]);
    if (v && !out.has(m[1])) out.set(m[1], v.origin);
  }
  return [...out].map(([name, origin]) => ({ name, origin }));
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
