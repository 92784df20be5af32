import { describe, expect, test } from 'vitest';
import { CHECKS, checkRuleIds, readRequest, runChecks } from '../../src/engine/checks/index.ts';
import type { Check, CheckContext, Evaluation } from '../../src/engine/checks/types.ts';
import { isJsonContentType } from '../../src/engine/checks/content-type.ts';
import { judgedPart, loadRules } from '../../src/contract/rules.ts';
import { fakeOperations, fakeSpec } from './helpers/fake-spec.ts';
import { ex } from './helpers/exchange.ts';
import type { Exchange } from '../../src/engine/types.ts';

const spec = fakeSpec();
/** What every exchange's context shares; `withRequest` adds the exchange's own reading. */
type Contract = Omit<CheckContext, 'request'>;
const ctx: Contract = { spec, rules: await loadRules() };
const withRequest = (c: Contract, exchange: Exchange): CheckContext => ({
  ...c,
  request: readRequest(c.spec, exchange),
});
const byName = (name: string): Check => CHECKS.find((c) => c.name === name)!;
/** What a check that does not apply stands for: nothing judged, nothing found. */
const NOT_APPLICABLE: Evaluation = { judged: [], findings: [] };

/** The whole registry on one exchange. */
const runAll = (exchange: Exchange) => runChecks(exchange, withRequest(ctx, exchange));

function run(name: string, exchange: Exchange, c: Contract = ctx): Evaluation {
  const check = byName(name);
  const op = spec.findOperation(exchange.method, exchange.path.split('?')[0]);
  return check.evaluate!(exchange, withRequest(c, exchange), op) ?? NOT_APPLICABLE;
}
const goodCustomer = {
  id: 'cus_1',
  object: 'customer',
  merchantId: 'org_1',
  consumerId: 'org_2',
  createdAt: '2024-01-01T00:00:00Z',
};
const rate = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '6' };

describe('check registry', () => {
  test('names are unique and every check describes itself and cites rules', () => {
    const names = CHECKS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of CHECKS) {
      expect(c.description.length, c.name).toBeGreaterThan(10);
      expect(c.ruleIds.length, c.name).toBeGreaterThan(0);
    }
  });

  test('every rule id a check cites exists in spec/rules.yaml (a rule of several parts is cited by part)', async () => {
    const rules = await loadRules();
    const wrong = checkRuleIds()
      .map((id) => judgedPart(rules, id))
      .filter((r) => 'error' in r);
    expect(wrong).toEqual([]);
  });

  test('a check that does not apply returns nothing', () => {
    const notFound = ex('GET', '/v0/customers/cus_x', 404, { message: 'no such customer' });
    for (const name of [
      'response-schema',
      'object-name',
      'id-patterns',
      'list-envelope',
      'timestamps',
      'money',
      'rate-headers',
      'too-many-requests',
    ]) {
      const check = byName(name);
      expect(
        check.evaluate!(notFound, withRequest(ctx, notFound), spec.findOperation('GET', '/v0/customers/cus_x')),
        name,
      ).toBeUndefined();
    }
  });

  test('the list operations, explicit success codes and id fields come from spec/rules.yaml', () => {
    const list = { object: 'list', data: [], pagination: {} };
    const without = (id: string) => ({ ...ctx.rules, byId: (r: string) => (r === id ? undefined : ctx.rules.byId(r)) });
    expect(run('list-envelope', ex('GET', '/v0/alerts', 200, list)).judged).toEqual(['CONV.LIST.ENVELOPE']);
    expect(
      run('list-envelope', ex('GET', '/v0/alerts', 200, list), { ...ctx, rules: without('CONV.LIST.ENVELOPE') }).judged,
    ).toEqual([]);
    expect(run('status-documented', ex('GET', '/v0/alerts', 201, list)).findings.map((f) => f.ruleIds)).toEqual([
      ['STATUS.SUCCESS.CODE'],
    ]);
    expect(
      run('status-documented', ex('GET', '/v0/alerts', 201, list), {
        ...ctx,
        rules: without('STATUS.SUCCESS.CODE'),
      }).findings.map((f) => f.ruleIds),
    ).toEqual([['STATUS.DOCUMENTED.ONLY']]);
    const badId = ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, id: 'customer-1' });
    expect(run('id-patterns', badId).findings).toHaveLength(1);
    expect(run('id-patterns', badId, { ...ctx, rules: without('CONV.ID.PATTERNS') }).findings).toEqual([]);
  });

  test('a good exchange passes every check and counts the rules it judged', () => {
    const out = runAll(ex('GET', '/v0/customers/cus_1', 200, goodCustomer));
    expect(out.findings).toEqual([]);
    expect(out.judged).toEqual(
      expect.arrayContaining([
        'STATUS.DOCUMENTED.ONLY',
        'SCHEMA.RESPONSE.MATCHES',
        'CONV.OBJECT.TYPE_NAME',
        'CONV.ID.PATTERNS',
        'CONV.CONTENT_TYPE.JSON',
      ]),
    );
  });

  test('findings carry a replay command and no secret', () => {
    const out = runAll(ex('GET', '/v0/customers/cus_1', 500, { message: 'boom' }));
    expect(out.findings.length).toBeGreaterThan(0);
    expect(out.findings[0].replay).toContain("curl -sS -i -X GET 'http://target/v0/customers/cus_1'");
  });

  test('extension operations are never judged; their transport failures are', () => {
    const bad = runAll(ex('POST', '/v0/customers', 500, 'not json at all', { 'content-type': 'text/plain' }));
    expect(bad.findings).toEqual([]);
    expect(bad.judged).toEqual([]);
    const down = runAll(ex('POST', '/v0/customers', undefined, undefined, {}, { transportError: 'connection reset' }));
    expect(down.findings.map((f) => f.title)).toEqual(['No usable response']);
  });

  test('unknown operations are not judged', () => {
    expect(runAll(ex('GET', '/v9/nothing', 500, 'x')).findings).toEqual([]);
  });

  test('a crashing check is an engine error with its stack, never a finding against the target', () => {
    const broken: Check = {
      ...byName('money'),
      name: 'broken',
      evaluate: () => {
        throw new Error('oops');
      },
    };
    const read = ex('GET', '/v0/customers/cus_1', 200, goodCustomer);
    const out = runChecks(read, withRequest(ctx, read), [broken]);
    expect(out.findings).toEqual([]);
    expect(out.errors[0]).toMatchObject({ source: 'check:broken', message: expect.stringContaining('oops') });
    expect(out.errors[0].stack).toContain('Error: oops');
  });
});

