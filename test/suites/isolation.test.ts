/**
 * The isolation suite judges AUTH.MERCHANT.ISOLATION part by part, one part per kind of
 * resource: against the bundled reference every part is judged and passes; a leak or a
 * refused write that still took effect fails the part it breaks; scenarios that cannot run
 * (a fixture the target refuses, the other merchant's key answered 401) leave their part and
 * the rule not judged, with the answer as the reason, never passed and never failed.
 */
import { describe, expect, test } from 'vitest';
import { computeVerdicts, type RuleVerdict } from '../../src/engine/reporters/verdicts.ts';
import type { ScenarioResult } from '../../src/engine/runner/index.ts';
import { loadRules } from '../../src/contract/rules.ts';
import { faultByName } from '../../src/faults/catalog/index.ts';
import { foreignOwner, learnOwners } from '../../src/faults/catalog/tenancy.ts';
import type { ProxyResponse } from '../../src/faults/fault-proxy.ts';
import { expectAllPassed, useInProcessRun } from './helpers/in-process-run.ts';

const RULE = 'AUTH.MERCHANT.ISOLATION';
const { run, expectFailed } = useInProcessRun('isolation');

async function isolation(results: ScenarioResult[]): Promise<RuleVerdict> {
  const verdicts = computeVerdicts(await loadRules(), results, { bundled: false });
  return verdicts.find((v) => v.id === RULE)!;
}

const partsBy = (v: RuleVerdict, verdict: string) =>
  v.parts
    .filter((p) => p.verdict === verdict)
    .map((p) => p.id)
    .sort();

const unauthorized = (): ProxyResponse => {
  const json = { error: 'unauthorized', message: 'Invalid or revoked API key' };
  return {
    status: 401,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(json)),
    json,
  };
};

describe('isolation suite', () => {
  test('passes against the unaltered reference, every part of AUTH.MERCHANT.ISOLATION judged', async () => {
    const results = await run();
    expectAllPassed(results);
    const v = await isolation(results);
    expect(v.parts.length).toBeGreaterThan(10);
    expect(partsBy(v, 'passed')).toEqual(v.parts.map((p) => p.id).sort());
    expect(v.verdict).toBe('passed');
  });

  test("fails the customer part when another merchant's customer is readable", async () => {
    const results = await run(faultByName('auth-customer-of-other-merchant-readable'));
    expectFailed(results, [`${RULE}#customer`]);
    expect(partsBy(await isolation(results), 'failed')).toEqual(['customer']);
  });

  test('fails changes-nothing when a refused customer update still took effect', async () => {
    const results = await run({
      name: 'refused-write-applied',
      async onResponse(req, res, ctx) {
        learnOwners(req, res, ctx);
        if (req.method !== 'PATCH' || !req.path.startsWith('/v0/customers/')) return;
        if (res.status !== 403 && res.status !== 404) return;
        const owner = foreignOwner(req, ctx, [decodeURIComponent(req.path.split('?')[0].split('/')[3])]);
        if (!owner) return;
        // The write happens with the owner's key; the answer stays the refusal.
        await ctx.upstream({ ...req, headers: { ...req.headers, authorization: owner } });
        ctx.applied();
      },
    });
    expectFailed(results, [`${RULE}#changes-nothing`]);
    expect(partsBy(await isolation(results), 'failed')).toEqual(['changes-nothing']);
  });

  test('scenarios whose fixture the target refuses (401) leave their part, and the rule, not judged: never passed on the others', async () => {
    const results = await run({
      name: 'subscriptions-refused',
      onRequest(req, ctx) {
        if (req.method !== 'POST' || req.path.split('?')[0] !== '/v0/subscriptions') return;
        ctx.applied();
        return unauthorized();
      },
    });
    expect(results.filter((r) => r.state === 'failed' || r.state === 'error')).toEqual([]);
    const v = await isolation(results);
    expect(v.verdict).toBe('not_judged');
    expect(partsBy(v, 'not_judged')).toContain('subscription');
    expect(partsBy(v, 'passed')).toEqual(expect.arrayContaining(['customer', 'merchant', 'price', 'product-owner']));
    const reasons = v.notJudged.filter((n) => n.part === 'subscription').map((n) => n.reason);
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.join('\n')).toMatch(/401/);
  });

  test("the other merchant's key answered 401 (revoked): every scenario ends on its precondition, nothing judged, nothing failed", async () => {
    const revoked = new Set<string>();
    const results = await run({
      name: 'foreign-key-revoked',
      onRequest(req, ctx) {
        const key = req.headers.authorization ?? '';
        // The fixture enables the other merchant's webhooks with its key: once made, that key is refused.
        if (req.method === 'POST' && req.path.split('?')[0] === '/v0/webhooks') return void revoked.add(key);
        if (!revoked.has(key)) return;
        ctx.applied();
        return unauthorized();
      },
    });
    expect(results.filter((r) => r.state === 'failed' || r.state === 'error')).toEqual([]);
    const v = await isolation(results);
    expect(v.verdict).toBe('not_judged');
    expect(v.judgements).toBe(0);
    expect(v.reasons.join('\n')).toMatch(/the other merchant's key reads its own merchant .*401/);
  });
});
