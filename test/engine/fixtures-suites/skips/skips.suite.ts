// A passing scenario, one skipped for a missing fixture and one skipped by --profile (engine tests only).
import { scenario } from '../../../../src/engine/scenario.ts';

scenario(['CUSTOMERS.GET.BY_ID'], 'a scenario that passes', async (t) => {
  const res = await t.http.get('/v0/customers/cus_demo1');
  t.expectRule('CUSTOMERS.GET.BY_ID', res.status === 200, 'the customer reads back', res);
});

scenario(['ALERTS.LIST.PAGINATED'], 'a scenario whose fixture is missing', async (t) => {
  t.skip('the target has no wallets');
});

// Skipped by the run's own options (quick profile): never counted by --fail-on-skip.
scenario(['MERCHANTS.GET.ROUND_TRIP'], 'a full-profile scenario', async () => {}, { profile: 'full' });
