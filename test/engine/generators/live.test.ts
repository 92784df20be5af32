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
  positiveOutcome,
  REPLAY_VARIABLE,
  sendEdges,
  type LiveContext,
} from '../../../src/engine/generators/live.ts';
import { clearSecrets, registerSecret } from '../../../src/engine/http/redact.ts';
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
  const judged: { ruleId: string; ok: boolean; message: string; fields?: string[] }[] = [];
  /** Rule ids the registry judged, one entry per judgement. */
  const registry: string[] = [];
  const sent: string[] = [];
  const ownRefusals: { status?: number; sent: string }[] = [];
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
    softExpectRule(ruleId, condition, message, ex, extra) {
      judged.push({ ruleId, ok: !!condition, message, ...(extra?.fields ? { fields: extra.fields } : {}) });
      if (!condition) findings.push({ source: 'scenario', ruleIds: [ruleId], title: message, message, exchange: ex });
      return !!condition;
    },
    note() {},
    targetRefusal(ex, what) {
      ownRefusals.push({ status: ex.status, sent: what });
    },
  };
  return { t, judged, sent, findings, registry, ownRefusals };
}

const customer = byId('updateCustomer');
/** A plan of updateCustomer to put a body on. */
const positiveRequestsSample = () => ({
  operationId: 'updateCustomer',
  method: 'PATCH',
  pathTemplate: '/v0/customers/{id}',
  pathParams: { id: 'cus_a' },
  query: {},
  body: {},
});
afterEach(() => {
  delete process.env[REPLAY_VARIABLE];
  clearSecrets();
});

