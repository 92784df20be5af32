/**
 * The auth suite passes against the bundled reference and fails, citing the right rules,
 * when a fault proxy in front of it breaks an authentication rule.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../src/engine/runner/index.ts';
import { startProxy, type Fault, type RunningProxy } from '../../src/faults/fault-proxy.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import type { TargetContext } from '../../src/engine/scenario/worker.ts';
import { computeVerdicts } from '../../src/engine/reporters/verdicts.ts';
import { loadRules } from '../../src/contract/rules.ts';

type Json = Record<string, any>;
const SUITE = 'auth';
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
    runId: `test-${SUITE}`,
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
    suites: [{ name: SUITE, file: join(PACKAGE_ROOT, 'suites', `${SUITE}.suite.ts`) }],
    maxWorkers: 1,
  });
  expect(outcome.errors).toEqual([]);
  return outcome.results;
}

const describeResult = (r: ScenarioResult) =>
  `${r.state}: ${r.title}: ${r.error ?? r.skipReason ?? r.findings.map((f) => `[${f.ruleIds.join(', ')}] ${f.message}`).join('; ')}`;

/** Each rule is cited by a finding of a failed scenario, and the fault did change something. */
function expectFailed(results: ScenarioResult[], ruleIds: string[]): void {
  expect(proxy.stats.applied).toBeGreaterThan(0);
  const cited = new Set(
    results
      .filter((r) => r.state === 'failed')
      .flatMap((r) => r.findings.flatMap((f) => f.ruleIds.flatMap((k) => [k, k.split('#')[0]]))),
  );
  expect(
    ruleIds.filter((id) => !cited.has(id)),
    `failed rules: ${[...cited].join(', ')}`,
  ).toEqual([]);
  expect(results.filter((r) => r.state === 'skipped').map(describeResult)).toEqual([]);
}

describe('auth suite', () => {
  test('passes against the unaltered reference: no failure, no skip', async () => {
    const results = await run();
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.state !== 'passed').map(describeResult)).toEqual([]);
  });

  test('fails when a request without a (well-formed) bearer is served', async () => {
    const results = await run({
      name: 'missing-or-malformed-bearer-accepted',
      onRequest(req, ctx) {
        if (/^Bearer sk_test_[A-Za-z0-9_]+$/.test(req.headers.authorization ?? '')) return;
        req.headers.authorization = `Bearer ${ref.apiKey}`;
        ctx.applied();
      },
    });
    expectFailed(results, ['AUTH.BEARER.REQUIRED', 'AUTH.401.SHAPE']);
  });

  test('fails on a 401 with a plain-text body and rate headers', async () => {
    const results = await run({
      name: 'text-401-with-rate-headers',
      onResponse(_req, res, ctx) {
        if (res.status !== 401) return;
        ctx.applied();
        return {
          status: 401,
          headers: {
            'content-type': 'text/plain',
            'x-ratelimit-limit': '60',
            'x-ratelimit-remaining': '59',
            'x-ratelimit-reset': '6',
          },
          body: Buffer.from('Unauthorized'),
        };
      },
    });
    expectFailed(results, ['AUTH.401.SHAPE', 'RATE.FAILED_AUTH.NO_HEADERS']);
  });

  test('fails on a forbidden action answered 404, and on webhooks defaulting to another merchant', async () => {
    const results = await run({
      name: '403-as-404, wrong-default-merchant',
      onResponse(req, res, ctx) {
        if (res.status === 403) {
          ctx.applied();
          return {
            status: 404,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify({ error: 'not_found', message: 'Not found' })),
          };
        }
        if (req.method === 'PATCH' && req.path === '/v0/webhooks' && res.status === 200) {
          (res.json as Json).merchantId = 'org_someoneElse';
          ctx.applied();
        }
      },
    });
    expectFailed(results, ['AUTH.403.SHAPE', 'AUTH.MERCHANT.DEFAULT']);
  });

  test('a forbidden action whose key gets 401 (a revoked fixture key) leaves AUTH.403.SHAPE not judged, never failed', async () => {
    const results = await run({
      name: 'forbidden-key-revoked',
      onResponse(_req, res, ctx) {
        if (res.status !== 403) return;
        ctx.applied();
        const json = { error: 'unauthorized', message: 'Invalid or revoked API key' };
        return {
          status: 401,
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify(json)),
          json,
        };
      },
    });
    const forbidden = results.find((r) => r.title === 'a forbidden action gets 403 in the Error shape')!;
    expect(forbidden.state).toBe('skipped');
    expect(forbidden.skipReason).toMatch(/precondition not met: the key of the forbidden action authenticates .*401/);
    const v = computeVerdicts(await loadRules(), results, { bundled: false }).find((r) => r.id === 'AUTH.403.SHAPE')!;
    expect(v.verdict).toBe('not_judged');
  });

  test('fails on a 403 whose body is not an Error', async () => {
    const results = await run({
      name: '403-body-not-error',
      onResponse(_req, res, ctx) {
        if (res.status !== 403) return;
        res.json = ['forbidden'];
        ctx.applied();
      },
    });
    expectFailed(results, ['AUTH.403.SHAPE']);
  });
});
