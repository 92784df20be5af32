/**
 * Alerts: GET /v0/alerts paging and PATCH /v0/alerts/{id} (Endpoints > Alerts, Limits).
 * Each scenario reads or patches alerts of a wallet of its own: all run concurrently.
 */
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import type { Exchange } from '../src/engine/types.ts';
import { concurrent, notRefused, updateInTurn, bodyOf, type Json } from './support.ts';
import { loadRules, loadSpec, schemaConst } from '../src/contract/index.ts';
import { numberOf, onlyValue } from '../src/engine/predicates.ts';

/** The page sizes GET /v0/alerts accepts (ALERTS.LIST.LIMIT_RANGE). */
const RULES_FILE = await loadRules();
const LIMIT_MIN = numberOf(RULES_FILE, 'ALERTS.LIST.LIMIT_RANGE', 'minimum');
const LIMIT_MAX = numberOf(RULES_FILE, 'ALERTS.LIST.LIMIT_RANGE', 'maximum');
/** The page size GET /v0/alerts gives without limit (ALERTS.LIST.LIMIT_DEFAULT). */
const LIMIT_DEFAULT = numberOf(RULES_FILE, 'ALERTS.LIST.LIMIT_DEFAULT', 'default');

const spec = await loadSpec();
const ALERTS = spec.pathFor('listAlerts');
const alertPath = (id: string) => spec.pathFor('updateAlert', { id });
/** The resource PATCH /v0/alerts/{id} names in its query: the one its enum allows. */
const RESOURCE = onlyValue(spec, 'updateAlert:query.resource');
/** The object names of a list envelope and of an alert, as ListEnvelope and Alert state them. */
const LIST = schemaConst(spec, 'ListEnvelope.object');
const ALERT = schemaConst(spec, 'Alert.object');

/**
 * A 200 list page of the wallet's alerts (judged under ALERTS.LIST.PAGINATED and under `accepted`:
 * the rule parts that say the request is accepted; a 2xx other than the documented 200 is the
 * registry's, STATUS.SUCCESS.CODE); returns the envelope.
 */
function expectPage(t: ScenarioContext, ex: Exchange, accepted: string[] = []): Json {
  notRefused(t, ex);
  t.expectStatus(['ALERTS.LIST.PAGINATED', ...accepted], ex, 200);
  const b = bodyOf(ex);
  t.expectRule(
    'ALERTS.LIST.PAGINATED',
    b.object === LIST && Array.isArray(b.data) && !!b.pagination && typeof b.pagination === 'object',
    'a list envelope with data and pagination',
    ex,
  );
  // Each item an alert; that each names the wallet asked for is the registry's (x-resource relations).
  const foreign = (b.data as Json[]).filter((a) => a?.object !== ALERT);
  t.expectRule('ALERTS.LIST.PAGINATED', foreign.length === 0, `every item is an alert (${foreign.length} are not)`, ex);
  return b;
}

scenario(
  ['ALERTS.LIST.LIMIT_DEFAULT', 'ALERTS.LIST.OFFSET', 'ALERTS.LIST.PAGINATED', 'STATUS.SUCCESS.CODE'],
  'GET /v0/alerts pages 10 at a time from offset 0 by default',
  async (t) => {
    const { walletId, alertIds } = await t.fixture((f) => f.walletWithAlerts(11));
    const res = await t.http.get(ALERTS, { query: { resourceId: walletId } });
    const b = expectPage(t, res);
    // The default page size and offset, and the offset of the next page, are the alerts-page check's
    // (src/engine/checks/pages.ts) on these answers.
    if (b.data.length < LIMIT_DEFAULT) t.note(`a default page held ${b.data.length} of ${alertIds.length} alerts`);
    t.expectRule(
      'ALERTS.LIST.PAGINATED',
      b.pagination.total === alertIds.length,
      `pagination.total counts the wallet's ${alertIds.length} alerts (got ${JSON.stringify(b.pagination.total)})`,
      res,
    );
    // The rest, from where the default page stopped: the two pages cover every alert once.
    const rest = await t.http.get(ALERTS, { query: { resourceId: walletId, offset: b.data.length, limit: LIMIT_MAX } });
    const r = expectPage(t, rest);
    const ids = [...b.data, ...r.data].map((a: Json) => a.id);
    const seen = new Set(ids);
    t.expectRule(
      'ALERTS.LIST.OFFSET#holds-rest',
      ids.length === alertIds.length && seen.size === alertIds.length && alertIds.every((id) => seen.has(id)),
      `offset ${b.data.length} holds the alerts after the default page: together they cover ` +
        `all ${alertIds.length} alerts once (got ${ids.length} ids, ${seen.size} distinct)`,
      rest,
    );
  },
  concurrent,
);

scenario(
  ['ALERTS.LIST.LIMIT_RANGE', 'VALIDATION.BOUNDS.400', 'VALIDATION.VALID_REQUEST.NOT_400'],
  `GET /v0/alerts accepts limit ${LIMIT_MIN} and ${LIMIT_MAX}; ${LIMIT_MIN - 1} and ${LIMIT_MAX + 1} get 400`,
  async (t) => {
    const { walletId } = await t.fixture((f) => f.walletWithAlerts(2));
    for (const limit of [LIMIT_MIN, LIMIT_MAX]) {
      const res = await t.http.get(ALERTS, { query: { resourceId: walletId, limit } });
      const b = expectPage(t, res, ['ALERTS.LIST.LIMIT_RANGE#accepts-range']);
      // The wallet holds at least two alerts (maybe more): the page is not empty. At most `limit`, and
      // pagination.limit echoing it, are the alerts-page check's (ALERTS.LIST.LIMIT_RANGE#page-within-limit).
      t.expectRule(
        'ALERTS.LIST.LIMIT_RANGE#accepts-range',
        b.data.length >= Math.min(limit, 2),
        `limit ${limit}: a first page of a wallet with at least 2 alerts holds ` +
          `at least ${Math.min(limit, 2)} (got ${b.data.length})`,
        res,
      );
    }
    for (const limit of [LIMIT_MIN - 1, LIMIT_MAX + 1]) {
      const res = await t.http.get(ALERTS, { query: { resourceId: walletId, limit }, brokenOnPurpose: true });
      t.expectStatus('ALERTS.LIST.LIMIT_RANGE#refuses-outside', res, 400);
    }
  },
  concurrent,
);

