/** The live runner (src/engine/generators/live.ts) with a fake scenario context: no network. */
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import {
  anyNegativeRequest,
  curlFor,
  negativeRequests,
  positiveRequests,
  requestPath,
  type NegativeCase,
} from '../../../src/engine/generators/index.ts';
import {
  checkNegatives,
  checkPositives,
  negativeProblem,
  positiveProblem,
  REPLAY_VARIABLE,
  type LiveContext,
} from '../../../src/engine/generators/live.ts';
import { clearSecrets, registerSecret } from '../../../src/engine/redact.ts';
import { loadRules, loadSpec } from '../../../src/contract/index.ts';
import { checkContextFor, runChecks } from '../../../src/engine/checks/index.ts';
import { refusals } from '../../../src/engine/checks/refusals.ts';
import type { Exchange, Finding } from '../../../src/engine/types.ts';
import { breaksExactly, errorsOf } from './ajv.ts';
import { byId } from './corpus.ts';

type Answer = (method: string, path: string, body: unknown) => { status?: number; body?: unknown };

function exchange(method: string, path: string, body: unknown, a: { status?: number; body?: unknown }): Exchange {
  return {
    method,
    path,
    url: `http://target.test${path}`,
    requestHeaders: { authorization: 'Bearer $CONFORM_API_KEY', 'content-type': 'application/json' },
    requestBody: body,
    status: a.status,
    responseHeaders: {},
    body: a.body,
    rawBody: JSON.stringify(a.body ?? ''),
    ...(a.status === undefined ? { transportError: 'connection reset' } : {}),
    durationMs: 1,
    startedAt: new Date(0).toISOString(),
  };
}

const contract = { spec: await loadSpec(), rules: await loadRules() };

/**
 * A scenario context whose target answers with `answer`; records judgements like the real one,
 * and runs the registry's refusals check on each exchange, as the real one runs the registry.
 */
function fakeContext(answer: Answer, seed = 7) {
  const findings: Finding[] = [];
  const judged: { ruleId: string; ok: boolean; message: string }[] = [];
  /** Rule ids the registry judged, one entry per judgement. */
  const registry: string[] = [];
  const sent: string[] = [];
  const t: LiveContext = {
    findings,
    target: { seed },
    http: {
      async request(method, path, opts) {
        sent.push(`${method} ${path}`);
        const ex = exchange(method, path, opts?.body, answer(method, path, opts?.body));
        const flags = { brokenOnPurpose: opts?.brokenOnPurpose };
        const outcome = runChecks(ex, checkContextFor(contract, ex, flags), [refusals]);
        registry.push(...outcome.judged);
        findings.push(...outcome.findings);
        return ex;
      },
    },
    softExpectRule(ruleId, condition, message, ex) {
      judged.push({ ruleId, ok: !!condition, message });
      if (!condition) findings.push({ source: 'scenario', ruleIds: [ruleId], title: message, message, exchange: ex });
      return !!condition;
    },
    note() {},
  };
  return { t, judged, sent, findings, registry };
}

const customer = byId('updateCustomer');
afterEach(() => {
  delete process.env[REPLAY_VARIABLE];
  clearSecrets();
});

