/**
 * Reading the paths a document names, for the tests that hold the docs to the tree
 * (docs/architecture.md, CONTRIBUTING.md's recipes, README's layout table).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

/** The project's own top folders: a path starting with one is read from the project root. */
export const TOP_FOLDERS = [
  'bench',
  'bin',
  'docs',
  'examples',
  'heldout',
  'mutation',
  'reports',
  'schemas',
  'scripts',
  'spec',
  'src',
  'suites',
  'test',
  'types',
];

/** A path from a top folder, ticked or not (`src/engine/run.ts`, spec/rules.yaml, `suites/<area>.suite.ts`). */
export const TOP_PATH = new RegExp(`(?<![\\w./-])(?:${TOP_FOLDERS.join('|')})/[\\w./*<>-]*[\\w/>*]`, 'g');

/** A ticked name of a file (`x.ts`, `checks/types.ts`) or of a folder (`support/`), without spaces. */
export const TICKED_PATH = /`([\w.<>-]+(?:\/[\w.<>-]+)*(?:\/|\.(?:ts|js|md|yaml|yml|json)))`/g;

/** Whether `path` exists under `root`; a `<placeholder>` or `*` stands for what its folder holds. */
export function existsAt(root: string, path: string): boolean {
  return existsSync(join(root, /[<*]/.test(path) ? path.slice(0, path.search(/[<*]/)) : path));
}

/** The files of the project's own folders (none generated or installed), project-relative. */
export function projectFiles(root: string): string[] {
  const tops = ['bench', 'bin', 'docs', 'examples', 'mutation', 'schemas', 'scripts', 'spec', 'src', 'suites', 'test'];
  return tops.flatMap((top) =>
    readdirSync(join(root, top), { recursive: true, encoding: 'utf8' }).map((f) => `${top}/${f.split(sep).join('/')}`),
  );
}

/**
 * The paths a text names that do not exist: each path from a top folder, and each ticked file
 * name read elsewhere (`checks/types.ts`, `module.ts`) that no file of `files` ends with.
 */
export function missingInProse(root: string, text: string, files: readonly string[]): string[] {
  const missing = new Set<string>();
  for (const [path] of text.matchAll(TOP_PATH)) if (!existsAt(root, path)) missing.add(path);
  for (const [, name] of text.matchAll(TICKED_PATH)) {
    if (name.match(TOP_PATH)?.[0] === name || name.endsWith('/')) continue;
    if (!files.some((f) => f === name || f.endsWith(`/${name}`))) missing.add(name);
  }
  return [...missing];
}
