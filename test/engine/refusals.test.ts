/**
 * The refusals check (src/engine/checks/refusals.ts) on the real spec: lenient on traffic (only a
 * success to a broken request fails), strict on a request a scenario broke on purpose.
 */
import { describe, expect, test } from 'vitest';
import { loadRules, loadSpec } from '../../src/contract/index.ts';
import { CHECKS, checkContextFor, runChecks } from '../../src/engine/checks/index.ts';
import { refusals } from '../../src/engine/checks/refusals.ts';
import { CONSTRAINT_RULE } from '../../src/engine/generators/constraints.ts';
import type { Exchange } from '../../src/engine/types.ts';
import { ex } from './helpers/exchange.ts';

const contract = { spec: await loadSpec(), rules: await loadRules() };
const NOT_UNDERSTOOD = 'ERRORS.400.BODY#not-understood';

type Flags = Parameters<typeof checkContextFor>[2];

/** What the check judged and found on one exchange: rule ids, findings' rule ids. */
function refusalOf(exchange: Exchange, flags: Flags = {}) {
  const out = runChecks(exchange, checkContextFor(contract, exchange, flags), [refusals]);
  expect(out.errors).toEqual([]);
  return { judged: out.judged, failed: out.findings.flatMap((f) => f.ruleIds) };
}

const answered = (status: number) => (status === 200 ? { id: 'cus_1', object: 'customer' } : { message: 'no' });

/** PATCH /v0/customers/cus_1 with `sent` (an object, or text), answered `status`. */
function patchCustomer(status: number, sent: unknown, contentType = 'application/json'): Exchange {
  const exchange = ex('PATCH', '/v0/customers/cus_1', status, answered(status));
  return {
    ...exchange,
    requestHeaders: { ...exchange.requestHeaders, 'content-type': contentType },
    requestBody: sent,
  };
}

const onPurpose = { brokenOnPurpose: true };
const tooHigh = (status: number) => patchCustomer(status, { taxRates: 150 });
const badPath = (status: number) => ex('GET', '/v0/customers/customer-without-prefix', status, answered(status));
const malformed = (status: number, type?: string) => patchCustomer(status, '{"externalId": "x"', type);

describe('refusals: a request breaking a documented constraint is refused', () => {
  test('the registry runs it, and it cites the VALIDATION rule of every kind of constraint', () => {
    expect(CHECKS).toContain(refusals);
    expect([...refusals.ruleIds].sort()).toEqual(
      [...new Set([...Object.values(CONSTRAINT_RULE), NOT_UNDERSTOOD])].sort(),
    );
  });

  test('traffic: 400 holds the rule of the kind broken, a success fails it, any other answer judges nothing', () => {
    expect(refusalOf(tooHigh(400))).toEqual({ judged: ['VALIDATION.BOUNDS.400'], failed: [] });
    expect(refusalOf(tooHigh(200))).toEqual({ judged: ['VALIDATION.BOUNDS.400'], failed: ['VALIDATION.BOUNDS.400'] });
    for (const other of [401, 404, 409, 429, 500])
      expect(refusalOf(tooHigh(other))).toEqual({ judged: [], failed: [] });
    const wrongType = patchCustomer(200, { taxRates: 'twenty' });
    expect(refusalOf(wrongType).failed).toEqual(['VALIDATION.TYPE.400']);
  });

  test('broken on purpose: any answer but the refusal fails, except without credentials or a 429 after retries', () => {
    expect(refusalOf(tooHigh(400), onPurpose)).toEqual({ judged: ['VALIDATION.BOUNDS.400'], failed: [] });
    for (const other of [200, 404, 409, 500])
      expect(refusalOf(tooHigh(other), onPurpose), `${other}`).toEqual({
        judged: ['VALIDATION.BOUNDS.400'],
        failed: ['VALIDATION.BOUNDS.400'],
      });
    expect(refusalOf(tooHigh(429), onPurpose)).toEqual({ judged: [], failed: [] });
    expect(refusalOf(tooHigh(401), { ...onPurpose, unauthenticated: true })).toEqual({ judged: [], failed: [] });
  });

  test('a path id outside its pattern may get 400 or 404, on purpose or not', () => {
    for (const flags of [{}, onPurpose]) {
      for (const status of [400, 404])
        expect(refusalOf(badPath(status), flags)).toEqual({ judged: ['VALIDATION.PATTERN.400'], failed: [] });
      expect(refusalOf(badPath(200), flags).failed).toEqual(['VALIDATION.PATTERN.400']);
    }
    expect(refusalOf(badPath(409)).judged).toEqual([]);
    expect(refusalOf(badPath(409), onPurpose).failed).toEqual(['VALIDATION.PATTERN.400']);
  });

  test('a JSON body that does not parse is not understood: 400 holds, a success fails; not sent as JSON, nothing', () => {
    expect(refusalOf(malformed(400))).toEqual({ judged: [NOT_UNDERSTOOD], failed: [] });
    expect(refusalOf(malformed(200))).toEqual({ judged: [NOT_UNDERSTOOD], failed: [NOT_UNDERSTOOD] });
    expect(refusalOf(malformed(404))).toEqual({ judged: [], failed: [] });
    expect(refusalOf(malformed(404), onPurpose)).toEqual({ judged: [NOT_UNDERSTOOD], failed: [NOT_UNDERSTOOD] });
    expect(refusalOf(malformed(200, 'text/plain'))).toEqual({ judged: [], failed: [] });
  });

  test('a request that breaks nothing is not judged here, even sent as broken on purpose', () => {
    expect(refusalOf(patchCustomer(200, { taxRates: 50 }), onPurpose)).toEqual({ judged: [], failed: [] });
    expect(refusalOf(ex('GET', '/v0/customers/cus_1', 404, { message: 'no' }), onPurpose)).toEqual({
      judged: [],
      failed: [],
    });
  });
});