describe('transport', () => {
  test('transport error: a finding citing no rule (the scenario supplies its own)', () => {
    const r = run(
      'transport',
      ex('GET', '/v0/customers/cus_1', undefined, undefined, {}, { transportError: 'timeout' }),
    );
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0].ruleIds).toEqual([]);
  });
  test('non-JSON body breaks CONV.CONTENT_TYPE.JSON', () => {
    const r = run(
      'transport',
      ex('GET', '/v0/customers/cus_1', 200, undefined, {}, { rawBody: '<html>', jsonError: 'bad' }),
    );
    expect(r.findings[0].ruleIds).toEqual(['CONV.CONTENT_TYPE.JSON']);
  });
  test('a JSON body passes', () => {
    expect(run('transport', ex('GET', '/v0/customers/cus_1', 200, goodCustomer)).findings).toEqual([]);
  });
});

describe('content-type', () => {
  test('accepts application/json with parameters', () => {
    expect(isJsonContentType('application/json; charset=utf-8')).toBe(true);
    expect(isJsonContentType('Application/JSON')).toBe(true);
    expect(isJsonContentType('text/json')).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
    expect(
      run(
        'content-type',
        ex('GET', '/v0/customers/cus_1', 200, goodCustomer, { 'content-type': 'application/json; charset=utf-8' }),
      ).findings,
    ).toEqual([]);
  });
  test('fails text/plain and a missing type on a body', () => {
    expect(
      run('content-type', ex('GET', '/v0/customers/cus_1', 200, goodCustomer, { 'content-type': 'text/plain' }))
        .findings[0].ruleIds,
    ).toEqual(['CONV.CONTENT_TYPE.JSON']);
    const noType = ex('GET', '/v0/customers/cus_1', 200, goodCustomer);
    delete noType.responseHeaders['content-type'];
    expect(run('content-type', noType).findings).toHaveLength(1);
  });
  test('an empty body is not judged', () => {
    expect(run('content-type', ex('DELETE', '/v0/customers/cus_1', 204)).judged).toEqual([]);
  });
});

