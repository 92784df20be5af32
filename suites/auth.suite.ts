/**
 * Authentication (interface document, Authentication): bearer keys on every operation,
 * 401 and 403 in the Error shape, no rate headers on a request that fails authentication,
 * and the merchant defaulting to the key's merchant where it is optional.
 * Rate allowances belonging to the merchant (AUTH.ALLOWANCE.PER_MERCHANT) are judged in
 * rate-limits.suite.ts, next to the buckets they are about.
 */
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import type { Exchange } from '../src/engine/types.ts';
import { learnSecret } from '../src/engine/http/redact.ts';
import { targetContext } from '../src/engine/scenario/worker.ts';
import { errorShapeProblems } from '../src/engine/checks/error-shape.ts';
import { idPrefix, loadSpec } from '../src/contract/index.ts';
import { apiKeyScopes } from '../src/engine/predicates.ts';
import { bodyOf, requireSuccess } from './support.ts';

const spec = await loadSpec();
/** The scope of a key that reads but may not write. */
const READ_ONLY = apiKeyScopes(spec).readOnly;

/** Documented operations (reference extensions are never judged). */
const DOCUMENTED = [...spec.operations.values()].filter((op) => !op.extension);
const RATE_LIMITED = DOCUMENTED.filter((op) => op.rateLimit);

/** A value a parameter accepts, good enough to reach the authentication step. */
function sample(schema: Record<string, any> | undefined, name: string): string {
  if (name === 'crmProvider') return 'salesforce';
  if (Array.isArray(schema?.enum) && schema.enum.length) return String(schema.enum[0]);
  const prefix = typeof schema?.pattern === 'string' ? /^\^([a-z]+_)/.exec(schema.pattern)?.[1] : undefined;
  if (schema?.type === 'integer' || schema?.type === 'number') return String(schema.minimum ?? 1);
  return `${prefix ?? ''}conform0`;
}

/** The operation's path with its parameters filled, and its required query parameters. */
function requestFor(op: (typeof DOCUMENTED)[number]): { path: string; body?: unknown } {
  let path = op.pathTemplate;
  const query = new URLSearchParams();
  for (const p of op.parameters) {
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(sample(p.schema, p.name)));
    else if (p.in === 'query' && p.required) query.set(p.name, sample(p.schema, p.name));
  }
  const q = query.toString();
  return { path: q ? `${path}?${q}` : path, body: ['POST', 'PATCH', 'PUT'].includes(op.method) ? {} : undefined };
}

/** The body is an Error (also when it is not JSON at all, which the error-shape check leaves to the content-type check). */
function expectErrorShape(t: ScenarioContext, ruleId: string, ex: Exchange, what: string): void {
  const problems = errorShapeProblems(ex.body, spec);
  t.expectRule(
    ruleId,
    problems.length === 0,
    `${what}: the ${ex.status} body is not an Error: ${problems.join('; ')}`,
    ex,
  );
}

/** 401 in Error shape. */
function expect401(t: ScenarioContext, ex: Exchange, what: string): void {
  t.expectRule(
    'AUTH.401.SHAPE#status-401',
    ex.status === 401,
    `${what} got ${ex.status ?? ex.transportError}, not 401`,
    ex,
  );
  expectErrorShape(t, 'AUTH.401.SHAPE#error-body', ex, what);
  // No rate headers on a 401 of a listed endpoint: the registry's failed-auth-headers check judges it.
}

scenario(
  ['AUTH.BEARER.REQUIRED', 'AUTH.401.SHAPE', 'RATE.FAILED_AUTH.NO_HEADERS'],
  'every documented operation without a bearer gets 401 in the Error shape',
  async (t) => {
    const sent = await Promise.all(
      DOCUMENTED.map((op) => {
        const r = requestFor(op);
        return t.http.request(op.method, r.path, { key: null, body: r.body });
      }),
    );
    // AUTH.BEARER.REQUIRED is the registry's (checks/bearer-required.ts), judged on each of these answers.
    for (const ex of sent) if (ex.status === 401) expect401(t, ex, `${ex.method} without Authorization`);
    t.note(`${sent.length} documented operations sent without Authorization`);
  },
  { concurrent: true },
);

