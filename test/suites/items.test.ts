/**
 * The items suite passes against the reference and fails, citing the right rules,
 * against the reference behind a proxy that breaks archiving.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import { startProxy, type Fault, type ProxyResponse } from '../../src/engine/faults/proxy.ts';

const SUITE = 'items';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUN_TIMEOUT_MS = 150_000;

let ref: RunningReference;
let work: string;

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory', apiKey: `sk_test_${randomBytes(12).toString('hex')}` });
  work = await mkdtemp(join(tmpdir(), `conform-${SUITE}-`));
  await writeFile(join(work, 'conform.config.yaml'), 'destructive: true\n');
}, 60_000);

afterAll(async () => {
  await ref?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  stdout: string;
  verdicts: Map<string, string>;
  scenarios: Array<{ title: string; state: string }>;
  applied: number;
}

/** `conform run --suite SUITE` against the reference behind `fault` (none: passes everything through). */
async function runThrough(fault: Fault | undefined, name: string): Promise<Outcome> {
  const proxy = await startProxy({ upstream: ref.baseUrl, fault });
  const dir = join(work, name);
  try {
    const args = [join(ROOT, 'bin/conform.js'), 'run', '--base-url', proxy.url, '--suite', SUITE, '--report-dir', dir, '--config', join(work, 'conform.config.yaml'), '--plain', '--seed', '1'];
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: ref.apiKey }, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, out) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout: out }),
      );
    });
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(stdout).not.toContain(ref.apiKey);
    return {
      code,
      stdout,
      verdicts: new Map(report.rules.map((r: { id: string; verdict: string }) => [r.id, r.verdict])),
      scenarios: report.scenarios.filter((s: { suite: string }) => s.suite === SUITE),
      applied: proxy.stats.applied,
    };
  } finally {
    await proxy.close();
  }
}

function expectVerdicts(o: Outcome, failed: string[], passed: string[]): void {
  const of = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, o.verdicts.get(id)]));
  expect(o.applied, 'the fault altered at least one exchange').toBeGreaterThan(0);
  expect(o.code, o.stdout.slice(-3000)).toBe(1);
  expect(of(failed)).toEqual(Object.fromEntries(failed.map((id) => [id, 'failed'])));
  expect(of(passed)).toEqual(Object.fromEntries(passed.map((id) => [id, 'passed'])));
  for (const id of failed) expect(o.stdout).toMatch(new RegExp(`^failed rules: .*${id.replace(/\./g, '\\.')}`, 'm'));
}

const ITEM = /^\/v0\/items\/([^/?]+)(\?|$)/;
type Json = Record<string, any>;

function json(status: number, body: unknown): ProxyResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(body)), json: body };
}

/**
 * Archiving an anchored item is answered as done (the item stays active), archived items
 * lose their external references, and unarchiving makes the first reference primary again.
 */
const archiveFault: Fault = {
  name: 'item-archive',
  async onResponse(req, res, ctx) {
    if (!ITEM.test(req.path) || (req.method !== 'PATCH' && req.method !== 'GET')) return;
    const archiving = (req.json as Json | undefined)?.archived;
    if (req.method === 'PATCH' && archiving === true && res.status >= 400 && res.status < 500) {
      ctx.applied();
      const { 'content-type': _ct, ...headers } = req.headers;
      const current = await ctx.upstream({ method: 'GET', path: req.path, headers, body: Buffer.alloc(0) });
      return json(200, { ...(current.json as Json), archivedAt: new Date().toISOString() });
    }
    const item = res.json as Json | undefined;
    if (res.status !== 200 || !item || !Array.isArray(item.externalReferences) || item.externalReferences.length === 0) return;
    if (typeof item.archivedAt === 'string') {
      ctx.applied();
      item.externalReferences = [];
    } else if (req.method === 'PATCH' && archiving === false) {
      ctx.applied();
      item.externalReferences[0].isPrimary = true;
    }
  },
};

describe.concurrent(`${SUITE} suite`, () => {
  test('passes against the unaltered reference: every scenario passes, none skipped', async () => {
    const o = await runThrough(undefined, 'clean');
    expect(o.code, o.stdout.slice(-3000)).toBe(0);
    expect(o.scenarios.length).toBeGreaterThanOrEqual(5);
    expect(o.scenarios.filter((s) => s.state !== 'passed')).toEqual([]);
    for (const [id, verdict] of o.verdicts) if (/^ITEMS\.|^STATE\.ITEM\./.test(id)) expect([id, verdict]).toEqual([id, 'passed']);
  }, RUN_TIMEOUT_MS + 10_000);

  test('fails when an anchored item archives, an archived item loses its references, and unarchiving reclaims primary', async () => {
    const o = await runThrough(archiveFault, 'archive');
    expectVerdicts(
      o,
      ['ITEMS.ARCHIVE.BLOCKED', 'ITEMS.ARCHIVE.DEMOTES_PRIMARY', 'ITEMS.UNARCHIVE.NO_RECLAIM'],
      ['STATE.ITEM.UNARCHIVE', 'ITEMS.ARCHIVED_AT.STATE', 'ITEMS.ARCHIVED.READABLE', 'ITEMS.EXTERNAL_ID.ONE_PRIMARY'],
    );
  }, RUN_TIMEOUT_MS + 10_000);
});
