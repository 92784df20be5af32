/**
 * The one-exchange judgements of an answer against its request are one implementation: the
 * same exchanges, correct answers and wrong ones, given to the check registry as `conform run`
 * applies it (runChecks, in the context a scenario builds) and recorded in a HAR file that the
 * passive judge reads as `conform judge` does, are judged under the same rules, and the same
 * ones fail. Each exchange goes in a HAR of its own, so judgements across exchanges stay out.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRules, loadSpec, type RuleIndex, type Spec } from '../../src/contract/index.ts';
import { ANSWER_CHECKS, CHECKS, checkContextFor, runChecks, type Check } from '../../src/engine/checks/index.ts';
import { judgeHar } from '../../src/passive/har.ts';
import type { Exchange } from '../../src/engine/types.ts';

const BASE = 'http://billing.test';
const KEY = 'sk_test_parity_0123456789abcdef';
/** The rules the answer checks judge, and the refund prefix they judged before it joined id-patterns. */
const RULES = new Set([...ANSWER_CHECKS.flatMap((c) => c.ruleIds), 'REFUNDS.ID.PREFIX']);

interface Case {
  name: string;
  method: string;
  path: string;
  status: number;
  sent?: unknown;
  got: unknown;
  /** Sent without a key. */
  anonymous?: boolean;
}

const exchange = (c: Case): Exchange => ({
  method: c.method,
  path: c.path,
  url: `${BASE}${c.path}`,
  requestHeaders: {
    ...(c.anonymous ? {} : { authorization: `Bearer ${KEY}` }),
    ...(c.sent === undefined ? {} : { 'content-type': 'application/json' }),
  },
  ...(c.sent === undefined ? {} : { requestBody: c.sent }),
  status: c.status,
  responseHeaders: { 'content-type': 'application/json' },
  body: c.got,
  rawBody: JSON.stringify(c.got),
  durationMs: 3,
  startedAt: '2026-03-01T10:00:00.000Z',
});

/** The HAR a client's recorder (or `conform proxy --har`) keeps of the exchange. */
const harOf = (ex: Exchange) => ({
  log: {
    version: '1.2',
    creator: { name: 'parity-test', version: '1' },
    entries: [
      {
        startedDateTime: ex.startedAt,
        time: ex.durationMs,
        request: {
          method: ex.method,
          url: ex.url,
          headers: Object.entries(ex.requestHeaders).map(([name, value]) => ({ name, value })),
          ...(ex.requestBody === undefined
            ? {}
            : { postData: { mimeType: 'application/json', text: JSON.stringify(ex.requestBody) } }),
        },
        response: {
          status: ex.status,
          headers: Object.entries(ex.responseHeaders).map(([name, value]) => ({ name, value })),
          content: { mimeType: 'application/json', text: ex.rawBody },
        },
      },
    ],
  },
});

interface Verdicts {
  judged: string[];
  failed: string[];
}

const only = (keys: Iterable<string>) => [...new Set(keys)].filter((k) => RULES.has(k)).sort();

let dir: string;
let spec: Spec;
let rules: RuleIndex;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conform-parity-'));
  [spec, rules] = await Promise.all([loadSpec(), loadRules()]);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** (a) the registry on the exchange, as a scenario of `conform run` runs it. */
function byRun(ex: Exchange, checks: readonly Check[] = CHECKS): Verdicts {
  const ctx = checkContextFor({ spec, rules }, ex, { unauthenticated: !ex.requestHeaders.authorization });
  const outcome = runChecks(ex, ctx, checks);
  expect(outcome.errors).toEqual([]);
  return { judged: only(outcome.judged), failed: only(outcome.findings.flatMap((f) => f.ruleIds)) };
}

/** (b) the passive judge over the exchange's HAR recording, as `conform judge` reads it. */
async function byJudge(ex: Exchange): Promise<Verdicts> {
  const path = join(dir, `exchange-${(files += 1)}.har`);
  await writeFile(path, JSON.stringify(harOf(ex)));
  const { outcome } = await judgeHar(path, { baseUrl: BASE });
  expect(outcome.errors).toEqual([]);
  expect(outcome.exchanges).toBe(1);
  return {
    judged: only(outcome.sources.flatMap((s) => [...Object.keys(s.judged), ...Object.keys(s.failed)])),
    failed: only(outcome.sources.flatMap((s) => Object.keys(s.failed))),
  };
}

