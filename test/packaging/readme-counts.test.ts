/**
 * README.md's counts (rules, families, operations, suites, checks, fault catalogs) are the ones
 * their sources give: the block scripts/readme-counts.ts renders, and the rule total that
 * `conform rules --json` lists.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, README, renderCounts, withCounts } from '../../scripts/readme-counts.ts';
import { run } from './support.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

describe('README counts', () => {
  it('the counts block is what its sources render now (npm run readme:counts rewrites it)', async () => {
    const readme = readFileSync(README, 'utf8');
    const block = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END) + END.length);
    expect(block, 'run npm run readme:counts').toBe(await renderCounts());
  });

  it('its rule total is the number of rules `conform rules --json` lists', async () => {
    const r = await run(process.execPath, ['bin/conform.js', 'rules', '--json'], ROOT);
    expect(r.code, r.stderr).toBe(0);
    const listed = (JSON.parse(r.stdout) as unknown[]).length;
    expect(readFileSync(README, 'utf8')).toContain(`**${listed} rules**`);
  });

  it('a README without the block is refused with what to add', () => {
    expect(() => withCounts('# no block\n', 'x')).toThrow(/no counts block/);
  });
});
