/**
 * Every not-judged reason names the actual cause, over every rule of a quick run: the
 * profile label only on rules the quick profile really leaves out, and a target that drops
 * x-ratelimit-remaining told so (never "the bucket is nearly used up").
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../src/engine/runner/index.ts';
import { buildReport } from '../../src/engine/reporters/index.ts';
import { isApplicable } from '../../src/engine/reporters/model.ts';
import { startProxy, type Fault, type RunningProxy } from '../../src/faults/fault-proxy.ts';
import { loadRules } from '../../src/contract/index.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';

let ref: RunningReference;
let proxy: RunningProxy;

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory' });
  proxy = await startProxy({ upstream: ref.baseUrl });
});
afterAll(async () => {
  await proxy?.close();
  await ref?.close();
});

async function quickRun(suites: string[], fault?: Fault) {
  proxy.setFault(fault);
  const outcome = await runSuites({
    target: {
      runId: 'honest-reasons',
      baseUrl: proxy.url,
      bundled: false,
      referenceServer: true,
      sandbox: true,
      destructive: true,
      apiKey: { value: ref.apiKey, label: 'CONFORM_API_KEY' },
      merchantId: ref.merchantId,
      profile: 'quick',
      seed: 1,
      timeoutMs: 10_000,
      fixtures: { strategy: 'reference', reason: 'test' },
    },
    suites: suites.map((name) => ({ name, file: join(PACKAGE_ROOT, 'suites', `${name}.suite.ts`) })),
    maxWorkers: 2,
  });
  expect(outcome.errors).toEqual([]);
  const report = buildReport({
    runId: 'honest-reasons',
    toolVersion: 'test',
    startedAt: outcome.startedAt,
    durationMs: outcome.durationMs,
    target: { baseUrl: proxy.url, bundled: false, sandbox: true, referenceServer: true },
    profile: 'quick',
    seed: 1,
    suites,
    fixtures: { strategy: 'reference', reason: 'test' },
    destructive: true,
    rules: await loadRules(),
    results: outcome.results,
    errors: outcome.errors,
  });
  return { results: outcome.results, report };
}

const endedForProfile = (r: ScenarioResult) => r.notJudged.some((m) => m.endedScenario && m.category === 'profile');

/** Rules a scenario of the run's own profile sets out to judge. */
function citedInProfile(results: ScenarioResult[]): Set<string> {
  return new Set(results.filter((r) => !endedForProfile(r)).flatMap((r) => r.ruleIds));
}

describe('not-judged reasons name the actual cause', () => {
  test('a quick run on the reference: every rule judged, and "full profile only" only on rules the quick profile leaves out', async () => {
    const suites = (await readdir(join(PACKAGE_ROOT, 'suites')))
      .filter((f) => f.endsWith('.suite.ts'))
      .map((f) => f.replace(/\.suite\.ts$/, ''));
    const { results, report } = await quickRun(suites);
    const applicable = report.rules.filter(isApplicable);
    expect(applicable.length).toBeGreaterThan(100);
    // Every rule's reason: none is left unjudged on the reference, so none carries a reason at all.
    expect(applicable.filter((r) => r.verdict !== 'passed').map((r) => `${r.id}: ${r.reasons.join('; ')}`)).toEqual([]);
    // The scenarios the quick profile leaves out still exist, and say so only of the rules it leaves out.
    const profileOnly = results.filter(endedForProfile);
    expect(profileOnly.length).toBeGreaterThan(0);
    const cited = citedInProfile(results);
    const mislabelled = profileOnly.flatMap((r) =>
      r.notJudged.filter((m) => m.category === 'profile').flatMap((m) => m.ruleIds.filter((id) => cited.has(id))),
    );
    expect(mislabelled).toEqual([]);
    for (const id of ['RATE.EXCEEDED.STATUS', 'RATE.WINDOW.READMITS'])
      expect(report.rules.find((r) => r.id === id)?.judgements, id).toBeGreaterThan(0);
  }, 300_000);

  test('x-ratelimit-remaining dropped: every reason names the missing header or the rule that failed on it', async () => {
    const dropRemaining: Fault = {
      name: 'drop-remaining',
      onResponse(_req, res, ctx) {
        if (res.headers['x-ratelimit-remaining'] === undefined) return;
        delete res.headers['x-ratelimit-remaining'];
        ctx.applied();
      },
    };
    const { results, report } = await quickRun(['rate-limits'], dropRemaining);
    expect(proxy.stats.applied).toBeGreaterThan(0);
    expect(report.rules.find((r) => r.id === 'RATE.HEADERS.PRESENT')?.verdict).toBe('failed');
    const reasons = report.rules
      .filter((r) => r.scope === 'target' && r.verdict === 'not_judged')
      .flatMap((r) =>
        r.notJudged
          .filter((n) => n.category !== 'not-run' && n.category !== 'not-applicable')
          .map((n) => ({ id: r.id, ...n })),
      );
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.filter((n) => !/x-ratelimit-remaining absent|RATE\.HEADERS\.PRESENT failed/.test(n.reason))).toEqual(
      [],
    );
    const cited = citedInProfile(results);
    expect(reasons.filter((n) => n.category === 'profile' && cited.has(n.id))).toEqual([]);
    const perMerchant = reasons.filter((n) => n.id === 'AUTH.ALLOWANCE.PER_MERCHANT').map((n) => n.reason);
    expect(perMerchant).toContain(
      "GET /v0/customers: x-ratelimit-remaining absent on the primary merchant's answer (200): nothing to count with",
    );
  }, 300_000);
});
