/**
 * Webhooks: PATCH /v0/webhooks toggles delivery (Endpoints > Webhooks, States and
 * transitions, Events). The toggle scenario works on the primary merchant's one
 * configuration, so it runs on its own; the others only ask for enabled=true or use a
 * fresh merchant, and run concurrently.
 */
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import type { Exchange } from '../src/engine/types.ts';
import { loadSpec } from '../src/contract/index.ts';
import { notRefused, bodyOf, requireSuccess, isDateTime, isFixtureUnavailable, type Json } from './support.ts';

/** PATCH /v0/webhooks, every request of this suite. */
const WEBHOOKS = (await loadSpec()).pathFor('updateWebhooks');

/**
 * A 200 answering the configuration. Its shape, and `enabled` being the value asked for, are the
 * webhooks-updated check's (src/engine/checks/updates.ts): a configuration in another state
 * (which that check failed) shows nothing more, and ends the scenario.
 */
function expectConfig(t: ScenarioContext, ex: Exchange, enabled: boolean): Json {
  notRefused(t, ex);
  // Its shape, and the state asked for, are the registry's (webhooks-updated).
  const c = requireSuccess(t, ex, 'PATCH /v0/webhooks');
  t.precondition(c.enabled === enabled, `the configuration answered enabled ${enabled}`, ex);
  return c;
}

/** JSON with object keys sorted: two reads of one endpoint compare equal whatever the key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Json)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** The endpoints read before that are missing now (others may have been added meanwhile). */
function lost(before: unknown[], after: unknown[]): unknown[] {
  const seen = new Set(after.map(canonical));
  return before.filter((e) => !seen.has(canonical(e)));
}

/** What only a read of the endpoints shows: that a toggle keeps them. */
const KEEPS = ['WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS', 'STATE.WEBHOOKS.DISABLE#keeps-endpoints'];

/**
 * The endpoints as the target shows them, or undefined where they cannot be read back (then
 * the parts only a read shows are not judged, and the toggle is judged on its answers alone).
 */
async function readEndpoints(t: ScenarioContext): Promise<unknown[] | undefined> {
  // A fixtures file lists the endpoints: the same list after a toggle would show nothing.
  if (t.target.fixtureStrategy === 'file') {
    t.ruleNotJudged(
      KEEPS,
      'a fixtures file lists the webhook endpoints; it cannot read them back after a toggle',
      'fixture',
    );
    return undefined;
  }
  try {
    const endpoints = await t.fixture((f) => f.webhookEndpoints());
    if (endpoints.length) return endpoints;
    t.ruleNotJudged(KEEPS, 'the configuration holds no endpoint: there is nothing to keep');
  } catch (err) {
    if (!isFixtureUnavailable(err)) throw err;
    t.ruleNotJudged(KEEPS, `fixture 'webhookEndpoints' unavailable: ${err.reason}`, err.category ?? 'fixture');
  }
  return undefined;
}

scenario(
  ['WEBHOOKS.404.NEVER_ENABLED'],
  'PATCH /v0/webhooks for a merchant whose webhooks were never enabled gets 404',
  async (t) => {
    const { key } = await t.fixture((f) => f.merchantWithoutWebhooks());
    for (const enabled of [true, false]) {
      const res = await t.http.patch(WEBHOOKS, { enabled }, { key });
      t.expectStatus('WEBHOOKS.404.NEVER_ENABLED', res, 404);
      t.expectRule(
        'WEBHOOKS.404.NEVER_ENABLED',
        typeof bodyOf(res).message === 'string',
        'the 404 body is an Error with a message',
        res,
      );
    }
  },
  { concurrent: true },
);

scenario(
  [
    'WEBHOOKS.CONFIG.SHAPE',
    'WEBHOOKS.MERCHANT.DEFAULT',
    'AUTH.MERCHANT.DEFAULT',
    'STATUS.SUCCESS.CODE',
    'VALIDATION.VALID_REQUEST.NOT_400',
  ],
  "PATCH /v0/webhooks without merchantId answers the configuration of the key's merchant",
  async (t) => {
    await t.fixture((f) => f.webhooksEnabled());
    const { merchantId } = await t.fixture((f) => f.merchant());
    const res = await t.http.patch(WEBHOOKS, { enabled: true });
    const c = expectConfig(t, res, true);
    t.softExpectRule(
      'AUTH.MERCHANT.DEFAULT',
      c.merchantId === merchantId,
      `without merchantId, the request acts for the key's merchant ${merchantId} (got ${JSON.stringify(c.merchantId)})`,
      res,
    );
    t.expectRule(
      'WEBHOOKS.MERCHANT.DEFAULT',
      c.merchantId === merchantId,
      `merchantId is the key's merchant ${merchantId} (got ${JSON.stringify(c.merchantId)})`,
      res,
    );
    // Naming the key's own merchant reaches the same configuration.
    const named = await t.http.patch(WEBHOOKS, { enabled: true }, { query: { merchantId } });
    const n = expectConfig(t, named, true);
    t.expectRule(
      'WEBHOOKS.MERCHANT.DEFAULT',
      n.merchantId === merchantId && n.applicationId === c.applicationId,
      'the explicit merchantId of the key names the same configuration as the default',
      named,
    );
  },
  { concurrent: true },
);