describe('live runner', () => {
  test('verdict helpers: positives must not get 400 (nor, when accepted is named, anything but 2xx); negatives their expected status', () => {
    const ex = (status?: number, body?: unknown) => exchange('GET', '/x', undefined, { status, body });
    const problem = (o: ReturnType<typeof positiveOutcome>) => (o && 'problem' in o ? o.problem : undefined);
    expect(positiveOutcome(ex(200), [])).toBeUndefined();
    expect(positiveOutcome(ex(404), [])).toBeUndefined();
    expect(problem(positiveOutcome(ex(400), []))?.ruleId).toBe('VALIDATION.VALID_REQUEST.NOT_400');
    // No response, a 5xx or another success code are the registry's (transport, status-documented).
    expect(positiveOutcome(ex(503), [])).toBeUndefined();
    expect(positiveOutcome(ex(undefined), [], 'A.B.C#accepted')).toBeUndefined();
    expect(positiveOutcome(ex(201), [])).toBeUndefined();
    expect(problem(positiveOutcome(ex(404), [], 'A.B.C#accepted'))?.ruleId).toBe('A.B.C#accepted');
    expect(problem(positiveOutcome(ex(503), [], 'A.B.C#accepted'))?.problem).toMatch(/got 503/);
    expect(positiveOutcome(ex(201), [], 'A.B.C#accepted')).toBeUndefined();
    // A request carrying an edge value: any 4xx is the target's own rule, never a failure.
    const edge = [{ location: 'body' as const, pointer: '/notifyPeriod', value: -1, why: 'a negative number' }];
    expect(positiveOutcome(ex(400), edge)).toEqual({ refusal: expect.stringContaining('/notifyPeriod = -1') });
    expect(positiveOutcome(ex(409), edge, 'A.B.C#accepted')).toHaveProperty('refusal');
    expect(problem(positiveOutcome(ex(503), edge, 'A.B.C#accepted'))?.ruleId).toBe('A.B.C#accepted');
    // A refusal of open status (errors exist, their status not shown): 409 or 422 is the target's; 404 still fails.
    expect(positiveOutcome(ex(422), [], 'A.B.C#accepted', true)).toHaveProperty('refusal');
    expect(positiveOutcome(ex(409), [], 'A.B.C#accepted', true)).toHaveProperty('refusal');
    expect(problem(positiveOutcome(ex(409), [], 'A.B.C#accepted', false))?.ruleId).toBe('A.B.C#accepted');
    expect(problem(positiveOutcome(ex(404), [], 'A.B.C#accepted', true))?.ruleId).toBe('A.B.C#accepted');
    expect(problem(positiveOutcome(ex(400), [], 'A.B.C#accepted', true))?.ruleId).toBe(
      'VALIDATION.VALID_REQUEST.NOT_400',
    );
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
      op: customer,
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
      op: customer,
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
      op: customer,
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
      op: customer,
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
      checkPositives(t, positiveRequests(customer, { id: 'cus_a' }), {
        op: customer,
        label: 'p',
        numRuns: 2,
        rules: ['R'],
      }),
    ).rejects.toThrow('stopped: target too slow');
    expect(judged).toEqual([]);
  });

  test('a failed property lists every distinct counterexample besides the shrunk one (one per refused field)', async () => {
    // Refuses taxRates above 50 and, separately, externalIds longer than 8: two different faults of one operation.
    const twoFaults: Answer = (_m, _p, body) => {
      const b = (body ?? {}) as { taxRates?: number; externalId?: string | null };
      const errors = [
        ...(b.taxRates !== undefined && b.taxRates > 50 ? [{ field: 'taxRates', message: 'too high' }] : []),
        ...(typeof b.externalId === 'string' && b.externalId.length > 8
          ? [{ field: 'externalId', message: 'too long' }]
          : []),
      ];
      return errors.length
        ? { status: 400, body: { error: 'validation_error', message: 'invalid', errors } }
        : { status: 200, body: {} };
    };
    const { t, judged } = fakeContext(twoFaults);
    const failure = await checkPositives(t, positiveRequests(customer, { id: 'cus_a' }), {
      op: customer,
      label: 'updateCustomer positive',
      numRuns: 40,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
    });
    expect(failure).toBeDefined();
    const failed = judged.filter((j) => !j.ok);
    // The shrunk case, then another counterexample naming the other field.
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(failed.slice(1).some((j) => /another counterexample \(not shrunk\)/.test(j.message))).toBe(true);
    const fieldsOf = (j: (typeof failed)[number]) => j.fields?.join(',') ?? '';
    expect(new Set(failed.map(fieldsOf)).size).toBe(failed.length);
    expect(failed.map(fieldsOf).join(' ')).toMatch(/taxRates/);
    expect(failed.map(fieldsOf).join(' ')).toMatch(/externalId/);
  });

  test('a target refusing edge values by a rule of its own: counted apart, nothing failed; documented values still judged', async () => {
    // Refuses empty strings (a rule of its own: the document gives taxId and externalId only a type).
    const strict: Answer = (_m, _p, body) =>
      Object.values((body ?? {}) as Record<string, unknown>).some((v) => v === '')
        ? {
            status: 400,
            body: { error: 'validation_error', message: 'empty', errors: [{ field: 'x', message: 'empty' }] },
          }
        : { status: 200, body: { object: 'customer' } };
    const { t, judged, ownRefusals, sent } = fakeContext(strict);
    const edgePlan = { ...positiveRequestsSample(), body: { taxId: '' } };
    const failure = await checkPositives(t, positiveRequests(customer, { id: 'cus_a' }), {
      op: customer,
      label: 'updateCustomer positive',
      numRuns: 4,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
      examples: [edgePlan],
    });
    expect(failure).toBeUndefined();
    expect(judged).toEqual([
      { ruleId: 'VALIDATION.VALID_REQUEST.NOT_400', ok: true, message: 'updateCustomer positive' },
    ]);
    expect(ownRefusals).toEqual([{ status: 400, sent: expect.stringContaining('body /taxId = ""') }]);
    // The generated cases carry documented values only: none was refused.
    expect(sent).toHaveLength(5);
    // The same rule on a documented value (taxRates 100) fails.
    const refuses100 = fakeContext((_m, _p, body) =>
      (body as { taxRates?: number })?.taxRates === 100 ? { status: 400, body: { message: 'no' } } : { status: 200 },
    );
    const f = await checkPositives(refuses100.t, positiveRequests(customer, { id: 'cus_a' }), {
      op: customer,
      label: 'p',
      numRuns: 1,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
      examples: [{ ...positiveRequestsSample(), body: { taxRates: 100 } }],
    });
    expect(f).toBeDefined();
    expect(refuses100.ownRefusals).toEqual([]);
  });

  test('sendEdges: a well-formed 4xx is the target’s own rule; a finding of the registry stays a finding', async () => {
    const ctx = fakeContext((_m, _p, body) =>
      (body as { taxId?: string })?.taxId === '' ? { status: 422, body: { message: 'empty' } } : { status: 200 },
    );
    await sendEdges(ctx.t, [
      {
        plan: { ...positiveRequestsSample(), body: { taxId: '' } },
        edge: { location: 'body', pointer: '/taxId', value: '', why: 'empty' },
      },
      {
        plan: { ...positiveRequestsSample(), body: { externalId: '' } },
        edge: { location: 'body', pointer: '/externalId', value: '', why: 'empty' },
      },
    ]);
    expect(ctx.ownRefusals).toEqual([{ status: 422, sent: 'body /taxId = "" (empty)' }]);
  });

  test('a fresh parent per case: a repeat on a used parent is an edge, a refusal of it the target’s own', async () => {
    const schedule = byId('createBillingSchedule');
    const has = new Set<string>();
    // One schedule per order: a second gets 409 (the document gives no status, nor says whether several are allowed).
    const onePerOrder: Answer = (_m, _p, body) => {
      const order = (body as { orderId: string }).orderId;
      if (has.has(order)) return { status: 409, body: { error: 'conflict', message: 'exists' } };
      has.add(order);
      return { status: 201, body: { object: 'billing_schedule', orderId: order } };
    };
    const plans = positiveRequests(schedule, {}, { body: { pin: { '/orderId': 'ord_1' }, omit: ['/subscriptionId'] } });
    let n = 0;
    const fresh = fakeContext(onePerOrder);
    const failure = await checkPositives(fresh.t, plans, {
      op: schedule,
      label: 's',
      numRuns: 4,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
      accepted: 'SCHEDULES.CREATE.BY_ORDER#accepted',
      parent: { location: 'body', pointer: '/orderId', fresh: async () => `ord_fresh${++n}`, why: 'a repeat' },
    });
    expect(failure).toBeUndefined();
    expect(fresh.ownRefusals).toEqual([]);
    expect(n).toBe(3);
    // No fresh order to be had: the repeats are edges, refused by the target's own rule.
    has.clear();
    const none = fakeContext(onePerOrder);
    expect(
      await checkPositives(none.t, plans, {
        op: schedule,
        label: 's',
        numRuns: 4,
        rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
        accepted: 'SCHEDULES.CREATE.BY_ORDER#accepted',
        parent: { location: 'body', pointer: '/orderId', fresh: async () => 'ord_1', why: 'a repeat' },
      }),
    ).toBeUndefined();
    expect(none.ownRefusals).toHaveLength(3);
    expect(none.ownRefusals[0].sent).toContain('a repeat');
    // A first create refused: the accepted part fails.
    has.clear();
    has.add('ord_1');
    const refusesFirst = fakeContext((m, p, b) =>
      (b as { orderId: string }).orderId === 'ord_1' ? { status: 404, body: { message: 'x' } } : onePerOrder(m, p, b),
    );
    const f = await checkPositives(refusesFirst.t, plans, {
      op: schedule,
      label: 's',
      numRuns: 1,
      rules: ['VALIDATION.VALID_REQUEST.NOT_400'],
      accepted: 'SCHEDULES.CREATE.BY_ORDER#accepted',
    });
    expect(f?.reason).toMatch(/got 404/);
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
