/**
 * Refunds (POST /v2/invoices/{id}/refunds, credit notes) and one-off payments
 * (GET /v0/payments/{id}). Refunds are destructive: they run only where the target allows it.
 * Money is compared as exact decimals (decimal.js), never as binary floats.
 */
import { Decimal } from 'decimal.js';
import { scenario, type ScenarioContext } from '../src/engine/scenario.ts';
import { loadRules } from '../src/contract/index.ts';
import { enumOf, prefixOf } from '../src/engine/predicates.ts';
import type { Exchange } from '../src/engine/types.ts';
import { concurrent, bodyOf, is2xx, requireAccepted, DECIMAL, type Json } from './support.ts';

const rules = await loadRules();
const REFUND_STATUSES = enumOf(rules, 'REFUNDS.STATUS.ENUM');
const PAYMENT_STATUSES = enumOf(rules, 'PAYMENTS.STATUS.ENUM');
const CREDIT_NOTE = prefixOf(rules, 'REFUNDS.ID.PREFIX');
const PAYMENT = prefixOf(rules, 'PAYMENTS.ID.PREFIX');
const refundPath = (invoiceId: string) => `/v2/invoices/${encodeURIComponent(invoiceId)}/refunds`;
const paymentPath = (id: string) => `/v0/payments/${encodeURIComponent(id)}`;
const destructive = { destructive: true, concurrent: true } as const;

/** A credit note created (any 2xx: the success code is not shown) for `invoiceId`, judged on every field rule. */
function expectCreditNote(t: ScenarioContext, ex: Exchange, invoiceId: string): Json {
  const n = requireAccepted(t, ex, 'the refund of a paid invoice');
  t.expectRule(
    'REFUNDS.INVOICE.MATCHES',
    n.object === 'invoice_refund' && n.invoiceId === invoiceId,
    `an invoice_refund of invoice ${invoiceId} (got object ${JSON.stringify(n.object)}, invoiceId ${JSON.stringify(n.invoiceId)})`,
    ex,
  );
  t.expectRule(
    'REFUNDS.ID.PREFIX',
    typeof n.id === 'string' && n.id.startsWith(CREDIT_NOTE),
    `the credit note id starts with ${CREDIT_NOTE} (got ${JSON.stringify(n.id)})`,
    ex,
  );
  t.expectRule(
    'REFUNDS.STATUS.ENUM',
    REFUND_STATUSES.includes(n.status),
    `status is one of ${REFUND_STATUSES.join(', ')} (got ${JSON.stringify(n.status)})`,
    ex,
  );
  const parts = [n.amount, n.taxAmount, n.total];
  t.expectRule(
    'REFUNDS.TOTAL.SUM',
    parts.every((v) => typeof v === 'string' && DECIMAL.test(v)),
    `amount, taxAmount and total are decimal strings (got ${JSON.stringify(parts)})`,
    ex,
  );
  const sum = new Decimal(n.amount).plus(new Decimal(n.taxAmount));
  t.expectRule(
    'REFUNDS.TOTAL.SUM',
    new Decimal(n.total).equals(sum),
    `total ${n.total} equals amount ${n.amount} + taxAmount ${n.taxAmount} = ${sum.toFixed()}`,
    ex,
  );
  return n;
}

scenario(
  [
    'REFUNDS.TOTAL.SUM',
    'REFUNDS.ID.PREFIX',
    'REFUNDS.STATUS.ENUM',
    'REFUNDS.INVOICE.MATCHES',
    'REFUNDS.REASON.RECORDED',
    'CONV.MONEY.DECIMAL_STRING',
  ],
  'a refund of a paid invoice is a crn_ credit note with total = amount + taxAmount and the reason recorded',
  async (t) => {
    const inv = await t.fixture((f) => f.paidInvoice());
    const reason = `conform: customer asked for a refund ${Date.now()}`;
    const res = await t.http.post(refundPath(inv.invoiceId), { reason });
    const n = expectCreditNote(t, res, inv.invoiceId);
    t.expectRule(
      'REFUNDS.REASON.RECORDED',
      n.reason === reason,
      `the reason sent is recorded (got ${JSON.stringify(n.reason)})`,
      res,
    );
    // What a refund without an amount covers is not shown: compare with the invoice only as a note.
    if (typeof n.amount === 'string' && !new Decimal(n.amount).equals(new Decimal(inv.amount)))
      t.note(`credit note amount ${n.amount} differs from the invoice subtotal ${inv.amount} (partial refund?)`);
  },
  destructive,
);

