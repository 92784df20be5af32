import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph, partGraph, REFERENCE_GATE, scan, sourceFiles, zoneOf } from './walls.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE_TREE = fileURLToPath(new URL('./fixtures/', import.meta.url));

describe('the walls', () => {
  it('no import of src/, suites/, bin/, mutation/, bench/, scripts/ or spec/ crosses a wall (the table: ALLOWED in walls.ts)', () => {
    const { files, violations } = scan(ROOT);
    expect(files).toBeGreaterThan(100);
    expect(violations.map((v) => `${v.file} imports ${v.specifier}: ${v.rule}`)).toEqual([]);
  });

  it('no module of src/engine or src/faults imports itself round a circle (type imports too)', () => {
    const graph = importGraph(ROOT, ['src/engine', 'src/faults']);
    expect(graph.size).toBeGreaterThan(100);
    expect(importCircles(graph)).toEqual([]);
  });

  it('the parts of src/engine and of src/faults (each folder, each top-level module) stand in layers: none imports up round a circle', () => {
    const graph = importGraph(ROOT, ['src/engine', 'src/faults']);
    // The scan found the parts it judges (a wrong root would find none and pass).
    for (const [dir, least] of [
      ['src/engine', 15],
      ['src/faults', 7],
    ] as const) {
      const parts = partGraph(graph, dir);
      expect(parts.size, dir).toBeGreaterThanOrEqual(least);
      expect(importCircles(parts), dir).toEqual([]);
    }
    // A folder importing a module at the top that imports the folder back is such a circle.
    const upward = partGraph(
      new Map([
        ['src/engine/config/a.ts', ['src/engine/fixtures/b.ts']],
        ['src/engine/fixtures/b.ts', ['src/engine/config/c.ts']],
        ['src/engine/config/c.ts', []],
      ]),
      'src/engine',
    );
    expect(importCircles(upward)).toEqual([['config', 'fixtures']]);
  });

  it('finds a circle of any length, a module importing itself, and none in a tree without them', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    expect(importCircles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(
      importCircles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('every scanned file has its place in the walls (a new src/ folder must be added to them)', () => {
    const unplaced = sourceFiles(ROOT).filter((f) => zoneOf(f) === 'other');
    expect(unplaced).toEqual([]);
  });

  it('the CLI reaches the reference through its one gate module, which exists', () => {
    expect(sourceFiles(ROOT)).toContain(REFERENCE_GATE);
  });

  it('fails on a tree holding forbidden imports: each wall is reported once, allowed imports are not', () => {
    const { files, violations } = scan(FIXTURE_TREE);
    expect(files).toBe(11);
    expect(violations.map((v) => `${v.file} ${v.specifier}`).sort()).toEqual(
      [
        'bench/leak.ts (both sides)',
        'src/cli/commands/leak.ts:2 ../../reference/index.ts',
        'src/engine/checks/leak.ts:1 ../../reference/index.ts',
        'src/engine/runner/leak.ts:1 ../../passive/judge.ts',
        'src/passive/leak.ts:1 ../faults/runner.ts',
        'src/engine/fixtures/computed.ts:2 (computed)',
        'src/engine/fixtures/computed.ts:3 ../../reference/server.ts',
        'src/reference/leak.ts:1 ../engine/http/client.ts',
        'src/contract/leak.ts:1 ../engine/types.ts',
        'suites/leak.suite.ts:1 ../src/reference/server.ts',
      ].sort(),
    );
    const rules = Object.fromEntries(violations.map((v) => [v.file.split(':')[0], v.rule]));
    expect(rules['src/cli/commands/leak.ts']).toContain(REFERENCE_GATE);
    expect(rules['src/reference/leak.ts']).toBe('the reference never imports engine');
    expect(rules['src/engine/checks/leak.ts']).toBe('engine never imports the reference server');
    expect(rules['src/engine/runner/leak.ts']).toBe('engine never imports passive');
    expect(rules['src/passive/leak.ts']).toBe('passive never imports faults');
    expect(rules['src/contract/leak.ts']).toContain('the contract loader is shared by both sides');
  });
});
