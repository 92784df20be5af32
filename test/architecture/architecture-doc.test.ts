/**
 * docs/architecture.md states the walls and the layout: its walls table is the ALLOWED table
 * of walls.ts, its layout names and describes every folder under src/ and every module left at
 * the top of src/engine, its walk of a run is the import graph, every path it names exists, and
 * its rule families are those of spec/rules.yaml.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { RULE_FAMILIES } from '../../src/contract/rules.ts';
import { ALLOWED, importGraph, zoneOf } from './walls.ts';
import { existsAt, missingInProse, projectFiles, TICKED_PATH, TOP_PATH } from './doc-paths.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

/** The rows of the walls table: zone → [folders, what it may import]. */
export function wallsTable(doc: string): Map<string, { folders: string[]; imports: string[] }> {
  const start = doc.indexOf('<!-- walls-table');
  const rows = new Map<string, { folders: string[]; imports: string[] }>();
  if (start < 0) return rows;
  for (const line of doc.slice(start).split('\n').slice(1)) {
    if (!line.startsWith('|')) {
      if (rows.size) break;
      continue;
    }
    const [zone, folders, imports] = line
      .split('|')
      .slice(1, 4)
      .map((c) => c.trim());
    if (zone === 'zone' || /^-+$/.test(zone)) continue;
    rows.set(zone, {
      folders: [...folders.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
      imports: imports === 'nothing' ? [] : imports.split(/,\s*/).filter((z) => z in ALLOWED),
    });
  }
  return rows;
}

function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      const abs = join(dir, e.name);
      return [relative(ROOT, abs).split(sep).join('/'), ...folders(abs)];
    });
}

/** The hops of the run's walk: `from → to` (an import of `to` by `from`) or `from ⇢ to` (loaded by path). */
export function runWalk(doc: string): { from: string; to: string; byPath: boolean }[] {
  const start = doc.indexOf('<!-- run-walk');
  if (start < 0) return [];
  const block = doc.slice(start).split('```')[1] ?? '';
  return [...block.matchAll(/^(\S+) (→|⇢) (\S+)/gm)].map((m) => ({ from: m[1], to: m[3], byPath: m[2] === '⇢' }));
}

/** The lines of the layout block, each with the folder (or module) of the entry it belongs to. */
export function layoutLines(doc: string): { entry: string; text: string }[] {
  const block = doc.slice(doc.indexOf('## Layout')).split('```')[1] ?? '';
  let entry = '';
  return block
    .split('\n')
    .filter((l) => l.trim())
    .map((line) => {
      const own = /^(\S+)(?:\s+|$)/.exec(line);
      if (own) entry = own[1];
      return { entry, text: own ? line.slice(own[0].length) : line.trim() };
    });
}

/**
 * The paths the doc names that do not exist: each path from a top folder of the project; in the
 * layout, each ticked name read from its entry's folder (or the root); elsewhere each ticked
 * file name that no file of `files` (project-relative) ends with.
 */
export function missingPaths(root: string, doc: string, files: readonly string[]): string[] {
  const layoutBlock = doc.slice(doc.indexOf('## Layout')).split('```').slice(0, 2).join('```');
  const missing = new Set(missingInProse(root, doc.replace(layoutBlock, ''), files));
  for (const [path] of layoutBlock.matchAll(TOP_PATH)) if (!existsAt(root, path)) missing.add(path);
  for (const { entry, text } of layoutLines(doc))
    for (const [, name] of text.matchAll(TICKED_PATH)) {
      const folder = entry.endsWith('/') ? entry : entry.slice(0, entry.lastIndexOf('/') + 1);
      if (!existsAt(root, name) && !existsAt(root, `${folder}${name}`)) missing.add(`${entry} ${name}`);
    }
  return [...missing];
}

