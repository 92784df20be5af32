/**
 * README's layout table against the tree: every folder of the project (but the generated and
 * installed ones) and every folder of src/ has a row, every row names a folder that exists,
 * every path a row names exists, and the rows that list a folder's contents (src/engine, docs)
 * list all of it and nothing else.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { existsAt, TOP_PATH } from '../architecture/doc-paths.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Folders with no place in the table: installed, version control, CI plumbing, ignored run output. */
const NOT_LISTED = new Set(['node_modules', '.git', '.ci', '.stryker-tmp', 'coverage', 'data']);

/** The rows of README's "Layout" table: the folder of its first column (`name/`) and what the row says. */
export function layoutTable(readme: string): { folder: string; what: string }[] {
  const section = readme.split(/^## Layout$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([^`]+)\/` \| (.*) \|$/gm)].map((m) => ({ folder: m[1], what: m[2] }));
}

/** The folders README's "Layout" table names (its first column, `name/`). */
export function layoutRows(readme: string): string[] {
  return layoutTable(readme).map((r) => r.folder);
}

/** The backticked names in a row's text. */
const ticked = (what: string) => [...what.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]);

/**
 * The paths a row names that do not exist: each path from a top folder of the project (ticked
 * or not), and each ticked name of a file or folder (`x.ts`, `sandbox/`), read from the root or
 * from the row's folder. A `<placeholder>` or `*` stands for what its folder holds.
 */
export function missingPaths(root: string, row: { folder: string; what: string }): string[] {
  const named = new Set([...row.what.matchAll(TOP_PATH)].map((m) => m[0]));
  for (const name of ticked(row.what)) if (/\/$|\.\w+$/.test(name) && !name.startsWith('.')) named.add(name);
  return [...named].filter((p) => !existsAt(root, p) && !existsAt(root, `${row.folder}/${p}`));
}

const entries = (dir: string) => readdirSync(dir, { withFileTypes: true });
const folders = (dir: string) =>
  entries(dir)
    .filter((e) => e.isDirectory() && !NOT_LISTED.has(e.name) && !e.name.startsWith('.'))
    .map((e) => e.name);

describe("README's layout table", () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const table = layoutTable(readme);
  const rows = layoutRows(readme);
  const row = (folder: string) => table.find((r) => r.folder === folder)!;

  it('has a row for each folder of the project and of src/', () => {
    const tree = [...folders(ROOT).filter((f) => f !== 'src'), ...folders(`${ROOT}src`).map((f) => `src/${f}`)];
    expect(tree.length).toBeGreaterThan(10);
    expect(tree.filter((f) => !rows.includes(f))).toEqual([]);
  });

  it('names only folders that exist', () => {
    const tree = new Set([...folders(ROOT), ...folders(`${ROOT}src`).map((f) => `src/${f}`)]);
    expect(rows.filter((r) => !tree.has(r))).toEqual([]);
  });

  it('names only paths that exist, from the root or from the folder of their row', () => {
    expect(table.length).toBe(rows.length);
    expect(table.flatMap((r) => missingPaths(ROOT, r).map((p) => `${r.folder}/: ${p}`))).toEqual([]);
  });

  it("src/engine's row names each folder and each module at its top, and nothing else there", () => {
    const named = ticked(row('src/engine').what).filter((n) => /^[\w-]+(\/|\.ts)$/.test(n));
    const tree = entries(`${ROOT}src/engine`).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    expect(tree.length).toBeGreaterThan(10);
    expect(named.sort()).toEqual(tree.sort());
  });

  it("docs/'s row names each document of docs/", () => {
    const named = ticked(row('docs').what).filter((n) => n.endsWith('.md'));
    expect(named.sort()).toEqual(readdirSync(`${ROOT}docs`).sort());
  });

  it('reads the rows of a table and nothing else', () => {
    const readme = '## Layout\n\n| folder | what |\n|---|---|\n| `a/` | x |\n| `b/c/` | y |\n\n## Next\n| `d/` | z |\n';
    expect(layoutRows(readme)).toEqual(['a', 'b/c']);
  });

  it('finds a path a row names that is not there, from the root or from its folder', () => {
    const what = 'spec/openapi.yaml, `src/contract/gone`, `sandbox/`, `nowhere/`, `ci/`, `npm run x`, `x-`';
    expect(missingPaths(ROOT, { folder: 'examples', what })).toEqual(['src/contract/gone', 'nowhere/']);
  });
});