scenario(
  ['WEBHOOKS.MERCHANT.NAMED', 'VALIDATION.VALID_REQUEST.NOT_400'],
  "PATCH /v0/webhooks naming another merchant never answers the configuration of the key's merchant",
  async (t) => {
    await t.fixture((f) => f.webhooksEnabled());
    const other = (await t.fixture((f) => f.merchantWithoutWebhooks())).merchantId;
    const res = await t.http.patch(WEBHOOKS, { enabled: true }, { query: { merchantId: other } });
    notRefused(t, res);
    // A 200 answers the configuration of the merchant named: the webhooks-updated check judges it;
    // a status the operation does not document, the status checks.
    if (res.status !== undefined && res.status >= 400 && res.status < 500)
      t.ruleNotJudged(
        'WEBHOOKS.MERCHANT.NAMED',
        `naming another merchant was refused (${res.status}), which the document allows: no configuration to judge`,
        'not-applicable',
      );
  },
  { concurrent: true },
);

scenario(
  ['WEBHOOKS.MERCHANT.UNMANAGED'],
  'PATCH /v0/webhooks naming a merchant the key may not manage is refused',
  async (t) => {
    const other = await t.fixture((f) => f.unmanagedMerchant());
    // That merchant's delivery is on: a target letting the key through turns it off.
    const res = await t.http.patch(WEBHOOKS, { enabled: false }, { query: { merchantId: other.merchantId } });
    t.expectRule(
      'WEBHOOKS.MERCHANT.UNMANAGED',
      res.status === 403 || res.status === 404,
      `naming merchant ${other.merchantId}, which the key may not manage, is refused with 403 (or ` +
        `404), got ${res.status ?? res.transportError}`,
      res,
    );
    t.softExpectRule(
      'WEBHOOKS.MERCHANT.UNMANAGED',
      typeof bodyOf(res).message === 'string',
      'the refusal is an Error with a message',
      res,
    );
    // Its own key still reaches its configuration.
    const own = await t.http.patch(WEBHOOKS, { enabled: true }, { key: other.key });
    t.softExpectRule(
      'WEBHOOKS.MERCHANT.UNMANAGED',
      own.status === 200 && bodyOf(own).merchantId === other.merchantId,
      `the merchant's own key still reaches its configuration ` +
        `(got ${own.status ?? own.transportError}, merchantId ${JSON.stringify(bodyOf(own).merchantId)})`,
      own,
    );
  },
  { concurrent: true },
);

scenario(
  ['VALIDATION.REQUIRED.400', 'VALIDATION.TYPE.400'],
  'PATCH /v0/webhooks without enabled, or with a non-boolean, gets 400',
  async (t) => {
    await t.fixture((f) => f.webhooksEnabled());
    // Their refusals are the registry's (checks/refusals.ts).
    await t.http.patch(WEBHOOKS, {}, { brokenOnPurpose: true });
    await t.http.patch(WEBHOOKS, { enabled: 'yes' }, { brokenOnPurpose: true });
  },
  { concurrent: true },
);

scenario(
  [
    'WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS',
    'STATE.WEBHOOKS.DISABLE',
    'STATE.WEBHOOKS.ENABLE',
    'WEBHOOKS.CREATED_AT.FIRST_ENABLED',
    'WEBHOOKS.CONFIG.SHAPE',
  ],
  'disabling and enabling delivery keeps the endpoints, their event subscriptions and createdAt',
  async (t: ScenarioContext) => {
    await t.fixture((f) => f.webhooksEnabled());
    const before = await readEndpoints(t);
    const first = expectConfig(t, await t.http.patch(WEBHOOKS, { enabled: true }), true);

    const off = await t.http.patch(WEBHOOKS, { enabled: false });
    expectConfig(t, off, false);
    if (before) {
      const gone = lost(before, await t.fixture((f) => f.webhookEndpoints()));
      const message = `disabling kept every endpoint and its event subscriptions (lost: ${JSON.stringify(gone)})`;
      for (const key of KEEPS) t.softExpectRule(key, gone.length === 0, message, off);
    }

    const on = await t.http.patch(WEBHOOKS, { enabled: true });
    expectConfig(t, on, true);
    if (before) {
      const gone = lost(before, await t.fixture((f) => f.webhookEndpoints()));
      t.softExpectRule(
        'WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS',
        gone.length === 0,
        `re-enabling kept every endpoint and its event subscriptions (lost: ${JSON.stringify(gone)})`,
        on,
      );
    }

    // A createdAt that stays the same shows something only where there is one. Whether it stays
    // is the registry's (checks/webhooks-created-at.ts), judged on the toggles' answers above.
    t.precondition(isDateTime(first.createdAt), 'the configuration carries createdAt');
  },
);
