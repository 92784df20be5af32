import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
// @ts-expect-error plain JavaScript: Stryker loads the plugin without a TypeScript loader
import { outcome, splitPasses } from '../../mutation/conform-test-runner.js';

describe('Stryker conform test runner', () => {
  test("a static mutant runs its file's suites first, then the rest; all at once when its file has none", () => {
    const all = ['auth', 'items', 'webhooks'];
    expect(splitPasses(['items'], all)).toEqual([['items'], ['auth', 'webhooks']]);
    expect(splitPasses([], all)).toEqual([all]);
    expect(splitPasses(all, all)).toEqual([all]);
  });

  test('a failed run is described by its failed contract rules and the suites that failed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-'));
    mkdirSync(join(dir, 'report'));
    writeFileSync(
      join(dir, 'report', 'report.json'),
      JSON.stringify({
        rules: [
          { id: 'ITEMS.ARCHIVE.BLOCKED', verdict: 'failed', scope: 'target' },
          { id: 'RETRY.CLIENT.NOTE', verdict: 'failed', scope: 'tool' },
          { id: 'AUTH.401', verdict: 'passed', scope: 'target' },
        ],
        scenarios: [
          { suite: 'items', state: 'failed' },
          { suite: 'items', state: 'failed' },
          { suite: 'auth', state: 'passed' },
        ],
      }),
    );
    expect(outcome(dir, '')).toEqual({ failedSuites: ['items'], message: 'failed rules: ITEMS.ARCHIVE.BLOCKED' });
  });

  test('a run that wrote no report (the mutated server never booted) is described by its last lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-'));
    expect(outcome(dir, 'a\nb\nconform run: could not start the bundled reference server\n')).toEqual({
      failedSuites: [],
      message: 'a | b | conform run: could not start the bundled reference server',
    });
  });
});
