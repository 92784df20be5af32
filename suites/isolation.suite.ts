/**
 * Merchant isolation (Authentication; Resources > Merchant organization: a merchant owns
 * its products, prices, customers and subscriptions). A key of a merchant unrelated to the
 * primary one (fixture unmanagedMerchant: neither may manage the other) sends every
 * documented operation that names a resource by id (in its path, its query or its body) at
 * a resource of the primary merchant: each is refused with 403 or 404 (any 4xx where the
 * document gives no status), and a refused write leaves the resource as it was.
 * One scenario per operation, each judging the part of AUTH.MERCHANT.ISOLATION about the
 * kind of resource it names: a scenario that cannot run leaves its part, and the rule, not
 * judged. A refusal says something about isolation only from a key that works: the other
 * merchant's key first reads its own merchant, and a read is first sent with the owner's key.
 */
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import type { Fixtures } from '../src/engine/fixtures/methods.ts';
import type { Exchange } from '../src/engine/types.ts';
import { loadSpec, schemaBound } from '../src/contract/index.ts';
import { onlyValue, versionPolicies } from '../src/engine/predicates.ts';
import { bodyOf, is2xx, type Json } from './support.ts';

const spec = await loadSpec();

const CHANGES_NOTHING = 'AUTH.MERCHANT.ISOLATION#changes-nothing';

interface Foreign {
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** After the refusal, reads the resource with the primary key: a problem when the write took effect (a precondition: the read). */
  unchanged?: (t: ScenarioContext) => Promise<string | undefined>;
  /** A 200 that leaks nothing of the primary merchant also passes (a filtered list). */
  emptyListPasses?: (body: unknown) => boolean;
  /** Removes what an accepted request created (where deletes are allowed). */
  discard?: (t: ScenarioContext, created: unknown) => Promise<void>;
}

interface Case {
  operationId: string;
  /** The part of AUTH.MERCHANT.ISOLATION it judges: the kind of resource the request names. */
  part: string;
  /** Its refusal is read back (CHANGES_NOTHING). */
  readsBack?: true;
  /** Builds the request from the primary merchant's fixtures. */
  build(f: Fixtures, tag: string): Promise<Foreign>;
  /** The target could act on the resource if it let the request through (a delete, a refund). */
  destructive?: boolean;
  /**
   * The document does not say which status refuses it: any 4xx but 429 is a refusal. The
   * primary key sends it first and must be accepted (2xx), as it does every read, so the
   * foreign key's refusal is about the merchant, not the request.
   */
  anyRefusal?: boolean;
}

const refusedStatus = (ex: Exchange) => ex.status === 403 || ex.status === 404;
const refusedAny = (ex: Exchange) =>
  ex.status !== undefined && ex.status >= 400 && ex.status < 500 && ex.status !== 429;
const DAY_MS = 86_400_000;

/** Reads a resource with its owner's key after a refused delete: gone is the problem; any other failure a precondition. */
async function stillThere(t: ScenarioContext, path: string, what: string): Promise<string | undefined> {
  const read = await t.http.get(path);
  if (read.status === 404) return `${what} is gone after the refused delete`;
  t.precondition(is2xx(read), `${what} reads back with its owner's key`, read);
  return undefined;
}