describe('status-documented', () => {
  test('exact code, range key and the Errors table pass', () => {
    expect(run('status-documented', ex('GET', '/v0/customers/cus_1', 200, goodCustomer)).findings).toEqual([]);
    expect(run('status-documented', ex('POST', '/v0/products', 201, { object: 'product' })).findings).toEqual([]);
    expect(run('status-documented', ex('GET', '/v0/customers/cus_1', 409, { message: 'x' })).findings).toEqual([]);
    expect(run('status-documented', ex('GET', '/v0/alerts', 429, { message: 'x' })).findings).toEqual([]);
  });
  test('an undocumented success code fails', () => {
    const r = run('status-documented', ex('GET', '/v0/customers/cus_1', 202, goodCustomer));
    expect(r.findings[0].ruleIds).toEqual(['STATUS.DOCUMENTED.ONLY']);
  });
  test('a success other than 200 where the document gives 200 breaks STATUS.SUCCESS.CODE', () => {
    const r = run(
      'status-documented',
      ex('GET', '/v0/alerts', 201, { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } }),
    );
    expect(r.findings[0].ruleIds).toEqual(['STATUS.SUCCESS.CODE']);
  });
  test('5xx and 3xx are never documented, even with a default response', () => {
    for (const s of [500, 503, 302])
      expect(
        run('status-documented', ex('GET', '/v0/customers/cus_1', s, { message: 'x' })).findings,
        String(s),
      ).toHaveLength(1);
  });
  test('a default response (errors exist, their status not shown): any 4xx; without one, only the status table', () => {
    for (const s of [409, 418, 422])
      expect(
        run('status-documented', ex('GET', '/v0/customers/cus_1', s, { message: 'x' })).findings,
        String(s),
      ).toEqual([]);
    const noDefault = fakeSpec({
      getCustomer: { ...fakeOperations.getCustomer, responses: { '200': {}, '404': {} } },
    });
    const strictCtx = { spec: noDefault, rules: ctx.rules };
    expect(
      run('status-documented', ex('GET', '/v0/customers/cus_1', 422, { message: 'x' }), strictCtx).findings,
    ).toHaveLength(1);
    expect(
      run('status-documented', ex('GET', '/v0/customers/cus_1', 409, { message: 'x' }), strictCtx).findings,
    ).toEqual([]);
  });
});

describe('response-schema', () => {
  test('a valid body passes', () => {
    expect(run('response-schema', ex('GET', '/v0/customers/cus_1', 200, goodCustomer)).findings).toEqual([]);
  });
  test('a missing required field fails SCHEMA.REQUIRED.PRESENT and SCHEMA.RESPONSE.MATCHES', () => {
    const r = run('response-schema', ex('GET', '/v0/customers/cus_1', 200, { id: 'cus_1', object: 'customer' }));
    expect(r.findings.map((f) => f.ruleIds)).toEqual([['SCHEMA.REQUIRED.PRESENT'], ['SCHEMA.RESPONSE.MATCHES']]);
    expect(r.findings[0].message).toMatch(/merchantId/);
    // An empty object answering a documented read breaks both: it never passes the schema rule.
    const empty = run('response-schema', ex('GET', '/v0/customers/cus_1', 200, {}));
    expect(empty.findings.flatMap((f) => f.ruleIds)).toContain('SCHEMA.RESPONSE.MATCHES');
  });
  test('a wrong type cites SCHEMA.RESPONSE.MATCHES', () => {
    const r = run('response-schema', ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, merchantId: 7 }));
    expect(r.findings[0].ruleIds).toEqual(['SCHEMA.RESPONSE.MATCHES']);
  });
  test('a payload with no declared schema ("not shown") is never judged', () => {
    const r = run('response-schema', ex('GET', '/v0/customers', 200, { anything: true }, rate));
    expect(r).toEqual({ judged: [], findings: [] });
  });
  test('error statuses are left to the error-shape check', () => {
    expect(run('response-schema', ex('GET', '/v0/customers/cus_x', 404, { nothing: true })).judged).toEqual([]);
  });
  test('an empty body where a document is due fails', () => {
    expect(run('response-schema', ex('GET', '/v0/customers/cus_1', 200)).findings).toHaveLength(1);
  });
});

describe('error-message', () => {
  test('a blank Error message fails ERRORS.MESSAGE.READABLE; any words pass', () => {
    for (const message of ['', '   '])
      expect(
        run('error-message', ex('GET', '/v0/customers/cus_x', 404, { message, error: 'not_found' })).findings[0]
          .ruleIds,
      ).toEqual(['ERRORS.MESSAGE.READABLE']);
    const ok = run('error-message', ex('GET', '/v0/customers/cus_x', 404, { message: 'x', error: 'not_found' }));
    expect(ok).toEqual({ judged: ['ERRORS.MESSAGE.READABLE'], findings: [] });
  });
  test('ValidationError bodies, 2xx and 5xx are not judged', () => {
    expect(
      run(
        'error-message',
        ex('GET', '/v0/alerts', 400, {
          error: 'validation_error',
          message: '',
          errors: [{ field: 'limit', message: 'too big' }],
        }),
      ).judged,
    ).toEqual([]);
    expect(run('error-message', ex('GET', '/v0/customers/cus_x', 500, { message: '' })).judged).toEqual([]);
    expect(
      run('error-message', ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, message: '' })).judged,
    ).toEqual([]);
  });
});

