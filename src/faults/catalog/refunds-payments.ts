/** Refunds (credit notes) and one-off payments. */
import { Decimal } from 'decimal.js';
import { bodyOf, expectAll, fault, got, is2xx, is4xx, json, on, R, req, T0, type Json } from './helpers.ts';
import type { CatalogFault } from './types.ts';

const SUITES = ['refunds-payments'];
const note = (over: Json = {}): Json => ({
  object: 'invoice_refund',
  id: 'crn_demo1',
  invoiceId: 'inv_demo1',
  merchantId: 'org_demo1',
  amount: '10.00',
  taxAmount: '1.90',
  total: '11.90',
  currency: 'USD',
  status: 'ISSUED',
  reason: 'asked',
  createdAt: T0,
  ...over,
});
const payment = (over: Json = {}): Json => ({
  object: 'payment',
  id: 'pay_demo1',
  amount: '12.50',
  currency: 'USD',
  status: 'pending',
  createdAt: T0,
  ...over,
});
const refund = (body: Json = { reason: 'asked' }) => req('POST', '/v2/invoices/inv_demo1/refunds', body);
const readPayment = (id = 'pay_demo1') => req('GET', `/v0/payments/${id}`);

/** The credit note of a successful refund, or undefined. */
function creditNote(r: Parameters<typeof on>[0], res: Parameters<typeof is2xx>[0]): Json | undefined {
  const b = bodyOf(res);
  return on(r, 'POST', R.refunds) && is2xx(res) && b?.object === 'invoice_refund' ? b : undefined;
}
/** The payment of a successful read, or undefined. */
function paymentOf(r: Parameters<typeof on>[0], res: Parameters<typeof is2xx>[0]): Json | undefined {
  const b = bodyOf(res);
  return on(r, 'GET', R.payment) && res.status === 200 && b?.object === 'payment' ? b : undefined;
}