/** Authorization values that are not `Bearer <API_KEY>` with a live key. */
function malformed(primaryKey: string): Array<[string, string]> {
  return [
    ['Bearer with no key', 'Bearer'],
    ['Bearer with a key of two words', 'Bearer conform not-a-key'],
    ['Basic credentials', `Basic ${Buffer.from('conform:secret').toString('base64')}`],
    ['the live key without the Bearer scheme', primaryKey],
    ['the live key under another scheme', `Token ${primaryKey}`],
    ['an unknown key', 'Bearer sk_test_conformUnknownKey0000000000000000'],
  ];
}

scenario(
  ['AUTH.401.SHAPE', 'RATE.FAILED_AUTH.NO_HEADERS'],
  'a malformed or unknown bearer gets 401 in the Error shape, without rate headers, also on the rate-limited endpoints',
  async (t) => {
    const paths = [...RATE_LIMITED, DOCUMENTED.find((op) => op.operationId === 'updateWebhooks') ?? DOCUMENTED[0]].map(
      (op) => ({ op, ...requestFor(op) }),
    );
    const cases = malformed(targetContext().apiKey.value).flatMap(([what, authorization]) =>
      paths.map((p) => ({ what, authorization, ...p })),
    );
    const sent = await Promise.all(
      cases.map((c) =>
        t.http.request(c.op.method, c.path, {
          headers: { authorization: c.authorization },
          body: c.body,
          unauthenticated: true,
          retry429: false,
        }),
      ),
    );
    sent.forEach((ex, i) => expect401(t, ex, `${cases[i].what} on ${cases[i].op.operationId}`));
  },
  { concurrent: true },
);

scenario(
  ['AUTH.401.SHAPE', 'RATE.FAILED_AUTH.NO_HEADERS'],
  'a revoked key gets 401 in the Error shape, without rate headers, also on the rate-limited endpoints',
  async (t) => {
    const revoked = await t.fixture((f) => f.revokedKey());
    const sent = await Promise.all(
      [...RATE_LIMITED, ...DOCUMENTED.filter((op) => op.operationId === 'updateWebhooks')].map((op) => {
        const r = requestFor(op);
        return t.http.request(op.method, r.path, {
          key: revoked,
          body: r.body,
          unauthenticated: true,
          retry429: false,
        });
      }),
    );
    for (const ex of sent) expect401(t, ex, `a revoked key on ${ex.method} ${ex.path.split('?')[0]}`);
  },
  { concurrent: true },
);

scenario(
  ['AUTH.403.SHAPE'],
  'a forbidden action gets 403 in the Error shape',
  async (t: ScenarioContext) => {
    const action = await t.fixture((f) => f.forbiddenAction());
    const ex = await t.http.request(action.method, action.path, { key: action.key, body: action.body });
    // A 401 says the fixture's key does not authenticate at all: its permissions are not shown.
    t.precondition(ex.status !== 401, `the key of the forbidden action authenticates`, ex);
    t.expectStatus('AUTH.403.SHAPE#status-403', ex, 403);
    expectErrorShape(t, 'AUTH.403.SHAPE#error-body', ex, `${action.method} ${action.path} with a key not allowed to`);
    const body = ex.body as { error?: unknown } | undefined;
    if (body && body.error !== undefined) t.note(`403 error category: ${String(body.error)}`);
  },
  { concurrent: true },
);

scenario(
  ['AUTH.MERCHANT.DEFAULT'],
  'PATCH /v0/webhooks without merchantId acts for the merchant of the key',
  async (t: ScenarioContext) => {
    const { merchantId } = await t.fixture((f) => f.merchant());
    const enabled = await t.fixture((f) => f.webhooksEnabled());
    t.precondition(
      enabled.merchantId === merchantId,
      `the fixtures enabled the webhooks of the key's merchant ${merchantId} (they name ${enabled.merchantId})`,
    );
    // enabled: true is the state the fixture left: the request changes nothing.
    const ex = await t.http.patch(spec.pathFor('updateWebhooks'), { enabled: true });
    // 404 is "webhooks never enabled": a merchant other than the key's, whose webhooks are on.
    t.expectRule(
      'AUTH.MERCHANT.DEFAULT',
      ex.status !== 404,
      `PATCH /v0/webhooks without merchantId got 404 (webhooks never enabled), though the key's merchant ${merchantId} has them on`,
      ex,
    );
    requireSuccess(t, ex, 'PATCH /v0/webhooks {enabled: true}');
    const got = bodyOf(ex).merchantId;
    t.expectRule(
      'AUTH.MERCHANT.DEFAULT',
      got === merchantId,
      `the configuration answered is merchant ${JSON.stringify(got)}'s, not the key's merchant ${merchantId}`,
      ex,
    );
  },
  { concurrent: true },
);

