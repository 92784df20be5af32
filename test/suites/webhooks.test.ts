/**
 * The webhooks suite passes against the bundled reference and fails, citing the right
 * rules, when a fault proxy in front of it breaks a webhooks rule.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../src/engine/runner/index.ts';
import { startProxy, type Fault, type ProxyRequest, type RunningProxy } from '../../src/engine/faults/proxy.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import type { TargetContext } from '../../src/engine/context.ts';

type Json = Record<string, any>;
const isPatch = (req: ProxyRequest, prefix: string) => req.method === 'PATCH' && req.path.startsWith(prefix);

const SUITE = 'webhooks';
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

/** Runs the suite through the proxy with `fault` (none: the unaltered reference). */
async function run(fault?: Fault): Promise<ScenarioResult[]> {
  proxy.setFault(fault);
  const target: TargetContext = {
    runId: `test-${SUITE}`, baseUrl: proxy.url, bundled: false, sandbox: true, destructive: true,
    apiKey: { value: ref.apiKey, label: 'CONFORM_API_KEY' }, merchantId: ref.merchantId,
    profile: 'quick', seed: 1, timeoutMs: 10_000, fixtures: { strategy: 'reference', reason: 'test: the reference behind a fault proxy' },
  };
  const outcome = await runSuites({ target, suites: [{ name: SUITE, file: join(PACKAGE_ROOT, 'suites', `${SUITE}.suite.ts`) }], maxWorkers: 1 });
  expect(outcome.errors).toEqual([]);
  return outcome.results;
}

/** Each rule is cited by a finding of a failed scenario, and the fault did change something. */
function expectFailed(results: ScenarioResult[], ruleIds: string[]): void {
  expect(proxy.stats.applied).toBeGreaterThan(0);
  const cited = new Set(results.filter((r) => r.state === 'failed').flatMap((r) => r.findings.flatMap((f) => f.ruleIds)));
  expect(ruleIds.filter((id) => !cited.has(id)), `failed rules: ${[...cited].join(', ')}`).toEqual([]);
  expect(results.filter((r) => r.state === 'skipped')).toEqual([]);
}

function expectAllPassed(results: ScenarioResult[]): void {
  expect(results.length).toBeGreaterThan(0);
  expect(results.filter((r) => r.state !== 'passed').map((r) => `${r.state}: ${r.title}: ${r.error ?? r.skipReason ?? r.findings.map((f) => f.message).join('; ')}`)).toEqual([]);
}

describe('webhooks suite', () => {
  test('passes against the unaltered reference: no failure, no skip', async () => {
    expectAllPassed(await run());
  });

  test('fails on 200 where 404 is due, and on endpoints lost when delivery is disabled', async () => {
    const results = await run({
      name: 'ok-instead-of-404, endpoints-dropped-on-disable',
      onResponse(req, res, ctx) {
        if (isPatch(req, '/v0/webhooks') && res.status === 404) {
          const at = new Date().toISOString();
          res.status = 200;
          res.json = { object: 'webhooks', applicationId: 'app_conform', enabled: (req.json as Json)?.enabled, merchantId: 'org_conform', createdAt: at, updatedAt: at };
          ctx.applied();
        }
        if (isPatch(req, '/v0/webhooks') && res.status === 200 && (req.json as Json)?.enabled === false) ctx.state.set('dropped', true);
        if (req.method === 'GET' && req.path.startsWith('/v0/webhooks/endpoints') && ctx.state.get('dropped')) {
          (res.json as Json).data = [];
          ctx.applied();
        }
      },
    });
    expectFailed(results, ['WEBHOOKS.404.NEVER_ENABLED', 'WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS']);
  });

  test('fails when the configuration names another merchant, or createdAt moves on a toggle', async () => {
    const results = await run({
      name: 'wrong-default-merchant, createdAt-is-last-toggle',
      onResponse(req, res, ctx) {
        if (!isPatch(req, '/v0/webhooks') || res.status !== 200) return;
        const c = res.json as Json;
        if (!req.path.includes('merchantId=')) c.merchantId = 'org_someoneElse';
        c.createdAt = new Date(Date.now() + Math.floor(Math.random() * 1e6)).toISOString();
        ctx.applied();
      },
    });
    expectFailed(results, ['WEBHOOKS.MERCHANT.DEFAULT', 'WEBHOOKS.CREATED_AT.FIRST_ENABLED']);
  });

  test('fails when PATCH enabled=false leaves delivery on, or the configuration lacks applicationId', async () => {
    const results = await run({
      name: 'disable-ignored, no-applicationId',
      onRequest(req, ctx) {
        if (isPatch(req, '/v0/webhooks') && (req.json as Json)?.enabled === false) {
          (req.json as Json).enabled = true;
          ctx.applied();
        }
      },
      onResponse(req, res, ctx) {
        if (isPatch(req, '/v0/webhooks') && res.status === 200) {
          delete (res.json as Json).applicationId;
          ctx.applied();
        }
      },
    });
    expectFailed(results, ['WEBHOOKS.CONFIG.SHAPE', 'STATE.WEBHOOKS.DISABLE']);
  });
});
