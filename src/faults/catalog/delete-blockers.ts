/** Deletes refused while dependants exist: DELETE /v0/customers/{id} and DELETE /v0/fees/{id}. */
import { bodyOf, expectAll, fault, got, is2xx, isObj, json, on, R, req, type Json } from './helpers.ts';
import type { CatalogFault } from './types.ts';

const SUITES = ['delete-blockers'];
const customerConflict = () =>
  json(409, {
    error: 'conflict',
    message: 'customer has subscriptions',
    code: 'CUSTOMER_HAS_DEPENDANTS',
    details: {
      blockers: [
        {
          type: 'subscriptions',
          count: 2,
          items: [
            { id: 'sub_demo1', status: 'active' },
            { id: 'sub_demo2', status: 'active' },
          ],
        },
      ],
    },
  });
const feeConflict = () =>
  json(409, {
    error: 'conflict',
    message: 'fee has prices',
    details: { blockers: [{ type: 'prices', count: 1, items: [{ id: 'price_demo1', invoiceDisplayName: 'Seats' }] }] },
  });
const blockersOf = (b: Json | undefined): Json[] =>
  isObj(b?.details) && Array.isArray(b.details.blockers) ? b.details.blockers.filter(isObj) : [];

export const deleteBlockerFaults: CatalogFault[] = [
  fault({
    name: 'blockers-409-without-blockers',
    area: 'delete-blockers',
    description: 'a refused customer delete (409) carries no details.blockers',
    rules: ['CUSTOMERS.DELETE.BLOCKED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'DELETE', R.customer) || res.status !== 409 || !b?.details) return;
      delete b.details;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/customers/cus_demo1'), res: customerConflict() }],
      verify: (o) => expectAll([o.response.status === 409 && got(o)?.details === undefined, 'details still there']),
    },
  }),
  fault({
    name: 'blockers-customer-deleted-anyway',
    area: 'delete-blockers',
    description: 'deleting a customer with live subscriptions answers success (200) instead of 409',
    offTraffic: "a customer's subscriptions show only through endpoints the document does not show",
    rules: ['CUSTOMERS.DELETE.BLOCKED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const hit = on(r, 'DELETE', R.customer);
      if (!hit || res.status !== 409) return;
      ctx.applied();
      return json(200, { id: decodeURIComponent(hit[1]), object: 'customer', deleted: true });
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/customers/cus_demo1'), res: customerConflict() }],
      verify: (o) => expectAll([o.response.status === 200, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'blockers-409-wrong-error',
    area: 'delete-blockers',
    description: "a refused customer delete says error 'blocked' instead of 'conflict'",
    rules: ['CUSTOMERS.DELETE.BLOCKED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const b = bodyOf(res);
      if (!on(r, 'DELETE', R.customer) || res.status !== 409 || !b) return;
      b.error = 'blocked';
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/customers/cus_demo1'), res: customerConflict() }],
      verify: (o) => expectAll([got(o)?.error === 'blocked', 'error unchanged']),
    },
  }),
  fault({
    name: 'blockers-fee-count-zero',
    area: 'delete-blockers',
    description: "a fee's blockers count 0 whatever they list",
    rules: ['FEES.DELETE.BLOCKER_COUNT'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const blockers = blockersOf(bodyOf(res));
      if (!on(r, 'DELETE', R.fee) || res.status !== 409 || !blockers.length) return;
      for (const b of blockers) b.count = 0;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/fees/fee_demo1'), res: feeConflict() }],
      verify: (o) => expectAll([blockersOf(got(o))[0]?.count === 0, 'count unchanged']),
    },
  }),
  fault({
    name: 'blockers-fee-items-unnamed',
    area: 'delete-blockers',
    description: "a fee's blocker items lose invoiceDisplayName",
    rules: ['FEES.DELETE.BLOCKED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const blockers = blockersOf(bodyOf(res));
      if (!on(r, 'DELETE', R.fee) || res.status !== 409 || !blockers.length) return;
      for (const b of blockers)
        for (const it of Array.isArray(b.items) ? b.items : []) if (isObj(it)) delete it.invoiceDisplayName;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/fees/fee_demo1'), res: feeConflict() }],
      verify: (o) =>
        expectAll([
          blockersOf(got(o))[0]?.items?.[0]?.invoiceDisplayName === undefined,
          'invoiceDisplayName still there',
        ]),
    },
  }),
  fault({
    name: 'blockers-fee-refused-when-free',
    area: 'delete-blockers',
    description: 'a fee without dependants still cannot be deleted (409 with no blockers)',
    rules: ['FEES.DELETE.UNBLOCKED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      if (!on(r, 'DELETE', R.fee) || !is2xx(res)) return;
      ctx.applied();
      return json(409, { error: 'conflict', message: 'fee is in use', details: { blockers: [] } });
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/fees/fee_demo1'), res: json(200, { id: 'fee_demo1', deleted: true }) }],
      verify: (o) => expectAll([o.response.status === 409, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'blockers-customer-count-low',
    area: 'delete-blockers',
    description: "a customer's blockers count one less than the subscriptions they list",
    rules: ['CUSTOMERS.DELETE.BLOCKER_COUNT'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const blockers = blockersOf(bodyOf(res));
      if (!on(r, 'DELETE', R.customer) || res.status !== 409 || !blockers.length) return;
      for (const b of blockers) if (Number.isInteger(b.count) && b.count > 0) b.count -= 1;
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/customers/cus_demo1'), res: customerConflict() }],
      verify: (o) => expectAll([blockersOf(got(o))[0]?.count === 1, `count ${blockersOf(got(o))[0]?.count}`]),
    },
  }),
  fault({
    name: 'blockers-customer-refused-when-free',
    area: 'delete-blockers',
    description: 'a customer without subscriptions still cannot be deleted (409 with no blockers)',
    rules: ['CUSTOMERS.DELETE.UNBLOCKED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      if (!on(r, 'DELETE', R.customer) || !is2xx(res)) return;
      ctx.applied();
      return json(409, { error: 'conflict', message: 'customer is in use', details: { blockers: [] } });
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/customers/cus_demo1'), res: json(200, { id: 'cus_demo1', deleted: true }) }],
      verify: (o) => expectAll([o.response.status === 409, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'blockers-type-empty',
    area: 'delete-blockers',
    description:
      'every delete-blocker entry (customers and fees) says type "" instead of naming the kind of dependants',
    rules: ['CUSTOMERS.DELETE.BLOCKED', 'FEES.DELETE.BLOCKED'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const blockers = blockersOf(bodyOf(res));
      if (!(on(r, 'DELETE', R.customer) || on(r, 'DELETE', R.fee)) || res.status !== 409 || !blockers.length) return;
      for (const b of blockers) b.type = '';
      ctx.applied();
    },
    demo: {
      steps: [{ req: req('DELETE', '/v0/fees/fee_demo1'), res: feeConflict() }],
      verify: (o) => expectAll([blockersOf(got(o))[0]?.type === '', 'type unchanged']),
    },
  }),
];
