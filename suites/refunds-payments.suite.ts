/**
 * Refunds (POST /v2/invoices/{id}/refunds, credit notes) and one-off payments
 * (GET /v0/payments/{id}). Refunds are destructive: they run only where the target allows it.
 * Money is compared as exact decimals (decimal.js), never as binary floats.
 */
import { Decimal } from 'decimal.js';
import { scenario } from '../src/engine/scenario/index.ts';
import { idPrefix, loadRules, loadSpec } from '../src/contract/index.ts';
import { enumOf, prefixOf } from '../src/engine/predicates.ts';
import { concurrent, bodyOf, is2xx, requireAccepted, DECIMAL, type Json } from './support.ts';

const rules = await loadRules();
const spec = await loadSpec();
/** An ISO 4217 code, as spec/openapi.yaml's Currency schema writes it. */
const CURRENCY = new RegExp(String(spec.componentSchema('Currency')?.pattern));
const PAYMENT_STATUSES = enumOf(rules, 'PAYMENTS.STATUS.ENUM');
const CREDIT_NOTE = prefixOf(rules, 'REFUNDS.ID.PREFIX');
const refundPath = (invoiceId: string) => spec.pathFor('createInvoiceRefund', { id: invoiceId });
const paymentPath = (id: string) => spec.pathFor('getPayment', { id });
const destructive = { destructive: true, concurrent: true } as const;

// A credit note's field rules (REFUNDS.INVOICE.MATCHES, ID.PREFIX, STATUS.ENUM, TOTAL.SUM, REASON.RECORDED)
// are judged on each refund's answer by the checks of the registry (src/engine/checks/creates.ts, id-patterns.ts).
const CREDIT_NOTE_CREATED = 'the refund of a paid invoice';

scenario(
  [
    'REFUNDS.TOTAL.SUM',
    'REFUNDS.ID.PREFIX',
    'REFUNDS.STATUS.ENUM',
    'REFUNDS.INVOICE.MATCHES',
    'REFUNDS.REASON.RECORDED',
    'CONV.MONEY.DECIMAL_STRING',
  ],
  `a refund of a paid invoice is a ${CREDIT_NOTE} credit note with total = amount + taxAmount and the reason recorded`,
  async (t) => {
    const inv = await t.fixture((f) => f.paidInvoice());
    const reason = `conform: customer asked for a refund ${Date.now()}`;
    const res = await t.http.post(refundPath(inv.invoiceId), { reason });
    const n = requireAccepted(t, res, CREDIT_NOTE_CREATED);
    // What a refund without an amount covers is not shown: compare with the invoice only as a note.
    if (
      typeof n.amount === 'string' &&
      DECIMAL.test(n.amount) &&
      !new Decimal(n.amount).equals(new Decimal(inv.amount))
    )
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
    requireAccepted(t, res, CREDIT_NOTE_CREATED);
    // No reason sent, none recorded: the refund-reason check's (src/engine/checks/creates.ts).
  },
  destructive,
);

scenario(
  ['REFUNDS.REFUSED.NO_CREDIT_NOTE', 'ERRORS.ERROR_RESPONSES.SHAPE', 'ERRORS.ERROR.SHAPE'],
  'a refund of an invoice that cannot be refunded is refused with an Error body',
  async (t) => {
    const { invoiceId } = await t.fixture((f) => f.unrefundableInvoice());
    const res = await t.http.post(refundPath(invoiceId), { reason: 'conform: not refundable' });
    // Which status the refusal has is not shown: any 4xx. Its Error body is the error-shape check's.
    t.expectRule(
      'REFUNDS.REFUSED.NO_CREDIT_NOTE',
      res.status !== undefined && res.status >= 400 && res.status < 500,
      `an invoice that cannot be refunded is refused with a 4xx (got ${res.status ?? res.transportError})`,
      res,
    );
    t.expectRule(
      'REFUNDS.REFUSED.NO_CREDIT_NOTE',
      !String(bodyOf(res).id ?? '').startsWith(CREDIT_NOTE),
      'no credit note comes back',
      res,
    );
  },
  destructive,
);

scenario(
  ['PAYMENTS.GET.BY_ID', 'PAYMENTS.ID.PREFIX', 'PAYMENTS.STATUS.ENUM', 'PAYMENTS.AMOUNT.DECIMAL'],
  'GET /v0/payments/{id} answers that payment with a status of the enum and a decimal amount',
  async (t) => {
    const { paymentId } = await t.fixture((f) => f.payment());
    const res = await t.http.get(paymentPath(paymentId));
    // The success code of GET /v0/payments/{id} is not shown: any 2xx.
    t.expectRule(
      'PAYMENTS.GET.BY_ID#reads-existing',
      is2xx(res),
      `the payment is read (got ${res.status ?? res.transportError})`,
      res,
    );
    // That the payment read is the one asked for is the read-by-id check's (src/engine/checks/reads.ts, #answers-resource),
    // its id prefix the id-patterns check's.
    const p = bodyOf(res);
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
      typeof p.currency === 'string' && CURRENCY.test(p.currency),
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
    const res = await t.http.get(paymentPath(`${idPrefix(spec, 'PaymentId')}conform0unknown0payment`));
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
