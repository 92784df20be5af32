/**
 * The rate-limits suite passes against the bundled reference, quick then full back to back on
 * the same server (it is re-runnable), with no skip in the full profile. The violations it
 * catches are in rate-limits-faults.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../src/engine/runner/index.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import type { TargetContext } from '../../src/engine/scenario/worker.ts';
import { computeVerdicts } from '../../src/engine/reporters/verdicts.ts';
import { rateLimitedEndpoints } from '../../src/engine/ratelimit/index.ts';
import { loadSpec } from '../../src/contract/index.ts';

const SUITE = 'rate-limits';
const FULL_ONLY = 'runs in the full profile only (--profile full)';
let ref: RunningReference;

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory' });
});
afterAll(async () => {
  await ref?.close();
});

async function run(profile: 'quick' | 'full' = 'quick'): Promise<ScenarioResult[]> {
  const target: TargetContext = {
    runId: `test-${SUITE}`,
    baseUrl: ref.baseUrl,
    bundled: false,
    sandbox: true,
    destructive: true,
    apiKey: { value: ref.apiKey, label: 'CONFORM_API_KEY' },
    merchantId: ref.merchantId,
    profile,
    seed: 1,
    timeoutMs: 10_000,
    fixtures: { strategy: 'reference', reason: 'test: the reference' },
  };
  const outcome = await runSuites({
    target,
    suites: [{ name: SUITE, file: join(PACKAGE_ROOT, 'suites', `${SUITE}.suite.ts`) }],
    maxWorkers: 1,
  });
  expect(outcome.errors).toEqual([]);
  return outcome.results;
}

const describeResult = (r: ScenarioResult) =>
  `${r.state}: ${r.title}: ${r.error ?? r.skipReason ?? r.findings.map((f) => `[${f.ruleIds.join(', ')}] ${f.message}`).join('; ')}`;

/** No failure; in the quick profile the only skips are the full-profile scenarios. */
function expectPassed(results: ScenarioResult[], profile: 'quick' | 'full'): void {
  expect(results.length).toBeGreaterThan(0);
  const bad = results.filter(
    (r) => r.state === 'failed' || (r.state === 'skipped' && (profile === 'full' || r.skipReason !== FULL_ONLY)),
  );
  expect(bad.map(describeResult)).toEqual([]);
  expect(results.filter((r) => r.state === 'passed').length).toBeGreaterThan(10);
}

describe('rate-limits suite', () => {
  test('passes against the unaltered reference in the quick profile, then in the full profile with no skip, back to back on the same server', async () => {
    const quick = await run();
    expectPassed(quick, 'quick');
    // The quick profile leaves only the per-minute readmission to the full profile.
    expect(
      quick
        .filter((r) => r.state === 'skipped')
        .map((r) => r.title)
        .sort(),
    ).toEqual(
      quick
        .filter((r) => / s window\)$/.test(r.title))
        .map((r) => r.title)
        .sort(),
    );
    // Every part of the limit and bucket rules was judged, not one of two (a rule passes only so).
    const verdicts = computeVerdicts(await (await loadSpec()).rules(), quick, { bundled: false });
    const ids = (await rateLimitedEndpoints(await loadSpec())).flatMap((ep) => [ep.limitRule, ep.bucketRule]);
    const notPassed = verdicts
      .filter((v) => [...ids, 'RATE.EXCEEDED.BODY', 'AUTH.ALLOWANCE.PER_MERCHANT'].includes(v.id))
      .filter((v) => v.verdict !== 'passed')
      .map((v) => `${v.id}: ${v.verdict} ${v.reasons.join('; ')}`);
    expect(notPassed).toEqual([]);
    // A second run right after the first finds buckets the first one used: still valid.
    expectPassed(await run('full'), 'full');
  }, 180_000);
});
