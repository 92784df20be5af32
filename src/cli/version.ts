import { readFileSync } from 'node:fs';

/** The package's version, from its package.json. */
export function toolVersion(): string {
  try {
    return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
