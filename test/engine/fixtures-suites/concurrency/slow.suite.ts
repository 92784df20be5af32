// For the engine's own tests: four concurrent scenarios, each one slow request.
import { scenario } from '../../../../src/engine/scenario/index.ts';

for (const n of [1, 2, 3, 4]) {
  scenario(
    ['CUSTOMERS.GET.BY_ID#answers-resource'],
    `slow read ${n}`,
    async (t) => {
      const res = await t.http.get(`/v0/customers/cus_slow${n}`);
      t.expectStatus('CUSTOMERS.GET.BY_ID#answers-resource', res, 200);
    },
    { concurrent: true },
  );
}