export const refundPaymentFaults: CatalogFault[] = [
  fault({
    name: 'refunds-permalink-not-url',
    area: 'refunds-payments',
    description: 'a credit note permalink is a bare path, not a URL',
    rules: ['SCHEMA.RESPONSE.MATCHES'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const n = creditNote(r, res);
      if (!n || typeof n.permalink !== 'string') return;
      n.permalink = `credit-notes/${n.id}`;
      ctx.applied();
    },
    demo: {
      steps: [{ req: refund(), res: json(201, note({ permalink: 'https://example.test/credit-notes/crn_demo1' })) }],
      verify: (o) => expectAll([got(o)?.permalink === 'credit-notes/crn_demo1', `permalink ${got(o)?.permalink}`]),
    },
  }),
  fault({
    name: 'refunds-total-not-sum',
    area: 'refunds-payments',
    description: 'a credit note total is one cent more than amount + taxAmount',
    rules: ['REFUNDS.TOTAL.SUM'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const n = creditNote(r, res);
      if (!n || typeof n.amount !== 'string' || typeof n.taxAmount !== 'string') return;
      n.total = new Decimal(n.amount).plus(n.taxAmount).plus('0.01').toFixed(2);
      ctx.applied();
    },
    demo: {
      steps: [{ req: refund(), res: json(201, note()) }],
      verify: (o) => expectAll([got(o)?.total === '11.91', `total ${got(o)?.total}`]),
    },
  }),
  fault({
    name: 'refunds-wrong-id-prefix',
    area: 'refunds-payments',
    description: 'credit note ids start with cn_ instead of crn_',
    rules: ['REFUNDS.ID.PREFIX'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const n = creditNote(r, res);
      if (typeof n?.id !== 'string' || !n.id.startsWith('crn_')) return;
      n.id = `cn_${n.id.slice(4)}`;
      ctx.applied();
    },
    demo: {
      steps: [{ req: refund(), res: json(201, note()) }],
      verify: (o) => expectAll([got(o)?.id === 'cn_demo1', `id ${got(o)?.id}`]),
    },
  }),
  fault({
    name: 'refunds-reason-dropped',
    area: 'refunds-payments',
    description: 'the reason sent is not recorded on the credit note',
    rules: ['REFUNDS.REASON.RECORDED'],
    suites: SUITES,
    onRequest(r, ctx) {
      const b = bodyOf(r);
      if (!on(r, 'POST', R.refunds) || b?.reason === undefined) return;
      delete b.reason;
      ctx.applied();
    },
    demo: {
      steps: [{ req: refund(), res: (f) => json(201, note({ reason: bodyOf(f)?.reason ?? null })) }],
      verify: (o) => expectAll([got(o)?.reason === null, `reason ${got(o)?.reason}`]),
    },
  }),
  fault({
    name: 'refunds-status-lowercase',
    area: 'refunds-payments',
    description: "credit note status is 'issued' instead of 'ISSUED'",
    rules: ['REFUNDS.STATUS.ENUM'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const n = creditNote(r, res);
      if (typeof n?.status !== 'string') return;
      n.status = n.status.toLowerCase();
      ctx.applied();
    },
    demo: {
      steps: [{ req: refund(), res: json(201, note()) }],
      verify: (o) => expectAll([got(o)?.status === 'issued', `status ${got(o)?.status}`]),
    },
  }),
  fault({
    name: 'refunds-unrefundable-accepted',
    area: 'refunds-payments',
    description: 'refunding an invoice that cannot be refunded issues a credit note (201) instead of an Error',
    offTraffic: 'whether an invoice can be refunded is not in any documented answer',
    rules: ['REFUNDS.REFUSED.NO_CREDIT_NOTE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const hit = on(r, 'POST', R.refunds);
      if (!hit || !is4xx(res) || res.status === 404) return;
      ctx.applied();
      return json(
        201,
        note({
          id: `crn_conformFault${Date.now()}`,
          invoiceId: decodeURIComponent(hit[1]),
          amount: '0.00',
          taxAmount: '0.00',
          total: '0.00',
          reason: bodyOf(r)?.reason ?? null,
          createdAt: new Date().toISOString(),
        }),
      );
    },
    demo: {
      steps: [{ req: refund(), res: json(409, { error: 'conflict', message: 'invoice is not paid' }) }],
      verify: (o) =>
        expectAll([o.response.status === 201 && got(o)?.id?.startsWith('crn_'), `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'refunds-amounts-as-numbers',
    area: 'refunds-payments',
    description: 'credit note amount, taxAmount and total are JSON numbers, not decimal strings',
    rules: ['REFUNDS.TOTAL.SUM', 'CONV.MONEY.DECIMAL_STRING'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const n = creditNote(r, res);
      if (!n) return;
      for (const k of ['amount', 'taxAmount', 'total']) if (typeof n[k] === 'string') n[k] = Number(n[k]);
      ctx.applied();
    },
    demo: {
      steps: [{ req: refund(), res: json(201, note()) }],
      verify: (o) => expectAll([got(o)?.total === 11.9, `total ${JSON.stringify(got(o)?.total)}`]),
    },
  }),
  fault({
    name: 'payments-status-outside-enum',
    area: 'refunds-payments',
    description: "a payment reads status 'paid', outside the documented enum",
    rules: ['PAYMENTS.STATUS.ENUM'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const p = paymentOf(r, res);
      if (!p) return;
      p.status = 'paid';
      ctx.applied();
    },
    demo: {
      steps: [{ req: readPayment(), res: json(200, payment()) }],
      verify: (o) => expectAll([got(o)?.status === 'paid', `status ${got(o)?.status}`]),
    },
  }),
  fault({
    name: 'payments-amount-number',
    area: 'refunds-payments',
    description: 'a payment amount is a JSON number, not a decimal string',
    rules: ['PAYMENTS.AMOUNT.DECIMAL'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const p = paymentOf(r, res);
      if (typeof p?.amount !== 'string') return;
      p.amount = Number(p.amount);
      ctx.applied();
    },
    demo: {
      steps: [{ req: readPayment(), res: json(200, payment()) }],
      verify: (o) => expectAll([got(o)?.amount === 12.5, `amount ${JSON.stringify(got(o)?.amount)}`]),
    },
  }),
  fault({
    name: 'payments-wrong-id-prefix',
    area: 'refunds-payments',
    description: 'payment ids start with py_ instead of pay_',
    rules: ['PAYMENTS.ID.PREFIX'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const p = paymentOf(r, res);
      if (typeof p?.id !== 'string' || !p.id.startsWith('pay_')) return;
      p.id = `py_${p.id.slice(4)}`;
      ctx.applied();
    },
    demo: {
      steps: [{ req: readPayment(), res: json(200, payment()) }],
      verify: (o) => expectAll([got(o)?.id === 'py_demo1', `id ${got(o)?.id}`]),
    },
  }),
  fault({
    name: 'payments-unknown-is-500',
    area: 'refunds-payments',
    description: 'reading an unknown payment crashes with 500 instead of 404',
    rules: ['STATUS.DOCUMENTED.ONLY', 'STATUS.404.UNKNOWN_RESOURCE'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      if (!on(r, 'GET', R.payment) || res.status !== 404) return;
      ctx.applied();
      return json(500, { error: 'internal_error', message: 'Internal Server Error' });
    },
    demo: {
      steps: [{ req: readPayment('pay_nobody'), res: json(404, { error: 'not_found', message: 'no such payment' }) }],
      verify: (o) => expectAll([o.response.status === 500, `got ${o.response.status}`]),
    },
  }),
  fault({
    name: 'refunds-other-invoice',
    area: 'refunds-payments',
    description: 'a credit note names another invoice than the one refunded',
    rules: ['REFUNDS.INVOICE.MATCHES'],
    suites: SUITES,
    onResponse(r, res, ctx) {
      const n = creditNote(r, res);
      if (typeof n?.invoiceId !== 'string') return;
      n.invoiceId = `${n.invoiceId}x0other`;
      ctx.applied();
    },
    demo: {
      steps: [{ req: refund(), res: json(201, note()) }],
      verify: (o) => expectAll([got(o)?.invoiceId === 'inv_demo1x0other', `invoiceId ${got(o)?.invoiceId}`]),
    },
  }),
];
