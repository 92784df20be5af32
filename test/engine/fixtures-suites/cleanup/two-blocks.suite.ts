// For the engine's own tests: scenarios in two describe blocks of one file, each using a fixture.
import { describe, scenario } from '../../../../src/engine/scenario/index.ts';

for (const block of ['first', 'second']) {
  describe(`${block} block`, () => {
    scenario(['CUSTOMERS.VALID_TAX_ADDRESS.PRESENT'], `${block} block reads its customer`, async (t) => {
      const { customerId } = await t.fixture((f) => f.customer());
      const res = await t.http.get(`/v0/customers/${customerId}`);
      t.expectRule('CUSTOMERS.VALID_TAX_ADDRESS.PRESENT', res.status === 200, 'read', res);
    });
  });
}