scenario(
  ['REFUNDS.REASON.RECORDED', 'REFUNDS.TOTAL.SUM', 'VALIDATION.VALID_REQUEST.NOT_400'],
  'a refund without a reason is accepted (the reason is optional)',
  async (t) => {
    const inv = await t.fixture((f) => f.paidInvoice());
    const res = await t.http.post(refundPath(inv.invoiceId), {});
    const n = expectCreditNote(t, res, inv.invoiceId);
    t.expectRule(
      'REFUNDS.REASON.RECORDED',
      n.reason === undefined || n.reason === null,
      `no reason sent, none recorded (got ${JSON.stringify(n.reason)})`,
      res,
    );
  },
  destructive,
);

scenario(
  ['ERRORS.ERROR_RESPONSES.SHAPE', 'ERRORS.ERROR.SHAPE'],
  'a refund of an invoice that cannot be refunded is refused with an Error body',
  async (t) => {
    const { invoiceId } = await t.fixture((f) => f.unrefundableInvoice());
    const res = await t.http.post(refundPath(invoiceId), { reason: 'conform: not refundable' });
    // Which status the refusal has is not shown: any 4xx in Error shape.
    t.expectRule(
      'ERRORS.ERROR_RESPONSES.SHAPE',
      res.status !== undefined && res.status >= 400 && res.status < 500,
      `an invoice that cannot be refunded is refused with a 4xx (got ${res.status ?? res.transportError})`,
      res,
    );
    t.expectRule(
      'ERRORS.ERROR.SHAPE',
      typeof bodyOf(res).message === 'string',
      'the refusal is an Error with a message',
      res,
    );
    t.expectRule(
      'ERRORS.ERROR.SHAPE',
      !String(bodyOf(res).id ?? '').startsWith(CREDIT_NOTE),
      'no credit note comes back',
      res,
    );
  },
  destructive,
);

scenario(
  ['PAYMENTS.GET.BY_ID', 'PAYMENTS.ID.PREFIX', 'PAYMENTS.STATUS.ENUM', 'PAYMENTS.AMOUNT.DECIMAL'],
  'GET /v0/payments/{id} answers that pay_ payment with a status of the enum and a decimal amount',
  async (t) => {
    const { paymentId } = await t.fixture((f) => f.payment());
    const res = await t.http.get(paymentPath(paymentId));
    // The success code of GET /v0/payments/{id} is not shown: any 2xx.
    t.expectRule(
      'PAYMENTS.GET.BY_ID#answers-resource',
      is2xx(res),
      `the payment is read (got ${res.status ?? res.transportError})`,
      res,
    );
    const p = bodyOf(res);
    t.expectRule(
      'PAYMENTS.GET.BY_ID#answers-resource',
      p.id === paymentId && p.object === 'payment',
      `the payment read is ${paymentId} (got ${JSON.stringify(p.id)}, object ${JSON.stringify(p.object)})`,
      res,
    );
    t.expectRule(
      'PAYMENTS.ID.PREFIX',
      typeof p.id === 'string' && p.id.startsWith(PAYMENT),
      `the payment id starts with ${PAYMENT} (got ${JSON.stringify(p.id)})`,
      res,
    );
    t.expectRule(
      'PAYMENTS.STATUS.ENUM',
      PAYMENT_STATUSES.includes(p.status),
      `status is one of ${PAYMENT_STATUSES.join(', ')} (got ${JSON.stringify(p.status)})`,
      res,
    );
    t.expectRule(
      'PAYMENTS.AMOUNT.DECIMAL',
      typeof p.amount === 'string' && DECIMAL.test(p.amount),
      `amount is a decimal string (got ${JSON.stringify(p.amount)})`,
      res,
    );
    t.expectRule(
      'PAYMENTS.AMOUNT.DECIMAL',
      typeof p.currency === 'string' && /^[A-Z]{3}$/.test(p.currency),
      `currency is an ISO 4217 code (got ${JSON.stringify(p.currency)})`,
      res,
    );
    const items: Json[] = Array.isArray(p.lineItems) ? p.lineItems : [];
    // Line items are {description: string, amount: string, quantity: integer}; only Payment.amount is called decimal.
    const badItems = items.filter((li) => typeof li?.amount !== 'string' || !Number.isInteger(li?.quantity));
    t.expectRule(
      'PAYMENTS.AMOUNT.DECIMAL',
      badItems.length === 0,
      `line items carry string amounts and integer quantities (bad: ${JSON.stringify(badItems)})`,
      res,
    );
  },
  concurrent,
);

scenario(
  ['PAYMENTS.GET.BY_ID', 'STATUS.404.UNKNOWN_RESOURCE'],
  'an unknown payment gets 404 in Error shape',
  async (t) => {
    const res = await t.http.get(paymentPath('pay_conform0unknown0payment'));
    t.expectStatus(['STATUS.404.UNKNOWN_RESOURCE', 'PAYMENTS.GET.BY_ID#unknown-404'], res, 404);
    t.expectRule(
      'PAYMENTS.GET.BY_ID#unknown-404',
      typeof bodyOf(res).message === 'string',
      'the 404 body is an Error with a message',
      res,
    );
  },
  concurrent,
);
