/**
 * types/ (the declarations of billing-conform/fixtures) is committed, so an install runs no
 * script of the package's own: it must be what `npm run types` writes from the sources now.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('types/', () => {
  test('is what npm run types writes from the sources now (run it and commit types/)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'conform-types-')), 'types');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/types.ts', out], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const fresh = files(out);
    expect(Object.keys(fresh).length).toBeGreaterThan(5);
    expect(files(join(ROOT, 'types'))).toEqual(fresh);
  });

  test('the package runs no install script of its own', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts?.[s], s).toBeUndefined();
  });
});
