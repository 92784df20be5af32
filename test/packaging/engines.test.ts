/**
 * An install on any Node version `engines` admits warns about no engine: every package the
 * installed CLI pulls in (the lockfile's non-dev entries) admits every one of those versions,
 * and README says which versions and why. The first-hour test installs the packed tarball and
 * reads npm's own output for EBADENGINE.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PKG = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
const LOCK = JSON.parse(readFileSync(`${ROOT}package-lock.json`, 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }>;
};

/** Runtime packages whose engines.node does not admit every Node version `range` admits. */
export function narrowerEngines(range: string, packages: typeof LOCK.packages): string[] {
  const out: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    const node = !path || entry.dev || Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (node && !semver.subset(range, node))
      out.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants ${node}`);
  }
  return out;
}

describe('engines', () => {
  it('every runtime dependency admits every Node version the package admits', () => {
    expect(semver.validRange(PKG.engines.node)).not.toBeNull();
    expect(narrowerEngines(PKG.engines.node, LOCK.packages)).toEqual([]);
  });

  it('the check finds a dependency that wants a newer Node (cookie 2 wants 22: why light-my-request is held at 6.6)', () => {
    const cookie2 = { 'node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } } };
    expect(narrowerEngines(PKG.engines.node, cookie2)).toEqual(['cookie@2.0.2 wants >=22']);
    expect(
      narrowerEngines('>=20.10', {
        'node_modules/vite': { version: '8.3.8', engines: { node: '^20.19.0 || >=22.12.0' } },
      }),
    ).toEqual(['vite@8.3.8 wants ^20.19.0 || >=22.12.0']);
    expect(LOCK.packages['node_modules/cookie']?.version).toMatch(/^1\./);
    expect(PKG.dependencies['light-my-request']).toMatch(/^~6\.6\./);
  });

  it('README names the Node versions and why', () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    expect(readme).toContain(`Requires Node.js ${PKG.engines.node}`);
    expect(readme).toMatch(/light-my-request/);
    expect(readme).toMatch(/cookie/);
  });
});
