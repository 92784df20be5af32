/** Billing schedules: POST /v0/billingSchedules, GET .../{id}/intervals, DELETE .../{id}. */
import { randomBytes } from 'node:crypto';
import { bodyOf, expectAll, fault, got, is2xx, json, on, R, req, T0, type Json } from './helpers.ts';
import type { CatalogFault } from './types.ts';

const SUITES = ['billing-schedules'];
const schedule = (over: Json = {}): Json => ({
  object: 'billing_schedule',
  id: 'bs_demo1',
  merchantId: 'org_demo1',
  orderId: 'ord_demo1',
  startDate: T0,
  endDate: '2030-04-01T00:00:00.000Z',
  metadata: {},
  createdAt: T0,
  updatedAt: T0,
  ...over,
});
const intervals = (scheduleId: string): Json => ({
  object: 'list',
  data: [{ object: 'schedule_interval', id: 'si_1', scheduleId }],
  pagination: { limit: 10, offset: 0, total: 1 },
});
const create = (body: Json) => req('POST', '/v0/billingSchedules', body);

export const scheduleFaults: CatalogFault[] = [
  fault({
    name: 'schedules-no-endDate',
    area: 'billing-schedules',
    description: 'a created schedule comes back without endDate',
    rules: ['SCHEDULES.END_DATE.PRESENT'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.schedules) || !is2xx(res) || b?.endDate === undefined) return;
      delete b.endDate;
      ctx.applied();
    },
    demo: {
      steps: [{ req: create({ orderId: 'ord_demo1' }), res: json(201, schedule()) }],
      verify: (o) =>
        expectAll([got(o)?.object === 'billing_schedule' && got(o)?.endDate === undefined, 'endDate still there']),
    },
  }),
  fault({
    name: 'schedules-by-subscription-accepted',
    area: 'billing-schedules',
    description:
      'a schedule created with subscriptionId alone is accepted (201) although creation by subscription is unsupported',
    rules: ['SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'POST', R.schedules) || !b?.subscriptionId || b.orderId) return;
      ctx.applied();
      const now = new Date().toISOString();
      return json(201, {
        object: 'billing_schedule',
        id: `bs_conformFault${randomBytes(4).toString('hex')}`,
        subscriptionId: b.subscriptionId,
        startDate: b.startDate ?? now,
        endDate: b.endDate ?? now,
        metadata: {},
        createdAt: now,
        updatedAt: now,
      });
    },
    demo: {
      steps: [{ req: create({ subscriptionId: 'sub_demo1' }), res: json(400, { message: 'send orderId' }) }],
      verify: (o) => expectAll([o.response.status === 201 && o.forwarded === undefined, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'schedules-two-owners',
    area: 'billing-schedules',
    description: 'a schedule created for an order also names a subscription as owner',
    rules: ['SCHEDULES.OWNER.EXACTLY_ONE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.schedules) || !is2xx(res) || !b?.orderId) return;
      b.subscriptionId = 'sub_conformSecondOwner';
      ctx.applied();
    },
    demo: {
      steps: [{ req: create({ orderId: 'ord_demo1' }), res: json(201, schedule()) }],
      verify: (o) =>
        expectAll([
          got(o)?.orderId === 'ord_demo1' && got(o)?.subscriptionId === 'sub_conformSecondOwner',
          'one owner only',
        ]),
    },
  }),
  fault({
    name: 'schedules-intervals-of-other-schedule',
    area: 'billing-schedules',
    description: 'the intervals list names another schedule in scheduleId',
    rules: ['SCHEDULES.INTERVALS.PAGINATED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'GET', R.intervals) || res.status !== 200 || !Array.isArray(b?.data) || !b.data.length) return;
      for (const d of b.data) if (d && typeof d === 'object') d.scheduleId = 'bs_conformSomeOtherSchedule';
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('GET', '/v0/billingSchedules/bs_demo1/intervals'), res: json(200, intervals('bs_demo1')) }],
      verify: (o) =>
        expectAll([got(o)?.data?.[0]?.scheduleId === 'bs_conformSomeOtherSchedule', 'scheduleId unchanged']),
    },
  }),
  fault({
    name: 'schedules-intervals-bare-array',
    area: 'billing-schedules',
    description: 'the intervals come as a bare array, without the list envelope and pagination',
    rules: ['SCHEDULES.INTERVALS.PAGINATED', 'CONV.LIST.ENVELOPE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'GET', R.intervals) || res.status !== 200 || !Array.isArray(b?.data)) return;
      ctx.applied();
      return json(200, b.data);
    },
    demo: {
      steps: [{ req: req('GET', '/v0/billingSchedules/bs_demo1/intervals'), res: json(200, intervals('bs_demo1')) }],
      verify: (o) => expectAll([Array.isArray(JSON.parse(o.response.body.toString())), 'still an envelope']),
    },
  }),
  fault({
    name: 'schedules-delete-404',
    area: 'billing-schedules',
    description: 'deleting an existing schedule answers 404 (it is deleted all the same)',
    rules: ['SCHEDULES.DELETE.DELETED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      if (!on(r, 'DELETE', R.schedule) || !is2xx(res)) return;
      ctx.applied();
      return json(404, { error: 'not_found', message: 'schedule not found' });
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/billingSchedules/bs_demo1'), res: json(200, schedule({ deletedAt: T0 })) }],
      verify: (o) => expectAll([o.response.status === 404, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'schedules-other-order',
    area: 'billing-schedules',
    description: 'a schedule created for an order names another order as its owner',
    rules: ['SCHEDULES.CREATE.BY_ORDER'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'POST', R.schedules) || !is2xx(res) || typeof b?.orderId !== 'string') return;
      b.orderId = `${b.orderId}x0other`;
      ctx.applied();
    },
    demo: {
      steps: [{ req: create({ orderId: 'ord_demo1' }), res: json(201, schedule()) }],
      verify: (o) => expectAll([got(o)?.orderId === 'ord_demo1x0other', `orderId ${got(o)?.orderId}`]),
    },
  }),
];
