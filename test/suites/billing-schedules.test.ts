/**
 * The billing-schedules suite passes against the reference and fails, citing the right
 * rules, against the reference behind proxies that break schedules.
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

const SUITE = 'billing-schedules';
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

const SCHEDULES = /^\/v0\/billingSchedules(\?|$)/;
const SCHEDULE = /^\/v0\/billingSchedules\/[^/?]+(\?|$)/;
const INTERVALS = /^\/v0\/billingSchedules\/[^/?]+\/intervals(\?|$)/;
type Json = Record<string, any>;

function json(status: number, body: unknown): ProxyResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(body)), json: body };
}

/** Schedules by subscriptionId are created (with both owners when both are named); intervals name another schedule. */
const ownerFault: Fault = {
  name: 'schedule-owner',
  onRequest(req, ctx) {
    const body = req.json as Json | undefined;
    if (req.method !== 'POST' || !SCHEDULES.test(req.path) || typeof body?.subscriptionId !== 'string') return;
    ctx.applied();
    const now = new Date().toISOString();
    return json(201, {
      id: `bs_fault${Date.now()}`, object: 'billing_schedule', ...body,
      endDate: body.endDate ?? now, metadata: {}, createdAt: now, updatedAt: now,
    });
  },
  onResponse(req, res, ctx) {
    const list = res.json as Json | undefined;
    if (req.method !== 'GET' || !INTERVALS.test(req.path) || res.status !== 200 || !Array.isArray(list?.data) || list.data.length === 0) return;
    ctx.applied();
    for (const i of list.data) i.scheduleId = 'bs_someotherschedule';
  },
};

/** Created schedules come without endDate; deleting an existing schedule answers 404. */
const lifecycleFault: Fault = {
  name: 'schedule-lifecycle',
  onResponse(req, res, ctx) {
    const body = res.json as Json | undefined;
    if (req.method === 'POST' && SCHEDULES.test(req.path) && res.status >= 200 && res.status < 300 && body) {
      ctx.applied();
      delete body.endDate;
    } else if (req.method === 'DELETE' && SCHEDULE.test(req.path) && res.status >= 200 && res.status < 300) {
      ctx.applied();
      return json(404, { error: 'not_found', message: 'no such schedule' });
    }
  },
};

describe.concurrent(`${SUITE} suite`, () => {
  test('passes against the unaltered reference: every scenario passes, none skipped', async () => {
    const o = await runThrough(undefined, 'clean');
    expect(o.code, o.stdout.slice(-3000)).toBe(0);
    expect(o.scenarios.length).toBeGreaterThanOrEqual(5);
    expect(o.scenarios.filter((s) => s.state !== 'passed')).toEqual([]);
    for (const [id, verdict] of o.verdicts) if (/^SCHEDULES\./.test(id)) expect([id, verdict]).toEqual([id, 'passed']);
  }, RUN_TIMEOUT_MS + 10_000);

  test('fails when creation by subscriptionId succeeds, a schedule has two owners, or intervals name another schedule', async () => {
    const o = await runThrough(ownerFault, 'owner');
    expectVerdicts(
      o,
      ['SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED', 'SCHEDULES.OWNER.EXACTLY_ONE', 'SCHEDULES.INTERVALS.PAGINATED'],
      ['SCHEDULES.CREATE.BY_ORDER', 'SCHEDULES.END_DATE.PRESENT', 'SCHEDULES.DELETE.DELETED'],
    );
  }, RUN_TIMEOUT_MS + 10_000);

  test('fails when a schedule comes without endDate or its delete answers 404', async () => {
    const o = await runThrough(lifecycleFault, 'lifecycle');
    expectVerdicts(
      o,
      ['SCHEDULES.END_DATE.PRESENT', 'SCHEDULES.DELETE.DELETED'],
      ['SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED', 'SCHEDULES.INTERVALS.PAGINATED', 'SCHEDULES.CREATE.BY_ORDER'],
    );
  }, RUN_TIMEOUT_MS + 10_000);
});
