/**
 * Shared harness for the suite tests that run a suite in process (runSuites) against the
 * bundled reference behind one fault proxy.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../../src/engine/runner/index.ts';
import {
  startProxy,
  type Fault,
  type ProxyRequest,
  type ProxyStats,
  type RunningProxy,
} from '../../../src/faults/fault-proxy.ts';
import { startReferenceServer, type RunningReference } from '../../../src/reference/index.ts';
import type { TargetContext } from '../../../src/engine/scenario/worker.ts';

export type Json = Record<string, any>;
export const isPatch = (req: ProxyRequest, prefix: string) => req.method === 'PATCH' && req.path.startsWith(prefix);

export interface InProcessRun {
  /** Runs the suite (or suites) through the proxy with `fault` (none: the unaltered reference). */
  run: (fault?: Fault) => Promise<ScenarioResult[]>;
  /** Each rule is cited by a finding of a failed scenario, and the fault did change something. */
  expectFailed: (results: ScenarioResult[], ruleIds: string[]) => void;
  /** What the proxy counted the last run's fault changing. */
  stats: () => ProxyStats;
}

/** Registers beforeAll/afterAll that start the reference and a fault proxy in front of it. */
export function useInProcessRun(suite: string | string[]): InProcessRun {
  const suites = typeof suite === 'string' ? [suite] : suite;
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

  async function run(fault?: Fault): Promise<ScenarioResult[]> {
    proxy.setFault(fault);
    const target: TargetContext = {
      runId: `test-${suites.join('-')}`,
      baseUrl: proxy.url,
      bundled: false,
      sandbox: true,
      destructive: true,
      apiKey: { value: ref.apiKey, label: 'CONFORM_API_KEY' },
      merchantId: ref.merchantId,
      profile: 'quick',
      seed: 1,
      timeoutMs: 10_000,
      fixtures: { strategy: 'reference', reason: 'test: the reference behind a fault proxy' },
    };
    const outcome = await runSuites({
      target,
      suites: suites.map((name) => ({ name, file: join(PACKAGE_ROOT, 'suites', `${name}.suite.ts`) })),
      maxWorkers: 1,
    });
    expect(outcome.errors).toEqual([]);
    return outcome.results;
  }

  function expectFailed(results: ScenarioResult[], ruleIds: string[]): void {
    expect(proxy.stats.applied).toBeGreaterThan(0);
    // A finding under a part (RULE#part) fails its rule too: either may be named.
    const cited = new Set(
      results
        .filter((r) => r.state === 'failed')
        .flatMap((r) => r.findings.flatMap((f) => f.ruleIds.flatMap((k) => [k, k.split('#')[0]]))),
    );
    expect(
      ruleIds.filter((id) => !cited.has(id)),
      `failed rules: ${[...cited].join(', ')}`,
    ).toEqual([]);
    expect(results.filter((r) => r.state === 'skipped')).toEqual([]);
  }

  return { run, expectFailed, stats: () => ({ ...proxy.stats }) };
}

export function expectAllPassed(results: ScenarioResult[]): void {
  expect(results.length).toBeGreaterThan(0);
  expect(
    results
      .filter((r) => r.state !== 'passed')
      .map((r) => `${r.state}: ${r.title}: ${r.error ?? r.skipReason ?? r.findings.map((f) => f.message).join('; ')}`),
  ).toEqual([]);
}
