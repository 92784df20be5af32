// Exercises the scenario API itself (engine tests only): retry, not-judged ends, soft checks, engine errors, transport failures.
import { scenario, describe } from '../../../../src/engine/scenario/index.ts';

describe('rate limits', () => {
  scenario(['RATE.EXCEEDED.STATUS'], 'rate-limit scenarios send once and see the 429', async (t) => {
    t.rateLimitScenario();
    const res = await t.http.get('/v0/customers', { headers: { 'x-fake-mode': '429' } });
    t.expectStatus('RATE.EXCEEDED.STATUS', res, 429);
  });

  scenario(['RETRY.CLIENT.MAX_ATTEMPTS'], 'other scenarios obey the retry rule: five attempts', async (t) => {
    let attempts = 0;
    const res = await t.http.get('/v0/customers', {
      headers: { 'x-fake-mode': '429' },
      onExchange: () => void attempts++,
    });
    t.expectRule(
      'RETRY.CLIENT.MAX_ATTEMPTS',
      attempts === 5 && res.status === 429,
      `expected 5 attempts ending in 429, saw ${attempts}`,
      res,
    );
  });
});

scenario(
  ['CUSTOMERS.GET.BY_ID#answers-resource', 'CUSTOMERS.TAX_ID.NULL_CLEARS'],
  'soft checks carry on and notes are kept',
  async (t) => {
    const res = await t.http.get('/v0/customers/cus_demo1');
    t.note('an advisory note');
    t.softExpectRule('CUSTOMERS.TAX_ID.NULL_CLEARS', false, 'soft failure recorded', res);
    t.expectRule(
      'CUSTOMERS.GET.BY_ID#answers-resource',
      res.status === 200,
      'still reached after the soft failure',
      res,
    );
  },
);

scenario(['ALERTS.LIST.PAGINATED'], 'a not-judged end names its reason and category', async (t) => {
  t.notJudged('the target has no wallets', 'fixture');
});

scenario(['PRICES.GET.BY_ID'], "an unexpected error is an engine error, never the target's failure", async (t) => {
  const res = await t.http.get('/v0/customers/cus_demo1');
  (res.body as { missing: { deeper: string } }).missing.deeper.toString();
});

scenario(['PRODUCTS.CREATE.OBJECT'], 'citing a rule without judging it passes nothing', async (t) => {
  await t.http.get('/v0/customers/cus_demo1');
});

scenario(
  ['SCHEDULES.END_DATE.PRESENT', 'SCHEDULES.OWNER.EXACTLY_ONE'],
  'what was judged before a not-judged end stands',
  async (t) => {
    t.softExpectRule('SCHEDULES.OWNER.EXACTLY_ONE', true, 'judged before the end');
    t.notJudged('endDate defaulting is not shown on this target');
  },
);

scenario(['PAYMENTS.GET.BY_ID'], 'a hang ends the scenario not judged, target too slow', async (t) => {
  const res = await t.http.get('/v0/customers/cus_demo1', { headers: { 'x-fake-mode': 'hang' }, timeoutMs: 300 });
  t.expectRule('PAYMENTS.GET.BY_ID#answers-resource', res.status !== undefined, 'the target answered', res);
});

scenario(['WALLETS.AUTO_TOPUP.SHAPE'], 'a connection reset becomes a finding citing the scenario rules', async (t) => {
  const res = await t.http.get('/v0/customers/cus_demo1', { headers: { 'x-fake-mode': 'reset' } });
  t.expectRule('WALLETS.AUTO_TOPUP.SHAPE', res.status !== undefined, 'the target answered', res);
});

scenario(['MERCHANTS.CREATE.OBJECT'], 'full-profile scenarios are skipped in quick', async () => {}, {
  profile: 'full',
});
