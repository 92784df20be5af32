/** Test clocks: create, advance (closes periods, applies pending migrations, invoices). */
import { badRequest, notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { TYPES, type Stored } from '../domain/services/store.ts';
import { advanceClockSubscriptions, type TestClock } from '../domain/services/subscriptions.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created, merchant } from './common.ts';

export const testClocksPlugin: ResourcePlugin = {
  name: 'testClocks',
  async register(app, { repo }) {
    app.post('/v0/testClocks', { config: { operationId: 'createTestClock' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as { frozenTime: string; name?: string };
      const clock = await repo.insert(
        TYPES.testClock,
        m,
        {
          object: 'test_clock',
          merchantId: m,
          name: body.name ?? null,
          frozenTime: new Date(body.frozenTime).toISOString(),
        },
        { prefix: PREFIX.testClock, id: newId(PREFIX.testClock) },
      );
      return created(reply, clock);
    });

    app.post('/v0/testClocks/:id/advance', { config: { operationId: 'advanceTestClock' } }, async (request) => {
      const { id } = request.params as { id: string };
      const m = merchant(request);
      const to = new Date((request.body as { frozenTime: string }).frozenTime);
      return repo.transaction(async (tx) => {
        const clock = await tx.getForUpdate<Stored<TestClock>>(TYPES.testClock, id, m);
        if (!clock) throw notFound('Test clock', id, 'TEST_CLOCK_NOT_FOUND');
        const from = new Date(clock.frozenTime);
        if (to.getTime() < from.getTime()) {
          throw badRequest(
            'TEST_CLOCK_BACKWARDS',
            `frozenTime: a test clock only moves forward (it is at ${clock.frozenTime})`,
          );
        }
        const updated = await tx.update(TYPES.testClock, id, m, { frozenTime: to.toISOString() });
        await advanceClockSubscriptions(tx, m, id, from, to);
        return updated;
      });
    });
  },
};
