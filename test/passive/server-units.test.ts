/** The passive server units, one by one, on small hand-made traffic. */
import { describe, expect, test } from 'vitest';
import { judge, messages, rec, verdicts } from './helpers.ts';
import { refusals } from '../../src/engine/checks/refusals.ts';
import { rateExceeded } from '../../src/engine/checks/rate-exceeded.ts';
import { checksUnit } from '../../src/passive/units/checks.ts';
import { laterReads } from '../../src/engine/checks/later-reads.ts';
import { deletedGone } from '../../src/engine/checks/resources/gone.ts';
import { timestampsCourse } from '../../src/engine/checks/resources/timestamps-course.ts';

/** The registry's judges of what later exchanges show, alone. */
const laterReadsUnit = () => checksUnit([laterReads]);
const stateUnit = () => checksUnit([deletedGone, timestampsCourse]);
/** The registry's rate-exceeded judge, alone: what `conform run` judges on the rate-limit driver's requests. */
const rateUnit = () => checksUnit([rateExceeded]);
import {
  fixedWindow,
  headerSeconds,
  slidingWindow,
  tokenBucket,
  type LimiterModel,
} from '../../src/faults/catalog/limiters.ts';

const customer = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  object: 'customer',
  consumerId: 'org_c1',
  merchantId: 'org_m1',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  validTaxAddress: { valid: true, message: null },
  ...extra,
});

describe('refusals (the registry, through the passive judge): a request breaking a documented constraint never succeeds', () => {
  /** The verdicts of the refusals check's rules only (the whole registry judges each exchange). */
  const refusalVerdicts = async (records: Parameters<typeof judge>[0]) =>
    Object.fromEntries(
      [...verdicts(await judge(records, [checksUnit()]))].filter(([id]) => refusals.ruleIds.includes(id)),
    );

  test('a JSON body that does not parse: 2xx fails ERRORS.400.BODY#not-understood, 400 holds it, any other answer judges nothing', async () => {
    const malformed = (status: number, contentType = 'application/json') =>
      refusalVerdicts([
        rec('PATCH', '/v0/customers/cus_1', {
          sent: '{"externalId": "x"',
          status,
          got: status === 200 ? customer('cus_1') : { message: 'no' },
          requestHeaders: { 'content-type': contentType },
        }),
      ]);
    expect(await malformed(200)).toEqual({ 'ERRORS.400.BODY#not-understood': 'failed' });
    expect(await malformed(400)).toEqual({ 'ERRORS.400.BODY#not-understood': 'passed' });
    expect(await malformed(404)).toEqual({});
    expect(await malformed(200, 'text/plain')).toEqual({});
  });

  test('taxRates 150 answered 200 fails VALIDATION.BOUNDS.400; answered 400 holds it; a 404 or a 409 judges nothing', async () => {
    const bad = (status: number) =>
      refusalVerdicts([
        rec('PATCH', '/v0/customers/cus_1', {
          sent: { taxRates: 150 },
          status,
          got: status === 200 ? customer('cus_1') : { message: 'no' },
        }),
      ]);
    expect(await bad(200)).toEqual({ 'VALIDATION.BOUNDS.400': 'failed' });
    expect(await bad(400)).toEqual({ 'VALIDATION.BOUNDS.400': 'passed' });
    expect(await bad(404)).toEqual({});
    expect(await bad(409)).toEqual({});
  });

  test('query values are read as their schema type; a path id outside its pattern may get 404', async () => {
    expect(
      await refusalVerdicts([
        rec('GET', '/v0/alerts?resourceId=w_1&limit=abc', {
          status: 200,
          got: { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } },
        }),
        rec('GET', '/v0/alerts?limit=5', { status: 400, got: { message: 'resourceId is required' } }),
        rec('GET', '/v0/customers/not-a-customer', { status: 404, got: { message: 'not found' } }),
        rec('GET', '/v0/alerts?resourceId=w_1&limit=100', {
          status: 200,
          got: { object: 'list', data: [], pagination: { limit: 100, offset: 0, total: 0 } },
        }),
      ]),
    ).toEqual({
      'VALIDATION.TYPE.400': 'failed',
      'VALIDATION.REQUIRED.400': 'passed',
      'VALIDATION.PATTERN.400': 'passed',
    });
  });
});

/** A refund of inv_1 sent `sent`, answered as a credit note of 10.00 + 1.00 = 11.00 with `answered` on top. */
const refund = (sent: Record<string, unknown>, answered: Record<string, unknown>) =>
  rec('POST', '/v2/invoices/inv_1/refunds', {
    status: 201,
    sent,
    got: {
      object: 'invoice_refund',
      id: 'crn_1',
      invoiceId: 'inv_1',
      amount: '10.00',
      taxAmount: '1.00',
      total: '11.00',
      status: 'ISSUED',
      ...answered,
    },
  });

