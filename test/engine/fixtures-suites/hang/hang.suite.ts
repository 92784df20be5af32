// For the engine's own tests: a scenario one of whose requests gets no answer within the request timeout.
import { scenario } from '../../../../src/engine/scenario/index.ts';

scenario(
  ['CUSTOMERS.GET.BY_ID#answers-resource', 'CUSTOMERS.VALID_TAX_ADDRESS.PRESENT'],
  'a read in time, then a read that hangs, then a judgement on its body',
  async (t) => {
    const first = await t.http.get('/v0/customers/cus_fast1');
    t.expectStatus('CUSTOMERS.GET.BY_ID#answers-resource', first, 200);
    const hung = await t.http.get('/v0/customers/cus_hang1');
    // No answer: reading the body throws, which must not count as the tool's error.
    const valid = (hung.body as { validTaxAddress: { valid: boolean } }).validTaxAddress.valid;
    t.expectRule('CUSTOMERS.VALID_TAX_ADDRESS.PRESENT', valid !== undefined, 'the read carries validTaxAddress');
  },
);

scenario(['CUSTOMERS.GET.BY_ID#unknown-404'], 'a read of an unknown customer, answered in time', async (t) => {
  const res = await t.http.get('/v0/customers/cus_unknown1');
  t.expectStatus('CUSTOMERS.GET.BY_ID#unknown-404', res, 404);
});
