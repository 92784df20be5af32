/**
 * examples/sandbox/conform.fixtures.ts never hands out a key it did not read: a back-office
 * answer that is 2xx but cut off (a timeout mid-body on a loaded machine) or that names no
 * secret makes the fixture unavailable, instead of a fixture built from `{}` whose missing key
 * sends the scenario's request with the primary key (a false verdict on a correct sandbox).
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import createFixtures from '../../examples/sandbox/conform.fixtures.ts';
import { isFixtureUnavailable } from '../../src/engine/fixtures/types.ts';
import type { Exchange } from '../../src/engine/types.ts';
import { HttpClient } from '../../src/engine/http/index.ts';
import { backOfficeClient, type BackOfficeOptions } from '../../src/engine/fixtures/module.ts';

type Answer = Partial<Exchange>;

/** A back office answering POST /v0/apiKeys with `keyAnswer` and everything else with a fresh id. */
function backOffice(keyAnswer: Answer) {
  const sent: string[] = [];
  const http = {
    async request(method: string, path: string): Promise<Exchange> {
      sent.push(`${method} ${path}`);
      const base = { method, path, url: path, requestHeaders: {}, responseHeaders: {}, rawBody: '', durationMs: 1 };
      const answer: Answer =
        method === 'POST' && path === '/v0/apiKeys'
          ? keyAnswer
          : { status: 201, body: { id: `org_${sent.length}`, object: 'merchant' } };
      return { ...base, startedAt: new Date().toISOString(), ...answer } as Exchange;
    },
  };
  const fixtures = createFixtures(context(http));
  return { fixtures, sent };
}

/**
 * A module context whose back office is `http`: backOffice() vets its options as the engine's
 * does (a credential not set throws, naming it) and records them.
 */
function context(http: unknown, options: BackOfficeOptions[] = []) {
  const real = new HttpClient({ baseUrl: 'http://sandbox.invalid', apiKey: 'sk_test_primary_key_000000' });
  return {
    baseUrl: 'http://sandbox.invalid',
    apiKey: 'sk_test_primary_key_000000',
    http: http as never,
    backOffice: (o: BackOfficeOptions) => (backOfficeClient(real, o), options.push(o), http as never),
    registerSecret: () => undefined,
  };
}

beforeEach(() => {
  process.env.CONFORM_ADMIN_URL = 'http://backoffice.invalid';
  process.env.CONFORM_ADMIN_KEY = 'sk_test_backoffice_key_0000';
});
afterEach(() => {
  delete process.env.CONFORM_ADMIN_URL;
  delete process.env.CONFORM_ADMIN_KEY;
});

async function refusal(p: Promise<unknown>): Promise<{ fixture: string; reason: string }> {
  const err = await p.then(
    (value) => ({ value }),
    (e: unknown) => e,
  );
  expect(isFixtureUnavailable(err), `resolved with ${JSON.stringify(err)}`).toBe(true);
  return err as { fixture: string; reason: string };
}

test('a 201 whose body was cut off is no key: the fixture is unavailable, naming why', async () => {
  const { fixtures } = backOffice({
    status: 201,
    transportError: 'response body interrupted: connection reset by the target before a complete response',
  });
  for (const make of [fixtures.merchantWithoutWebhooks!, fixtures.forbiddenAction!, fixtures.revokedKey!]) {
    const err = await refusal(make());
    expect(err.reason).toContain('POST /v0/apiKeys');
    expect(err.reason).toContain('response body interrupted');
  }
});

test('a 201 naming no secret is no key either', async () => {
  const { fixtures, sent } = backOffice({ status: 201, body: { object: 'api_key', id: 'key_1' } });
  const err = await refusal(fixtures.merchantWithoutWebhooks!());
  expect(err).toMatchObject({ fixture: 'merchantWithoutWebhooks' });
  expect(err.reason).toContain('no id and secret');
  expect(await refusal(fixtures.merchant!())).toMatchObject({ fixture: 'merchant' });
  // Nothing was sent with the key it did not get.
  expect(sent.filter((s) => s.startsWith('PATCH'))).toEqual([]);
});

test('the back office gets a credential of its own: without CONFORM_ADMIN_KEY the module refuses to start, naming it', () => {
  delete process.env.CONFORM_ADMIN_KEY;
  expect(() => backOffice({ status: 201, body: {} })).toThrow(/CONFORM_ADMIN_KEY is not set/);
  // Set to another key, that key (never the sandbox's) goes to the back office.
  process.env.CONFORM_ADMIN_KEY = 'sk_test_backoffice_key_0000';
  const options: BackOfficeOptions[] = [];
  const http = { request: async () => ({}) as Exchange };
  createFixtures(context(http, options));
  expect(options[0]).toMatchObject({ bearer: 'sk_test_backoffice_key_0000', label: 'CONFORM_ADMIN_KEY' });
  // The client it makes sends that key, named by its variable, and no other.
  const client = backOfficeClient(
    new HttpClient({ baseUrl: 'http://sandbox.invalid', apiKey: 'sk_test_primary_key_000000' }),
    options[0]!,
  );
  expect(client.options).toMatchObject({
    baseUrl: 'http://backoffice.invalid',
    apiKey: 'sk_test_backoffice_key_0000',
    apiKeyLabel: 'CONFORM_ADMIN_KEY',
  });
});
