/**
 * docs/architecture.md states the walls and the layout: its walls table is the ALLOWED table
 * of walls.ts, and its layout names every folder under src/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALLOWED, zoneOf } from './walls.ts';

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

describe('docs/architecture.md', () => {
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
});