const CASES: Case[] = [
  {
    operationId: 'getCustomer',
    part: 'AUTH.MERCHANT.ISOLATION#customer',
    build: async (f) => ({ method: 'GET', path: spec.pathFor('getCustomer', { id: (await f.customer()).customerId }) }),
  },
  {
    operationId: 'updateCustomer',
    part: 'AUTH.MERCHANT.ISOLATION#customer',
    readsBack: true,
    build: async (f, tag) => {
      const { customerId } = await f.customer();
      const path = spec.pathFor('updateCustomer', { id: customerId });
      return {
        method: 'PATCH',
        path,
        body: { externalId: tag },
        unchanged: async (t: ScenarioContext) => {
          const read = await t.http.get(path);
          t.precondition(is2xx(read), "the customer reads back with its owner's key", read);
          return bodyOf(read).externalId === tag
            ? `the customer read back holds the foreign key's externalId ${tag}`
            : undefined;
        },
      };
    },
  },
  {
    operationId: 'deleteCustomer',
    part: 'AUTH.MERCHANT.ISOLATION#customer',
    readsBack: true,
    destructive: true,
    build: async (f) => {
      const path = spec.pathFor('deleteCustomer', { id: (await f.customer()).customerId });
      return { method: 'DELETE', path, unchanged: (t) => stillThere(t, path, 'the customer') };
    },
  },
  {
    operationId: 'listScheduleIntervals',
    part: 'AUTH.MERCHANT.ISOLATION#billing-schedule',
    build: async (f) => ({
      method: 'GET',
      path: spec.pathFor('listScheduleIntervals', { id: (await f.scheduleWithIntervals(1)).scheduleId }),
    }),
  },
  {
    operationId: 'deleteBillingSchedule',
    part: 'AUTH.MERCHANT.ISOLATION#billing-schedule',
    readsBack: true,
    destructive: true,
    build: async (f) => {
      const id = (await f.scheduleWithIntervals(1)).scheduleId;
      return {
        method: 'DELETE',
        path: spec.pathFor('deleteBillingSchedule', { id }),
        unchanged: (t) => stillThere(t, spec.pathFor('listScheduleIntervals', { id }), 'the billing schedule'),
      };
    },
  },
  {
    operationId: 'updateItem',
    part: 'AUTH.MERCHANT.ISOLATION#item',
    readsBack: true,
    build: async (f, tag) => {
      const { itemId } = await f.item();
      return {
        method: 'PATCH',
        path: spec.pathFor('updateItem', { id: itemId }),
        body: { name: tag },
        unchanged: async () =>
          ((await f.readItem(itemId)) as Json | undefined)?.name === tag
            ? `the item reads back named ${tag} by the foreign key`
            : undefined,
      };
    },
  },
  {
    operationId: 'updateSourceRule',
    part: 'AUTH.MERCHANT.ISOLATION#source-rule',
    build: async (f, tag) => ({
      method: 'PATCH',
      path: spec.pathFor('updateSourceRule', { ruleId: (await f.sourceRule()).ruleId }),
      body: { name: tag },
    }),
  },
  {
    operationId: 'createInvoiceRefund',
    part: 'AUTH.MERCHANT.ISOLATION#invoice',
    destructive: true,
    build: async (f) => ({
      method: 'POST',
      path: spec.pathFor('createInvoiceRefund', { id: (await f.paidInvoice()).invoiceId }),
      body: { reason: 'conform: foreign key' },
    }),
  },
  {
    operationId: 'createBillingSchedule',
    part: 'AUTH.MERCHANT.ISOLATION#order',
    anyRefusal: true,
    build: async (f) => {
      const start = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
      const body = {
        orderId: (await f.order()).orderId,
        startDate: start.toISOString(),
        endDate: new Date(start.getTime() + 30 * DAY_MS).toISOString(),
      };
      const discard = async (t: ScenarioContext, created: unknown) => {
        const id = (created as Json | undefined)?.id;
        if (typeof id === 'string' && t.target.destructive)
          await t.http.delete(spec.pathFor('deleteBillingSchedule', { id }));
      };
      return { method: 'POST', path: spec.pathFor('createBillingSchedule'), body, discard };
    },
  },
  {
    operationId: 'getMerchant',
    part: 'AUTH.MERCHANT.ISOLATION#merchant',
    build: async (f) => ({ method: 'GET', path: spec.pathFor('getMerchant', { id: (await f.merchant()).merchantId }) }),
  },
  {
    operationId: 'createProduct',
    part: 'AUTH.MERCHANT.ISOLATION#product-owner',
    build: async (f, tag) => ({
      method: 'POST',
      path: spec.pathFor('createProduct'),
      body: {
        name: tag,
        description: 'created by a key of another merchant',
        merchantId: (await f.merchant()).merchantId,
      },
    }),
  },
  {
    operationId: 'getPrice',
    part: 'AUTH.MERCHANT.ISOLATION#price',
    build: async (f) => ({ method: 'GET', path: spec.pathFor('getPrice', { id: (await f.prices()).standard }) }),
  },
  {
    operationId: 'deleteFee',
    part: 'AUTH.MERCHANT.ISOLATION#fee',
    destructive: true,
    build: async (f) => ({
      method: 'DELETE',
      path: spec.pathFor('deleteFee', { id: (await f.feeWithoutPrices()).feeId }),
    }),
  },
  {
    operationId: 'getPayment',
    part: 'AUTH.MERCHANT.ISOLATION#payment',
    build: async (f) => ({ method: 'GET', path: spec.pathFor('getPayment', { id: (await f.payment()).paymentId }) }),
  },
  {
    operationId: 'listAlerts',
    part: 'AUTH.MERCHANT.ISOLATION#alert',
    build: async (f) => {
      const { walletId, alertIds } = await f.walletWithAlerts(1);
      return {
        method: 'GET',
        path: spec.pathFor('listAlerts'),
        query: { resourceId: walletId },
        emptyListPasses: (body) =>
          Array.isArray((body as Json | undefined)?.data) &&
          !(body as Json).data.some((a: Json) => alertIds.includes(a?.id)),
      };
    },
  },
  {
    operationId: 'updateAlert',
    part: 'AUTH.MERCHANT.ISOLATION#alert',
    build: async (f) => ({
      method: 'PATCH',
      path: spec.pathFor('updateAlert', { id: (await f.walletWithAlerts(1)).alertIds[0] }),
      query: { resource: onlyValue(spec, 'updateAlert:query.resource') },
      body: { notifyPeriod: 7 },
    }),
  },
  {
    operationId: 'updateAutoTopupConfig',
    part: 'AUTH.MERCHANT.ISOLATION#wallet',
    build: async (f) => ({
      method: 'PATCH',
      path: spec.pathFor('updateAutoTopupConfig', { id: (await f.wallet()).walletId }),
      body: { amount: '25.00', threshold: '5.00' },
    }),
  },
  {
    operationId: 'migrateSubscriptionVersion',
    part: 'AUTH.MERCHANT.ISOLATION#subscription',
    readsBack: true,
    build: async (f) => {
      const m = await f.migration(versionPolicies(spec).floating);
      const target = m.newerVersionNumbers[0] ?? m.olderVersionNumbers[0] ?? m.currentVersionNumber;
      return {
        method: 'POST',
        path: spec.pathFor('migrateSubscriptionVersion', { id: m.subscriptionId }),
        body: { targetVersionNumber: target },
        unchanged: async () => {
          const s = await f.readSubscription(m.subscriptionId);
          return s.versionPolicy !== m.versionPolicy
            ? `the subscription reads ${s.versionPolicy}, no longer ${m.versionPolicy}: the foreign migration took effect`
            : undefined;
        },
      };
    },
  },
  {
    operationId: 'updateSubscription',
    part: 'AUTH.MERCHANT.ISOLATION#subscription',
    build: async (f) => ({
      method: 'PATCH',
      path: spec.pathFor('updateSubscription', { id: (await f.subscription()).subscriptionId }),
      body: { versionPolicy: versionPolicies(spec).floating },
    }),
  },
  {
    operationId: 'createReconciliation',
    part: 'AUTH.MERCHANT.ISOLATION#subscription',
    build: async (f) => ({
      method: 'POST',
      path: spec.pathFor('createReconciliation', { id: (await f.subscription()).subscriptionId }),
      body: {},
    }),
  },
  {
    operationId: 'createPortalSession',
    part: 'AUTH.MERCHANT.ISOLATION#subscription',
    build: async (f) => ({
      method: 'POST',
      path: spec.pathFor('createPortalSession', { id: (await f.subscription()).subscriptionId }),
      body: {},
    }),
  },
];

