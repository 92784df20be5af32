/** A rate-limit scenario's failure carries the replay script of every request it sent, not only the last. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { join } from 'node:path';
import { runSuites, PACKAGE_ROOT } from '../../src/engine/runner/index.ts';
import { startFakeTarget, type FakeTarget } from './helpers/fake-target.ts';

let target: FakeTarget;
beforeAll(async () => {
  target = await startFakeTarget((req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    });
    res.end(JSON.stringify({ object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } }));
  });
});
afterAll(async () => {
  await target?.close();
});

test('the finding of a rate-limit scenario holds a bash script of its three requests', async () => {
  const outcome = await runSuites({
    target: {
      runId: 'sequence',
      baseUrl: target.baseUrl,
      bundled: false,
      sandbox: false,
      destructive: false,
      apiKey: { value: 'sk_test_sequence_key_0123', label: 'CONFORM_API_KEY' },
      profile: 'quick',
      seed: 1,
      timeoutMs: 5000,
      fixtures: { strategy: 'none', reason: 'test' },
    },
    suites: [{ name: 'sequence', file: join(PACKAGE_ROOT, 'test/engine/fixtures-suites/sequence/sequence.suite.ts') }],
    maxWorkers: 1,
  });
  const finding = outcome.results[0]?.findings.find(
    (f) => f.ruleIds.includes('RATE.EXCEEDED.STATUS') && f.source === 'scenario',
  );
  expect(finding?.replaySequence).toBeDefined();
  expect(finding!.replaySequence).toMatch(
    /^#!\/usr\/bin\/env bash\n# Replays the 3 requests of 'three requests on a bucket of two'/,
  );
  expect(finding!.replaySequence).toContain(
    `for _ in $(seq 3); do curl -sS -o /dev/null -w "$show" -X GET '${target.baseUrl}/v0/customers' -H 'accept: application/json' -H "Authorization: Bearer $CONFORM_API_KEY"; done`,
  );
  expect(finding!.replaySequence).not.toContain('sk_test_sequence_key_0123');
});
