/**
 * The webhooks suite passes against the bundled reference and fails, citing the right
 * rules, when a fault proxy in front of it breaks a webhooks rule.
 */
import { describe, expect, test } from 'vitest';
import { loadRules } from '../../src/contract/rules.ts';
import { computeVerdicts } from '../../src/engine/reporters/verdicts.ts';
import { expectAllPassed, isPatch, useInProcessRun, type Json } from './helpers/in-process-run.ts';

const SUITE = 'webhooks';
const { run, expectFailed } = useInProcessRun(SUITE);

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
          res.json = {
            object: 'webhooks',
            applicationId: 'app_conform',
            enabled: (req.json as Json)?.enabled,
            merchantId: 'org_conform',
            createdAt: at,
            updatedAt: at,
          };
          ctx.applied();
        }
        if (isPatch(req, '/v0/webhooks') && res.status === 200 && (req.json as Json)?.enabled === false)
          ctx.state.set('dropped', true);
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

  test("fails when a merchantId naming another merchant is ignored (the key's own configuration answers)", async () => {
    const results = await run({
      name: 'merchant-param-ignored',
      onRequest(req, ctx) {
        if (!isPatch(req, '/v0/webhooks') || !req.path.includes('merchantId=')) return;
        req.path = req.path.split('?')[0];
        ctx.applied();
      },
    });
    expectFailed(results, ['WEBHOOKS.MERCHANT.NAMED']);
  });

  test('with no endpoint to read back, a toggle judges its answers and leaves the endpoint parts not judged', async () => {
    const results = await run({
      name: 'no-endpoints',
      onResponse(req, res, ctx) {
        if (req.method !== 'GET' || !req.path.startsWith('/v0/webhooks/endpoints')) return;
        (res.json as Json).data = [];
        ctx.applied();
      },
    });
    const toggle = results.find((r) => r.ruleIds.includes('WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS'))!;
    expect(toggle.findingCount).toBe(0);
    expect(toggle.judged['STATE.WEBHOOKS.DISABLE#sets-disabled']).toBeGreaterThan(0);
    expect(toggle.judged['STATE.WEBHOOKS.DISABLE#keeps-endpoints']).toBeUndefined();
    expect(toggle.judged['WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS']).toBeUndefined();
    expect(toggle.notJudged).toContainEqual({
      reason: 'the configuration holds no endpoint: there is nothing to keep',
      category: 'target',
      ruleIds: ['WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS', 'STATE.WEBHOOKS.DISABLE#keeps-endpoints'],
    });
    // Half of DISABLE judged is not a pass: the rule stays not judged, naming the part left.
    const verdicts = computeVerdicts(await loadRules(), results, { bundled: false });
    const disable = verdicts.find((v) => v.id === 'STATE.WEBHOOKS.DISABLE')!;
    expect(disable.verdict).toBe('not_judged');
    expect(disable.parts.map((p) => [p.id, p.verdict])).toEqual([
      ['sets-disabled', 'passed'],
      ['keeps-endpoints', 'not_judged'],
    ]);
    expect(verdicts.find((v) => v.id === 'STATE.WEBHOOKS.ENABLE')!.verdict).toBe('passed');
  });
});
