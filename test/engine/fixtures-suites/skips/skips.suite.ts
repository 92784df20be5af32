// A passing scenario, one that ends not judged on a property of the target, one not judged by --profile (engine tests only).
import { scenario } from '../../../../src/engine/scenario/index.ts';

scenario(['CUSTOMERS.GET.BY_ID#answers-resource'], 'a scenario that passes', async (t) => {
  const res = await t.http.get('/v0/customers/cus_demo1');
  t.expectRule('CUSTOMERS.GET.BY_ID#answers-resource', res.status === 200, 'the customer reads back', res);
});

scenario(['ALERTS.LIST.PAGINATED'], 'a scenario the target gives nothing to judge', async (t) => {
  t.notJudged('the target pages nothing');
});

// Not judged by the run's own options (quick profile): never counted by --fail-on-skip.
scenario(['MERCHANTS.CREATE.OBJECT'], 'a full-profile scenario', async () => {}, { profile: 'full' });
