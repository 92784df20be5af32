/** Alerts: GET /v0/alerts paging and PATCH /v0/alerts/{id}. */
import { bodyOf, expectAll, fault, got, isObj, json, on, queryOf, R, req, withQuery, type Json } from './helpers.ts';
import type { CatalogFault } from './types.ts';

const SUITES = ['alerts'];
const alert = (id: string): Json => ({
  object: 'alert',
  id,
  resourceId: 'wal_demo1',
  type: 'wallet_low_balance',
  enabled: true,
  notifyPeriod: 3600,
  recipients: ['a@x.invalid'],
});
const page = (n: number, limit = 10, offset = 0, total = n): Json => ({
  object: 'list',
  data: Array.from({ length: n }, (_, i) => alert(`alert_${i}`)),
  pagination: { limit, offset, total },
});
const list = (query: string) => req('GET', `/v0/alerts${query}`);

export const alertFaults: CatalogFault[] = [
  fault({
    name: 'alerts-default-limit-20',
    area: 'alerts',
    description: 'GET /v0/alerts pages 20 at a time by default instead of 10',
    rules: ['ALERTS.LIST.LIMIT_DEFAULT'],
    suites: SUITES,
    onRequest(r, ctx) {
      const q = queryOf(r);
      if (!on(r, 'GET', R.alerts) || q.has('limit')) return;
      q.set('limit', '20');
      withQuery(r, q);
      ctx.applied();
    },
    demo: {
      steps: [{ req: list('?resourceId=wal_demo1'), res: json(200, page(11, 20)) }],
      verify: (o) =>
        expectAll([o.forwarded?.path === '/v0/alerts?resourceId=wal_demo1&limit=20', `forwarded ${o.forwarded?.path}`]),
    },
  }),
  fault({
    name: 'alerts-limit-out-of-range-clamped',
    area: 'alerts',
    description: 'limit 0 or 101 is clamped into 1..100 instead of refused with 400',
    rules: ['ALERTS.LIST.LIMIT_RANGE'],
    suites: SUITES,
    onRequest(r, ctx) {
      const q = queryOf(r);
      const limit = Number(q.get('limit'));
      if (!on(r, 'GET', R.alerts) || !q.has('limit') || !Number.isInteger(limit) || (limit >= 1 && limit <= 100))
        return;
      q.set('limit', String(Math.min(100, Math.max(1, limit))));
      withQuery(r, q);
      ctx.applied();
    },
    demo: {
      steps: [{ req: list('?resourceId=wal_demo1&limit=0'), res: json(200, page(1, 1)) }],
      verify: (o) =>
        expectAll([o.forwarded?.path === '/v0/alerts?resourceId=wal_demo1&limit=1', `forwarded ${o.forwarded?.path}`]),
    },
  }),
  fault({
    name: 'alerts-resourceId-optional',
    area: 'alerts',
    description: 'GET /v0/alerts without resourceId answers an empty page instead of 400',
    rules: ['ALERTS.LIST.RESOURCE_ID_REQUIRED'],
    suites: SUITES,
    onRequest(r, ctx) {
      const q = queryOf(r);
      if (!on(r, 'GET', R.alerts) || q.has('resourceId')) return;
      ctx.applied();
      return json(200, {
        object: 'list',
        data: [],
        pagination: { limit: Number(q.get('limit') ?? 10), offset: Number(q.get('offset') ?? 0), total: 0 },
      });
    },
    demo: {
      steps: [{ req: list(''), res: json(400, { message: 'resourceId is required' }) }],
      verify: (o) => expectAll([o.response.status === 200 && o.forwarded === undefined, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'alerts-negative-offset-accepted',
    area: 'alerts',
    description: 'offset -1 is read as 0 instead of refused with 400',
    rules: ['ALERTS.LIST.OFFSET'],
    suites: SUITES,
    onRequest(r, ctx) {
      const q = queryOf(r);
      if (!on(r, 'GET', R.alerts) || !(Number(q.get('offset')) < 0)) return;
      q.set('offset', '0');
      withQuery(r, q);
      ctx.applied();
    },
    demo: {
      steps: [{ req: list('?resourceId=wal_demo1&offset=-1'), res: json(200, page(1)) }],
      verify: (o) =>
        expectAll([o.forwarded?.path === '/v0/alerts?resourceId=wal_demo1&offset=0', `forwarded ${o.forwarded?.path}`]),
    },
  }),
  fault({
    name: 'alerts-patch-resource-optional',
    area: 'alerts',
    description: 'PATCH /v0/alerts/{id} without resource=wallet (or with another value) is served as resource=wallet',
    rules: ['ALERTS.UPDATE.RESOURCE_REQUIRED'],
    suites: SUITES,
    onRequest(r, ctx) {
      const q = queryOf(r);
      if (!on(r, 'PATCH', R.alert) || q.get('resource') === 'wallet') return;
      q.set('resource', 'wallet');
      withQuery(r, q);
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('PATCH', '/v0/alerts/alert_1', { enabled: false }), res: json(200, alert('alert_1')) }],
      verify: (o) =>
        expectAll([o.forwarded?.path === '/v0/alerts/alert_1?resource=wallet', `forwarded ${o.forwarded?.path}`]),
    },
  }),
  fault({
    name: 'alerts-total-is-page-size',
    area: 'alerts',
    description: 'pagination.total counts the page, not all the alerts',
    rules: ['ALERTS.LIST.PAGINATED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (
        !on(r, 'GET', R.alerts) ||
        res.status !== 200 ||
        !isObj(b?.pagination) ||
        !Array.isArray(b.data) ||
        b.pagination.total === b.data.length
      )
        return;
      b.pagination.total = b.data.length;
      ctx.applied();
    },
    demo: {
      steps: [{ req: list('?resourceId=wal_demo1'), res: json(200, page(10, 10, 0, 11)) }],
      verify: (o) => expectAll([got(o)?.pagination?.total === 10, `total ${got(o)?.pagination?.total}`]),
    },
  }),
  fault({
    name: 'alerts-patch-drops-recipients',
    area: 'alerts',
    description: 'PATCH /v0/alerts/{id} ignores recipients',
    rules: ['ALERTS.UPDATE.OK'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'PATCH', R.alert) || b?.recipients === undefined) return;
      delete b.recipients;
      ctx.applied();
    },
    demo: {
      steps: [
        {
          req: req('PATCH', '/v0/alerts/alert_1?resource=wallet', { recipients: ['b@x.invalid'] }),
          res: json(200, alert('alert_1')),
        },
      ],
      verify: (o) =>
        expectAll([
          o.forwarded !== undefined && bodyOf(o.forwarded)?.recipients === undefined,
          'recipients reached the target',
        ]),
    },
  }),
];
