/**
 * Other vendors, end to end: every suite against a correct server that makes the other choice
 * wherever the document leaves one open (strict.ts, lenient.ts, a token-bucket limiter), with no
 * expected failure declared and no gap accepted. Each must be green with every contract rule
 * judged; the same vendor with one real deviation put in turns red naming the rule it breaks;
 * and a vendor refusing what the document does make valid (overstrict.ts) is red too.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../src/engine/runner/index.ts';
import { startProxy, type Fault, type RunningProxy } from '../../src/faults/fault-proxy.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import type { TargetContext } from '../../src/engine/scenario/worker.ts';
import { loadRules } from '../../src/contract/index.ts';
import { composeFaults } from '../../src/faults/catalog/helpers.ts';
import { faultByName } from '../../src/faults/catalog/index.ts';
import { tokenBucketLimiter } from '../../src/faults/catalog/rate-limits.ts';
import { emulatedBuckets } from '../../src/faults/catalog/rate-emulation.ts';
import { tokenBucket } from '../../src/faults/catalog/limiters.ts';
import { computeVerdicts, type RuleVerdict } from '../../src/engine/reporters/verdicts.ts';
import { refusalsOf, summarize, toReportScenario } from '../../src/engine/reporters/model.ts';
import { strictVendor } from './strict.ts';
import { lenientVendor } from './lenient.ts';
import { overstrictFaults } from './overstrict.ts';

const rules = await loadRules();
const ALL_SUITES = [
  'alerts',
  'auth',
  'billing-schedules',
  'contract',
  'customers',
  'delete-blockers',
  'isolation',
  'items',
  'merchants',
  'prices',
  'products',
  'rate-limits',
  'refunds-payments',
  'source-rules',
  'state-model',
  'version-migration',
  'wallets',
  'webhooks',
];

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

interface Outcome {
  results: ScenarioResult[];
  verdicts: RuleVerdict[];
  exitCode: number;
  refusals: number;
}

/** The suites against `fault` in front of the reference, as a vendor's own target (not the reference: its rules do not apply). */
async function runAgainst(fault: Fault, suites: string[], seed = 1): Promise<Outcome> {
  proxy.setFault(fault);
  const target: TargetContext = {
    runId: `test-vendor-${fault.name}`,
    baseUrl: proxy.url,
    bundled: false,
    referenceServer: false,
    sandbox: true,
    destructive: true,
    apiKey: { value: ref.apiKey, label: 'CONFORM_API_KEY' },
    merchantId: ref.merchantId,
    profile: 'quick',
    seed,
    timeoutMs: 10_000,
    fixtures: { strategy: 'reference', reason: 'test: the back office of the reference behind the vendor' },
  };
  const outcome = await runSuites({
    target,
    suites: suites.map((name) => ({ name, file: join(PACKAGE_ROOT, 'suites', `${name}.suite.ts`) })),
    maxWorkers: 2,
  });
  expect(outcome.errors).toEqual([]);
  const verdicts = computeVerdicts(rules, outcome.results, { bundled: false, referenceServer: false });
  const scenarios = outcome.results.map(toReportScenario);
  const summary = summarize(verdicts, scenarios, outcome.errors, [], {});
  return { results: outcome.results, verdicts, exitCode: summary.exitCode, refusals: refusalsOf(scenarios).count };
}

const contractRules = rules.rules.filter((r) => r.kind === 'contract').map((r) => r.id);
const notPassed = (o: Outcome) =>
  o.verdicts
    .filter((v) => v.kind === 'contract' && v.verdict !== 'passed')
    .map((v) => `${v.id} ${v.verdict}: ${v.reasons[0] ?? ''}`);
const failed = (o: Outcome) => o.verdicts.filter((v) => v.verdict === 'failed').map((v) => v.id);

