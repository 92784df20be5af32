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
/** A value learnt from traffic shorter than this is not taken for a key (a placeholder such as "string"). */
export declare const MIN_LEARNED_SECRET_LENGTH = 12;
/**
 * Registers a secret; `label` is the environment variable a replay should use instead, and
 * wins over any name given before. Without one, the secret keeps the name it has.
 */
export declare function registerSecret(value: string | undefined | null, label?: string, origin?: string): void;
/**
 * Names a key a fixture handed out after that fixture (CONFORM_KEY_SECOND for
 * secondKeySameMerchant; CONFORM_KEY_SECOND_2 for the second distinct key it gave). A key
 * the user named by environment variable (secondKeyEnv...) keeps that name; a value not
 * registered before is taken only when it looks like a key.
 */
export declare function registerFixtureKey(value: string | undefined | null, fixture: string): void;
/**
 * Whether a value learnt from a target could be a key: at least 12 characters, no
 * whitespace, and at least two kinds of character (lower case, upper case, digits, others).
 * A schema placeholder ("string"), a word or lorem text is none: redacting it would blot out
 * every occurrence of that word in the reports.
 */
export declare function isSecretLike(value: unknown): value is string;
/** Registers a key learnt from a target's answer, or sent by a scenario, when it looks like one (isSecretLike). */
export declare function learnSecret(value: unknown): void;
/** For tests. */
export declare function clearSecrets(): void;
/** Replaces every registered secret in `text`. */
export declare function redact(text: string): string;
/**
 * The secret behind `$NAME`, when NAME stands for one: where it comes from, and whether the
 * user named the variable (the key came from it) or the engine did (a key made during the run).
 */
export declare function secretVariable(name: string): {
    origin: string;
    userNamed: boolean;
} | undefined;
/** The variables standing for secrets in a redacted text (`$NAME` or `${NAME...}`), in order of appearance. */
export declare function variablesIn(text: string): {
    name: string;
    origin: string;
}[];
/** A deep copy of a JSON-like value with every string redacted (keys included). */
export declare function redactDeep<T>(value: T): T;
/** Redacts an Authorization header value, whether or not its token is registered. */
export declare function redactAuthorization(value: string): string;
