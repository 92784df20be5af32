import { expect, test } from 'vitest';
import { RequestSequence } from '../../src/engine/http/replay-script.ts';
import { registerFixtureKey, registerSecret } from '../../src/engine/http/redact.ts';

const get = (url: string, key = 'sk_test_replay_sequence_key') => ({
  method: 'GET',
  url,
  requestHeaders: { authorization: `Bearer ${key}` },
});

test('a sequence becomes one bash script: identical requests in a row are one loop, pauses kept, no key', () => {
  registerSecret('sk_test_replay_sequence_key', 'CONFORM_API_KEY');
  const seq = new RequestSequence();
  for (let i = 0; i < 61; i++) seq.add(get('http://127.0.0.1:4010/v0/customers'), 1000 + i * 5);
  seq.add(get('http://127.0.0.1:4010/v0/customers'), 1000 + 61 * 5 + 1500);
  seq.add(
    {
      method: 'POST',
      url: 'http://127.0.0.1:4010/v0/subscriptions/sub_1/portal',
      requestHeaders: { authorization: 'Bearer sk_test_replay_sequence_key', 'content-type': 'application/json' },
      requestBody: {},
    },
    2900,
  );
  const script = seq.script('GET /v0/customers: 60 per 6 s');
  expect(seq.size).toBe(63);
  expect(script).not.toContain('sk_test_replay_sequence_key');
  const lines = script
    .split('\n')
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('set ') && !l.startsWith('show=') && !l.startsWith(': '));
  expect(lines).toEqual([
    `for _ in $(seq 61); do curl -sS -o /dev/null -w "$show" -X GET 'http://127.0.0.1:4010/v0/customers' -H "Authorization: Bearer $CONFORM_API_KEY"; done`,
    'sleep 1.5',
    `curl -sS -o /dev/null -w "$show" -X GET 'http://127.0.0.1:4010/v0/customers' -H "Authorization: Bearer $CONFORM_API_KEY"`,
    `curl -sS -o /dev/null -w "$show" -X POST 'http://127.0.0.1:4010/v0/subscriptions/sub_1/portal' -H "Authorization: Bearer $CONFORM_API_KEY" -H 'content-type: application/json' --data-raw '{}'`,
  ]);
  expect(script).toMatch(
    /^#!\/usr\/bin\/env bash\n# Replays the 63 requests of 'GET \/v0\/customers: 60 per 6 s' in order/,
  );
  expect(script).toContain('\n#   CONFORM_API_KEY=...  # the key the run read from CONFORM_API_KEY\n');
});

test("the header names every key's variable and where the key comes from; the script stops on one not set", () => {
  registerSecret('sk_test_replay_primary_key', 'BILLING_API_KEY', 'the API key of the run');
  registerFixtureKey('sk_test_replay_second_key', 'secondKeySameMerchant');
  const seq = new RequestSequence();
  seq.add(get('http://127.0.0.1:4010/v0/costs/report', 'sk_test_replay_primary_key'), 0);
  seq.add(get('http://127.0.0.1:4010/v0/costs/report', 'sk_test_replay_second_key'), 1);
  const script = seq.script('two keys, one bucket');
  expect(script).not.toMatch(/sk_test_replay|\*\*\*/);
  expect(script).toContain(
    [
      '# Keys are never written here: set these environment variables first.',
      '#   BILLING_API_KEY=...     # the API key of the run',
      '#   CONFORM_KEY_SECOND=...  # key made by fixture secondKeySameMerchant',
      'set -u',
      ': "${BILLING_API_KEY:?the API key of the run}"',
      ': "${CONFORM_KEY_SECOND:?key made by fixture secondKeySameMerchant}"',
    ].join('\n'),
  );
  expect(script).toContain(
    '-H "Authorization: Bearer ${CONFORM_KEY_SECOND:?key made by fixture secondKeySameMerchant}"',
  );
});

test('past its cap it says how many requests it left out', () => {
  const seq = new RequestSequence(2);
  seq.add(get('http://h/v0/a'), 0);
  seq.add(get('http://h/v0/b'), 1);
  seq.add(get('http://h/v0/c'), 2);
  expect(seq.script('x')).toMatch(/# \.\.\. 1 more request not kept\n$/);
});