scenario(
  [
    'ALERTS.LIST.OFFSET',
    'ALERTS.LIST.RESOURCE_ID_REQUIRED',
    'VALIDATION.BOUNDS.400',
    'VALIDATION.REQUIRED.400',
    'VALIDATION.TYPE.400',
  ],
  'GET /v0/alerts: offset -1, a missing resourceId or a non-integer limit get 400',
  async (t) => {
    const { walletId } = await t.fixture((f) => f.wallet());
    // The VALIDATION rules of these refusals are the registry's (checks/refusals.ts).
    const broken = { brokenOnPurpose: true };
    const negative = await t.http.get(ALERTS, { query: { resourceId: walletId, offset: -1 }, ...broken });
    t.expectStatus('ALERTS.LIST.OFFSET#refuses-negative', negative, 400);
    const missing = await t.http.get(ALERTS, broken);
    t.expectStatus('ALERTS.LIST.RESOURCE_ID_REQUIRED', missing, 400);
    const missingWithPaging = await t.http.get(ALERTS, { query: { limit: 5, offset: 0 }, ...broken });
    t.expectStatus('ALERTS.LIST.RESOURCE_ID_REQUIRED', missingWithPaging, 400);
    await t.http.get(ALERTS, { query: { resourceId: walletId, limit: 'ten' }, ...broken });
  },
  concurrent,
);

scenario(
  ['ALERTS.UPDATE.RESOURCE_REQUIRED', 'VALIDATION.REQUIRED.400', 'VALIDATION.ENUM.400'],
  'PATCH /v0/alerts/{id} without resource, or with resource other than wallet, gets 400',
  async (t) => {
    const {
      alertIds: [alertId],
    } = await t.fixture((f) => f.walletWithAlerts(1));
    // The VALIDATION rules of these refusals are the registry's (checks/refusals.ts).
    const missing = await t.http.patch(alertPath(alertId), { enabled: false }, { brokenOnPurpose: true });
    t.expectStatus('ALERTS.UPDATE.RESOURCE_REQUIRED', missing, 400);
    for (const resource of ['customer', 'WALLET']) {
      const other = await t.http.patch(
        alertPath(alertId),
        { enabled: false },
        { query: { resource }, brokenOnPurpose: true },
      );
      t.expectStatus('ALERTS.UPDATE.RESOURCE_REQUIRED', other, 400);
    }
  },
  concurrent,
);

scenario(
  ['ALERTS.UPDATE.OK', 'STATUS.SUCCESS.CODE', 'VALIDATION.VALID_REQUEST.NOT_400'],
  'PATCH /v0/alerts/{id}?resource=wallet answers 200 with the alert updated',
  async (t) => {
    const {
      alertIds: [alertId],
      walletId,
    } = await t.fixture((f) => f.walletWithAlerts(1));
    const body = {
      enabled: false,
      notifyPeriod: 7200,
      recipients: ['ops@conform.invalid', 'billing@conform.invalid'],
      config: { threshold: '12.34' },
    };
    const res = await t.http.patch(alertPath(alertId), body, { query: { resource: RESOURCE } });
    notRefused(t, res);
    t.expectStatus('ALERTS.UPDATE.OK#updates-existing', res, 200);
    // The alert of the path, holding enabled, notifyPeriod and recipients sent, is the alert-updated
    // check's (#answers-alert); config being an object, the schema's.
    const a = bodyOf(res);
    t.expectRule(
      'ALERTS.UPDATE.OK#updates-existing',
      a.resourceId === walletId,
      `the alert ${alertId} of wallet ${walletId} comes back (got resourceId ${JSON.stringify(a.resourceId)})`,
      res,
    );
    // The wallet's alerts listed after it: that the list holds what the update sent is the registry's (round-trip).
    await t.http.get(ALERTS, { query: { resourceId: walletId } });
  },
  concurrent,
);

scenario(
  ['STATUS.404.UNKNOWN_RESOURCE'],
  'PATCH of an unknown alert gets 404',
  async (t) => {
    const res = await t.http.patch(
      alertPath('alert_conform0unknown'),
      { enabled: true },
      { query: { resource: RESOURCE } },
    );
    t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', res, 404);
  },
  concurrent,
);

scenario(
  ['ALERTS.UPDATE.PARTIAL'],
  'PATCH /v0/alerts/{id} changes only the fields provided',
  async (t) => {
    const {
      alertIds: [alertId],
    } = await t.fixture((f) => f.walletWithAlerts(1));
    const first = {
      enabled: true,
      notifyPeriod: 3600,
      recipients: ['ops@conform.invalid'],
      config: { threshold: '5.00' },
    };
    const send = (body: Record<string, unknown>) =>
      t.http.patch(alertPath(alertId), body, { query: { resource: RESOURCE } });
    await updateInTurn(t, 'ALERTS.UPDATE.PARTIAL', send, first, [{ notifyPeriod: 7200 }, { enabled: false }]);
  },
  concurrent,
);