describe('live runner', () => {
  test('verdict helpers: positives must not get 400 (nor, when accepted is named, anything but 2xx); negatives their expected status', () => {
    const ex = (status?: number, body?: unknown) => exchange('GET', '/x', undefined, { status, body });
    expect(positiveProblem(ex(200))).toBeUndefined();
    expect(positiveProblem(ex(404))).toBeUndefined();
    expect(positiveProblem(ex(400))?.ruleId).toBe('VALIDATION.VALID_REQUEST.NOT_400');
    // No response, a 5xx or another success code are the registry's (transport, status-documented).
    expect(positiveProblem(ex(503))).toBeUndefined();
    expect(positiveProblem(ex(undefined), 'A.B.C#accepted')).toBeUndefined();
    expect(positiveProblem(ex(201))).toBeUndefined();
    expect(positiveProblem(ex(404), 'A.B.C#accepted')?.ruleId).toBe('A.B.C#accepted');
    expect(positiveProblem(ex(503), 'A.B.C#accepted')?.problem).toMatch(/got 503/);
    expect(positiveProblem(ex(201), 'A.B.C#accepted')).toBeUndefined();
    const c = {
      expected: [400, 404],
      location: 'path',
      pointer: '/id',
      label: 'pattern x',
      constraint: 'pattern',
      value: 'z',
    } as NegativeCase;
    expect(negativeProblem(c, ex(404), 'R')).toBeUndefined();
    expect(negativeProblem(c, ex(400, { message: 'no' }), 'R')).toBeUndefined();
    // The 400 body is the registry's (error-shape.ts), not the status's.
    expect(negativeProblem(c, ex(400, 'oops'), 'R')).toBeUndefined();
    expect(negativeProblem(c, ex(200), 'R')).toMatchObject({
      ruleId: 'R',
      problem: expect.stringContaining('expected 400 or 404'),
    });
  });

  test('a conforming target: every cited rule judged passed, nothing recorded as failed', async () => {
    const { t, judged, sent } = fakeContext(() => ({ status: 200, body: { object: 'customer' } }));
    const failure = await checkPositives(t, positiveRequests(customer, { id: 'cus_a' }), {
      label: 'updateCustomer positive',
      numRuns: 5,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400', 'CUSTOMERS.TAX_RATES.RANGE'],
    });
    expect(failure).toBeUndefined();
    expect(sent).toHaveLength(5);
    expect(judged).toEqual([
      { ruleId: 'VALIDATION.VALID_REQUEST.NOT_400', ok: true, message: 'updateCustomer positive' },
      { ruleId: 'CUSTOMERS.TAX_RATES.RANGE', ok: true, message: 'updateCustomer positive' },
    ]);
  });

  test('a target refusing valid input: one failure, on the minimal case, citing the rules, with a rerun line', async () => {
    const refusesOver50: Answer = (_m, _p, body) =>
      (body as { taxRates?: number })?.taxRates! > 50
        ? { status: 400, body: { message: 'too high' } }
        : { status: 200, body: {} };
    const { t, judged } = fakeContext(refusesOver50);
    const failure = await checkPositives(t, positiveRequests(customer, { id: 'cus_a' }), {
      label: 'updateCustomer positive',
      numRuns: 50,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
      citeAlso: () => ['CUSTOMERS.TAX_RATES.RANGE'],
    });
    expect(failure).toBeDefined();
    expect((failure!.counterexample as { body: unknown }).body).toEqual({ taxRates: 50.01 });
    const failed = judged.filter((j) => !j.ok);
    expect(failed.map((j) => j.ruleId)).toEqual(['VALIDATION.VALID_REQUEST.NOT_400', 'CUSTOMERS.TAX_RATES.RANGE']);
    expect(failed[0].message).toContain(`seed: ${failure!.seed}`);
    expect(failed[0].message).toContain(
      `rerun only this case: ${REPLAY_VARIABLE}='updateCustomer positive|${failure!.seed}|${failure!.path}' (or the whole run with --seed 7)`,
    );
    expect(failed[0].message).toContain(`replay: curl -sS -i -X PATCH 'http://target.test/v0/customers/cus_a'`);

    // The rerun line replays exactly that case, in one run.
    process.env[REPLAY_VARIABLE] = `updateCustomer positive|${failure!.seed}|${failure!.path}`;
    const again = fakeContext(refusesOver50, 999);
    const replayed = await checkPositives(again.t, positiveRequests(customer, { id: 'cus_a' }), {
      label: 'updateCustomer positive',
      numRuns: 50,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
    });
    expect(replayed?.counterexample).toEqual(failure!.counterexample);
    expect(again.sent[0]).toBe(`PATCH /v0/customers/cus_a`);
  });

  test('negatives: the documented edge is sent first; a lax target fails under every rule the constraint carries', async () => {
    const plan = negativeRequests(byId('listAlerts'), {}, { query: { pin: { '/resourceId': 'wal_1' } } }).find(
      (p) => p.constraint.pointer === '/limit' && p.constraint.kind === 'maximum',
    )!;
    const lax = fakeContext((_m, path) =>
      /limit=(\d+)/.exec(path) && Number(/limit=(\d+)/.exec(path)![1]) > 150
        ? { status: 400, body: { message: 'x' } }
        : { status: 200, body: { object: 'list' } },
    );
    const failure = await checkNegatives(lax.t, plan, {
      label: 'listAlerts negative query /limit maximum',
      numRuns: 3,
      rules: ['VALIDATION.BOUNDS.400', 'ALERTS.LIST.LIMIT_RANGE'],
    });
    expect(lax.sent[0]).toBe('GET /v0/alerts?resourceId=wal_1&limit=101');
    expect((failure!.counterexample as NegativeCase).value).toBe(101);
    // The family rule from the status; the VALIDATION rule from the registry's finding, cited with the shrunk case.
    expect(lax.judged.filter((j) => !j.ok).map((j) => j.ruleId)).toEqual([
      'VALIDATION.BOUNDS.400',
      'ALERTS.LIST.LIMIT_RANGE',
    ]);
    expect(lax.findings.some((f) => f.source === 'check:refusals')).toBe(true);
    const strict = fakeContext(() => ({
      status: 400,
      body: { message: 'x', errors: [{ field: 'limit', message: 'too big' }] },
    }));
    expect(
      await checkNegatives(strict.t, plan, { label: 'l', numRuns: 3, rules: ['VALIDATION.BOUNDS.400'] }),
    ).toBeUndefined();
    expect(strict.sent).toHaveLength(4);
    // The VALIDATION rule is judged by the registry on every case, never by the runner itself.
    expect(strict.registry).toEqual(Array(4).fill('VALIDATION.BOUNDS.400'));
    expect(strict.judged).toEqual([]);
  });

  test('negatives: a case answered other than the refusal fails on the registry’s finding alone, and shrinks', async () => {
    const plan = negativeRequests(byId('listAlerts'), {}, { query: { pin: { '/resourceId': 'wal_1' } } }).find(
      (p) => p.constraint.pointer === '/limit' && p.constraint.kind === 'maximum',
    )!;
    // A conflict is no refusal of a request broken on purpose (a passive judge would let it pass).
    const conflicts = fakeContext(() => ({ status: 409, body: { message: 'busy' } }));
    const failure = await checkNegatives(conflicts.t, plan, {
      label: 'listAlerts negative query /limit maximum',
      numRuns: 3,
      rules: ['VALIDATION.BOUNDS.400'],
    });
    expect((failure!.counterexample as NegativeCase).value).toBe(101);
    expect(conflicts.judged.map((j) => [j.ruleId, j.ok])).toEqual([['VALIDATION.BOUNDS.400', false]]);
    expect(conflicts.judged[0].message).toContain(`seed: ${failure!.seed}`);
  });

  test('a check finding on an exchange fails the case too', async () => {
    const { t, judged } = fakeContext(() => ({ status: 200, body: {} }));
    const realRequest = t.http.request;
    (t.http as { request: typeof realRequest }).request = async (m, p, o) => {
      const ex = await realRequest(m, p, o);
      (t.findings as Finding[]).push({
        source: 'response-schema',
        ruleIds: ['SCHEMA.RESPONSE.MATCHES'],
        title: 'schema',
        message: '/id missing',
        exchange: ex,
      });
      return ex;
    };
    await checkPositives(t, positiveRequests(customer, { id: 'cus_a' }), {
      label: 'p',
      numRuns: 3,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
    });
    expect(judged.filter((j) => !j.ok).map((j) => j.ruleId)).toEqual(['SCHEMA.RESPONSE.MATCHES']);
  });

  test('a property that throws (the target too slow, the tool broken) judges nothing: the error goes up', async () => {
    const { t, judged } = fakeContext(() => ({ status: 200, body: {} }));
    (t.http as { request: unknown }).request = () => Promise.reject(new Error('stopped: target too slow'));
    await expect(
      checkPositives(t, positiveRequests(customer, { id: 'cus_a' }), { label: 'p', numRuns: 2, rules: ['R'] }),
    ).rejects.toThrow('stopped: target too slow');
    expect(judged).toEqual([]);
  });

  test('anyNegativeRequest mixes every constraint, each case still breaking exactly one', () => {
    const arb = anyNegativeRequest(customer, { id: 'cus_a' })!;
    const cases = fc.sample(arb, { seed: 3, numRuns: 300 });
    expect(new Set(cases.map((c) => `${c.pointer} ${c.constraint}`)).size).toBe(
      negativeRequests(customer, { id: 'cus_a' }).length,
    );
    for (const c of cases) if (c.location === 'body') breaksExactly(c, errorsOf(customer.inputs.body!, c.body));
    expect(anyNegativeRequest({ ...customer, extension: true }, { id: 'cus_a' })).toBeUndefined();
  });

  test('offline replay commands go through the redaction too', () => {
    registerSecret('sk_live_abcdef123456', 'CONFORM_API_KEY');
    const cmd = curlFor('http://h', {
      operationId: 'x',
      method: 'POST',
      pathTemplate: '/v0/products',
      pathParams: {},
      query: {},
      body: { name: 'sk_live_abcdef123456' },
    });
    expect(cmd).not.toContain('sk_live_abcdef123456');
    expect(
      requestPath({
        operationId: 'x',
        method: 'GET',
        pathTemplate: '/a/{id}',
        pathParams: { id: 'a/b' },
        query: { q: [1, 2] },
      }),
    ).toBe('/a/a%2Fb?q=1&q=2');
  });
});
