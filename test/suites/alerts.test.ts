/**
 * The alerts suite passes against the bundled reference and fails, citing the right
 * rules, when a fault proxy in front of it breaks an alerts rule.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../src/engine/runner/index.ts';
import { startProxy, type Fault, type ProxyRequest, type RunningProxy } from '../../src/engine/faults/proxy.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import type { TargetContext } from '../../src/engine/context.ts';

type Json = Record<string, any>;
const isPatch = (req: ProxyRequest, prefix: string) => req.method === 'PATCH' && req.path.startsWith(prefix);

const SUITE = 'alerts';
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

/** Rewrites the query of a request (the proxy forwards `req.path`). */
function withQuery(req: ProxyRequest, edit: (q: URLSearchParams) => boolean): boolean {
  const url = new URL(req.path, 'http://proxy.invalid');
  if (!edit(url.searchParams)) return false;
  req.path = `${url.pathname}?${url.searchParams}`;
  return true;
}
const isListAlerts = (req: ProxyRequest) => req.method === 'GET' && /^\/v0\/alerts(\?|$)/.test(req.path);

describe('alerts suite', () => {
  test('passes against the unaltered reference: no failure, no skip', async () => {
    expectAllPassed(await run());
  });

  test('fails on a default page of 20, limit 0 accepted, a missing resourceId accepted and PATCH without resource=wallet accepted', async () => {
    const results = await run({
      name: 'default-limit-20, limit-0-accepted, resourceId-optional, resource-optional',
      onRequest(req, ctx) {
        if (isListAlerts(req)) {
          const changed = withQuery(req, (q) => {
            if (!q.has('resourceId')) return false;
            if (!q.has('limit')) q.set('limit', '20');
            else if (q.get('limit') === '0') q.set('limit', '1');
            else return false;
            return true;
          });
          if (changed) ctx.applied();
          else if (!new URL(req.path, 'http://proxy.invalid').searchParams.has('resourceId')) {
            ctx.applied();
            return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } })) };
          }
        }
        if (isPatch(req, '/v0/alerts/') && withQuery(req, (q) => (q.get('resource') === 'wallet' ? false : (q.set('resource', 'wallet'), true)))) ctx.applied();
      },
    });
    expectFailed(results, ['ALERTS.LIST.LIMIT_DEFAULT', 'ALERTS.LIST.LIMIT_RANGE', 'ALERTS.LIST.RESOURCE_ID_REQUIRED', 'ALERTS.UPDATE.RESOURCE_REQUIRED', 'VALIDATION.BOUNDS.400', 'VALIDATION.REQUIRED.400']);
  });

  test('fails on a negative offset accepted, resource=customer read as wallet, and a PATCH that ignores the fields sent', async () => {
    const results = await run({
      name: 'negative-offset-accepted, resource-enum-ignored, patch-ignored',
      onRequest(req, ctx) {
        if (isListAlerts(req) && withQuery(req, (q) => (Number(q.get('offset')) < 0 ? (q.set('offset', '0'), true) : false))) ctx.applied();
        if (isPatch(req, '/v0/alerts/') && withQuery(req, (q) => (q.has('resource') && q.get('resource') !== 'wallet' ? (q.set('resource', 'wallet'), true) : false))) ctx.applied();
        if (isPatch(req, '/v0/alerts/') && req.json && typeof req.json === 'object') {
          req.json = {};
          ctx.applied();
        }
      },
    });
    expectFailed(results, ['ALERTS.LIST.OFFSET', 'ALERTS.UPDATE.OK', 'ALERTS.UPDATE.RESOURCE_REQUIRED', 'VALIDATION.ENUM.400', 'VALIDATION.BOUNDS.400']);
  });
});
