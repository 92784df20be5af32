/**
 * End to end: examples/sandbox/ as a team would run it, against a target with only the
 * documented endpoints (`conform serve` behind the extension-hiding proxy), twice in a
 * row against the same server. Nothing fails, and the contract rules left unjudged are
 * exactly the ones docs/fixtures.md lists for this target, each with its reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conformRun, ROOT, startDocumentedOnlyTarget, tally, type DocumentedOnlyTarget, type RunOutcome } from './harness.ts';

const EXAMPLE = join(ROOT, 'examples/sandbox');
const RUN_TIMEOUT_MS = 240_000;

let target: DocumentedOnlyTarget;
let work: string;

beforeAll(async () => {
  [target, work] = await Promise.all([startDocumentedOnlyTarget(), mkdtemp(join(tmpdir(), 'conform-sandbox-example-'))]);
}, 60_000);

afterAll(async () => {
  await target?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The rules docs/fixtures.md says a documented-endpoints-only target leaves unjudged, for one strategy column. */
async function documentedUnjudged(strategy: 'module' | 'file'): Promise<string[]> {
  const doc = await readFile(join(ROOT, 'docs/fixtures.md'), 'utf8');
  const section = doc.split('## Not judged on a documented-endpoints-only target')[1]?.split('\n## ')[0] ?? '';
  const rows = section.split('\n').filter((l) => /^\| `[A-Z_.]+` \|/.test(l)).map((l) => l.split('|').map((c) => c.trim()));
  const column = strategy === 'module' ? 2 : 3;
  return rows.filter((r) => r[column] === 'not judged').map((r) => r[1].replace(/`/g, '')).sort();
}

/** Contract rules only: reference rules are not applicable to a target other than the reference. */
function contractUnjudged(o: RunOutcome): string[] {
  return o.report.rules.filter((r) => (r.kind ?? 'contract') === 'contract' && r.verdict !== 'passed' && r.verdict !== 'failed').map((r) => r.id).sort();
}

function expectClean(o: RunOutcome, expectedUnjudged: string[]): void {
  const t = tally(o);
  const failures = o.report.rules.filter((r) => r.verdict === 'failed').map((r) => `${r.id}: ${JSON.stringify(r).slice(0, 400)}`);
  expect(failures, o.stdout.slice(-2000)).toEqual([]);
  expect(o.stdout).not.toContain(target.apiKey);
  expect(contractUnjudged(o), t.line).toEqual(expectedUnjudged);
  expect(o.code, `${t.line}\n${o.stdout.slice(-1500)}\n${o.stderr.slice(-1500)}`).toBe(0);
}

describe('examples/sandbox against a documented-endpoints-only target', () => {
  test('module strategy (fixtures through CONFORM_ADMIN_URL), twice in a row: 0 failed, only the documented gaps unjudged', async () => {
    const expected = await documentedUnjudged('module');
    const env = { BILLING_API_KEY: target.apiKey, CONFORM_ADMIN_URL: target.adminUrl, CONFORM_API_KEY: '' };
    for (const n of [1, 2]) {
      const o = await conformRun(['--base-url', target.baseUrl, '--seed', String(n)], { cwd: EXAMPLE, env, reportDir: join(work, `module-${n}`) });
      console.log(`module strategy, run ${n}: ${tally(o).line}`);
      expectClean(o, expected);
    }
  }, 2 * RUN_TIMEOUT_MS);
});