describe('answers: each answer against its request', () => {
  test('a read by id answers that id; a refund belongs to its invoice and sums its total', async () => {
    const o = await judge(
      [
        rec('GET', '/v0/customers/cus_1', { got: customer('cus_2') }),
        refund({ reason: 'dup' }, { total: '11.01', reason: 'dup' }),
      ],
      [checksUnit()],
    );
    const v = verdicts(o);
    expect(v.get('CUSTOMERS.GET.BY_ID#answers-resource')).toBe('failed');
    expect(v.get('REFUNDS.TOTAL.SUM')).toBe('failed');
    expect([v.get('REFUNDS.INVOICE.MATCHES'), v.get('REFUNDS.REASON.RECORDED'), v.get('REFUNDS.ID.PREFIX')]).toEqual([
      'passed',
      'passed',
      'passed',
    ]);
    expect(messages(o, 'REFUNDS.TOTAL.SUM')[0]).toContain('total 11.01, amount 10.00 + taxAmount 1.00 = 11');
  });

  test('a refund without a reason records none: a reason made up fails, none holds', async () => {
    const reasonOf = async (answered: Record<string, unknown>) =>
      verdicts(await judge([refund({}, answered)], [checksUnit()])).get('REFUNDS.REASON.RECORDED');
    expect(await reasonOf({})).toBe('passed');
    expect(await reasonOf({ reason: 'requested_by_customer' })).toBe('failed');
  });

  test('webhooks answer the state asked for, for the merchant named', async () => {
    const cfg = (enabled: boolean, merchantId = 'org_a') => ({
      object: 'webhooks',
      applicationId: 'app_1',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-02T00:00:00Z',
      enabled,
      merchantId,
    });
    const o = await judge(
      [
        rec('PATCH', '/v0/webhooks', { sent: { enabled: false }, got: cfg(true) }),
        rec('PATCH', '/v0/webhooks?merchantId=org_b', { sent: { enabled: true }, got: cfg(true, 'org_a') }),
      ],
      [checksUnit()],
    );
    const v = verdicts(o);
    expect([
      v.get('STATE.WEBHOOKS.DISABLE#sets-disabled'),
      v.get('STATE.WEBHOOKS.ENABLE'),
      v.get('WEBHOOKS.MERCHANT.NAMED'),
    ]).toEqual(['failed', 'passed', 'failed']);
  });

  test('an item update answers what was sent; archiving sets archivedAt', async () => {
    const item = (x: Record<string, unknown>) => ({
      id: 'itm_1',
      object: 'item',
      merchantId: 'org_a',
      name: 'n',
      catalogId: 'prod_1',
      metadata: {},
      archivedAt: null,
      ...x,
    });
    const o = await judge(
      [
        rec('PATCH', '/v0/items/itm_1', {
          sent: { name: 'new', metadata: { a: 1 } },
          got: item({ name: 'new', metadata: { a: 1 } }),
        }),
        rec('PATCH', '/v0/items/itm_1', { sent: { archived: true }, got: item({}) }),
      ],
      [checksUnit()],
    );
    const v = verdicts(o);
    expect([v.get('ITEMS.UPDATE.APPLIED#holds-sent'), v.get('ITEMS.ARCHIVED_AT.STATE#set-when-archived')]).toEqual([
      'passed',
      'failed',
    ]);
  });

  test('an alert update answers the enabled, notifyPeriod and recipients sent; config is not compared', async () => {
    const alert = (x: Record<string, unknown>) => ({
      id: 'alert_1',
      object: 'alert',
      resourceId: 'wal_1',
      enabled: true,
      notifyPeriod: 3600,
      recipients: ['a@x.invalid'],
      config: {},
      ...x,
    });
    const sent = { enabled: false, recipients: ['b@x.invalid', 'c@x.invalid'], config: { threshold: '1.00' } };
    const updated = async (got: Record<string, unknown>) =>
      verdicts(
        await judge([rec('PATCH', '/v0/alerts/alert_1?resource=wallet', { sent, got: alert(got) })], [checksUnit()]),
      ).get('ALERTS.UPDATE.OK#answers-alert');
    expect(await updated({ enabled: false, recipients: sent.recipients })).toBe('passed');
    expect(await updated({ enabled: false })).toBe('failed');
  });

  test('creating a schedule by subscriptionId must not succeed; refusing it holds the rule', async () => {
    const ok = await judge(
      [
        rec('POST', '/v0/billingSchedules', {
          status: 400,
          sent: { subscriptionId: 'sub_1' },
          got: { message: 'send orderId' },
        }),
      ],
      [checksUnit()],
    );
    expect(verdicts(ok).get('SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED')).toBe('passed');
    const bad = await judge(
      [
        rec('POST', '/v0/billingSchedules', {
          status: 201,
          sent: { subscriptionId: 'sub_1' },
          got: { id: 'bs_1', object: 'billing_schedule', subscriptionId: 'sub_1', endDate: '2027-01-01T00:00:00Z' },
        }),
      ],
      [checksUnit()],
    );
    expect(verdicts(bad).get('SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED')).toBe('failed');
  });

  test('an intervals page judges its envelope; only a page holding intervals judges them', async () => {
    const page = (data: unknown[]) =>
      judge(
        [
          rec('GET', '/v0/billingSchedules/bs_1/intervals', {
            got: { object: 'list', data, pagination: { limit: 10, offset: 0, total: data.length } },
          }),
        ],
        [checksUnit()],
      ).then(verdicts);
    const envelope = 'SCHEDULES.INTERVALS.PAGINATED#list-envelope';
    const objects = 'SCHEDULES.INTERVALS.PAGINATED#interval-objects';
    const empty = await page([]);
    expect([empty.get(envelope), empty.get(objects)]).toEqual(['passed', undefined]);
    const own = await page([{ id: 'si_1', object: 'schedule_interval', scheduleId: 'bs_1' }]);
    expect([own.get(envelope), own.get(objects)]).toEqual(['passed', 'passed']);
    const other = await page([{ id: 'si_2', object: 'schedule_interval', scheduleId: 'bs_2' }]);
    expect([other.get(envelope), other.get(objects)]).toEqual(['passed', 'failed']);
  });
});

