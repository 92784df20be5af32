// An example suite for the engine's own tests (not a conformance suite).
import { scenario } from '../../../src/engine/scenario/index.ts';

scenario(['CUSTOMERS.GET.BY_ID'], 'a customer reads back by id', async (t) => {
  const res = await t.http.get('/v0/customers/cus_demo1');
  t.expectStatus('CUSTOMERS.GET.BY_ID#reads-existing', res, 200);
  // That it is the customer asked for is the registry's (read-by-id, #answers-resource).
});

scenario(['STATUS.404.UNKNOWN_RESOURCE'], 'an unknown customer gets 404', async (t) => {
  const res = await t.http.get('/v0/customers/cus_doesnotexist');
  t.expectStatus(['STATUS.404.UNKNOWN_RESOURCE', 'CUSTOMERS.GET.BY_ID#unknown-404'], res, 404);
});

scenario(
  ['AUTH.401.SHAPE', 'RATE.FAILED_AUTH.NO_HEADERS'],
  'a missing bearer gets 401 without rate headers',
  async (t) => {
    const res = await t.http.get('/v0/customers', { key: null });
    t.expectStatus('AUTH.401.SHAPE#status-401', res, 401);
  },
);

scenario(['WEBHOOKS.404.NEVER_ENABLED'], 'needs a fixture the target cannot give', async (t) => {
  await t.fixture((f) => f.merchantWithoutWebhooks());
  t.expectRule('WEBHOOKS.404.NEVER_ENABLED', false, 'unreachable without the fixture');
});

scenario(
  ['CUSTOMERS.DELETE.UNBLOCKED'],
  'a destructive scenario',
  async (t) => {
    const res = await t.http.delete('/v0/customers/cus_demo1');
    t.expectStatus('CUSTOMERS.DELETE.UNBLOCKED', res, [200, 204]);
  },
  { destructive: true },
);
