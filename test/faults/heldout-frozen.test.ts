/**
 * The held-out sets (heldout/, outside src/ and outside the package) are frozen once measured:
 * every file of every set hashes as heldout/frozen.json recorded it, and no set has a file the
 * record lacks. A set tuned to the tool after it was measured no longer measures anything: a
 * change is a new set.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const HELDOUT = fileURLToPath(new URL('../../heldout/', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
  files: string[];
};

test('every held-out set is as it was when measured, and none ships with the package', () => {
  const frozen = (JSON.parse(readFileSync(join(HELDOUT, 'frozen.json'), 'utf8')) as { files: Record<string, string> })
    .files;
  const now: Record<string, string> = {};
  for (const set of readdirSync(HELDOUT).filter((d) => statSync(join(HELDOUT, d)).isDirectory()))
    for (const file of readdirSync(join(HELDOUT, set)))
      now[`${set}/${file}`] = createHash('sha256')
        .update(readFileSync(join(HELDOUT, set, file)))
        .digest('hex');
  expect(Object.keys(now).length).toBeGreaterThanOrEqual(7);
  expect(now, 'a held-out set changed after it was measured: write a new set instead').toEqual(frozen);
  expect(PACKAGE.files.filter((f) => f.startsWith('heldout'))).toEqual([]);
});