describe('error-shape', () => {
  test('Error and ValidationError bodies pass', () => {
    expect(
      run(
        'error-shape',
        ex('GET', '/v0/customers/cus_x', 404, {
          message: 'no such customer',
          error: 'not_found',
          code: 'CUSTOMER_NOT_FOUND',
        }),
      ).findings,
    ).toEqual([]);
    expect(
      run(
        'error-shape',
        ex('GET', '/v0/alerts', 400, {
          error: 'validation_error',
          message: 'bad',
          errors: [{ field: 'limit', message: 'too big' }],
        }),
      ).findings,
    ).toEqual([]);
    expect(
      run('error-shape', ex('GET', '/v0/alerts', 400, { error: 'bad_request', message: 'resourceId required' }))
        .findings,
    ).toEqual([]);
  });
  test('a 404 without message fails ERRORS.ERROR.SHAPE', () => {
    const r = run('error-shape', ex('GET', '/v0/customers/cus_x', 404, { error: 'not_found' }));
    expect(r.findings[0].ruleIds).toContain('ERRORS.ERROR.SHAPE');
  });
  test('a 401 or 403 without an Error body cites the AUTH rules', () => {
    expect(run('error-shape', ex('GET', '/v0/customers/cus_x', 401, 'nope')).findings[0].ruleIds).toContain(
      'AUTH.401.SHAPE#error-body',
    );
    expect(run('error-shape', ex('GET', '/v0/customers/cus_x', 403, {})).findings[0].ruleIds).toContain(
      'AUTH.403.SHAPE#error-body',
    );
  });
  test('a malformed ValidationError fails', () => {
    const r = run(
      'error-shape',
      ex('GET', '/v0/alerts', 400, { error: 'validation_error', message: 'bad', errors: [{ message: 'no field' }] }),
    );
    expect(r.findings[0].ruleIds).toEqual(['ERRORS.VALIDATION.SHAPE']);
  });
  test('a 400 with neither shape fails ERRORS.400.BODY#shape', () => {
    const r = run('error-shape', ex('GET', '/v0/alerts', 400, { oops: true }));
    expect(r.findings[0].ruleIds).toContain('ERRORS.400.BODY#shape');
  });
  test('a lower-case code fails ERRORS.CODE.UPPER_SNAKE', () => {
    const r = run(
      'error-shape',
      ex('GET', '/v0/customers/cus_x', 409, { message: 'x', error: 'conflict', code: 'has_blockers' }),
    );
    expect(r.findings.map((f) => f.ruleIds[0])).toEqual(['ERRORS.CODE.UPPER_SNAKE']);
  });
  test('the code pattern, the category table and the rate header names come from the context’s rules', () => {
    const changed = (id: string, params: Record<string, unknown>) => ({
      ...ctx.rules,
      byId: (r: string) => (r === id ? { ...ctx.rules.byId(r)!, params } : ctx.rules.byId(r)),
    });
    const lower = ex('GET', '/v0/customers/cus_x', 409, { message: 'x', error: 'conflict', code: 'has_blockers' });
    const lowerCodes = { ...ctx, rules: changed('ERRORS.CODE.UPPER_SNAKE', { pattern: '^[a-z_]+$' }) };
    expect(run('error-shape', lower, lowerCodes).findings).toEqual([]);
    const notFound = ex('GET', '/v0/customers/cus_x', 404, { message: 'x', error: 'conflict' });
    const table = {
      ...ctx,
      rules: changed('ERRORS.CATEGORY.MATCHES_STATUS', { categories: { conflict: 404, gone: 410 } }),
    };
    expect(run('error-shape', notFound, table).findings).toEqual([]);
    const headers = ['x-limit', 'x-left', 'x-reset'];
    const renamed = {
      ...ctx,
      rules: changed('RATE.HEADERS.PRESENT', { headers, integers: headers.slice(0, 2), seconds: headers.slice(2) }),
    };
    const answer = ex('GET', '/v0/customers', 401, { message: 'no' }, { 'x-left': '3' });
    expect(run('failed-auth-headers', answer, renamed).findings.map((f) => f.message)).toEqual([
      expect.stringContaining('x-left present'),
    ]);
  });
  test('a category that does not match the status fails', () => {
    const r = run('error-shape', ex('GET', '/v0/customers/cus_x', 404, { message: 'x', error: 'conflict' }));
    expect(r.findings[0].ruleIds).toEqual(['ERRORS.CATEGORY.MATCHES_STATUS']);
  });
});

