/**
 * The rate-limits suite fails, citing the right rules, on targets that break them: headers
 * altered by a fault proxy in front of the reference, and limiters with a defect. The
 * limiters run in the proxy in front of a reference whose own limits are out of reach; the
 * same limiter without a defect passes, so the failures come from the defects. So do the
 * catalog's benign limiters: a sliding window (behind a proxy that gzips answers, writes
 * retry-after as an HTTP-date and timestamps with +00:00, and puts meaningless x-ratelimit
 * headers on unlisted endpoints), and fixed windows a hundred times the published limits.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT, type ScenarioResult } from '../../src/engine/runner/index.ts';
import {
  startProxy,
  type Fault,
  type ProxyRequest,
  type ProxyResponse,
  type RunningProxy,
} from '../../src/faults/fault-proxy.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import type { TargetContext } from '../../src/engine/scenario/worker.ts';
import { loadSpec } from '../../src/contract/index.ts';
import type { Spec } from '../../src/contract/types.ts';
import { faultByName } from '../../src/faults/catalog/index.ts';
import { composeFaults } from '../../src/faults/catalog/helpers.ts';

type Json = Record<string, any>;
const SUITE = 'rate-limits';
const FULL_ONLY = 'runs in the full profile only (--profile full)';
let spec: Spec;
/** The reference as published, and one whose limits no scenario reaches. */
let ref: RunningReference;
let roomy: RunningReference;
let proxy: RunningProxy;
let roomyProxy: RunningProxy;

beforeAll(async () => {
  spec = await loadSpec();
  const huge = Object.fromEntries(
    [...spec.operations.values()].filter((op) => op.rateLimit).map((op) => [op.operationId, 1_000_000]),
  );
  [ref, roomy] = await Promise.all([
    startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory' }),
    startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory', rateLimits: huge }),
  ]);
  [proxy, roomyProxy] = await Promise.all([
    startProxy({ upstream: ref.baseUrl }),
    startProxy({ upstream: roomy.baseUrl }),
  ]);
});
afterAll(async () => {
  await Promise.all([proxy?.close(), roomyProxy?.close()]);
  await Promise.all([ref?.close(), roomy?.close()]);
});