describe('vendors that choose the other way where the document is silent', () => {
  test('strict (refuses empty, zero and negative values, unknown fields, a second schedule per order, another merchant): green, every contract rule judged', async () => {
    const o = await runAgainst(strictVendor, ALL_SUITES);
    expect(notPassed(o)).toEqual([]);
    expect(o.verdicts.filter((v) => v.verdict === 'passed' && contractRules.includes(v.id))).toHaveLength(
      contractRules.length,
    );
    expect(o.exitCode).toBe(0);
    // It did refuse: the edge values reached it and were counted apart, never failed.
    expect(o.refusals).toBeGreaterThan(5);
  }, 240_000);

  test('lenient (200 on creates and deletes, gzip, +00:00, extra fields and headers) with a sliding window: green, every contract rule judged', async () => {
    const o = await runAgainst(
      composeFaults('lenient vendor', lenientVendor, faultByName('benign-sliding-window')!),
      ALL_SUITES,
    );
    expect(notPassed(o)).toEqual([]);
    expect(o.exitCode).toBe(0);
  }, 240_000);

  test('a token-bucket limiter: every rate part judged, keys sharing a bucket included; green', async () => {
    const o = await runAgainst(tokenBucketLimiter, ALL_SUITES);
    expect(notPassed(o)).toEqual([]);
    expect(o.exitCode).toBe(0);
  }, 240_000);
});

describe('each vendor with one real deviation put in turns red, naming the rule', () => {
  test('strict, also refusing taxRates 100 (documented 0..100): VALIDATION.VALID_REQUEST.NOT_400 and CUSTOMERS.TAX_RATES.RANGE', async () => {
    const deviation = overstrictFaults.find((f) => f.name === 'overstrict-taxrates-100')!.fault;
    const o = await runAgainst(composeFaults('strict + taxRates 100 refused', deviation, strictVendor), ['contract']);
    expect(failed(o)).toEqual(
      expect.arrayContaining(['VALIDATION.VALID_REQUEST.NOT_400', 'CUSTOMERS.TAX_RATES.RANGE']),
    );
    expect(o.exitCode).toBe(1);
  }, 120_000);

  test('lenient, also dropping the required description of products: SCHEMA.REQUIRED.PRESENT', async () => {
    const dropDescription: Fault = {
      name: 'drop product description',
      onResponse(req, res) {
        const b = res.json as Record<string, unknown> | undefined;
        if (req.path.startsWith('/v0/products') && b?.object === 'product') delete b.description;
      },
    };
    const o = await runAgainst(composeFaults('lenient + dropped description', dropDescription, lenientVendor), [
      'products',
    ]);
    expect(failed(o)).toContain('SCHEMA.REQUIRED.PRESENT');
  }, 120_000);

  test('a token bucket per key instead of per merchant: every RATE.*.BUCKET#keys-share part fails', async () => {
    const perKey: Fault = {
      name: 'token bucket per key',
      ...emulatedBuckets({
        limiter: tokenBucket,
        key: (ep, _who, auth) => `${auth}|${ep.subscriptionId ?? ''}|${ep.operationId}`,
      }),
    };
    const o = await runAgainst(perKey, ['rate-limits']);
    const keysShare = o.verdicts
      .filter((v) => v.parts.some((p) => p.id === 'keys-share'))
      .map((v) => [v.id, v.parts.find((p) => p.id === 'keys-share')!.verdict]);
    expect(keysShare.length).toBeGreaterThanOrEqual(4);
    expect(keysShare.filter(([, verdict]) => verdict !== 'failed')).toEqual([]);
  }, 120_000);
});

describe('a vendor refusing what the document makes valid is red, naming the rule', () => {
  const SUITES: Record<string, string[]> = {
    'overstrict-taxrates-0': ['contract'],
    'overstrict-taxrates-100': ['contract'],
    'overstrict-externalid-255': ['contract'],
    'overstrict-alerts-resource-wallet': ['alerts'],
    'overstrict-alerts-limit-100': ['contract'],
    'overstrict-alerts-limit-1': ['contract'],
    'overstrict-product-without-metadata': ['contract'],
    'overstrict-webhooks-enabled-only': ['webhooks'],
    'overstrict-target-version-1': ['version-migration'],
  };
  test('the fault list is the one this test runs', () => {
    expect(overstrictFaults.map((f) => f.name).sort()).toEqual(Object.keys(SUITES).sort());
  });
  for (const f of overstrictFaults)
    test(`${f.name}: red`, async () => {
      const o = await runAgainst(f.fault, SUITES[f.name] ?? ['contract']);
      expect(failed(o), f.sentence).not.toEqual([]);
      expect(o.exitCode).toBe(1);
    }, 120_000);
});