describe('object-name', () => {
  test('passes the declared name and fails another', () => {
    expect(run('object-name', ex('GET', '/v0/customers/cus_1', 200, goodCustomer)).findings).toEqual([]);
    const r = run('object-name', ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, object: 'Customer' }));
    expect(r.findings[0].ruleIds).toEqual(['CONV.OBJECT.TYPE_NAME']);
  });
  test('no declared name: not judged', () => {
    expect(run('object-name', ex('GET', '/v0/payments/pay_1', 200, { object: 'whatever' })).judged).toEqual([]);
  });
});

describe('id-patterns', () => {
  test('documented patterns pass', () => {
    expect(run('id-patterns', ex('GET', '/v0/customers/cus_1', 200, goodCustomer)).findings).toEqual([]);
  });
  test('a broken customer id or merchantId fails CONV.ID.PATTERNS', () => {
    const r = run(
      'id-patterns',
      ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, id: 'customer-1', merchantId: 'm_1' }),
    );
    expect(r.findings).toHaveLength(2);
    expect(r.findings[0].ruleIds).toEqual(['CONV.ID.PATTERNS']);
  });
  test('payment ids need pay_', () => {
    expect(
      run('id-patterns', ex('GET', '/v0/payments/pay_1', 200, { object: 'payment', id: 'pay_1' })).findings,
    ).toEqual([]);
    expect(
      run('id-patterns', ex('GET', '/v0/payments/x', 200, { object: 'payment', id: 'p_1' })).findings[0].ruleIds,
    ).toEqual(['PAYMENTS.ID.PREFIX']);
  });
  test('list items are checked', () => {
    const r = run(
      'id-patterns',
      ex('GET', '/v0/alerts', 200, { object: 'list', data: [{ object: 'customer', id: 'bad' }], pagination: {} }),
    );
    expect(r.findings).toHaveLength(1);
  });
});

describe('list-envelope', () => {
  test('a list envelope passes, with or without total; a bare array, a non-integer total or no pagination fails', () => {
    expect(
      run(
        'list-envelope',
        ex('GET', '/v0/alerts', 200, { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } }),
      ).findings,
    ).toEqual([]);
    expect(run('list-envelope', ex('GET', '/v0/alerts', 200, [])).findings).toHaveLength(1);
    expect(
      run(
        'list-envelope',
        ex('GET', '/v0/alerts', 200, { object: 'list', data: [], pagination: { limit: 10, offset: 0 } }),
      ).findings,
    ).toEqual([]);
    const r = run(
      'list-envelope',
      ex('GET', '/v0/alerts', 200, { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: '3' } }),
    );
    expect(r.findings[0].message).toMatch(/pagination.total/);
    expect(
      run('list-envelope', ex('GET', '/v0/alerts', 200, { object: 'list', data: [] })).findings[0].message,
    ).toMatch(/pagination is missing/);
  });
});

describe('timestamps', () => {
  test('ISO 8601 passes, other formats fail, opaque members are skipped', () => {
    expect(
      run(
        'timestamps',
        ex('GET', '/v0/customers/cus_1', 200, {
          ...goodCustomer,
          archivedAt: null,
          metadata: { createdAt: 'whenever' },
        }),
      ).findings,
    ).toEqual([]);
    const r = run('timestamps', ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, updatedAt: '01/02/2024' }));
    expect(r.findings[0].ruleIds).toEqual(['CONV.TIMESTAMP.ISO8601']);
    expect(
      run('timestamps', ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, createdAt: 1700000000 })).findings,
    ).toHaveLength(1);
  });
  test('a body holding no date-time field judges nothing', () => {
    expect(run('timestamps', ex('GET', '/v0/customers/cus_1', 200, {}))).toEqual({ judged: [], findings: [] });
    expect(
      run('timestamps', ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, createdAt: null, updatedAt: null })),
    ).toEqual({ judged: [], findings: [] });
    expect(run('timestamps', ex('GET', '/v0/customers/cus_1', 200, goodCustomer)).judged).toEqual([
      'CONV.TIMESTAMP.ISO8601',
    ]);
  });
  test('offsets other than Z are ISO 8601 too (+00:00, -05:30, fractions of a second)', () => {
    for (const v of ['2024-01-01T00:00:00+00:00', '2024-01-01T00:00:00.123456+00:00', '2023-12-31T18:30:00-05:30']) {
      expect(
        run('timestamps', ex('GET', '/v0/customers/cus_1', 200, { ...goodCustomer, updatedAt: v })).findings,
        v,
      ).toEqual([]);
    }
  });
});

