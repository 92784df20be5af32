/**
 * README's layout table against the tree: every folder of the project (but the generated and
 * installed ones) and every folder of src/ has a row, and every row names a folder that exists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Folders with no place in the table: installed, version control, CI plumbing, ignored run output. */
const NOT_LISTED = new Set(['node_modules', '.git', '.ci', '.stryker-tmp', 'coverage', 'data']);

/** The folders README's "Layout" table names (its first column, `name/`). */
export function layoutRows(readme: string): string[] {
  const section = readme.split(/^## Layout$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([^`]+)\/` \|/gm)].map((m) => m[1]);
}

const folders = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !NOT_LISTED.has(e.name) && !e.name.startsWith('.'))
    .map((e) => e.name);

describe("README's layout table", () => {
  const rows = layoutRows(readFileSync(`${ROOT}README.md`, 'utf8'));

  it('has a row for each folder of the project and of src/', () => {
    const tree = [...folders(ROOT).filter((f) => f !== 'src'), ...folders(`${ROOT}src`).map((f) => `src/${f}`)];
    expect(tree.length).toBeGreaterThan(10);
    expect(tree.filter((f) => !rows.includes(f))).toEqual([]);
  });

  it('names only folders that exist', () => {
    const tree = new Set([...folders(ROOT), ...folders(`${ROOT}src`).map((f) => `src/${f}`)]);
    expect(rows.filter((r) => !tree.has(r))).toEqual([]);
  });

  it('reads the rows of a table and nothing else', () => {
    const readme = '## Layout\n\n| folder | what |\n|---|---|\n| `a/` | x |\n| `b/c/` | y |\n\n## Next\n| `d/` | z |\n';
    expect(layoutRows(readme)).toEqual(['a', 'b/c']);
  });
});