scenario(
  ['AUTH.MERCHANT.DEFAULT'],
  'PATCH /v0/webhooks without merchantId, with a key of a merchant whose webhooks were never ' +
    'enabled, reaches that merchant (404), not another',
  async (t: ScenarioContext) => {
    const other = await t.fixture((f) => f.merchantWithoutWebhooks());
    const theirs = await t.http.patch(spec.pathFor('updateWebhooks'), { enabled: true }, { key: other.key });
    t.precondition(theirs.status !== 401, `the key of merchant ${other.merchantId} authenticates`, theirs);
    t.expectRule(
      'AUTH.MERCHANT.DEFAULT',
      theirs.status === 404 || (theirs.body as { merchantId?: unknown } | undefined)?.merchantId === other.merchantId,
      `a key of merchant ${other.merchantId} (webhooks never enabled) without merchantId ` +
        `got ${theirs.status} for ` +
        `merchant ${JSON.stringify((theirs.body as { merchantId?: unknown } | undefined)?.merchantId)}`,
      theirs,
    );
  },
  { concurrent: true },
);

scenario(
  ['AUTH.KEYS.REFERENCE'],
  `reference keys: a ${READ_ONLY} key reads but may not write (403), a revoked key gets 401`,
  async (t) => {
    if (t.target.fixtureStrategy !== 'reference')
      t.notJudged(
        'a reference rule (how keys are created is not shown): judged only on a target offering the reference extensions',
        'not-applicable',
      );
    const { merchantId } = await t.fixture((f) => f.merchant());
    const created = await t.http.post(spec.pathFor('createApiKey'), { name: 'conform auth suite', scope: READ_ONLY });
    const key = created.body as { id?: string; secret?: string; scope?: string } | undefined;
    learnSecret(key?.secret);
    t.expectRule(
      'AUTH.KEYS.REFERENCE#creates',
      (created.status === 201 || created.status === 200) &&
        typeof key?.secret === 'string' &&
        typeof key?.id === 'string' &&
        key?.scope === READ_ONLY,
      `POST /v0/apiKeys returned no ${READ_ONLY} key with id and secret (${created.status ?? created.transportError})`,
      created,
    );
    const { id, secret } = key as { id: string; secret: string };
    try {
      const read = await t.http.get(spec.pathFor('getMerchant', { id: merchantId }), { key: secret });
      t.expectRule(
        'AUTH.KEYS.REFERENCE#read-only-scope',
        read.status === 200,
        `a ${READ_ONLY} key reading its merchant got ${read.status}`,
        read,
      );
      const write = await t.http.patch(
        spec.pathFor('updateCustomer', { id: `${idPrefix(spec, 'CustomerId')}conform0` }),
        { externalId: 'conform' },
        { key: secret },
      );
      t.expectStatus('AUTH.KEYS.REFERENCE#read-only-scope', write, 403);
    } finally {
      const revoke = await t.http.delete(spec.pathFor('revokeApiKey', { id }));
      t.expectRule(
        'AUTH.KEYS.REFERENCE#revokes',
        revoke.status !== undefined && revoke.status < 300,
        `DELETE /v0/apiKeys/{id} got ${revoke.status}`,
        revoke,
      );
    }
    const after = await t.http.get(spec.pathFor('getMerchant', { id: merchantId }), {
      key: secret,
      unauthenticated: true,
    });
    t.expectRule(
      'AUTH.KEYS.REFERENCE#revokes',
      after.status === 401,
      `a revoked key got ${after.status}, not 401`,
      after,
    );
  },
  { concurrent: true },
);