describe('money', () => {
  test('decimal strings pass; numbers and words fail', () => {
    expect(run('money', ex('GET', '/v0/payments/pay_1', 200, { object: 'payment', amount: '10.50' })).findings).toEqual(
      [],
    );
    expect(
      run('money', ex('GET', '/v0/payments/pay_1', 200, { object: 'payment', amount: 10.5 })).findings[0].ruleIds,
    ).toEqual(['CONV.MONEY.DECIMAL_STRING']);
    expect(
      run('money', ex('GET', '/v0/payments/pay_1', 200, { object: 'payment', amount: 'ten' })).findings[0].ruleIds,
    ).toEqual(['CONV.MONEY.DECIMAL_STRING']);
  });
  test('invoice refund amount, taxAmount and total are judged', () => {
    const refund = { object: 'invoice_refund', amount: '10.00', taxAmount: '0.80', total: '10.80' };
    expect(run('money', ex('GET', '/v0/payments/pay_1', 200, refund)).findings).toEqual([]);
    expect(
      run('money', ex('GET', '/v0/payments/pay_1', 200, { ...refund, taxAmount: 0.8 })).findings[0].message,
    ).toContain('taxAmount');
  });
  test('money-like fields typed only string are not judged', () => {
    const topupSpec = fakeSpec({
      updateAutoTopupConfig: {
        operationId: 'updateAutoTopupConfig',
        method: 'PATCH',
        pathTemplate: '/v0/wallets/{id}/autoTopupConfig',
        responses: { '200': { schema: { type: 'object' } } },
      },
    });
    const topup = ex('PATCH', '/v0/wallets/wal_1/autoTopupConfig', 200, {
      object: 'autoTopupConfig',
      amount: '$25',
      threshold: 'five',
    });
    const out = byName('money').evaluate!(
      topup,
      withRequest({ spec: topupSpec, rules: ctx.rules }, topup),
      topupSpec.findOperation('PATCH', '/v0/wallets/wal_1/autoTopupConfig'),
    );
    expect(out).toBeUndefined();
    expect(
      run(
        'money',
        ex('GET', '/v0/payments/pay_1', 200, { object: 'payment', amount: '1', lineItems: [{ amount: 'ten' }] }),
      ).findings,
    ).toEqual([]);
    expect(
      run(
        'money',
        ex('GET', '/v0/payments/pay_1', 200, {
          object: 'price',
          properties: { unitPrice: 'x', tiers: [{ unitPrice: 'y' }] },
          unitAmount: 'z',
        }),
      ).judged,
    ).toEqual([]);
  });
});

