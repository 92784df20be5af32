/**
 * The refunds-payments suite passes against the bundled reference and fails, citing the
 * right rules, when a fault proxy in front of it breaks a refunds or payments rule.
 */
import { describe, expect, test } from 'vitest';
import type { ProxyRequest } from '../../src/faults/fault-proxy.ts';
import { expectAllPassed, useInProcessRun, type Json } from './helpers/in-process-run.ts';

const SUITE = 'refunds-payments';
const { run, expectFailed } = useInProcessRun(SUITE);

const isRefund = (req: ProxyRequest) => req.method === 'POST' && /^\/v2\/invoices\/[^/]+\/refunds/.test(req.path);
const isGetPayment = (req: ProxyRequest) => req.method === 'GET' && req.path.startsWith('/v0/payments/');
const ok = (status: number) => status >= 200 && status < 300;

describe('refunds-payments suite', () => {
  test('passes against the unaltered reference: no failure, no skip', async () => {
    expectAllPassed(await run());
  });

  test('fails when total is the binary-float sum 0.1 + 0.2, and on a payment id without pay_', async () => {
    const results = await run({
      name: 'float-total, payment-prefix',
      onResponse(req, res, ctx) {
        const b = res.json as Json;
        if (isRefund(req) && ok(res.status)) {
          // 0.1 + 0.2 === 0.30000000000000004 in binary floats: only exact decimals see the error.
          Object.assign(b, { amount: '0.1', taxAmount: '0.2', total: String(0.1 + 0.2) });
          ctx.applied();
        }
        if (isGetPayment(req) && ok(res.status)) {
          b.id = String(b.id).replace(/^pay_/, 'pmt_');
          ctx.applied();
        }
      },
    });
    expectFailed(results, ['REFUNDS.TOTAL.SUM', 'PAYMENTS.ID.PREFIX']);
  });

  test('fails on a credit note id without crn_, a payment status outside the enum, and 200 for an unknown payment', async () => {
    const results = await run({
      name: 'credit-note-prefix, payment-status, unknown-payment-found',
      onResponse(req, res, ctx) {
        if (isGetPayment(req) && res.status === 404) {
          res.status = 200;
          res.json = {
            object: 'payment',
            id: req.path.split('/')[3],
            amount: '1.00',
            currency: 'USD',
            status: 'pending',
            createdAt: new Date().toISOString(),
          };
          ctx.applied();
          return;
        }
        const b = res.json as Json;
        if (isRefund(req) && ok(res.status)) {
          b.id = String(b.id).replace(/^crn_/, 'cn_');
          ctx.applied();
        }
        if (isGetPayment(req) && ok(res.status)) {
          b.status = 'paid';
          ctx.applied();
        }
      },
    });
    expectFailed(results, ['REFUNDS.ID.PREFIX', 'PAYMENTS.STATUS.ENUM', 'STATUS.404.UNKNOWN_RESOURCE']);
  });

  test('fails when the reason is dropped or an unrefundable invoice is refunded; exact decimals 0.1 + 0.2 = 0.3 pass', async () => {
    const results = await run({
      name: 'reason-dropped, unrefundable-accepted, decimal-total',
      onResponse(req, res, ctx) {
        if (!isRefund(req)) return;
        if (ok(res.status)) {
          Object.assign(res.json as Json, { reason: null, amount: '0.1', taxAmount: '0.2', total: '0.3' });
        } else {
          const invoiceId = req.path.split('/')[3];
          const at = new Date().toISOString();
          res.status = 201;
          res.json = {
            object: 'invoice_refund',
            id: 'crn_conform',
            invoiceId,
            merchantId: 'org_x',
            amount: '1.00',
            taxAmount: '0.00',
            total: '1.00',
            currency: 'USD',
            status: 'ISSUED',
            externalCreditNoteId: 'x',
            createdAt: at,
            permalink: 'https://x.invalid/crn',
            pdfUrl: null,
            reason: null,
            voidedAt: null,
          };
        }
        ctx.applied();
      },
    });
    expectFailed(results, ['REFUNDS.REASON.RECORDED', 'REFUNDS.REFUSED.NO_CREDIT_NOTE']);
    const cited = results.flatMap((r) => r.findings.flatMap((f) => f.ruleIds));
    expect(cited).not.toContain('REFUNDS.TOTAL.SUM');
    expect(results.find((r) => r.title.startsWith('a refund without a reason'))?.state).toBe('passed');
  });
});