describe('migration answers (the registry’s migration checks, through the passive judge)', () => {
  const answer = (from: number, to: number, changed: boolean, policy = 'pinned') => ({
    subscription: { id: 'sub_1', object: 'subscription', versionPolicy: policy },
    migration: { fromVersionNumber: from, toVersionNumber: to, effectiveAt: '2026-02-01T00:00:00Z', changed },
    lineItems: { syncFailed: false },
  });
  const path = '/v0/subscriptions/sub_1/versionMigration';
  const migrate = (to: unknown, got: unknown, status = 200, key?: string) =>
    rec('POST', path, { status, sent: { targetVersionNumber: to }, got, key });
  const run = async (...records: ReturnType<typeof rec>[]) => verdicts(await judge(records, [checksUnit()]));
  const RULES = [
    'MIGRATION.RESPONSE.SHAPE',
    'MIGRATION.RESPONSE.VERSION_NUMBERS#to-requested',
    'MIGRATION.EFFECT.PINS',
    'MIGRATION.SAME_VERSION.NO_CHANGE',
  ];

  test('the answer matches its request and pins; migrating again to the version a same-version migration left changes nothing', async () => {
    const v = await run(
      migrate(2, answer(1, 2, true)),
      migrate(2, answer(2, 2, false)),
      migrate(2, answer(2, 2, false)),
    );
    expect(RULES.map((r) => v.get(r))).toEqual(Array(4).fill('passed'));
    // Whether the subscription was floating before is not in the traffic: the scenario judges it.
    expect(v.get('MIGRATION.SAME_VERSION.PINS_FLOATING')).toBeUndefined();
  });

  test('a wrong toVersionNumber, a missing lineItems, a floating answer, changed true on a repeat, an out-of-range target accepted, a lower-case 409 code: each fails its rule', async () => {
    const { lineItems: _, ...noLineItems } = answer(1, 2, true);
    const failed = [
      ['MIGRATION.RESPONSE.VERSION_NUMBERS#to-requested', [migrate(3, answer(1, 2, true))]],
      ['MIGRATION.RESPONSE.SHAPE', [migrate(2, noLineItems)]],
      ['MIGRATION.EFFECT.PINS', [migrate(2, answer(1, 2, true, 'floating'))]],
      ['MIGRATION.SAME_VERSION.NO_CHANGE', [migrate(2, answer(2, 2, false)), migrate(2, answer(2, 2, true))]],
      ['MIGRATION.400.TARGET_RANGE', [migrate(0, answer(2, 0, true))]],
      ['MIGRATION.409.CODE_VALUES', [migrate(2, { message: 'no', code: 'notLive' }, 409)]],
    ] as const;
    for (const [rule, records] of failed) expect([rule, (await run(...records)).get(rule)]).toEqual([rule, 'failed']);
  });

  test('changed true on a same-version migration is not judged unless the stream shows nothing was pending before it, to the same key', async () => {
    const noChange = async (...records: ReturnType<typeof rec>[]) =>
      (await run(...records)).get('MIGRATION.SAME_VERSION.NO_CHANGE');
    expect(await noChange(migrate(2, answer(2, 2, true)))).toBeUndefined();
    // A move left pending in between: the same-version migration replaces it.
    expect(
      await noChange(migrate(2, answer(2, 2, false)), migrate(3, answer(2, 3, true)), migrate(2, answer(2, 2, true))),
    ).toBeUndefined();
    expect(
      await noChange(migrate(2, answer(2, 2, false), 200, 'sk_test_other_key_0002'), migrate(2, answer(2, 2, true))),
    ).toBeUndefined();
  });
});

describe('an invalid migration target on a subscription that exists (the registry’s migration-range-shown judge)', () => {
  const path = '/v0/subscriptions/sub_1/versionMigration';
  // A migration refused with 409 shows the subscription exists.
  const shown = (start: number, key?: string) =>
    rec('POST', path, {
      status: 409,
      sent: { targetVersionNumber: 2 },
      got: { message: 'no', code: 'NOT_LIVE' },
      start,
      key,
    });
  const notFound = (targetVersionNumber: unknown, start: number, key?: string) =>
    rec('POST', path, { status: 404, sent: { targetVersionNumber }, got: { message: 'no' }, start, key });
  const range = async (records: ReturnType<typeof rec>[]) =>
    verdicts(await judge(records, [checksUnit()])).get('MIGRATION.400.TARGET_RANGE');

  test('404 after the subscription was shown, or before it is shown, fails; an in-range target 404 judges nothing', async () => {
    expect(await range([shown(1_000_000), notFound(0, 1_001_000)])).toBe('failed');
    expect(await range([notFound('3', 1_000_000), shown(1_001_000)])).toBe('failed');
    expect(await range([shown(1_000_000), notFound(7, 1_001_000)])).toBeUndefined();
  });

  test('never shown, shown to another key, or shown long before: not judged', async () => {
    expect(await range([notFound(0, 1_000_000)])).toBeUndefined();
    expect(await range([shown(1_000_000, 'sk_test_other_key_0002'), notFound(0, 1_001_000)])).toBeUndefined();
    expect(await range([shown(1_000_000), notFound(0, 1_000_000 + 11 * 60_000)])).toBeUndefined();
  });
});

