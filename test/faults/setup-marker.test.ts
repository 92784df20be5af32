/**
 * Fault runs tell setup from the suites' own requests: with CONFORM_MARK_SETUP=1 the fixture
 * strategy's requests carry a marker the fault proxy counts apart (and strips), so a fault that
 * changed only setup traffic, which no check judges, is not reported as missed by the suites.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { TargetContext } from '../../src/engine/context.ts';
import { PACKAGE_ROOT, runSuites } from '../../src/engine/runner/index.ts';
import { startProxy, type Fault, type RunningProxy } from '../../src/faults/fault-proxy.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';

let ref: RunningReference;
let proxy: RunningProxy;

/** Changes nothing, and counts every exchange as changed. */
const counting: Fault = {
  name: 'count-every-answer',
  onResponse(_req, _res, ctx) {
    ctx.applied();
  },
};

beforeAll(async () => {
  ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory' });
  proxy = await startProxy({ upstream: ref.baseUrl, fault: counting });
});
afterAll(async () => {
  await proxy?.close();
  await ref?.close();
});

async function runWallets(mark: boolean): Promise<{ applied: number; appliedSetup: number }> {
  proxy.setFault(counting);
  const before = process.env.CONFORM_MARK_SETUP;
  if (mark) process.env.CONFORM_MARK_SETUP = '1';
  else delete process.env.CONFORM_MARK_SETUP;
  try {
    const target: TargetContext = {
      runId: `test-setup-marker-${mark}`,
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
      suites: [{ name: 'wallets', file: join(PACKAGE_ROOT, 'suites', 'wallets.suite.ts') }],
      maxWorkers: 1,
    });
    expect(outcome.errors).toEqual([]);
    expect(outcome.results.filter((r) => r.state === 'failed')).toEqual([]);
    return { applied: proxy.stats.applied, appliedSetup: proxy.stats.appliedSetup };
  } finally {
    if (before === undefined) delete process.env.CONFORM_MARK_SETUP;
    else process.env.CONFORM_MARK_SETUP = before;
  }
}

test('marked: the fixtures strategy requests count as setup, the scenarios requests as the suites', async () => {
  const marked = await runWallets(true);
  expect(marked.appliedSetup).toBeGreaterThan(0);
  expect(marked.applied).toBeGreaterThan(0);
  // Unmarked (a plain `conform run`): nothing is told apart, every request counts as the suites'.
  const plain = await runWallets(false);
  expect(plain.appliedSetup).toBe(0);
  expect(plain.applied).toBeGreaterThan(marked.applied);
});