async function run(through: RunningProxy, server: RunningReference, fault: Fault): Promise<ScenarioResult[]> {
  through.setFault(fault);
  const target: TargetContext = {
    runId: `test-${SUITE}`,
    baseUrl: through.url,
    bundled: false,
    sandbox: true,
    destructive: true,
    apiKey: { value: server.apiKey, label: 'CONFORM_API_KEY' },
    merchantId: server.merchantId,
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
  expect(through.stats.applied).toBeGreaterThan(0);
  return outcome.results;
}

const describeResult = (r: ScenarioResult) =>
  `${r.state}: ${r.title}: ${r.error ?? r.skipReason ?? r.findings.map((f) => `[${f.ruleIds.join(', ')}] ${f.message}`).join('; ')}`;

/**
 * Each rule is cited by a finding of a failed scenario on an exchange with the given path
 * (`rule@path`, or just `rule` when any path will do).
 */
function expectFailed(results: ScenarioResult[], expected: string[]): void {
  const findings = results.filter((r) => r.state === 'failed').flatMap((r) => r.findings);
  const missing = expected.filter((e) => {
    const [rule, path] = e.split('@');
    return !findings.some(
      (f) =>
        f.ruleIds.includes(rule) &&
        (!path || f.exchange?.path.split('?')[0].replace(/\/(sub|org|cus)_[A-Za-z0-9]+/g, '/{id}') === path),
    );
  });
  expect(
    missing,
    `findings: ${[...new Set(findings.map((f) => `${f.ruleIds.join('+')}@${f.exchange?.path.split('?')[0] ?? ''}`))].join(', ')}`,
  ).toEqual([]);
  expect(results.filter((r) => r.state === 'skipped' && r.skipReason !== FULL_ONLY).map(describeResult)).toEqual([]);
}

const isListed = (req: ProxyRequest) => spec.findOperation(req.method, req.path.split('?')[0])?.rateLimit;
const pathIs = (req: ProxyRequest, prefix: string) => req.path.split('?')[0].startsWith(prefix);

interface Defect {
  /** What the bucket is keyed by instead of operation, merchant (and subscription). */
  bucketBy?: 'key' | 'operation' | 'merchant' | 'merchant-not-subscription';
  /** Requests admitted per window, whatever limit is reported. */
  admits?: (limit: number) => number;
  /** remaining stays at limit - 1 while requests are admitted. */
  stuckRemaining?: boolean;
  /** The real window, while x-ratelimit-reset counts down the published one. */
  windowSeconds?: number;
  /** 429s say 'Too many requests', whatever the endpoint. */
  genericMessage?: boolean;
  /** x-ratelimit-remaining of admitted requests this much above what the window still allows. */
  remainingAbove?: number;
}

/** A fixed-window limiter in the proxy at the published limits, with a defect per operation. */
function limiter(opts: { defects?: Record<string, Defect> }): Fault {
  return {
    name: `limiter ${Object.keys(opts.defects ?? {}).join(', ') || 'without defect'}`,
    async onResponse(req, res, ctx) {
      const path = req.path.split('?')[0];
      const op = spec.findOperation(req.method, path);
      if (!op?.rateLimit || op.extension || res.status === 401) return;
      const auth = req.headers.authorization ?? '';
      let merchant = ctx.state.get(`key:${auth}`) as string | undefined;
      if (!merchant) {
        // The reference's costs report names the key's merchant (its limit is out of reach here).
        const who = await ctx.upstream({
          method: 'GET',
          path: '/v0/costs/report',
          headers: { authorization: auth, accept: 'application/json' },
          body: Buffer.alloc(0),
        });
        merchant = String((who.json as Json)?.merchantId);
        ctx.state.set(`key:${auth}`, merchant);
      }
      const defect = opts.defects?.[op.operationId] ?? {};
      const { limit } = op.rateLimit;
      const windowMs = (defect.windowSeconds ?? op.rateLimit.windowSeconds) * 1000;
      const sub = op.rateLimit.bucket === 'subscription' ? path.split('/')[3] : '';
      const key = {
        key: `${op.operationId}:${auth}:${sub}`,
        operation: op.operationId,
        merchant: `shared:${merchant}`,
        'merchant-not-subscription': `${op.operationId}:${merchant}`,
        default: `${op.operationId}:${merchant}:${sub}`,
      }[defect.bucketBy ?? 'default'];
      const now = Date.now();
      let b = ctx.state.get(`bucket:${key}`) as { start: number; count: number } | undefined;
      if (!b || now >= b.start + windowMs) b = { start: now, count: 0 };
      b.count += 1;
      ctx.state.set(`bucket:${key}`, b);
      const admitted = b.count <= (defect.admits ? defect.admits(limit) : limit);
      const resetS = Math.max(1, Math.ceil((b.start + op.rateLimit.windowSeconds * 1000 - now) / 1000));
      const reset = String(defect.windowSeconds ? Math.min(resetS, 1) : resetS);
      const remaining =
        defect.stuckRemaining && admitted
          ? limit - 1
          : Math.max(0, limit - b.count) + (admitted ? (defect.remainingAbove ?? 0) : 0);
      const headers = {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': reset,
      };
      ctx.applied();
      if (admitted) {
        Object.assign(res.headers, headers);
        return;
      }
      const json = {
        error: 'rate_limit_exceeded',
        message: defect.genericMessage
          ? 'Too many requests'
          : `Rate limit exceeded: ${limit} per ${op.rateLimit.windowSeconds} s`,
      };
      return {
        status: 429,
        headers: { 'content-type': 'application/json', ...headers, 'retry-after': reset },
        body: Buffer.from(JSON.stringify(json)),
        json,
      } satisfies ProxyResponse;
    },
  };
}

const benign = (name: string) => {
  const f = faultByName(name);
  if (!f?.benign) throw new Error(`no benign variant ${name}`);
  return f;
};

/** Neither failed nor ended for anything but the target's own properties (or the full profile). */
function expectNoFailure(results: ScenarioResult[]): void {
  expect(
    results
      .filter(
        (r) =>
          r.state === 'failed' ||
          r.state === 'error' ||
          (r.state === 'skipped' && r.skipReason !== FULL_ONLY && !r.notJudged.every((m) => m.category === 'target')),
      )
      .map(describeResult),
  ).toEqual([]);
}

describe('rate-limits suite against conforming limiters', () => {
  test('a sliding window behind a proxy that gzips, writes retry-after as an HTTP-date and timestamps with +00:00, with meaningless headers on unlisted endpoints: no failure, the limits judged', async () => {
    const fault = composeFaults(
      'benign limiter',
      benign('benign-sliding-window'),
      benign('benign-unlisted-ratelimit-headers'),
      benign('benign-retry-after-http-date'),
      benign('benign-offset-timestamps'),
      benign('benign-gzip'),
    );
    const results = await run(roomyProxy, roomy, fault);
    expectNoFailure(results);
    const judged = new Set(results.flatMap((r) => Object.keys(r.judged)));
    expect(
      [
        'RATE.EXCEEDED.STATUS',
        'RATE.EXCEEDED.BODY#error-body',
        'RATE.EXCEEDED.BODY#endpoint-specific',
        'RATE.WINDOW.READMITS',
        'RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED',
        'RATE.CUSTOMERS_LIST.LIMIT',
        'RATE.PORTAL.BUCKET',
      ].filter((id) => !judged.has(id)),
    ).toEqual([]);
  }, 120_000);

  test('fixed windows a hundred times the published limits: no failure; buckets past the request budget are not judged, with that reason', async () => {
    const results = await run(roomyProxy, roomy, benign('benign-limits-x100'));
    expectNoFailure(results);
    const customers = results.find((r) => r.title.startsWith('GET /v0/customers: 60 per 6 s'))!;
    expect(customers.skipReason).toMatch(
      /x-ratelimit-remaining is 5999, so using the bucket up takes more than the \d+ requests/,
    );
    expect(customers.notJudged.map((m) => m.category)).toContain('target');
    expect(customers.judged['RATE.EXCEEDED.STATUS']).toBeUndefined();
    // The observed limit sized the burst: a hundred portal sessions used the bucket up.
    const portal = results.find((r) => r.title.startsWith('POST /v0/subscriptions/{id}/portal: 1 per 1 s'))!;
    expect(portal.exchanges).toBeGreaterThan(100);
  }, 120_000);
});

describe('rate-limits suite against faulty targets', () => {
  test('fails on a limit header below the published one, rate headers on a 401, a 429 without retry-after or rate_limit_exceeded, a reset beyond the window, a negative or missing remaining', async () => {
    const results = await run(proxy, ref, {
      name: 'rate header faults',
      onResponse(req, res, ctx) {
        if (!isListed(req)) return;
        const h = res.headers;
        if (res.status === 401)
          Object.assign(h, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '6' });
        else if (pathIs(req, '/v0/customers')) h['x-ratelimit-limit'] = '59';
        else if (pathIs(req, '/v0/integrations/')) h['x-ratelimit-reset'] = '120';
        else if (req.path.endsWith('/portal')) delete h['x-ratelimit-remaining'];
        else if (res.status !== 429) return;
        else if (pathIs(req, '/v0/costs/report')) delete h['retry-after'];
        else if (pathIs(req, '/v2/invoices/lineItems')) (res.json as Json).error = 'too_many_requests';
        else if (req.path.endsWith('/reconciliations')) h['x-ratelimit-remaining'] = '-1';
        else return;
        ctx.applied();
      },
    });
    expectFailed(results, [
      'RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED@/v0/customers',
      'RATE.FAILED_AUTH.NO_HEADERS',
      'RATE.RETRY_AFTER.ON_429@/v0/costs/report',
      'RATE.EXCEEDED.BODY#error-body@/v2/invoices/lineItems',
      'RATE.RESET.WITHIN_WINDOW@/v0/integrations/salesforce/accounts',
      'RATE.REMAINING.NON_NEGATIVE@/v0/subscriptions/{id}/reconciliations',
      'RATE.HEADERS.PRESENT@/v0/subscriptions/{id}/portal',
    ]);
  }, 90_000);

  test('fails on buckets per key, per merchant instead of per subscription, a reset that comes too early, a remaining that does not count, no 429, an early 429, one 429 message for every endpoint', async () => {
    const results = await run(
      roomyProxy,
      roomy,
      limiter({
        defects: {
          listCustomers: { bucketBy: 'key' },
          createReconciliation: { bucketBy: 'merchant-not-subscription', genericMessage: true },
          createPortalSession: { windowSeconds: 3, genericMessage: true },
          createInvoiceLineItems: { stuckRemaining: true },
          getCostsReport: { admits: () => Infinity },
          listCrmAccounts: { admits: (limit) => limit - 5 },
        },
      }),
    );
    expectFailed(results, [
      'AUTH.ALLOWANCE.PER_MERCHANT@/v0/customers',
      'RATE.CUSTOMERS_LIST.BUCKET#keys-share@/v0/customers',
      'RATE.RECONCILIATIONS.BUCKET@/v0/subscriptions/{id}/reconciliations',
      'RATE.WINDOW.READMITS@/v0/subscriptions/{id}/portal',
      'RATE.REMAINING.DECREMENTS@/v2/invoices/lineItems',
      'RATE.EXCEEDED.STATUS@/v0/costs/report',
      'RATE.CRM_ACCOUNTS.LIMIT@/v0/integrations/salesforce/accounts',
      // On whichever of the two endpoints sharing the message answered its 429 second.
      'RATE.EXCEEDED.BODY#endpoint-specific',
    ]);
  }, 120_000);

  test("fails on what the target's own headers contradict: the portal admitting every request while its headers say limit 1 and remaining 0, and a remaining one above what GET /v0/customers still allows", async () => {
    const results = await run(
      roomyProxy,
      roomy,
      limiter({ defects: { createPortalSession: { admits: () => Infinity }, listCustomers: { remainingAbove: 1 } } }),
    );
    expectFailed(results, [
      'RATE.EXCEEDED.STATUS@/v0/subscriptions/{id}/portal',
      'RATE.REMAINING.HONOURED#counted@/v0/customers',
      'RATE.REMAINING.HONOURED#allows-what-remains@/v0/customers',
    ]);
    const portal = results
      .flatMap((r) => r.findings)
      .find((f) => f.ruleIds.includes('RATE.EXCEEDED.STATUS') && f.exchange?.path.endsWith('/portal'));
    expect(portal?.message).toMatch(
      /\d+ requests admitted within [\d.]+ s, less than the 1 s window, where x-ratelimit-limit says 1/,
    );
    // The rate-limit scenarios carry the replay script of their whole sequence.
    expect(portal?.replaySequence).toMatch(/-X POST '[^']*\/portal'/);
  }, 120_000);

  test('fails on one bucket for all merchants, and on one bucket for several endpoints', async () => {
    const results = await run(
      roomyProxy,
      roomy,
      limiter({
        defects: {
          listCustomers: { bucketBy: 'operation' },
          getCostsReport: { bucketBy: 'merchant' },
          listCrmAccounts: { bucketBy: 'merchant' },
          createInvoiceLineItems: { bucketBy: 'merchant' },
        },
      }),
    );
    expectFailed(results, [
      'RATE.CUSTOMERS_LIST.BUCKET#other-merchant-unaffected@/v0/customers',
      'RATE.BUCKET.PER_ENDPOINT',
    ]);
  }, 120_000);
});
