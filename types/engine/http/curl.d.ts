import type { Exchange } from '../types.ts';
/**
 * A `curl` command reproducing the request. The key never appears: the Authorization
 * header names the environment variable to read it from (double-quoted so the shell expands
 * it): the one the key came from (`$CONFORM_API_KEY`, the one apiKeyEnv names), or, for a
 * key made during the run, a variable named after the fixture that made it, which says so
 * when it is not set: `${CONFORM_KEY_SECOND:?key made by fixture secondKeySameMerchant}`; in
 * recorded traffic, one named after the client (`${CLIENT_KEY_0A1B2C3D4E5F:?...}`).
 */
export declare function replayCommand(exchange: Pick<Exchange, 'method' | 'url' | 'requestHeaders' | 'requestBody'>): string;
/** `${NAME:?why}`: the variable's value, or the shell stops saying why it is needed. For use inside double quotes. */
export declare function requiredVariable(name: string, why: string): string;