describe('delete blockers (the registry, through the passive judge)', () => {
  test('a customer delete refused with the documented body holds; an empty type or a count below the items fails', async () => {
    const body = (type: string, count: number) => ({
      error: 'conflict',
      message: 'has subscriptions',
      details: {
        blockers: [
          {
            type,
            count,
            items: [
              { id: 'sub_1', status: 'active' },
              { id: 'sub_2', status: 'active' },
            ],
          },
        ],
      },
    });
    const good = verdicts(
      await judge(
        [rec('DELETE', '/v0/customers/cus_1', { status: 409, got: body('subscriptions', 2) })],
        [checksUnit()],
      ),
    );
    expect([
      good.get('CUSTOMERS.DELETE.BLOCKED#blockers-body'),
      good.get('CUSTOMERS.DELETE.BLOCKER_COUNT#covers-items'),
    ]).toEqual(['passed', 'passed']);
    const bad = verdicts(
      await judge([rec('DELETE', '/v0/customers/cus_1', { status: 409, got: body('', 1) })], [checksUnit()]),
    );
    expect([
      bad.get('CUSTOMERS.DELETE.BLOCKED#blockers-body'),
      bad.get('CUSTOMERS.DELETE.BLOCKER_COUNT#covers-items'),
    ]).toEqual(['failed', 'failed']);
  });
});

