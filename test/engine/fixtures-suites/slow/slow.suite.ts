// For the engine's own tests: a scenario needing more requests than a slow target answers in its time.
import { scenario } from '../../../../src/engine/scenario/index.ts';

scenario(
  ['CUSTOMERS.GET.BY_ID#answers-resource', 'CUSTOMERS.VALID_TAX_ADDRESS.PRESENT'],
  'five reads in a row, then a judgement on all of them',
  async (t) => {
    const seen: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.http.get('/v0/customers/cus_slow1');
      t.expectStatus('CUSTOMERS.GET.BY_ID#answers-resource', res, 200);
      seen.push((res.body as { validTaxAddress?: unknown }).validTaxAddress);
    }
    t.expectRule('CUSTOMERS.VALID_TAX_ADDRESS.PRESENT', seen.every(Boolean), 'every read carries validTaxAddress');
  },
);