describe('rate-headers', () => {
  test('present integers within bounds pass', () => {
    expect(run('rate-headers', ex('GET', '/v0/customers', 200, {}, rate)).findings).toEqual([]);
    expect(
      run('rate-headers', ex('GET', '/v0/customers', 200, {}, { ...rate, 'x-ratelimit-limit': '120' })).findings,
    ).toEqual([]);
  });
  test('a missing header fails RATE.HEADERS.PRESENT', () => {
    const { 'x-ratelimit-reset': _, ...partial } = rate;
    expect(run('rate-headers', ex('GET', '/v0/customers', 200, {}, partial)).findings[0].ruleIds).toEqual([
      'RATE.HEADERS.PRESENT',
    ]);
  });
  test('reset may be a fraction of a second; counts may not', () => {
    expect(
      run('rate-headers', ex('GET', '/v0/customers', 200, {}, { ...rate, 'x-ratelimit-reset': '0.5' })).findings,
    ).toEqual([]);
    expect(
      run('rate-headers', ex('GET', '/v0/customers', 200, {}, { ...rate, 'x-ratelimit-limit': '60.0' })).findings[0]
        .ruleIds,
    ).toEqual(['RATE.HEADERS.PRESENT']);
    expect(
      run('rate-headers', ex('GET', '/v0/customers', 200, {}, { ...rate, 'x-ratelimit-reset': 'soon' })).findings[0]
        .ruleIds,
    ).toEqual(['RATE.HEADERS.PRESENT']);
  });
  test('a non-integer or negative header fails', () => {
    expect(
      run('rate-headers', ex('GET', '/v0/customers', 200, {}, { ...rate, 'x-ratelimit-remaining': '5.5' })).findings,
    ).toHaveLength(1);
    expect(
      run('rate-headers', ex('GET', '/v0/customers', 200, {}, { ...rate, 'x-ratelimit-remaining': '-1' })).findings[0]
        .ruleIds,
    ).toContain('RATE.REMAINING.NON_NEGATIVE');
  });
  test('a limit below the published one fails; reset beyond the window fails', () => {
    expect(
      run('rate-headers', ex('GET', '/v0/customers', 200, {}, { ...rate, 'x-ratelimit-limit': '59' })).findings[0]
        .ruleIds,
    ).toEqual(['RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED']);
    expect(
      run('rate-headers', ex('GET', '/v0/customers', 200, {}, { ...rate, 'x-ratelimit-reset': '7' })).findings[0]
        .ruleIds,
    ).toEqual(['RATE.RESET.WITHIN_WINDOW']);
  });
  test('an admitted request showing as much remaining as the limit was not counted: RATE.REMAINING.HONOURED#counted fails', () => {
    const uncounted = { ...rate, 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '60' };
    const out = run('rate-headers', ex('GET', '/v0/customers', 200, {}, uncounted));
    expect(out.findings.map((f) => f.ruleIds)).toEqual([['RATE.REMAINING.HONOURED#counted']]);
    // A 429 was not admitted: the same headers judge nothing of the count; a higher limit shown counts from itself.
    const refused = run('rate-headers', ex('GET', '/v0/customers', 429, { message: 'x' }, uncounted));
    expect(refused.judged).not.toContain('RATE.REMAINING.HONOURED#counted');
    const higher = { ...rate, 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119' };
    const fine = run('rate-headers', ex('GET', '/v0/customers', 200, {}, higher));
    expect([fine.findings, fine.judged.includes('RATE.REMAINING.HONOURED#counted')]).toEqual([[], true]);
  });
  test('401s, deliberate unauthenticated requests and unlisted endpoints are not judged', () => {
    expect(run('rate-headers', ex('GET', '/v0/customers', 401, { message: 'x' })).judged).toEqual([]);
    expect(run('rate-headers', ex('GET', '/v0/customers', 200, {}), { ...ctx, unauthenticated: true }).judged).toEqual(
      [],
    );
    expect(
      run('rate-headers', ex('GET', '/v0/customers/cus_1', 200, goodCustomer, { 'x-ratelimit-limit': '-5' })).judged,
    ).toEqual([]);
  });
});

describe('too-many-requests', () => {
  const body = { error: 'rate_limit_exceeded', message: 'GET /v0/customers: 60 per 6 s' };
  test('numeric retry-after and the rate_limit_exceeded body pass', () => {
    expect(
      run('too-many-requests', ex('GET', '/v0/customers/cus_1', 429, body, { 'retry-after': '3' })).findings,
    ).toEqual([]);
  });
  test('an empty message is not the endpoint-specific message the document asks for', () => {
    const found = run(
      'too-many-requests',
      ex('GET', '/v0/customers', 429, { ...body, message: ' ' }, { 'retry-after': '3' }),
    ).findings;
    expect(found.map((f) => [f.ruleIds, f.message])).toEqual([
      [['RATE.EXCEEDED.BODY#error-body'], expect.stringContaining('message empty')],
    ]);
  });
  test('a missing retry-after fails on a listed rate-limited endpoint', () => {
    expect(run('too-many-requests', ex('GET', '/v0/customers', 429, body)).findings.map((f) => f.ruleIds)).toEqual([
      ['RATE.RETRY_AFTER.ON_429'],
    ]);
  });
  test('off the Limits table retry-after may be absent (wait one second), but when present it must be seconds or an HTTP-date', () => {
    expect(run('too-many-requests', ex('GET', '/v0/customers/cus_1', 429, body))).toEqual({
      judged: ['RATE.EXCEEDED.BODY#error-body'],
      findings: [],
    });
    // A well-formed one there is only allowed, not the required retry-after: it judges nothing.
    expect(run('too-many-requests', ex('GET', '/v0/customers/cus_1', 429, body, { 'retry-after': '3' }))).toEqual({
      judged: ['RATE.EXCEEDED.BODY#error-body'],
      findings: [],
    });
    expect(
      run('too-many-requests', ex('GET', '/v0/customers/cus_1', 429, body, { 'retry-after': 'soon' })).findings[0]
        .ruleIds,
    ).toEqual(['RATE.RETRY_AFTER.ON_429']);
    expect(
      run('too-many-requests', ex('GET', '/v0/customers', 429, body, { 'retry-after': '2015-10-21T07:28:00Z' }))
        .findings,
    ).toHaveLength(1);
  });
  test("retry-after as an HTTP-date (HTTP's other form of the wait) passes", () => {
    const dated = { 'retry-after': 'Wed, 21 Oct 2015 07:28:03 GMT', date: 'Wed, 21 Oct 2015 07:28:00 GMT' };
    expect(run('too-many-requests', ex('GET', '/v0/customers', 429, body, dated))).toEqual({
      judged: ['RATE.RETRY_AFTER.ON_429', 'RATE.EXCEEDED.BODY#error-body'],
      findings: [],
    });
  });
  test('a body without rate_limit_exceeded fails', () => {
    expect(
      run('too-many-requests', ex('GET', '/v0/customers', 429, { message: 'slow' }, { 'retry-after': '1' })).findings[0]
        .ruleIds,
    ).toEqual(['RATE.EXCEEDED.BODY#error-body']);
  });
});

describe('failed-auth-headers', () => {
  test('a bare 401 passes; a 401 with rate headers fails', () => {
    expect(run('failed-auth-headers', ex('GET', '/v0/customers', 401, { message: 'unauthorized' })).findings).toEqual(
      [],
    );
    expect(
      run('failed-auth-headers', ex('GET', '/v0/customers', 401, { message: 'unauthorized' }, rate)).findings[0]
        .ruleIds,
    ).toEqual(['RATE.FAILED_AUTH.NO_HEADERS']);
  });
  test('unlisted endpoints are not judged', () => {
    expect(run('failed-auth-headers', ex('GET', '/v0/customers/cus_1', 401, { message: 'x' }, rate)).judged).toEqual(
      [],
    );
  });
});

describe('checks against the real spec/openapi.yaml', async () => {
  const { loadSpec } = await import('../../src/contract/index.ts');
  const real = await loadSpec();
  const rctx: Contract = { spec: real, rules: await loadRules() };
  const judge = (exchange: Exchange) => runChecks(exchange, withRequest(rctx, exchange));
  const customer = {
    ...goodCustomer,
    updatedAt: '2024-01-01T00:00:00Z',
    validTaxAddress: { valid: true, message: null },
  };

  test('a conforming customer read passes every check', () => {
    const out = judge(ex('GET', '/v0/customers/cus_1', 200, customer));
    expect(out.findings).toEqual([]);
    expect(out.operation?.operationId).toBe('getCustomer');
    expect(out.judged).toEqual(
      expect.arrayContaining(['SCHEMA.RESPONSE.MATCHES', 'CONV.OBJECT.TYPE_NAME', 'CONV.ID.PATTERNS']),
    );
  });

  test('dropping a required field is caught', () => {
    const { validTaxAddress: _, ...broken } = customer;
    const out = judge(ex('GET', '/v0/customers/cus_1', 200, broken));
    expect(out.findings.flatMap((f) => f.ruleIds)).toContain('SCHEMA.REQUIRED.PRESENT');
  });

  test('the six listed endpoints carry their published limits', () => {
    const out = judge(
      ex(
        'GET',
        '/v0/customers',
        200,
        { any: 1 },
        { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '6' },
      ),
    );
    expect(out.findings.map((f) => f.ruleIds[0])).toEqual(['RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED']);
  });

  test('extension operations are not judged', () => {
    expect(judge(ex('POST', '/v0/customers', 500, { nonsense: true })).findings).toEqual([]);
  });

  test('a body the document does not show is not judged, whatever the reference chose', () => {
    const out = judge(
      ex(
        'GET',
        '/v0/customers',
        200,
        { object: 'customers', data: [{ object: 'customer', id: 'c-1' }] },
        { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '6' },
      ),
    );
    expect(out.findings).toEqual([]);
    expect(out.judged).not.toContain('SCHEMA.RESPONSE.MATCHES');
  });

  test('a success code the document does not show accepts any 2xx; a 409 body with unshown codes is not schema-judged', () => {
    const item = {
      id: 'itm_1',
      object: 'item',
      merchantId: 'org_1',
      name: 'n',
      metadata: {},
      externalReferences: [],
      catalogId: 'prod_1',
      archivedAt: null,
      createdAt: '2024-01-01T00:00:00Z',
      updatedAt: '2024-01-01T00:00:00Z',
    };
    const accepted = judge(ex('PATCH', '/v0/items/itm_1', 202, item));
    expect(accepted.findings).toEqual([]);
    expect(accepted.judged).toContain('STATUS.DOCUMENTED.ONLY');
    const conflict = judge(
      ex('POST', '/v0/subscriptions/sub_1/versionMigration', 409, {
        error: 'conflict',
        message: 'no',
        code: 'SOME_OTHER_CODE',
      }),
    );
    expect(conflict.findings).toEqual([]);
  });
});
