/**
 * CONTRIBUTING's "Adding a judge" against the tree: the edits it lists are the ones a judge
 * needs. A judge exported under src/engine/checks/ and missing from CHECKS would judge nothing
 * (the list's third edit forgotten); a file the recipe names that is gone (an edit, a model to
 * copy, a test) would send a newcomer nowhere; the count it states must be the count it lists.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { CHECKS, type Check } from '../../src/engine/checks/index.ts';
import { missingInProse, projectFiles } from './doc-paths.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHECKS_DIR = join(ROOT, 'src/engine/checks');
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];

/** A section's text, from its heading to the next. */
const sectionOf = (doc: string, title: string) =>
  doc.split(new RegExp(`^## ${title}$`, 'm'))[1]?.split(/^## /m)[0] ?? '';

/** A section's numbered edits (the first path each names) and the count its opening sentence states. */
export function recipe(doc: string, title: string): { stated: number | undefined; edits: string[] } {
  const section = sectionOf(doc, title);
  const stated = /takes (\w+) (?:edits|files)/.exec(section)?.[1];
  const edits = [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]);
  return { stated: stated === undefined ? undefined : WORDS.indexOf(stated), edits };
}

const isJudge = (v: unknown): v is Check =>
  !!v &&
  typeof v === 'object' &&
  typeof (v as Check).name === 'string' &&
  Array.isArray((v as Check).ruleIds) &&
  (typeof (v as Check).evaluate === 'function' || typeof (v as Check).open === 'function');

const CONTRIBUTING = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');

describe("CONTRIBUTING's recipes", () => {
  test.each([
    ['Adding a judge', 'src/engine/checks/index.ts'],
    ['Adding a fixture method', 'src/engine/fixtures/methods.ts'],
  ])('%s: states as many edits as it lists, and each file it names exists', (title, named) => {
    const { stated, edits } = recipe(CONTRIBUTING, title);
    expect(edits.length).toBeGreaterThanOrEqual(3);
    expect(stated).toBe(edits.length);
    for (const path of edits) {
      // `<name>` stands for the new file: its folder must exist.
      const real = path.includes('<') ? path.slice(0, path.lastIndexOf('/')) : path;
      expect(existsSync(join(ROOT, real)), path).toBe(true);
    }
    expect(edits).toContain(named);
    // Every other file it names (a model to copy, a test, a command's output) exists too.
    expect(missingInProse(ROOT, sectionOf(CONTRIBUTING, title), projectFiles(ROOT))).toEqual([]);
  });

  test('the path reader finds a file a recipe names that is gone', () => {
    const text =
      'Copy `src/engine/checks/gone.ts` or `src/engine/checks/<name>.ts`, then `nowhere.ts`; `checks/types.ts`.';
    expect(missingInProse(ROOT, text, ['src/engine/checks/types.ts'])).toEqual([
      'src/engine/checks/gone.ts',
      'nowhere.ts',
    ]);
  });

  test('the reader finds a mismatch between the count and the list', () => {
    const doc = '## Adding a judge\n\nIt takes three edits:\n\n1. `a.ts`: x\n2. `b.ts`: y\n\n## Next\n3. `c.ts`\n';
    expect(recipe(doc, 'Adding a judge')).toEqual({ stated: 3, edits: ['a.ts', 'b.ts'] });
  });
});

describe('the registry CONTRIBUTING describes', () => {
  test('every judge a module under src/engine/checks/ exports is registered in CHECKS', async () => {
    const files = readdirSync(CHECKS_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const exported: string[] = [];
    const registered = new Set<Check>(CHECKS);
    const missing: string[] = [];
    for (const file of files) {
      const mod = (await import(pathToFileURL(join(CHECKS_DIR, file)).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        if (!isJudge(value)) continue;
        exported.push(name);
        if (!registered.has(value)) missing.push(`${file}: ${name} (${value.name})`);
      }
    }
    expect(exported.length).toBeGreaterThanOrEqual(CHECKS.length);
    expect(missing).toEqual([]);
  });
});