for (const c of CASES) {
  scenario(
    c.readsBack ? [c.part, CHANGES_NOTHING] : [c.part],
    `${c.operationId} with a key of another merchant, at the primary merchant's resource, is ` +
      `refused ${c.anyRefusal ? '(any 4xx)' : 'with 403 or 404'}`,
    async (t: ScenarioContext) => {
      const other = await t.fixture((f) => f.unmanagedMerchant());
      // A key that does not work is refused everywhere: that says nothing about isolation.
      const self = await t.http.get(spec.pathFor('getMerchant', { id: other.merchantId }), { key: other.key });
      t.precondition(is2xx(self), `the other merchant's key reads its own merchant ${other.merchantId}`, self);
      const tag = `conform-foreign-${t.target.seed}-${Math.random().toString(36).slice(2, 8)}`;
      const req = await t.fixture((f) => c.build(f, tag));
      if (c.anyRefusal || req.method === 'GET') {
        const own = await t.http.request(req.method, req.path, { query: req.query, body: req.body });
        if (is2xx(own)) await req.discard?.(t, own.body);
        t.precondition(
          is2xx(own),
          `${req.method} ${req.path} with the primary merchant's own key succeeds ` +
            `(else a refusal of the other key would say nothing about isolation)`,
          own,
        );
      }
      const ex = await t.http.request(req.method, req.path, {
        query: req.query,
        key: other.key,
        body: req.body,
        retry429: false,
      });
      if (is2xx(ex)) await req.discard?.(t, ex.body);
      if (ex.status === 429)
        t.notJudged(
          `${c.operationId} answered 429 to the foreign key: the bucket was used up, isolation not judged here`,
        );
      const refused = c.anyRefusal ? refusedAny(ex) : refusedStatus(ex);
      const leaked = !refused && !(ex.status === 200 && req.emptyListPasses?.(ex.body));
      t.softExpectRule(
        c.part,
        !leaked,
        `${req.method} ${req.path} with a key of merchant ${other.merchantId} ` +
          `got ${ex.status ?? ex.transportError}, not ${c.anyRefusal ? 'a refusal (4xx)' : '403 or 404'}`,
        ex,
      );
      if (req.unchanged) {
        const problem = await t.fixture(() => req.unchanged!(t));
        t.softExpectRule(CHANGES_NOTHING, problem === undefined, problem ?? 'the refused write changed nothing', ex);
      }
    },
    { concurrent: true, destructive: c.destructive },
  );
}