describe('RATE.EXCEEDED.STATUS per bucket (the registry’s rate-exceeded judge, on traffic)', () => {
  /** GET /v0/customers (60 per 6 s) answered by a limiter model, one request every `everyMs`, each sent once the previous one is answered. */
  function trace(
    model: LimiterModel<any>,
    count: number,
    everyMs: number,
    opts: { key?: string; neverRefuse?: boolean } = {},
  ) {
    let state: unknown;
    return Array.from({ length: count }, (_, i) => {
      const at = i * everyMs;
      const d = model.hit(state as any, at, 60, 6000);
      state = d.state;
      const admitted = d.admitted || !!opts.neverRefuse;
      return rec('GET', '/v0/customers', {
        start: at,
        duration: 2,
        key: opts.key,
        status: admitted ? 200 : 429,
        headers: {
          'x-ratelimit-limit': '60',
          'x-ratelimit-remaining': String(d.remaining),
          'x-ratelimit-reset': String(headerSeconds(d.resetMs)),
          ...(admitted ? {} : { 'retry-after': String(headerSeconds(d.retryAfterMs)) }),
        },
        got: admitted
          ? { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } }
          : { error: 'rate_limit_exceeded', message: 'slow down' },
      });
    });
  }
  const verdict = async (records: ReturnType<typeof trace>) =>
    verdicts(await judge(records, [rateUnit()])).get('RATE.EXCEEDED.STATUS');

  test('a fixed window that refuses past its limit holds the rule; one that never refuses fails it', async () => {
    expect(await verdict(trace(fixedWindow, 120, 10))).toBe('passed');
    expect(await verdict(trace(fixedWindow, 120, 10, { neverRefuse: true }))).toBe('failed');
  });

  test('sliding windows and token buckets, which admit again before a window "resets", are never failed', async () => {
    for (const model of [slidingWindow, tokenBucket])
      for (const every of [10, 50, 120])
        expect(await verdict(trace(model, 300, every)), `${model.name} every ${every} ms`).not.toBe('failed');
  });

  test('what cannot be attributed is not judged: another key (maybe another merchant), a request sent before the opening answer came back', async () => {
    const mixed = trace(fixedWindow, 120, 10, { neverRefuse: true }).map((r, i) =>
      i % 2 ? { ...r, client: 'CLIENT_KEY_000000000001' } : r,
    );
    expect(await verdict(mixed)).toBeUndefined();
    const concurrent = trace(fixedWindow, 120, 0, { neverRefuse: true }); // all sent at once
    expect(await verdict(concurrent)).toBeUndefined();
  });

  test("an admission within a 429's retry-after judges nothing: it asks the client to wait, it does not promise a refusal", async () => {
    const get = (start: number, status: number, reset: string, retryAfter?: string) =>
      rec('GET', '/v0/customers', {
        start,
        duration: 5,
        status,
        headers: {
          'x-ratelimit-limit': '1',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': reset,
          ...(retryAfter ? { 'retry-after': retryAfter } : {}),
        },
        got: status === 200 ? { object: 'list', data: [] } : { error: 'rate_limit_exceeded', message: 'slow down' },
      });
    // The first window surely lasts 1 s: the second request, above its limit of 1, gets its 429.
    const refused = [get(0, 200, '2'), get(500, 429, '5', '5')];
    expect(await verdict(refused)).toBe('passed');
    // Past that window, within the 429's retry-after (a token bucket's next token may come sooner).
    expect(await verdict([...refused, get(2000, 200, '3')])).toBe('passed');
  });

  test('more than twice the limit admitted within less than a window fails, whatever the resets say; a 429 there holds', async () => {
    const noReset = (records: ReturnType<typeof trace>) =>
      records.map((r) => ({ ...r, responseHeaders: { ...r.responseHeaders, 'x-ratelimit-reset': '0' } }));
    const admitted = noReset(trace(fixedWindow, 121, 10, { neverRefuse: true }));
    const outcome = await judge(admitted, [rateUnit()]);
    expect(verdicts(outcome).get('RATE.EXCEEDED.STATUS')).toBe('failed');
    expect(messages(outcome, 'RATE.EXCEEDED.STATUS')).toEqual([
      expect.stringMatching(
        /121 requests admitted within 1\.202 s, less than the 6 s window, where x-ratelimit-limit says 60 \(with one API key on \/v0\/customers\): no limiter keeping 60 per 6 s admits more than 120/,
      ),
    ]);
    expect(await verdict(admitted.slice(0, 120))).toBeUndefined();
    const refused = {
      ...admitted[120],
      status: 429,
      responseBody: JSON.stringify({ error: 'rate_limit_exceeded', message: 'slow down' }),
    };
    expect(await verdict([...admitted.slice(0, 120), refused])).toBe('passed');
  });

  test('a bucket is counted apart for every concrete path and every merchant a request names', async () => {
    const call = (path: string, start: number) =>
      rec('GET', path, {
        start,
        duration: 5,
        status: 200,
        headers: { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' },
        got: { object: 'list', data: [] },
      });
    const twice = (first: string, second: string) => verdict([call(first, 0), call(second, 100)]);
    // The same bucket twice within its window: the second admission fails.
    expect(await twice('/v0/integrations/salesforce/accounts', '/v0/integrations/salesforce/accounts')).toBe('failed');
    expect(await twice('/v0/customers?merchantId=org_a', '/v0/customers?merchantId=org_a')).toBe('failed');
    // A service may count each CRM provider, and each merchant a key acts for, apart.
    expect(await twice('/v0/integrations/salesforce/accounts', '/v0/integrations/hubspot/accounts')).toBeUndefined();
    expect(await twice('/v0/customers?merchantId=org_a', '/v0/customers?merchantId=org_b')).toBeUndefined();
  });

  test('subscription buckets are per subscription, whatever the key', async () => {
    const portal = (sub: string, start: number, key?: string) =>
      rec('POST', `/v0/subscriptions/${sub}/portal`, {
        start,
        key,
        status: 201,
        headers: { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0.9' },
        got: { url: 'https://portal' },
      });
    expect(
      verdicts(await judge([portal('sub_1', 0), portal('sub_1', 100, 'sk_test_other_key_same_sub')], [rateUnit()])).get(
        'RATE.EXCEEDED.STATUS',
      ),
    ).toBe('failed');
    expect(
      verdicts(await judge([portal('sub_1', 0), portal('sub_2', 100)], [rateUnit()])).get('RATE.EXCEEDED.STATUS'),
    ).toBeUndefined();
  });
});

describe('PATCH semantics against later reads (the registry’s later-reads judge)', () => {
  test('a later GET must show what a PATCH cleared; a concurrent write, or a later PATCH sending the field, leaves it unjudged', async () => {
    const patch = (start: number, sent: object, got: Record<string, unknown>) =>
      rec('PATCH', '/v0/customers/cus_1', { start, sent, got: customer('cus_1', got) });
    const read = (start: number, got: Record<string, unknown>) =>
      rec('GET', '/v0/customers/cus_1', { start, got: customer('cus_1', got) });
    expect(
      verdicts(await judge([patch(0, { taxId: null }, {}), read(100, { taxId: 'DE1' })], [laterReadsUnit()])).get(
        'CUSTOMERS.TAX_ID.NULL_CLEARS',
      ),
    ).toBe('failed');
    expect(
      verdicts(await judge([patch(0, { taxId: null }, {}), read(100, {})], [laterReadsUnit()])).get(
        'CUSTOMERS.TAX_ID.NULL_CLEARS',
      ),
    ).toBe('passed');
    expect(
      verdicts(
        await judge(
          [patch(0, { taxId: null }, {}), patch(100, { taxId: 'DE2' }, { taxId: 'DE2' }), read(200, { taxId: 'DE2' })],
          [laterReadsUnit()],
        ),
      ).get('CUSTOMERS.TAX_ID.NULL_CLEARS'),
    ).toBeUndefined();
    expect(
      verdicts(
        await judge(
          [patch(0, { taxId: null }, {}), patch(2, { externalId: 'x' }, { taxId: 'DE1' })],
          [laterReadsUnit()],
        ),
      ).get('CUSTOMERS.TAX_ID.NULL_CLEARS'),
    ).toBeUndefined();
  });

  test('a later PATCH answer shows the notification flags earlier ones set and it did not send', async () => {
    const patch = (start: number, flags: object, shown: object) =>
      rec('PATCH', '/v0/customers/cus_1', {
        start,
        sent: { notificationSettings: flags },
        got: customer('cus_1', { notificationSettings: shown }),
      });
    const all = { invoiceIssued: true, invoicePaid: false, renewalReminder: true };
    expect(
      verdicts(
        await judge(
          [patch(0, all, all), patch(100, { invoicePaid: true }, { ...all, invoicePaid: true })],
          [laterReadsUnit()],
        ),
      ).get('CUSTOMERS.NOTIFICATIONS.PARTIAL'),
    ).toBe('passed');
    expect(
      verdicts(
        await judge(
          [
            patch(0, all, all),
            patch(100, { invoicePaid: true }, { invoiceIssued: false, invoicePaid: true, renewalReminder: false }),
          ],
          [laterReadsUnit()],
        ),
      ).get('CUSTOMERS.NOTIFICATIONS.PARTIAL'),
    ).toBe('failed');
  });
});

describe('consistency between exchanges', () => {
  test('a merchant reads back as created (the registry’s round-trip and read-by-id checks)', async () => {
    const m = { name: 'M', email: 'm@x.test', address: { line1: 'a', city: 'b' } };
    const v = verdicts(
      await judge(
        [
          rec('POST', '/v0/merchants', { status: 201, sent: m, got: { id: 'org_n', object: 'merchant', ...m } }),
          rec('GET', '/v0/merchants/org_n', {
            start: 2_000_000,
            got: { id: 'org_n', object: 'merchant', ...m, address: { line1: 'a', city: 'c' } },
          }),
        ],
        [checksUnit()],
      ),
    );
    expect(v.get('MERCHANTS.GET.ROUND_TRIP#fields-as-created')).toBe('failed');
    expect(v.get('MERCHANTS.GET.ROUND_TRIP#answers-resource')).toBe('passed');
  });

  test('webhooks keep the createdAt of their first enabling (the registry’s webhooks-created-at check)', async () => {
    const cfg = (createdAt: string | undefined, enabled: boolean) => ({
      object: 'webhooks',
      applicationId: 'a',
      ...(createdAt ? { createdAt } : {}),
      updatedAt: '2026-01-01T00:00:00Z',
      enabled,
      merchantId: 'org_a',
    });
    const toggles = async (...createdAts: Array<string | undefined>) =>
      verdicts(
        await judge(
          createdAts.map((c, i) =>
            rec('PATCH', '/v0/webhooks', {
              start: 1_000_000 + i * 100,
              sent: { enabled: i % 2 === 1 },
              got: cfg(c, i % 2 === 1),
            }),
          ),
          [checksUnit()],
        ),
      ).get('WEBHOOKS.CREATED_AT.FIRST_ENABLED');
    expect(await toggles('2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z')).toBe('passed');
    expect(await toggles('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z')).toBe('failed');
    expect(await toggles('2026-01-01T00:00:00Z', undefined)).toBe('failed');
    expect(await toggles('2026-01-01T00:00:00Z')).toBeUndefined();
  });
});

describe('the state in traffic (the registry’s deleted-gone and timestamps-course judges)', () => {
  const GONE = 'CUSTOMERS.DELETE.GONE#reads-404';
  const del = rec('DELETE', '/v0/customers/cus_1', { status: 204, start: 1_000_000, duration: 10 });
  const readAt = (start: number, status: number) =>
    rec('GET', '/v0/customers/cus_1', { start, status, got: status === 200 ? customer('cus_1') : { message: 'gone' } });

  test('a customer read after its delete was answered must be gone: 200 fails, 404 holds; a read sent before the answer judges nothing', async () => {
    const v = async (...records: ReturnType<typeof rec>[]) => verdicts(await judge(records, [stateUnit()])).get(GONE);
    expect(await v(del, readAt(1_000_020, 200))).toBe('failed');
    expect(await v(del, readAt(1_000_020, 404))).toBe('passed');
    expect(await v(del, readAt(1_000_005, 200))).toBeUndefined();
    expect(
      await v(rec('DELETE', '/v0/customers/cus_1', { status: 409, got: { message: 'x' } }), readAt(1_000_020, 200)),
    ).toBeUndefined();
  });

  test('createdAt never changes and updatedAt never goes back between answers that follow each other; +00:00 and Z are the same instant', async () => {
    const at = (start: number, createdAt: string, updatedAt: string) =>
      rec('GET', '/v0/customers/cus_1', { start, got: customer('cus_1', { createdAt, updatedAt }) });
    const first = at(1_000_000, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z');
    const v = async (later: ReturnType<typeof rec>) => verdicts(await judge([first, later], [stateUnit()]));
    const moved = await v(at(1_000_100, '2026-01-01T00:00:01Z', '2026-01-02T00:00:00Z'));
    expect(moved.get('CONV.TIMESTAMPS.LIFECYCLE#created-fixed')).toBe('failed');
    const back = await v(at(1_000_100, '2026-01-01T00:00:00Z', '2026-01-01T12:00:00Z'));
    expect(back.get('CONV.TIMESTAMPS.LIFECYCLE#updated-not-back')).toBe('failed');
    // Sent before the first was answered: it may have been served first.
    const overlapping = await v(at(1_000_002, '2026-01-01T00:00:00Z', '2026-01-01T12:00:00Z'));
    expect(overlapping.get('CONV.TIMESTAMPS.LIFECYCLE#updated-not-back')).toBeUndefined();
    const same = await v(at(1_000_100, '2026-01-01T00:00:00.000+00:00', '2026-01-02T00:00:00.000+00:00'));
    expect([
      same.get('CONV.TIMESTAMPS.LIFECYCLE#created-fixed'),
      same.get('CONV.TIMESTAMPS.LIFECYCLE#updated-not-back'),
    ]).toEqual(['passed', 'passed']);
  });
});

describe('auth and the check registry', () => {
  test('a request without a bearer token must get 401 (the registry’s bearer-required check)', async () => {
    expect(
      verdicts(
        await judge(
          [rec('GET', '/v0/customers/cus_1', { key: null, status: 200, got: customer('cus_1') })],
          [checksUnit()],
        ),
      ).get('AUTH.BEARER.REQUIRED'),
    ).toBe('failed');
    expect(
      verdicts(
        await judge(
          [rec('GET', '/v0/customers/cus_1', { key: null, status: 401, got: { message: 'no key' } })],
          [checksUnit()],
        ),
      ).get('AUTH.BEARER.REQUIRED'),
    ).toBe('passed');
    // A bearer key the target refuses is another rule's: not judged here.
    expect(
      verdicts(
        await judge([rec('GET', '/v0/customers/cus_1', { status: 401, got: { message: 'bad key' } })], [checksUnit()]),
      ).get('AUTH.BEARER.REQUIRED'),
    ).toBeUndefined();
  });

  test('the registry of conform run judges every exchange; extensions and unknown paths are never judged', async () => {
    const o = await judge(
      [
        rec('GET', '/v0/customers/cus_1', { got: customer('cus_1', { id: 'customer-1' }) }),
        rec('GET', '/v0/items/itm_1', { got: { id: 'nonsense' } }),
        rec('GET', '/somewhere/else', { status: 500, got: { oops: true } }),
      ],
      [checksUnit()],
    );
    const v = verdicts(o);
    expect(v.get('CONV.ID.PATTERNS')).toBe('failed');
    expect(o.unjudgedExchanges).toBe(2);
    expect(v.get('STATUS.DOCUMENTED.ONLY')).toBe('passed');
  });
});

describe('429 messages specific to the endpoint (the registry’s rate-messages check)', () => {
  test('two listed endpoints with the same 429 message fail RATE.EXCEEDED.BODY#endpoint-specific; different ones hold it', async () => {
    const tooMany = (path: string, message: string) =>
      rec('GET', path, { status: 429, got: { error: 'rate_limit_exceeded', message } });
    const same = await judge(
      [tooMany('/v0/customers', 'Too many requests'), tooMany('/v0/costs/report', 'Too many requests')],
      [checksUnit()],
    );
    expect(verdicts(same).get('RATE.EXCEEDED.BODY#endpoint-specific')).toBe('failed');
    const differ = await judge(
      [
        tooMany('/v0/customers', 'GET /v0/customers: 60 per 6 s'),
        tooMany('/v0/costs/report', 'GET /v0/costs/report: 600 per minute'),
      ],
      [checksUnit()],
    );
    expect(verdicts(differ).get('RATE.EXCEEDED.BODY#endpoint-specific')).toBe('passed');
  });
});

describe('benign answers are never failed', () => {
  test('keys in another order, extra fields, a 200 for a 201: the answers hold', async () => {
    const sent = { conditions: [{ type: 'amount', operator: 'gt', value: 5 }], name: 'r' };
    const got = {
      id: 'sr_1',
      extra: true,
      name: 'r',
      conditions: [{ value: 5, operator: 'gt', type: 'amount', id: 'cond_1' }],
    };
    const v = verdicts(await judge([rec('PATCH', '/v0/sourceRules/sr_1', { sent, got })], [checksUnit()]));
    expect(v.get('SOURCE_RULES.UPDATE.PARTIAL#applies-sent')).toBe('passed');
    const product = { name: 'P', description: 'D', merchantId: 'org_a' };
    const stamps = { createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00+00:00' };
    const p = verdicts(
      await judge(
        [
          rec('POST', '/v0/products', {
            status: 200,
            sent: product,
            got: { id: 'prod_1', object: 'product', metadata: {}, extra: 1, ...product, ...stamps },
          }),
        ],
        [checksUnit()],
      ),
    );
    expect(p.get('PRODUCTS.CREATE.OBJECT')).toBe('passed');
    const withMetadata = { ...product, metadata: { tier: 'gold', seats: 3 } };
    const created = async (metadata: unknown) =>
      verdicts(
        await judge(
          [
            rec('POST', '/v0/products', {
              status: 201,
              sent: withMetadata,
              got: { id: 'prod_1', object: 'product', ...product, ...stamps, metadata },
            }),
          ],
          [checksUnit()],
        ),
      ).get('PRODUCTS.CREATE.OBJECT');
    expect(await created({ seats: 3, tier: 'gold' })).toBe('passed');
    expect(await created({})).toBe('failed');
  });
});

describe('a PATCH keeps what it does not send (the registry’s partial-updates check)', () => {
  test('two PATCH answers of one customer: an unsent field changed fails CUSTOMERS.UPDATE.PARTIAL; kept holds it; another write between starts afresh', async () => {
    const patch = (start: number, sent: object, shown: Record<string, unknown>, status = 200) =>
      rec('PATCH', '/v0/customers/cus_1', { start, status, sent, got: customer('cus_1', shown) });
    const keep = await judge(
      [
        patch(0, { externalId: 'a', taxId: 'T1' }, { externalId: 'a', taxId: 'T1' }),
        patch(100, { externalId: 'b' }, { externalId: 'b', taxId: 'T1' }),
      ],
      [checksUnit()],
    );
    expect(verdicts(keep).get('CUSTOMERS.UPDATE.PARTIAL')).toBe('passed');
    const wipe = await judge(
      [
        patch(0, { externalId: 'a', taxId: 'T1' }, { externalId: 'a', taxId: 'T1' }),
        patch(100, { externalId: 'b' }, { externalId: 'b' }),
      ],
      [checksUnit()],
    );
    expect(verdicts(wipe).get('CUSTOMERS.UPDATE.PARTIAL')).toBe('failed');
    expect(messages(wipe, 'CUSTOMERS.UPDATE.PARTIAL')[0]).toContain('taxId was "T1", now nothing');
    const refused = await judge(
      [
        patch(0, { taxId: 'T1' }, { taxId: 'T1' }),
        rec('DELETE', '/v0/customers/cus_1', { start: 50, status: 409, got: { message: 'blocked' } }),
        patch(100, { externalId: 'b' }, {}),
      ],
      [checksUnit()],
    );
    expect(verdicts(refused).get('CUSTOMERS.UPDATE.PARTIAL'), 'a refused write changes nothing').toBe('failed');
    const between = await judge(
      [
        patch(0, { taxId: 'T1' }, { taxId: 'T1' }),
        rec('POST', '/v0/customers/cus_1', { start: 50, status: 200, got: {} }),
        patch(100, { externalId: 'b' }, {}),
      ],
      [checksUnit()],
    );
    expect(verdicts(between).get('CUSTOMERS.UPDATE.PARTIAL')).toBeUndefined();
    const overlapping = await judge(
      [patch(0, { taxId: 'T1' }, { taxId: 'T1' }), patch(2, { externalId: 'b' }, {})],
      [checksUnit()],
    );
    expect(verdicts(overlapping).get('CUSTOMERS.UPDATE.PARTIAL')).toBeUndefined();
  });

  test('a PATCH of some notificationSettings flags keeps the others (CUSTOMERS.NOTIFICATIONS.PARTIAL), and so does a PATCH without them', async () => {
    const flags = (invoiceIssued: boolean, invoicePaid: boolean) => ({
      notificationSettings: { invoiceIssued, invoicePaid, renewalReminder: true },
    });
    const patch = (start: number, sent: object, shown: object) =>
      rec('PATCH', '/v0/customers/cus_1', { start, sent, got: customer('cus_1', shown as Record<string, unknown>) });
    const first = patch(0, flags(true, false), flags(true, false));
    const kept = await judge(
      [first, patch(100, { notificationSettings: { invoicePaid: true } }, flags(true, true))],
      [checksUnit()],
    );
    expect(verdicts(kept).get('CUSTOMERS.NOTIFICATIONS.PARTIAL')).toBe('passed');
    const reset = await judge(
      [first, patch(100, { notificationSettings: { invoicePaid: true } }, flags(false, true))],
      [checksUnit()],
    );
    expect(verdicts(reset).get('CUSTOMERS.NOTIFICATIONS.PARTIAL')).toBe('failed');
    expect(messages(reset, 'CUSTOMERS.NOTIFICATIONS.PARTIAL')[0]).toContain('invoiceIssued was true, now false');
    // A PATCH without flags: the flags an earlier PATCH set still read as set (the later-reads judge).
    const other = await judge([first, patch(100, { taxId: 'T' }, flags(true, false))], [checksUnit()]);
    expect(verdicts(other).get('CUSTOMERS.NOTIFICATIONS.PARTIAL')).toBe('passed');
    const otherReset = await judge([first, patch(100, { taxId: 'T' }, flags(false, false))], [checksUnit()]);
    expect(verdicts(otherReset).get('CUSTOMERS.NOTIFICATIONS.PARTIAL')).toBe('failed');
  });

  test("an item PATCH that does not send archived keeps whether archivedAt is set (its time is the target's own)", async () => {
    const item = (archivedAt: string | null, name: string) => ({
      id: 'itm_1',
      object: 'item',
      merchantId: 'org_a',
      name,
      catalogId: 'prod_1',
      metadata: {},
      archivedAt,
    });
    const patch = (start: number, sent: object, got: object) => rec('PATCH', '/v0/items/itm_1', { start, sent, got });
    const afterArchive = async (archivedAt: string | null) =>
      verdicts(
        await judge(
          [
            patch(0, { archived: true }, item('2026-01-01T00:00:00Z', 'n')),
            patch(100, { name: 'm' }, item(archivedAt, 'm')),
          ],
          [checksUnit()],
        ),
      ).get('ITEMS.UPDATE.PARTIAL');
    expect(await afterArchive('2026-01-01T00:00:00Z')).toBe('passed');
    expect(await afterArchive('2026-01-01T00:00:00.000Z'), 'the same state, written otherwise').toBe('passed');
    expect(await afterArchive(null)).toBe('failed');
    const unarchived = await judge(
      [
        patch(0, { archived: true }, item('2026-01-01T00:00:00Z', 'n')),
        patch(100, { archived: false }, item(null, 'n')),
      ],
      [checksUnit()],
    );
    expect(
      verdicts(unarchived).get('ITEMS.UPDATE.PARTIAL'),
      'sent: nothing kept is judged but name, catalogId, metadata',
    ).toBe('passed');
  });
});

describe('answers whose rule gained a part the registry judges (split from what a scenario knows)', () => {
  const verdictOf = async (r: ReturnType<typeof rec>, key: string) =>
    verdicts(await judge([r], [checksUnit()])).get(key);

  test('an alerts page asked with a limit holds at most that many, and pagination.limit, where present, is it', async () => {
    const alert = (i: number) => ({ id: `alert_${i}`, object: 'alert', resourceId: 'wal_1' });
    const page = (n: number, limit: unknown) =>
      rec('GET', '/v0/alerts?resourceId=wal_1&limit=2', {
        got: { object: 'list', data: [...Array(n).keys()].map(alert), pagination: { limit, offset: 0, total: 5 } },
      });
    const key = 'ALERTS.LIST.LIMIT_RANGE#page-within-limit';
    expect(await verdictOf(page(2, 2), key)).toBe('passed');
    expect(await verdictOf(page(3, 2), key)).toBe('failed');
    expect(await verdictOf(page(2, 10), key)).toBe('failed');
  });

  test('a schedule created carries the endDate sent (the instant, whatever its form) and is owned by the order sent', async () => {
    const sent = { orderId: 'ord_1', startDate: '2026-01-01T00:00:00Z', endDate: '2026-04-01T00:00:00Z' };
    const created = (got: Record<string, unknown>) =>
      rec('POST', '/v0/billingSchedules', {
        status: 201,
        sent,
        got: { id: 'bs_1', object: 'billing_schedule', orderId: 'ord_1', endDate: sent.endDate, ...got },
      });
    expect(await verdictOf(created({ endDate: '2026-04-01T00:00:00.000+00:00' }), 'SCHEDULES.END_DATE.PRESENT')).toBe(
      'passed',
    );
    expect(await verdictOf(created({ endDate: '2026-05-01T00:00:00Z' }), 'SCHEDULES.END_DATE.PRESENT')).toBe('failed');
    expect(await verdictOf(created({ orderId: 'ord_2' }), 'SCHEDULES.CREATE.BY_ORDER#owned-by-order')).toBe('failed');
  });

  test('an auto top-up configuration answered to limit.period day keeps day', async () => {
    const updated = (period: string) =>
      rec('PATCH', '/v0/wallets/wal_1/autoTopupConfig', {
        sent: { limit: { amount: 100, period: 'day' } },
        got: { object: 'autoTopupConfig', limit: { amount: 100, period } },
      });
    expect(await verdictOf(updated('day'), 'WALLETS.AUTO_TOPUP.PERIOD_DAY#kept')).toBe('passed');
    expect(await verdictOf(updated('week'), 'WALLETS.AUTO_TOPUP.PERIOD_DAY#kept')).toBe('failed');
  });
});