const customer = (id: string, x: object = {}) => ({ id, object: 'customer', merchantId: 'org_a', ...x });
const refund = (x: object = {}) => ({
  id: 'crn_1',
  object: 'invoice_refund',
  invoiceId: 'inv_1',
  amount: '10.00',
  taxAmount: '1.00',
  total: '11.00',
  status: 'ISSUED',
  reason: 'duplicate',
  ...x,
});
const schedule = (x: object = {}) => ({
  id: 'bs_1',
  object: 'billing_schedule',
  orderId: 'ord_1',
  endDate: '2027-01-01T00:00:00Z',
  ...x,
});
const intervals = (data: unknown[], x: object = {}) => ({
  object: 'list',
  data,
  pagination: { limit: 10, offset: 0, total: data.length },
  ...x,
});
const alerts = (n: number, pagination: object = {}) =>
  intervals(
    Array.from({ length: n }, (_, i) => ({ id: `alert_${i}`, object: 'alert' })),
    { pagination: { limit: 10, offset: 0, total: n, ...pagination } },
  );
const webhooks = (enabled: boolean, merchantId = 'org_a', x: object = {}) => ({
  object: 'webhooks',
  applicationId: 'app_1',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
  enabled,
  merchantId,
  ...x,
});
const item = (x: object = {}) => ({
  id: 'itm_1',
  object: 'item',
  name: 'n',
  catalogId: 'cat_1',
  metadata: {},
  archivedAt: null,
  ...x,
});
const alert = (x: object = {}) => ({ id: 'alert_1', object: 'alert', enabled: true, recipients: ['a@x.test'], ...x });
const topup = (x: object = {}) => ({
  object: 'autoTopupConfig',
  amount: '10.00',
  threshold: '2.00',
  limit: { amount: 100, period: 'day' },
  ...x,
});
const PRODUCT = { name: 'P', description: 'D', merchantId: 'org_a', metadata: { tier: 'gold' } };
const STAMPS = { createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' };
const ARCHIVED = '2026-02-01T00:00:00Z';

/** Correct and wrong answers for each rule part the answer checks judge. */
const CASES: Case[] = [
  { name: 'customer read', method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer('cus_1') },
  { name: 'another customer read', method: 'GET', path: '/v0/customers/cus_1', status: 200, got: customer('cus_2') },
  {
    name: 'price read',
    method: 'GET',
    path: '/v0/prices/price_1',
    status: 200,
    got: { id: 'price_1', object: 'price' },
  },
  {
    name: 'a fee for a price',
    method: 'GET',
    path: '/v0/prices/price_1',
    status: 200,
    got: { id: 'price_1', object: 'fee' },
  },
  {
    name: 'payment read',
    method: 'GET',
    path: '/v0/payments/pay_1',
    status: 200,
    got: { id: 'pay_1', object: 'payment' },
  },
  {
    name: 'another payment',
    method: 'GET',
    path: '/v0/payments/pay_1',
    status: 200,
    got: { id: 'pay_2', object: 'payment' },
  },
  {
    name: 'merchant read',
    method: 'GET',
    path: '/v0/merchants/org_m1',
    status: 200,
    got: { id: 'org_m1', object: 'merchant', name: 'M' },
  },
  {
    name: 'another merchant',
    method: 'GET',
    path: '/v0/merchants/org_m1',
    status: 200,
    got: { id: 'org_m2', object: 'merchant', name: 'M' },
  },
  {
    name: 'product created',
    method: 'POST',
    path: '/v0/products',
    status: 201,
    sent: PRODUCT,
    got: { id: 'prod_1', object: 'product', ...PRODUCT, ...STAMPS },
  },
  {
    name: 'product without its metadata',
    method: 'POST',
    path: '/v0/products',
    status: 201,
    sent: PRODUCT,
    got: { id: 'prod_1', object: 'product', ...PRODUCT, ...STAMPS, metadata: {} },
  },
  {
    name: 'refund',
    method: 'POST',
    path: '/v2/invoices/inv_1/refunds',
    status: 201,
    sent: { reason: 'duplicate' },
    got: refund(),
  },
  {
    name: 'refund of another invoice, off its prefix, status and sum, reason lost',
    method: 'POST',
    path: '/v2/invoices/inv_1/refunds',
    status: 201,
    sent: { reason: 'duplicate' },
    got: refund({ id: 'cn_1', invoiceId: 'inv_2', status: 'PAID', total: '11.01', reason: 'other' }),
  },
  {
    name: 'refund amounts as numbers',
    method: 'POST',
    path: '/v2/invoices/inv_1/refunds',
    status: 201,
    got: refund({ amount: 10, taxAmount: 1, total: 11 }),
  },
  {
    name: 'schedule by order',
    method: 'POST',
    path: '/v0/billingSchedules',
    status: 201,
    sent: { orderId: 'ord_1' },
    got: schedule(),
  },
  {
    name: 'schedule of another order, two owners, no endDate',
    method: 'POST',
    path: '/v0/billingSchedules',
    status: 201,
    sent: { orderId: 'ord_1' },
    got: schedule({ orderId: 'ord_2', subscriptionId: 'sub_1', endDate: undefined }),
  },
  {
    name: 'schedule by subscription refused',
    method: 'POST',
    path: '/v0/billingSchedules',
    status: 400,
    sent: { subscriptionId: 'sub_1' },
    got: { message: 'send orderId' },
  },
  {
    name: 'schedule by subscription created',
    method: 'POST',
    path: '/v0/billingSchedules',
    status: 201,
    sent: { subscriptionId: 'sub_1' },
    got: schedule({ orderId: undefined, subscriptionId: 'sub_1' }),
  },
  {
    name: 'intervals of the schedule',
    method: 'GET',
    path: '/v0/billingSchedules/bs_1/intervals',
    status: 200,
    got: intervals([{ id: 'si_1', object: 'schedule_interval', scheduleId: 'bs_1' }]),
  },
  {
    name: 'intervals of another schedule',
    method: 'GET',
    path: '/v0/billingSchedules/bs_1/intervals',
    status: 200,
    got: intervals([{ id: 'si_2', object: 'schedule_interval', scheduleId: 'bs_2' }]),
  },
  {
    name: 'intervals without pagination',
    method: 'GET',
    path: '/v0/billingSchedules/bs_1/intervals',
    status: 200,
    got: { object: 'list', data: [] },
  },
  { name: 'default alerts page', method: 'GET', path: '/v0/alerts?resourceId=wal_1', status: 200, got: alerts(3) },
  {
    name: 'default alerts page of 11',
    method: 'GET',
    path: '/v0/alerts?resourceId=wal_1',
    status: 200,
    got: alerts(11),
  },
  {
    name: 'alerts page within its limit, from its offset',
    method: 'GET',
    path: '/v0/alerts?resourceId=wal_1&limit=5&offset=2',
    status: 200,
    got: alerts(3, { limit: 5, offset: 2 }),
  },
  {
    name: 'alerts page over its limit, from offset 0',
    method: 'GET',
    path: '/v0/alerts?resourceId=wal_1&limit=2&offset=2',
    status: 200,
    got: alerts(3, { limit: 2, offset: 0 }),
  },
  {
    name: 'alerts limit 0 accepted: the request is broken, only the validation rules judge it',
    method: 'GET',
    path: '/v0/alerts?resourceId=wal_1&limit=0',
    status: 200,
    got: alerts(3),
  },
  {
    name: 'webhooks enabled',
    method: 'PATCH',
    path: '/v0/webhooks',
    status: 200,
    sent: { enabled: true },
    got: webhooks(true),
  },
  {
    name: 'webhooks left enabled',
    method: 'PATCH',
    path: '/v0/webhooks',
    status: 200,
    sent: { enabled: false },
    got: webhooks(true),
  },
  {
    name: 'webhooks disabled for the merchant named',
    method: 'PATCH',
    path: '/v0/webhooks?merchantId=org_b',
    status: 200,
    sent: { enabled: false },
    got: webhooks(false, 'org_b'),
  },
  {
    name: "webhooks left disabled, of the key's merchant, not a configuration",
    method: 'PATCH',
    path: '/v0/webhooks?merchantId=org_b',
    status: 200,
    sent: { enabled: true },
    got: webhooks(false, 'org_a', { object: 'webhook', applicationId: '' }),
  },
  {
    name: 'item archived',
    method: 'PATCH',
    path: '/v0/items/itm_1',
    status: 200,
    sent: { archived: true },
    got: item({ archivedAt: ARCHIVED }),
  },
  {
    name: 'item not archived',
    method: 'PATCH',
    path: '/v0/items/itm_1',
    status: 200,
    sent: { archived: true },
    got: item(),
  },
  {
    name: 'item unarchived',
    method: 'PATCH',
    path: '/v0/items/itm_1',
    status: 200,
    sent: { archived: false },
    got: item(),
  },
  {
    name: 'item left archived',
    method: 'PATCH',
    path: '/v0/items/itm_1',
    status: 200,
    sent: { archived: false },
    got: item({ archivedAt: ARCHIVED }),
  },
  {
    name: 'customer fields cleared, one rate, flags held',
    method: 'PATCH',
    path: '/v0/customers/cus_1',
    status: 200,
    sent: { taxId: null, externalId: null, taxRates: 20, notificationSettings: { invoicePaid: false } },
    got: customer('cus_1', {
      taxRates: { default: 20, plan_1: 20 },
      notificationSettings: { invoicePaid: false, invoiceIssued: true },
    }),
  },
  {
    name: 'customer fields kept, two rates, flags lost',
    method: 'PATCH',
    path: '/v0/customers/cus_1',
    status: 200,
    sent: { taxId: null, externalId: null, taxRates: 20, notificationSettings: { invoicePaid: false } },
    got: customer('cus_1', {
      taxId: 'tax_1',
      externalId: 'ext_1',
      taxRates: { default: 20, plan_1: 7 },
      notificationSettings: { invoicePaid: true },
    }),
  },
  {
    name: 'customer taxRates 101 accepted: the request is broken, only the validation rules judge it',
    method: 'PATCH',
    path: '/v0/customers/cus_1',
    status: 200,
    sent: { taxRates: 101 },
    got: customer('cus_1', { taxRates: { default: 7 } }),
  },
  {
    name: 'source rule updated',
    method: 'PATCH',
    path: '/v0/sourceRules/sr_1',
    status: 200,
    sent: { name: 'r', conditions: [{ type: 'amount', operator: 'gt', value: 5 }] },
    got: { id: 'sr_1', name: 'r', conditions: [{ value: 5, operator: 'gt', type: 'amount', id: 'c_1' }] },
  },
  {
    name: 'source rule not updated',
    method: 'PATCH',
    path: '/v0/sourceRules/sr_1',
    status: 200,
    sent: { enabled: false },
    got: { id: 'sr_1', name: 'r', enabled: true },
  },
  {
    name: 'alert updated',
    method: 'PATCH',
    path: '/v0/alerts/alert_1?resource=wallet',
    status: 200,
    sent: { enabled: false, config: { threshold: '1.00' } },
    got: alert({ enabled: false }),
  },
  {
    name: 'alert not updated',
    method: 'PATCH',
    path: '/v0/alerts/alert_1?resource=wallet',
    status: 200,
    sent: { recipients: ['b@x.test'] },
    got: alert(),
  },
  {
    name: 'auto top-up set, 10.5 held as 10.50, period day',
    method: 'PATCH',
    path: '/v0/wallets/wal_1/autoTopupConfig',
    status: 200,
    sent: { amount: '10.5', limit: { amount: 100, period: 'day' } },
    got: topup({ amount: '10.50' }),
  },
  {
    name: 'auto top-up not set, period lost',
    method: 'PATCH',
    path: '/v0/wallets/wal_1/autoTopupConfig',
    status: 200,
    sent: { threshold: '5.00', limit: { amount: 100, period: 'day' } },
    got: topup({ limit: { amount: 100, period: 'week' } }),
  },
  {
    name: 'a customer read without a key: the auth rules judge it',
    method: 'GET',
    path: '/v0/customers/cus_1',
    status: 200,
    got: customer('cus_2'),
    anonymous: true,
  },
  {
    name: 'a refusal: the error rules judge it',
    method: 'PATCH',
    path: '/v0/items/itm_1',
    status: 409,
    sent: { archived: true },
    got: { message: 'in use' },
  },
  {
    name: 'an extension operation: never judged',
    method: 'GET',
    path: '/v0/items/itm_1',
    status: 200,
    got: item({ id: 'itm_2' }),
  },
];

describe('one-exchange judgements: conform run and conform judge agree', () => {
  test('every case is judged the same way by the registry and by the passive judge over its HAR', async () => {
    const differ: string[] = [];
    for (const c of CASES) {
      const ex = exchange(c);
      const [run, judged] = [byRun(ex), await byJudge(ex)];
      if (JSON.stringify(run) !== JSON.stringify(judged))
        differ.push(`${c.name}: run ${JSON.stringify(run)}, judge ${JSON.stringify(judged)}`);
    }
    expect(differ).toEqual([]);
  });

  test('the cases hold and break every rule part the answer checks judge, and broken or foreign requests judge none', () => {
    const held = new Set<string>();
    const broken = new Set<string>();
    const judgedNothing: string[] = [];
    for (const c of CASES) {
      const v = byRun(exchange(c));
      for (const k of v.judged) (v.failed.includes(k) ? broken : held).add(k);
      if (!v.judged.length) judgedNothing.push(c.name);
    }
    expect([...RULES].filter((k) => !held.has(k)).sort(), 'parts no case holds').toEqual([]);
    expect([...RULES].filter((k) => !broken.has(k)).sort(), 'parts no case breaks').toEqual([]);
    expect(judgedNothing).toEqual([
      'alerts limit 0 accepted: the request is broken, only the validation rules judge it',
      'customer taxRates 101 accepted: the request is broken, only the validation rules judge it',
      'a customer read without a key: the auth rules judge it',
      'a refusal: the error rules judge it',
      'an extension operation: never judged',
    ]);
  });

  test('the comparison fails when the run side loses a check', async () => {
    const ex = exchange(
      CASES.find((c) => c.name === 'refund of another invoice, off its prefix, status and sum, reason lost')!,
    );
    const without = CHECKS.filter((c) => c.name !== 'refund-total');
    expect(byRun(ex, without)).not.toEqual(await byJudge(ex));
    expect(byRun(ex)).toEqual(await byJudge(ex));
  });
});