describe('docs/architecture.md', () => {
  it('its walk of a run, from the bin to the verdicts, goes through imports alone (one hop by path: the suites)', () => {
    const hops = runWalk(DOC);
    expect(hops.length).toBeGreaterThan(10);
    expect(hops[0].from).toBe('bin/conform.js');
    const graph = importGraph(ROOT, ['bin', 'src', 'suites']);
    for (const hop of hops) {
      expect(existsSync(join(ROOT, hop.to)), hop.to).toBe(true);
      if (hop.byPath) expect(readFileSync(join(ROOT, hop.from), 'utf8'), hop.from).toMatch(/suites/);
      else expect(graph.get(hop.from) ?? [], `${hop.from} imports ${hop.to}`).toContain(hop.to);
    }
    expect(hops.filter((h) => h.byPath)).toHaveLength(1);
    // Each hop starts where an earlier one led (the walk is one path, not loose pairs).
    const reached = new Set([hops[0].from]);
    for (const hop of hops) {
      expect(reached.has(hop.from), hop.from).toBe(true);
      reached.add(hop.to);
    }
  });

  it('the walk reader fails on a hop that is no import', () => {
    const graph = importGraph(ROOT, ['src']);
    const [hop] = runWalk(
      '<!-- run-walk -->\n```\nsrc/engine/run.ts → src/reference/server.ts   no such import\n```\n',
    );
    expect(hop).toEqual({ from: 'src/engine/run.ts', to: 'src/reference/server.ts', byPath: false });
    expect(graph.get(hop.from)).not.toContain(hop.to);
  });

  it('its walls table is walls.ts ALLOWED, zone by zone, and each folder it names is in that zone', () => {
    const table = wallsTable(DOC);
    const zones = Object.keys(ALLOWED).filter((z) => z !== 'other' && z !== 'tool');
    expect([...table.keys()].filter((z) => z !== 'tool').sort()).toEqual(zones.sort());
    for (const zone of zones) {
      expect(table.get(zone)!.imports.sort(), zone).toEqual([...ALLOWED[zone as keyof typeof ALLOWED]].sort());
      for (const folder of table.get(zone)!.folders) {
        const file = folder.endsWith('/') ? `${folder}x.ts` : folder; // a folder, or one file (the gate)
        expect(zoneOf(file), folder).toBe(zone);
      }
    }
  });

  it('the table reader fails on a table that disagrees', () => {
    const wrong =
      '<!-- walls-table -->\n| zone | folders | may import |\n|---|---|---|\n| engine | `src/engine/` | contract, reference |\n';
    expect(wallsTable(wrong).get('engine')!.imports).toEqual(['contract', 'reference']);
    expect(wallsTable(wrong).get('engine')!.imports).not.toEqual(ALLOWED.engine);
  });

  it('its layout names every folder under src/', () => {
    const layout = DOC.slice(DOC.indexOf('## Layout'));
    const named = new Set([...layout.matchAll(/^(src\/\S+\/)/gm)].map((m) => m[1].replace(/\/$/, '')));
    expect(folders(join(ROOT, 'src')).filter((f) => !named.has(f))).toEqual([]);
  });

  it('its layout says what each entry under src/ holds, every folder of src/engine included', () => {
    const lines = layoutLines(DOC).filter((l) => l.entry.startsWith('src/'));
    const described = new Set(lines.filter((l) => /\w{3}/.test(l.text)).map((l) => l.entry));
    const entries = [...new Set(lines.map((l) => l.entry))];
    const engine = folders(join(ROOT, 'src/engine'));
    expect(engine.length).toBeGreaterThan(10);
    expect(engine.filter((f) => !described.has(`${f}/`))).toEqual([]);
    expect(entries.filter((e) => !described.has(e))).toEqual([]);
  });

  it('its layout names each module left at the top of src/engine (each with why), and only those', () => {
    const named = layoutLines(DOC)
      .map((l) => /^src\/engine\/([^/]+\.ts)$/.exec(l.entry)?.[1])
      .filter((f): f is string => !!f);
    const top = readdirSync(join(ROOT, 'src/engine')).filter((f) => f.endsWith('.ts'));
    expect(top.length).toBeGreaterThan(0);
    expect([...new Set(named)].sort()).toEqual(top.sort());
  });

  it('every path it names exists (from the root; in the layout, from the folder of its entry)', () => {
    const files = projectFiles(ROOT);
    expect(files.length).toBeGreaterThan(300);
    expect(missingPaths(ROOT, DOC, files)).toEqual([]);
  });

  it('the path reader finds a path that is gone, in the prose and in the layout', () => {
    const doc =
      'See `src/engine/gone.ts`, src/engine/run.ts and `checks/types.ts`, `nowhere.ts`.\n\n## Layout\n\n```\n' +
      'src/engine/http/   the client (`client.ts`, `lost.ts`)\n                   more (`curl.ts`)\n```\n';
    const files = ['src/engine/checks/types.ts', 'src/engine/run.ts'];
    expect(missingPaths(ROOT, doc, files).sort()).toEqual(
      ['nowhere.ts', 'src/engine/gone.ts', 'src/engine/http/ lost.ts'].sort(),
    );
  });

  it('its rule families are those of spec/rules.yaml', () => {
    const paragraph = DOC.split('Families and id prefixes:')[1]?.split('\n\n')[0] ?? '';
    const named = [...paragraph.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual([...RULE_FAMILIES].sort());
  });
});
