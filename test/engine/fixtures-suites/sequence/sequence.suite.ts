// For the engine's own tests: a rate-limit scenario whose failure needs its whole sequence.
import { scenario } from '../../../../src/engine/scenario/index.ts';

scenario(['RATE.EXCEEDED.STATUS'], 'three requests on a bucket of two', async (t) => {
  t.rateLimitScenario();
  const sent = [];
  for (let i = 0; i < 3; i++) sent.push(await t.http.get('/v0/customers'));
  t.softExpectRule(
    'RATE.EXCEEDED.STATUS',
    sent[2].status === 429,
    `request 3 of a window whose limit is 2 was admitted (${sent[2].status})`,
    sent[2],
  );
});
