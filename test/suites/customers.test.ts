/**
 * The customers suite passes against the bundled reference and fails, citing the right
 * rules, when a fault proxy in front of it breaks a customers rule.
 */
import { describe, expect, test } from 'vitest';
import { expectAllPassed, isPatch, useInProcessRun, type Json } from './helpers/in-process-run.ts';

const SUITE = 'customers';
const { run, expectFailed } = useInProcessRun(SUITE);

const FLAGS = ['invoiceIssued', 'invoicePaid', 'renewalReminder'];

describe('customers suite', () => {
  test('passes against the unaltered reference: no failure, no skip', async () => {
    expectAllPassed(await run());
  });

  test('fails when null does not clear taxId, and when out-of-bounds externalId and taxRates are accepted', async () => {
    const results = await run({
      name: 'null-keeps-taxId, bounds-not-enforced',
      onRequest(req, ctx) {
        if (!isPatch(req, '/v0/customers/')) return;
        const b = req.json as Json;
        if (b?.taxId === null) delete b.taxId;
        else if (typeof b?.externalId === 'string' && b.externalId.length > 255)
          b.externalId = b.externalId.slice(0, 255);
        else if (typeof b?.taxRates === 'number' && (b.taxRates < 0 || b.taxRates > 100))
          b.taxRates = Math.min(100, Math.max(0, b.taxRates));
        else return;
        ctx.applied();
      },
    });
    expectFailed(results, [
      'CUSTOMERS.TAX_ID.NULL_CLEARS',
      'CUSTOMERS.EXTERNAL_ID.MAX_LENGTH#refuses-256',
      'CUSTOMERS.TAX_RATES.RANGE#refuses-outside',
      'VALIDATION.BOUNDS.400',
    ]);
    expect(results.find((r) => r.ruleIds.includes('CUSTOMERS.EXTERNAL_ID.NULL_CLEARS'))?.state).toBe('passed');
  });

  test('fails when a partial notificationSettings resets the other flags, validTaxAddress is missing, or taxRates shows another rate', async () => {
    const results = await run({
      name: 'notifications-replaced, no-validTaxAddress-on-read, extra-tax-rate',
      onRequest(req, ctx) {
        const n = (req.json as Json)?.notificationSettings;
        if (isPatch(req, '/v0/customers/') && n && FLAGS.some((k) => !(k in n))) {
          for (const k of FLAGS) n[k] ??= false;
          ctx.applied();
        }
      },
      onResponse(req, res, ctx) {
        const c = res.json as Json;
        if (req.method === 'GET' && req.path.startsWith('/v0/customers/cus_') && res.status === 200) {
          delete c.validTaxAddress;
          ctx.applied();
        }
        if (isPatch(req, '/v0/customers/') && res.status === 200 && c.taxRates) {
          c.taxRates.plan_conform = 7;
          ctx.applied();
        }
      },
    });
    expectFailed(results, [
      'CUSTOMERS.NOTIFICATIONS.PARTIAL',
      'CUSTOMERS.VALID_TAX_ADDRESS.PRESENT',
      'CUSTOMERS.TAX_RATES.SINGLE_RATE',
    ]);
  });

  test('a target that does not echo notificationSettings leaves the partial update not judged, never failed', async () => {
    const results = await run({
      name: 'no-notificationSettings-in-responses',
      onResponse(req, res, ctx) {
        if (
          req.path.startsWith('/v0/customers/') &&
          res.json &&
          typeof res.json === 'object' &&
          'notificationSettings' in (res.json as Json)
        ) {
          delete (res.json as Json).notificationSettings;
          ctx.applied();
        }
      },
    });
    expectAllPassed(results.filter((r) => !r.ruleIds.includes('CUSTOMERS.NOTIFICATIONS.PARTIAL')));
    const partial = results.find((r) => r.ruleIds.includes('CUSTOMERS.NOTIFICATIONS.PARTIAL'));
    expect(partial).toMatchObject({ state: 'skipped', findingCount: 0 });
    // The PATCH succeeding is a precondition: it judges nothing, so the rule stays not judged.
    expect(partial?.judged['CUSTOMERS.NOTIFICATIONS.PARTIAL']).toBeUndefined();
    expect(partial?.notJudged).toEqual([
      {
        reason: expect.stringMatching(/does not expose notificationSettings/),
        category: 'target',
        ruleIds: ['CUSTOMERS.NOTIFICATIONS.PARTIAL'],
        endedScenario: true,
      },
    ]);
  });
});