scenario(
  ['CONV.OWNER.KEY_MERCHANT#no-foreign-ids'],
  "GET /v0/customers with a key of another merchant lists none of the primary merchant's customers",
  async (t: ScenarioContext) => {
    // The registry judges the list answered to the other merchant's key against the customers the
    // run was given (CONV.OWNER.KEY_MERCHANT); the scenario makes sure one exists and was read.
    const other = await t.fixture((f) => f.unmanagedMerchant());
    const { customerId } = await t.fixture((f) => f.customer());
    const read = await t.http.get(spec.pathFor('getCustomer', { id: customerId }));
    t.precondition(is2xx(read), "the primary merchant's customer reads back with its key", read);
    for (let offset = 0, page = 0; page < 20; page++) {
      const ex = await t.http.get(spec.pathFor('listCustomers'), {
        query: { limit: schemaBound(spec, 'listCustomers:query.limit', 'maximum'), offset },
        key: other.key,
        retry429: false,
      });
      if (ex.status === 429) t.notJudged('GET /v0/customers answered 429 to the foreign key: its bucket was used up');
      const data = (ex.body as { data?: unknown[] } | undefined)?.data;
      if (!is2xx(ex) || !Array.isArray(data) || !data.length) return;
      offset += data.length;
    }
  },
  { concurrent: true },
);
