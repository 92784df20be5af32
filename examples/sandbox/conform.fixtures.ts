/**
 * Fixtures for a sandbox that has only the documented endpoints: every resource the
 * scenarios need is created through a back-office (admin) API whose base URL is
 * CONFORM_ADMIN_URL, while the suites talk to `baseUrl`. `billing-conform init --example`
 * writes this file into a repository as conform.fixtures.example.mts, beside the skeleton
 * `init` writes; it loads there whatever the repository's `type` (CommonJS or ES module).
 *
 * THE PART YOU REPLACE: the back office. Every call to it goes through the `Admin` class
 * below (`a.post`, `a.get`, `a.send`), and each fixture method's comment names its calls
 * ("Back office:"). Here the reference server's extension endpoints (`x-extension: reference`
 * in spec/openapi.yaml, what `conform serve` answers on its full port) stand in for them;
 * replace each with your own: an admin API, a seeding service, a database script. What each
 * method must deliver stays: its comment says what it is and which contract rules it unlocks
 * (the rules judged only where it delivers; docs/fixtures.md has the table).
 *
 * Every method returns a fresh resource per call, so concurrent scenarios never share a
 * mutable one and the suite can run again and again against the same sandbox. A method
 * that cannot deliver throws FixtureUnavailable: its scenario is not judged, with that
 * reason (never failed). Methods left out are not judged either, naming the method.
 *
 *   CONFORM_ADMIN_URL       the back office (required)
 *   CONFORM_ADMIN_KEY       its credential (required: the suite's own API key is never sent to a second host)
 *   CONFORM_KEEP_FIXTURES   set: what the run created stays (to replay a failure on it); else removed at the end
 */
import { randomBytes } from 'node:crypto';
import {
  FixtureUnavailable,
  type BlockedDelete,
  type FixtureModuleContext,
  type Fixtures,
  type MigrationConflictKind,
  type MigrationFixture,
} from 'billing-conform/fixtures';

type Json = Record<string, any>;
const DAY_MS = 86_400_000;
const enc = encodeURIComponent;
const tag = (prefix = 'conform') => `${prefix}-${randomBytes(6).toString('hex')}`;
/** The start of the current UTC day: test clocks start here, so billing periods are whole days. */
const today = () => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);

/** THE BACK OFFICE (replace it): one request, the 2xx body back, anything else FixtureUnavailable naming it. */
class Admin {
  private readonly undo: Array<() => Promise<unknown>> = [];
  /** Shared by every `for()` view: whether any call reached the back office yet. */
  private readonly seen = { reached: false };

  constructor(
    private readonly http: FixtureModuleContext['http'],
    readonly fixture: string,
    private readonly url = 'CONFORM_ADMIN_URL',
  ) {}

  /** The same back office, naming `fixture` in its refusals (what was created is still undone by close()). */
  for(fixture: string): Admin {
    return Object.assign(Object.create(this) as Admin, { fixture });
  }

  async send(
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string | number>,
    key?: string,
  ): Promise<Json> {
    const ex = await this.http.request(method, path, { body, query, key });
    // A 2xx whose body was cut off (a timeout mid-answer) is no answer: building on `{}` would hand out no key.
    if (ex.status !== undefined && ex.status >= 200 && ex.status < 300 && !ex.transportError) {
      this.seen.reached = true;
      return (ex.body ?? {}) as Json;
    }
    const why =
      ex.transportError ?? `${ex.status} ${(ex.body as Json | undefined)?.message ?? ex.rawBody.slice(0, 200)}`;
    const call = `${method} ${path.split('?')[0]} with ${why}`;
    // No call has reached the back office yet, and this one found no route or no server: the URL is
    // what is wrong, so every fixture says the same one line (the run groups identical reasons).
    if (!this.seen.reached && (ex.transportError || ex.status === 404 || ex.status === 405)) {
      const how = ex.transportError
        ? (ex.transportError.split(/[:(]/)[0] ?? ex.transportError).trim()
        : `HTTP ${ex.status}`;
      throw new FixtureUnavailable(
        this.fixture,
        `no call reached the back office at ${this.url} (${how}): is it your back office's base URL?`,
      );
    }
    throw new FixtureUnavailable(this.fixture, `the back office answered ${call}`);
  }

  post(path: string, body?: unknown): Promise<Json> {
    return this.send('POST', path, body ?? {});
  }

  get(path: string, query?: Record<string, string | number>): Promise<Json> {
    return this.send('GET', path, undefined, query);
  }

  /** Remembers how to remove something just created; close() runs these in reverse, best effort. */
  later(step: () => Promise<unknown>): void {
    this.undo.push(step);
  }

  async cleanup(): Promise<void> {
    while (this.undo.length) await this.undo.pop()!().catch(() => undefined);
  }
}

export default function createFixtures(ctx: FixtureModuleContext): Partial<Fixtures> {
  // The back office gets a credential of its own, never the sandbox key by default: a secret goes only
  // where it was sent on purpose. A variable not set stops the run before it starts, naming it.
  const adminUrl = process.env.CONFORM_ADMIN_URL;
  const root = new Admin(
    ctx.backOffice({
      baseUrl: adminUrl,
      baseUrlLabel: 'CONFORM_ADMIN_URL (the back office the fixtures are created through)',
      bearer: process.env.CONFORM_ADMIN_KEY,
      label: 'CONFORM_ADMIN_KEY',
    }),
    'fixtures',
    `CONFORM_ADMIN_URL (${adminUrl})`,
  );
  const memo = new Map<string, Promise<unknown>>();
  // A declaration, not a generic arrow (`<T>(...) =>` is reserved syntax in a .mts): the file compiles as one too.
  function once<T>(key: string, make: () => Promise<T>): Promise<T> {
    if (!memo.has(key))
      memo.set(
        key,
        make().catch((err) => (memo.delete(key), Promise.reject(err))),
      );
    return memo.get(key) as Promise<T>;
  }

  // --- building blocks ---------------------------------------------------------------

  const key = async (a: Admin, body: { name: string; scope?: string; merchantId?: string }) => {
    const k = await a.post('/v0/apiKeys', body);
    if (typeof k.secret !== 'string' || typeof k.id !== 'string')
      throw new FixtureUnavailable(a.fixture, 'the back office answered POST /v0/apiKeys with no id and secret');
    ctx.registerSecret(k.secret);
    a.later(() => a.send('DELETE', `/v0/apiKeys/${enc(k.id)}`));
    return k as { id: string; secret: string; merchantId: string };
  };
  const merchantId = () =>
    once('merchant', async () => {
      // An API key names its merchant: create one, read it, revoke it.
      const a = root.for('merchant');
      const k = await key(a, { name: 'conform merchant lookup' });
      await a.send('DELETE', `/v0/apiKeys/${enc(k.id)}`);
      if (typeof k.merchantId !== 'string')
        throw new FixtureUnavailable('merchant', 'the back office answered POST /v0/apiKeys with no merchantId');
      return k.merchantId;
    });
  const product = () =>
    once(
      'product',
      async () =>
        (
          await root.for('product').post('/v0/products', {
            name: `Conform ${tag()}`,
            description: 'conform fixtures',
            merchantId: await merchantId(),
          })
        ).id as string,
    );
  const customer = async (a: Admin) => {
    const c = await a.post('/v0/customers', { name: `Conform ${tag()}`, email: `${tag()}@conform.invalid` });
    a.later(() => a.send('DELETE', `/v0/customers/${enc(c.id)}`));
    return c.id as string;
  };
  const fee = async (a: Admin, extra: Json = {}) => {
    const name = `Conform fee ${tag()}`;
    const f = await a.post('/v0/fees', { productId: await product(), name, invoiceDisplayName: name, ...extra });
    a.later(() => a.send('DELETE', `/v0/fees/${enc(f.id)}`));
    return f.id as string;
  };
  /** A monthly fee price paid in advance: standard at `unitPrice`, or volume with `tiers`. */
  const price = async (a: Admin, feeId: string, p: { unitPrice?: string; tiers?: Json[]; pricingUnitId?: string }) => {
    const properties = p.tiers ? { tiers: p.tiers } : { unitPrice: p.unitPrice ?? '10.00' };
    const body = {
      feeId,
      model: p.tiers ? 'volume' : 'standard',
      currency: 'USD',
      properties,
      cadence: 'P1M',
      paymentTerm: 'in_advance',
      ...(p.tiers ? {} : { quantity: 1 }),
      ...(p.pricingUnitId ? { pricingUnitId: p.pricingUnitId } : {}),
    };
    const created = await a.post('/v0/prices', body);
    a.later(() => a.send('DELETE', `/v0/prices/${enc(created.id)}`));
    return created.id as string;
  };
  /** A fresh fee with a price per unit price: their ids in the same order, as many as `unitPrices` (a tuple). */
  const prices = async <const T extends readonly string[]>(a: Admin, unitPrices: T) => {
    const feeId = await fee(a);
    const ids: string[] = [];
    for (const unitPrice of unitPrices) ids.push(await price(a, feeId, { unitPrice }));
    return ids as { -readonly [K in keyof T]: string };
  };
  const metric = async (a: Admin, extra: Json = {}) => {
    const m = await a.post('/v0/billableMetrics', {
      name: `Conform metric ${tag()}`,
      unit: 'call',
      productId: await product(),
      ...extra,
    });
    a.later(() => a.send('DELETE', `/v0/billableMetrics/${enc(m.id)}`));
    return m.id as string;
  };
  /** A standard price of a billable metric (metered, in arrears), its rate an amount per unit or a proportion. */
  const metricPrice = async (a: Admin, billableMetricId: string, unitPrice: string, unitBasis?: 'proportion') => {
    const created = await a.post('/v0/prices', {
      billableMetricId,
      model: 'standard',
      currency: 'USD',
      properties: { unitPrice },
      paymentTerm: 'in_arrears',
      ...(unitBasis ? { unitBasis } : {}),
    });
    a.later(() => a.send('DELETE', `/v0/prices/${enc(created.id)}`));
    return created.id as string;
  };
  const pricingUnit = async (a: Admin) =>
    (await a.post('/v0/pricingUnits', { name: `Conform credits ${tag()}` })).id as string;
  const item = async (a: Admin, productId: string) =>
    (await a.post('/v0/items', { name: `Conform item ${tag()}`, catalogId: productId, metadata: { conform: true } }))
      .id as string;
  /** A plan publishing each version in order (1, 2, ...); versions marked `archive` are archived afterwards. */
  const plan = async (
    a: Admin,
    versions: Array<{ priceIds: string[]; features?: Json[]; makeDefault?: boolean; archive?: boolean }>,
  ) => {
    const p = await a.post('/v0/plans', {
      productId: await product(),
      name: `Conform plan ${tag()}`,
      billingCadence: 'P1M',
      currency: 'USD',
    });
    const byVersion: Record<number, string[]> = {};
    for (const { archive: _, ...v } of versions)
      byVersion[(await a.post(`/v0/plans/${enc(p.id)}/versions`, v)).versionNumber] = v.priceIds;
    for (const [i, v] of versions.entries())
      if (v.archive) await a.post(`/v0/plans/${enc(p.id)}/versions/${i + 1}/archive`);
    return { planId: p.id as string, pricesByVersion: byVersion };
  };
  const subscribe = async (a: Admin, body: Json) => {
    const s = await a.post('/v0/subscriptions', body);
    a.later(() => a.post(`/v0/subscriptions/${enc(s.id)}/cancel`, { reason: 'conform fixtures cleanup' }));
    return s.id as string;
  };
  const simplePlan = () =>
    once('simplePlan', async () => {
      const a = root.for('subscription');
      return (await plan(a, [{ priceIds: await prices(a, ['15.00']) }])).planId;
    });
  const liveSubscriptions = async (a: Admin, count: number) => {
    const [planId, customerId] = await Promise.all([simplePlan(), customer(a)]);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await subscribe(a, { customerId, planId }));
    return ids;
  };
  const readSubscription = (a: Admin, id: string) => a.get(`/v0/subscriptions/${enc(id)}`);
  const order = async (a: Admin, customerId: string, lineItems: Json[]) =>
    (await a.post('/v0/orders', { customerId, lineItems })).id as string;
  const schedule = async (a: Admin, body: Json) => {
    const s = await a.post('/v0/billingSchedules', body);
    a.later(() => a.send('DELETE', `/v0/billingSchedules/${enc(s.id)}`));
    return s.id as string;
  };
  const draftInvoice = async (a: Admin, lineItems: Json[]) =>
    a.post('/v2/invoices', { customerId: await customer(a), currency: 'USD', lineItems });
  const wallet = async (a: Admin) =>
    (await a.post('/v0/wallets', { customerId: await customer(a), currency: 'USD' })).id as string;

  /**
   * A subscription on a fresh plan and its own test clock (frozen at the start of the day),
   * for a fresh customer; read back so that its current period is known.
   */
  const clocked = async (a: Admin, versions: Parameters<typeof plan>[1], sub: Json = {}) => {
    const t0 = today().toISOString();
    const built = await plan(a, versions);
    const testClockId = (await a.post('/v0/testClocks', { frozenTime: t0, name: tag() })).id as string;
    const customerId = await customer(a);
    const id = await subscribe(a, { customerId, planId: built.planId, testClockId, startedAt: t0, ...sub });
    const read = await readSubscription(a, id);
    if (read.status !== 'active' || typeof read.currentPeriodEnd !== 'string')
      throw new FixtureUnavailable('migration', `subscription ${id} is not live with a current period`);
    return { ...built, t0, testClockId, customerId, sub: read };
  };

  /**
   * Plan versions 1 (archived), 2 (older), 3 (the default, current), 4 (newer), one monthly
   * price each plus a second fee only version 3 sells; every version carries the same metered
   * feature, version 4 one more. The subscription keeps overrides on both of version 3's
   * prices, ends 800 days out, and its customer has two billing schedules that are no 409
   * condition: one selling versions 2 and 4's prices that ends at the boundary, one selling
   * version 3's second price for 180 days.
   */
  const migration = async (a: Admin, policy: 'floating' | 'pinned'): Promise<MigrationFixture> => {
    const [p1, p2, p3, p4] = await prices(a, ['10.00', '20.00', '30.00', '40.00']);
    const [extra] = await prices(a, ['5.00']);
    const seats = { key: 'conform_seats', resetPeriod: 'P1M', billableMetricId: await metric(a) };
    const calls = { key: 'conform_calls', resetPeriod: 'P1M', billableMetricId: await metric(a) };
    const { planId, pricesByVersion, sub, customerId, t0 } = await clocked(
      a,
      [
        { priceIds: [p1], features: [seats], archive: true },
        { priceIds: [p2], features: [seats] },
        { priceIds: [p3, extra], features: [seats], makeDefault: true },
        { priceIds: [p4], features: [seats, calls] },
      ],
      {
        ...(policy === 'pinned' ? { versionNumber: 3 } : {}),
        endingAt: new Date(today().getTime() + 800 * DAY_MS).toISOString(),
        overrides: [
          { priceId: p3, unitPrice: '27.50' },
          { priceId: extra, unitPrice: '4.50' },
        ],
      },
    );
    const line = (priceId: string) => ({
      description: 'Conform scheduled line',
      quantity: 1,
      unitPrice: '1.00',
      priceId,
    });
    await schedule(a, {
      orderId: await order(a, customerId, [line(p2), line(p4)]),
      startDate: t0,
      endDate: sub.currentPeriodEnd,
    });
    await schedule(a, {
      orderId: await order(a, customerId, [line(extra)]),
      startDate: t0,
      endDate: new Date(Date.parse(t0) + 180 * DAY_MS).toISOString(),
    });
    return {
      subscriptionId: sub.id,
      planId,
      versionPolicy: policy,
      currentVersionNumber: 3,
      olderVersionNumbers: [2],
      newerVersionNumbers: [4],
      archivedVersionNumber: 1,
      missingVersionNumber: 1000,
      currentPeriodEnd: sub.currentPeriodEnd,
      pricesByVersion,
    };
  };

  /** A subscription on version 1 whose migration to version 2 meets one 409 condition of the document. */
  const conflict = async (a: Admin, kind: MigrationConflictKind): Promise<string> => {
    const twoVersions = async (sub: Json = {}) => {
      const [p1, p2] = await prices(a, ['10.00', '20.00']);
      return clocked(a, [{ priceIds: [p1] }, { priceIds: [p2] }], sub);
    };
    switch (kind) {
      case 'notLive': {
        const { sub } = await twoVersions();
        await a.post(`/v0/subscriptions/${enc(sub.id)}/cancel`, { reason: 'conform: not live' });
        return sub.id;
      }
      case 'endsBeforeBoundary':
        return (await twoVersions({ endingAt: new Date(today().getTime() + 10 * DAY_MS).toISOString() })).sub.id;
      case 'endsAtBoundary': {
        // The boundary is learnt from a first subscription on the same plan and clock.
        const first = await twoVersions();
        return subscribe(a, {
          customerId: await customer(a),
          planId: first.planId,
          testClockId: first.testClockId,
          startedAt: first.t0,
          endingAt: first.sub.currentPeriodEnd,
        });
      }
      case 'overrideRateMeaning':
      case 'overridePricingUnitChange': {
        // The override keeps its rate on the fee's version-2 price: volume-priced, or drawing down a credit pool.
        const feeId = await fee(a);
        const usd = await price(a, feeId, { unitPrice: '10.00' });
        const next =
          kind === 'overrideRateMeaning'
            ? await price(a, feeId, {
                tiers: [
                  { unitPrice: '9.00', upTo: '100' },
                  { unitPrice: '8.00', upTo: null },
                ],
              })
            : await price(a, feeId, { unitPrice: '10.00', pricingUnitId: await pricingUnit(a) });
        return (
          await clocked(a, [{ priceIds: [usd] }, { priceIds: [next] }], {
            overrides: [{ priceId: usd, unitPrice: '7.50' }],
          })
        ).sub.id;
      }
      case 'overrideUnitBasisChange': {
        // Version 1 charges an amount per unit of a metric; version 2 prices the same metric as a
        // proportion (0.02 is 2 %), where the kept override 0.75 would read as 75 %.
        const metricId = await metric(a);
        const amount = await metricPrice(a, metricId, '1.00');
        const proportion = await metricPrice(a, metricId, '0.02', 'proportion');
        return (
          await clocked(a, [{ priceIds: [amount] }, { priceIds: [proportion] }], {
            overrides: [{ priceId: amount, unitPrice: '0.75' }],
          })
        ).sub.id;
      }
      case 'featureChange':
      case 'featureMetricChange':
      case 'featurePricingUnitChange': {
        // One feature key; version 2 changes its reset period, its metric or its pricing unit.
        const [p1, p2] = await prices(a, ['10.00', '20.00']);
        const m1 = await metric(a);
        const f1 = {
          key: 'conform_feature',
          resetPeriod: 'P1M',
          billableMetricId: m1,
          ...(kind === 'featurePricingUnitChange' ? { pricingUnitId: await pricingUnit(a) } : {}),
        };
        const f2 =
          kind === 'featureChange'
            ? { ...f1, resetPeriod: 'P1Y' }
            : kind === 'featureMetricChange'
              ? { ...f1, billableMetricId: await metric(a) }
              : { ...f1, pricingUnitId: await pricingUnit(a) };
        return (
          await clocked(a, [
            { priceIds: [p1], features: [f1] },
            { priceIds: [p2], features: [f2] },
          ])
        ).sub.id;
      }
      case 'priceCoveredByInterval': {
        // An order of the same customer bills version 2's price on a schedule running past the boundary.
        const [p1, p2] = await prices(a, ['10.00', '20.00']);
        const { sub, customerId, t0 } = await clocked(a, [{ priceIds: [p1] }, { priceIds: [p2] }]);
        const orderId = await order(a, customerId, [
          { description: 'Conform covered price', quantity: 1, unitPrice: '20.00', priceId: p2 },
        ]);
        await schedule(a, { orderId, startDate: t0, endDate: new Date(Date.parse(t0) + 180 * DAY_MS).toISOString() });
        return sub.id;
      }
      default:
        throw new FixtureUnavailable('migrationConflict', `no recipe for conflict kind '${kind as string}'`);
    }
  };

  /** The price ids of invoice lines of the subscription whose period starts at `boundary`. */
  const billedFrom = async (a: Admin, subscriptionId: string, boundary: string) => {
    const page = await a.get('/v2/invoices', { subscriptionId, limit: 100 });
    const lines = (page.data as Json[]).flatMap((inv) => (inv.lineItems ?? []) as Json[]);
    return [
      ...new Set(
        lines
          .filter((l) => l.priceId && Date.parse(l.periodStart) === Date.parse(boundary))
          .map((l) => l.priceId as string),
      ),
    ];
  };

  // --- the fixtures --------------------------------------------------------------------

  const blocked = (
    id: string,
    dependants: Record<string, string[]>,
    remove: () => Promise<unknown>,
  ): BlockedDelete => ({ id, dependants, removeDependants: async () => void (await remove()) });

  return {
    /**
     * The primary key's merchant: a throwaway key names it (created, read, revoked; once per run).
     * Back office: POST /v0/apiKeys, DELETE /v0/apiKeys/{id}
     * Unlocks: ALERTS.UPDATE.OK, ALERTS.UPDATE.RESOURCE_REQUIRED, AUTH.401.SHAPE, AUTH.ALLOWANCE.PER_MERCHANT,
     *   AUTH.MERCHANT.DEFAULT, AUTH.MERCHANT.ISOLATION, CUSTOMERS.GET.BY_ID, CUSTOMERS.UPDATE.APPLIED,
     *   ITEMS.UPDATE.APPLIED, MERCHANTS.OWNER.NAMED, PRICES.FEE_ID.WHEN_LINKED, PRICES.GET.BY_ID,
     *   PRICES.MERCHANT_ID.SINGLE_READ, PRICES.MODEL.ENUM, PRICES.QUANTITY.NON_NEGATIVE,
     *   PRICES.VOLUME.LAST_TIER_OPEN, PRODUCTS.CREATE.OBJECT, PRODUCTS.CREATE.REQUIRED, RATE.COSTS_REPORT.BUCKET,
     *   RATE.CRM_ACCOUNTS.BUCKET, RATE.CUSTOMERS_LIST.BUCKET, RATE.FAILED_AUTH.NO_HEADERS,
     *   RATE.INVOICE_LINE_ITEMS.BUCKET, SOURCE_RULES.UPDATE.PARTIAL, STATUS.SUCCESS.CODE, VALIDATION.ENUM.400,
     *   VALIDATION.REQUIRED.400, VALIDATION.TYPE.400, VALIDATION.VALID_REQUEST.NOT_400, WEBHOOKS.CONFIG.SHAPE,
     *   WEBHOOKS.MERCHANT.DEFAULT
     */
    merchant: async () => ({ merchantId: await merchantId() }),

    /**
     * A second API key of the primary merchant.
     * Back office: POST /v0/apiKeys
     * Unlocks: AUTH.ALLOWANCE.PER_MERCHANT, RATE.COSTS_REPORT.BUCKET, RATE.CRM_ACCOUNTS.BUCKET,
     *   RATE.CUSTOMERS_LIST.BUCKET, RATE.EXCEEDED.BODY, RATE.EXCEEDED.STATUS, RATE.HEADERS.PRESENT,
     *   RATE.INVOICE_LINE_ITEMS.BUCKET, RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED, RATE.PORTAL.BUCKET,
     *   RATE.PORTAL.LIMIT, RATE.RECONCILIATIONS.BUCKET, RATE.RECONCILIATIONS.LIMIT, RATE.REMAINING.DECREMENTS,
     *   RATE.REMAINING.HONOURED, RATE.REMAINING.NON_NEGATIVE, RATE.RESET.WITHIN_WINDOW, RATE.RETRY_AFTER.ON_429,
     *   RATE.WINDOW.READMITS
     */
    async secondKeySameMerchant() {
      const k = await key(root.for('secondKeySameMerchant'), { name: 'conform second key' });
      return { key: k.secret, merchantId: k.merchantId };
    },

    /**
     * A fresh merchant and a key of it: a fresh rate-limit bucket per call.
     * Back office: POST /v0/merchants, POST /v0/apiKeys
     * Unlocks: RATE.BUCKET.PER_ENDPOINT, RATE.COSTS_REPORT.BUCKET, RATE.COSTS_REPORT.LIMIT,
     *   RATE.CRM_ACCOUNTS.BUCKET, RATE.CRM_ACCOUNTS.LIMIT, RATE.CUSTOMERS_LIST.BUCKET, RATE.CUSTOMERS_LIST.LIMIT,
     *   RATE.EXCEEDED.BODY, RATE.EXCEEDED.STATUS, RATE.HEADERS.PRESENT, RATE.INVOICE_LINE_ITEMS.BUCKET,
     *   RATE.INVOICE_LINE_ITEMS.LIMIT, RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED, RATE.REMAINING.DECREMENTS,
     *   RATE.REMAINING.HONOURED, RATE.REMAINING.NON_NEGATIVE, RATE.RESET.WITHIN_WINDOW, RATE.RETRY_AFTER.ON_429,
     *   RATE.WINDOW.READMITS
     */
    async otherMerchantKey() {
      const a = root.for('otherMerchantKey');
      const m = await a.post('/v0/merchants', { name: `Conform ${tag()}`, email: `${tag()}@conform.invalid` });
      return { key: (await key(a, { name: 'conform other merchant', merchantId: m.id })).secret, merchantId: m.id };
    },

    /**
     * A fresh merchant whose webhooks were never enabled, and a key of it.
     * Back office: POST /v0/merchants, POST /v0/apiKeys
     * Unlocks: AUTH.MERCHANT.DEFAULT, VALIDATION.VALID_REQUEST.NOT_400, WEBHOOKS.404.NEVER_ENABLED,
     *   WEBHOOKS.MERCHANT.NAMED
     */
    async merchantWithoutWebhooks() {
      const a = root.for('merchantWithoutWebhooks');
      const m = await a.post('/v0/merchants', { name: `Conform ${tag()}`, email: `${tag()}@conform.invalid` });
      return { key: (await key(a, { name: 'conform no webhooks', merchantId: m.id })).secret, merchantId: m.id };
    },

    /**
     * A merchant the primary key may not manage: created by a middle merchant with that merchant's own key, its
     * webhooks enabled. Once per run.
     * Back office: POST /v0/merchants, POST /v0/apiKeys, POST /v0/webhooks
     * Unlocks: AUTH.MERCHANT.ISOLATION, CONV.OWNER.KEY_MERCHANT, WEBHOOKS.MERCHANT.UNMANAGED
     */
    unmanagedMerchant: () =>
      once('unmanagedMerchant', async () => {
        const a = root.for('unmanagedMerchant');
        const middle = await a.post('/v0/merchants', { name: `Conform ${tag()}`, email: `${tag()}@conform.invalid` });
        const middleKey = (await key(a, { name: 'conform middle merchant', merchantId: middle.id })).secret;
        const m = await a.send(
          'POST',
          '/v0/merchants',
          { name: `Conform ${tag()}`, email: `${tag()}@conform.invalid` },
          undefined,
          middleKey,
        );
        const k = await a.send(
          'POST',
          '/v0/apiKeys',
          { name: 'conform unmanaged merchant', merchantId: m.id },
          undefined,
          middleKey,
        );
        if (typeof k.secret !== 'string')
          throw new FixtureUnavailable('unmanagedMerchant', 'the back office answered POST /v0/apiKeys with no secret');
        ctx.registerSecret(k.secret);
        await a.send(
          'POST',
          '/v0/webhooks',
          { endpoints: [{ url: 'https://hooks.conform.invalid/unmanaged', eventTypes: ['invoice.paid'] }] },
          undefined,
          k.secret,
        );
        return { key: k.secret as string, merchantId: m.id as string };
      }),

    /**
     * An API key, revoked (401 expected).
     * Back office: POST /v0/apiKeys, DELETE /v0/apiKeys/{id}
     * Unlocks: AUTH.401.SHAPE, RATE.FAILED_AUTH.NO_HEADERS
     */
    async revokedKey() {
      const a = root.for('revokedKey');
      const k = await key(a, { name: 'conform revoked key' });
      await a.send('DELETE', `/v0/apiKeys/${enc(k.id)}`);
      return k.secret;
    },

    /**
     * A read-only key and a PATCH of a customer it may not make (403 expected).
     * Back office: POST /v0/apiKeys (scope read_only), POST /v0/customers
     * Unlocks: AUTH.403.SHAPE
     */
    async forbiddenAction() {
      const a = root.for('forbiddenAction');
      const k = await key(a, { name: 'conform read-only key', scope: 'read_only' });
      return {
        key: k.secret,
        method: 'PATCH',
        path: `/v0/customers/${enc(await customer(a))}`,
        body: { externalId: 'conform-forbidden' },
      };
    },

    /**
     * The primary merchant's webhooks enabled with one endpoint, and its endpoints.
     * Back office: POST /v0/webhooks, PATCH /v0/webhooks, GET /v0/webhooks/endpoints
     * Unlocks: AUTH.MERCHANT.DEFAULT, STATE.WEBHOOKS.DISABLE, STATE.WEBHOOKS.ENABLE, STATUS.SUCCESS.CODE,
     *   VALIDATION.REQUIRED.400, VALIDATION.TYPE.400, VALIDATION.VALID_REQUEST.NOT_400, WEBHOOKS.CONFIG.SHAPE,
     *   WEBHOOKS.CREATED_AT.FIRST_ENABLED, WEBHOOKS.MERCHANT.DEFAULT, WEBHOOKS.MERCHANT.NAMED,
     *   WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS
     */
    async webhooksEnabled() {
      const a = root.for('webhooksEnabled');
      const cfg = await a.post('/v0/webhooks', {
        endpoints: [
          { url: 'https://hooks.conform.invalid/billing', eventTypes: ['invoice.paid', 'subscription.updated'] },
        ],
      });
      if (cfg.enabled !== true) await a.send('PATCH', '/v0/webhooks', { enabled: true });
      return {
        merchantId: cfg.merchantId ?? (await merchantId()),
        endpoints: (await a.get('/v0/webhooks/endpoints')).data,
      };
    },

    /**
     * The primary merchant's webhook endpoints and their event subscriptions.
     * Back office: GET /v0/webhooks/endpoints
     * Unlocks: STATE.WEBHOOKS.DISABLE, STATE.WEBHOOKS.ENABLE, WEBHOOKS.CONFIG.SHAPE,
     *   WEBHOOKS.CREATED_AT.FIRST_ENABLED, WEBHOOKS.TOGGLE.KEEPS_ENDPOINTS
     */
    webhookEndpoints: async () => (await root.for('webhookEndpoints').get('/v0/webhooks/endpoints')).data,

    /**
     * A fresh customer of the primary merchant.
     * Back office: POST /v0/customers
     * Unlocks: AUTH.MERCHANT.ISOLATION, CONV.DELETE.GONE, CONV.LIST.TOTAL_REACHED, CONV.LIST.WALK,
     *   CONV.OWNER.KEY_MERCHANT, CONV.ROUND_TRIP.AS_SENT, CUSTOMERS.DELETE.GONE, CUSTOMERS.EXTERNAL_ID.MAX_LENGTH,
     *   CUSTOMERS.EXTERNAL_ID.NULL_CLEARS, CUSTOMERS.GET.BY_ID, CUSTOMERS.NOTIFICATIONS.PARTIAL,
     *   CUSTOMERS.TAX_ID.NULL_CLEARS, CUSTOMERS.TAX_RATES.RANGE, CUSTOMERS.TAX_RATES.SINGLE_RATE,
     *   CUSTOMERS.UPDATE.APPLIED, CUSTOMERS.UPDATE.PARTIAL, CUSTOMERS.VALID_TAX_ADDRESS.PRESENT, ERRORS.400.BODY,
     *   MERCHANTS.OWNER.NAMED, VALIDATION.BOUNDS.400, VALIDATION.PATTERN.400, VALIDATION.TYPE.400,
     *   VALIDATION.VALID_REQUEST.NOT_400
     */
    customer: async () => ({ customerId: await customer(root.for('customer')) }),

    /**
     * A customer with two live subscriptions (deleting it is refused); removeDependants cancels them.
     * Back office: POST /v0/customers, POST /v0/subscriptions, POST /v0/subscriptions/{id}/cancel
     * Unlocks: CONV.DELETE.GONE, CUSTOMERS.DELETE.BLOCKED, CUSTOMERS.DELETE.BLOCKER_COUNT,
     *   CUSTOMERS.DELETE.UNBLOCKED
     */
    async customerWithSubscriptions() {
      const a = root.for('customerWithSubscriptions');
      const [planId, customerId] = await Promise.all([simplePlan(), customer(a)]);
      const subs = [await subscribe(a, { customerId, planId }), await subscribe(a, { customerId, planId })];
      return blocked(customerId, { subscriptions: subs }, () =>
        Promise.all(
          subs.map((id) => a.post(`/v0/subscriptions/${enc(id)}/cancel`, { reason: 'conform: unblock delete' })),
        ),
      );
    },

    /**
     * A fee with a standard and a volume price (deleting it is refused); removeDependants deletes the prices.
     * Back office: POST /v0/fees, POST /v0/prices, DELETE /v0/prices/{id}
     * Unlocks: CONV.DELETE.GONE, FEES.DELETE.BLOCKED, FEES.DELETE.BLOCKER_COUNT, FEES.DELETE.UNBLOCKED
     */
    async feeWithPrices() {
      const a = root.for('feeWithPrices');
      const feeId = await fee(a);
      const ids = [
        await price(a, feeId, { unitPrice: '12.50' }),
        await price(a, feeId, {
          tiers: [
            { unitPrice: '5.00', upTo: '10' },
            { unitPrice: '4.00', upTo: null },
          ],
        }),
      ];
      return blocked(feeId, { prices: ids }, () =>
        Promise.all(ids.map((id) => a.send('DELETE', `/v0/prices/${enc(id)}`))),
      );
    },

    /**
     * A fee with no price.
     * Back office: POST /v0/fees
     * Unlocks: AUTH.MERCHANT.ISOLATION, CONV.DELETE.GONE
     */
    async feeWithoutPrices() {
      return { feeId: await fee(root.for('feeWithoutPrices')) };
    },

    /**
     * An active item of the run's product.
     * Back office: POST /v0/products (once per run), POST /v0/items
     * Unlocks: AUTH.MERCHANT.ISOLATION, CONV.ROUND_TRIP.AS_SENT, ITEMS.ARCHIVED.READABLE, ITEMS.ARCHIVED_AT.STATE,
     *   ITEMS.UPDATE.APPLIED, ITEMS.UPDATE.PARTIAL, MERCHANTS.OWNER.NAMED, PRICES.GET.BY_ID, STATE.ITEM.ARCHIVE,
     *   STATE.ITEM.UNARCHIVE, VALIDATION.PATTERN.400, VALIDATION.TYPE.400, VALIDATION.VALID_REQUEST.NOT_400
     */
    async item() {
      const productId = await product();
      return { itemId: await item(root.for('item'), productId), productId };
    },

    /**
     * An item with a fee anchored to it (archiving is refused); removeDependants deletes the fee.
     * Back office: POST /v0/items, POST /v0/fees, DELETE /v0/fees/{id}
     * Unlocks: ITEMS.ARCHIVE.BLOCKED, STATE.ITEM.ARCHIVE
     */
    async itemWithAnchoredFee() {
      const a = root.for('itemWithAnchoredFee');
      const itemId = await item(a, await product());
      const feeId = await fee(a, { itemId });
      return blocked(itemId, { fees: [feeId] }, () => a.send('DELETE', `/v0/fees/${enc(feeId)}`));
    },

    /**
     * An item with a live billable metric anchored to it; removeDependants archives the metric.
     * Back office: POST /v0/items, POST /v0/billableMetrics, DELETE /v0/billableMetrics/{id}
     * Unlocks: ITEMS.ARCHIVE.BLOCKED, STATE.ITEM.ARCHIVE
     */
    async itemWithAnchoredMetric() {
      const a = root.for('itemWithAnchoredMetric');
      const itemId = await item(a, await product());
      const metricId = await metric(a, { itemId });
      return blocked(itemId, { billableMetrics: [metricId] }, () =>
        a.send('DELETE', `/v0/billableMetrics/${enc(metricId)}`),
      );
    },

    /**
     * An item holding a primary and a secondary external reference.
     * Back office: POST /v0/items, POST /v0/externalReferences
     * Unlocks: ITEMS.ARCHIVE.DEMOTES_PRIMARY, ITEMS.ARCHIVED.READABLE, ITEMS.EXTERNAL_ID.ONE_PRIMARY,
     *   ITEMS.UNARCHIVE.NO_RECLAIM
     */
    async itemWithPrimaryReference() {
      const a = root.for('itemWithPrimaryReference');
      const itemId = await item(a, await product());
      const referenceIds: string[] = [];
      for (const isPrimary of [true, false]) {
        const ref = await a.post('/v0/externalReferences', {
          entityType: 'item',
          entityId: itemId,
          provider: 'salesforce',
          externalId: tag('ext'),
          isPrimary,
          isDefault: isPrimary,
          externalLabel: 'Conform',
        });
        referenceIds.push(ref.id);
      }
      return { itemId, referenceIds };
    },

    /**
     * Two items; one external id claimed as primary by the first, then by the second.
     * Back office: POST /v0/items, POST /v0/externalReferences
     * Unlocks: ITEMS.EXTERNAL_ID.ONE_PRIMARY
     */
    async externalIdClaimedTwice() {
      const a = root.for('externalIdClaimedTwice');
      const productId = await product();
      const itemIds: [string, string] = [await item(a, productId), await item(a, productId)];
      const externalId = tag('ext');
      const claim = (entityId: string) => ({
        entityType: 'item',
        entityId,
        provider: 'salesforce',
        externalId,
        isPrimary: true,
        isDefault: true,
      });
      await a.post('/v0/externalReferences', claim(itemIds[0]));
      // The second claim may be refused or move the primary status: the scenario judges the outcome.
      await a.post('/v0/externalReferences', claim(itemIds[1])).catch(() => undefined);
      return { itemIds, externalId, provider: 'salesforce' };
    },

    /**
     * Reads an item, archived or not (the document gives no item read).
     * Back office: GET /v0/items/{id}
     * Unlocks: AUTH.MERCHANT.ISOLATION, ITEMS.ARCHIVE.BLOCKED, ITEMS.ARCHIVE.DEMOTES_PRIMARY,
     *   ITEMS.ARCHIVED.READABLE, ITEMS.ARCHIVED_AT.STATE, ITEMS.EXTERNAL_ID.ONE_PRIMARY,
     *   ITEMS.UNARCHIVE.NO_RECLAIM, ITEMS.UPDATE.APPLIED, MERCHANTS.OWNER.NAMED, PRICES.GET.BY_ID,
     *   STATE.ITEM.ARCHIVE, STATE.ITEM.UNARCHIVE
     */
    readItem: (itemId) => root.for('readItem').get(`/v0/items/${enc(itemId)}`),

    /**
     * A live subscription, floating or pinned to version 3, on its own test clock: plan versions 1 (archived), 2, 3
     * (default), 4, a missing 1000; overrides, and two billing schedules that are no 409 condition (recipe above).
     * Back office: POST /v0/fees, /v0/prices, /v0/billableMetrics, /v0/plans, /v0/plans/{id}/versions,
     *   /v0/testClocks, /v0/customers, /v0/subscriptions, /v0/orders, /v0/billingSchedules; GET /v0/subscriptions/{id}
     * Unlocks: AUTH.MERCHANT.ISOLATION, MIGRATION.400.TARGET_RANGE, MIGRATION.404.MISSING_VERSION,
     *   MIGRATION.EFFECT.BILLS_TARGET, MIGRATION.EFFECT.PERIOD_END, MIGRATION.EFFECT.PINS,
     *   MIGRATION.EFFECT.SECOND_REPLACES_FIRST, MIGRATION.RESPONSE.SHAPE, MIGRATION.RESPONSE.VERSION_NUMBERS,
     *   MIGRATION.SAME_VERSION.NO_CHANGE, MIGRATION.SAME_VERSION.PINS_FLOATING, MIGRATION.SAME_VERSION.REPEATABLE,
     *   MIGRATION.TARGET.OLDER_OR_NEWER, STATE.SUBSCRIPTION.FLOATING, STATE.SUBSCRIPTION.MIGRATE,
     *   SUBSCRIPTIONS.VERSION.NUMBERED, SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT,
     *   SUBSCRIPTIONS.VERSION_POLICY.PINNED_STAYS
     */
    migration: (policy = 'floating') => migration(root.for('migration'), policy),

    /**
     * Per 409 condition of the document, a subscription whose migration to version 2 meets it (the conflict recipe
     * above).
     * Back office: as migration, and POST /v0/subscriptions/{id}/cancel, POST /v0/pricingUnits
     * Unlocks: MIGRATION.409.CODE_VALUES, MIGRATION.409.ENDS_BEFORE_BOUNDARY, MIGRATION.409.FEATURE_CHANGE,
     *   MIGRATION.409.INTERVAL_COVERED, MIGRATION.409.NOT_LIVE, MIGRATION.409.OVERRIDE_RATE
     */
    migrationConflict: async (kind) => ({
      subscriptionId: await conflict(root.for('migrationConflict'), kind),
      targetVersionNumber: 2,
    }),

    /**
     * Reads a subscription: its version and version policy (the document gives no subscription read).
     * Back office: GET /v0/subscriptions/{id}
     * Unlocks: AUTH.MERCHANT.ISOLATION, MIGRATION.400.TARGET_RANGE, MIGRATION.404.MISSING_VERSION,
     *   MIGRATION.409.CODE_VALUES, MIGRATION.409.ENDS_BEFORE_BOUNDARY, MIGRATION.409.FEATURE_CHANGE,
     *   MIGRATION.409.INTERVAL_COVERED, MIGRATION.409.NOT_LIVE, MIGRATION.409.OVERRIDE_RATE,
     *   MIGRATION.EFFECT.BILLS_TARGET, MIGRATION.EFFECT.PERIOD_END, MIGRATION.EFFECT.PINS,
     *   MIGRATION.EFFECT.SECOND_REPLACES_FIRST, MIGRATION.RESPONSE.SHAPE, MIGRATION.RESPONSE.VERSION_NUMBERS,
     *   MIGRATION.SAME_VERSION.NO_CHANGE, MIGRATION.SAME_VERSION.PINS_FLOATING, MIGRATION.SAME_VERSION.REPEATABLE,
     *   MIGRATION.TARGET.OLDER_OR_NEWER, STATE.SUBSCRIPTION.FLOATING, STATE.SUBSCRIPTION.MIGRATE,
     *   SUBSCRIPTIONS.VERSION.NUMBERED, SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT,
     *   SUBSCRIPTIONS.VERSION_POLICY.PINNED_STAYS
     */
    readSubscription: (id) =>
      readSubscription(root.for('readSubscription'), id) as ReturnType<Fixtures['readSubscription']>,

    /**
     * Advances the subscription's test clock to its period end (once more for in-arrears prices); returns what the
     * next period bills.
     * Back office: GET /v0/subscriptions/{id}, POST /v0/testClocks/{id}/advance, GET /v2/invoices
     * Unlocks: MIGRATION.EFFECT.BILLS_TARGET, MIGRATION.EFFECT.SECOND_REPLACES_FIRST,
     *   MIGRATION.TARGET.OLDER_OR_NEWER, STATE.SUBSCRIPTION.FLOATING, SUBSCRIPTIONS.VERSION.NUMBERED,
     *   SUBSCRIPTIONS.VERSION_POLICY.FLOATING_FOLLOWS_DEFAULT, SUBSCRIPTIONS.VERSION_POLICY.PINNED_STAYS
     */
    async advancePastBoundary(subscriptionId) {
      const a = root.for('advancePastBoundary');
      const sub = await readSubscription(a, subscriptionId);
      if (typeof sub.testClockId !== 'string')
        throw new FixtureUnavailable('advancePastBoundary', `subscription ${subscriptionId} is not on a test clock`);
      const boundary = sub.currentPeriodEnd as string;
      await a.post(`/v0/testClocks/${enc(sub.testClockId)}/advance`, { frozenTime: boundary });
      let billed = await billedFrom(a, subscriptionId, boundary);
      if (!billed.length) {
        const next = await readSubscription(a, subscriptionId);
        await a.post(`/v0/testClocks/${enc(sub.testClockId)}/advance`, { frozenTime: next.currentPeriodEnd });
        billed = await billedFrom(a, subscriptionId, boundary);
      }
      if (!billed.length)
        throw new FixtureUnavailable(
          'advancePastBoundary',
          `nothing of subscription ${subscriptionId} bills the period starting at ${boundary}`,
        );
      return { billedPriceIds: billed };
    },

    /**
     * A wallet of a fresh customer.
     * Back office: POST /v0/customers, POST /v0/wallets
     * Unlocks: ALERTS.LIST.OFFSET, ALERTS.LIST.RESOURCE_ID_REQUIRED, AUTH.MERCHANT.ISOLATION,
     *   CONV.ROUND_TRIP.AS_SENT, VALIDATION.BOUNDS.400, VALIDATION.REQUIRED.400, VALIDATION.TYPE.400,
     *   VALIDATION.VALID_REQUEST.NOT_400, WALLETS.AUTO_TOPUP.PARTIAL, WALLETS.AUTO_TOPUP.PERIOD_DAY,
     *   WALLETS.AUTO_TOPUP.SHAPE
     */
    wallet: async () => ({ walletId: await wallet(root.for('wallet')) }),

    /**
     * A wallet with at least n wallet_low_balance alerts.
     * Back office: POST /v0/customers, POST /v0/wallets, POST /v0/alerts
     * Unlocks: ALERTS.LIST.LIMIT_DEFAULT, ALERTS.LIST.LIMIT_RANGE, ALERTS.LIST.OFFSET, ALERTS.LIST.PAGINATED,
     *   ALERTS.LIST.RESOURCE_ID_REQUIRED, ALERTS.UPDATE.OK, ALERTS.UPDATE.PARTIAL, ALERTS.UPDATE.RESOURCE_REQUIRED,
     *   AUTH.MERCHANT.ISOLATION, CONV.LIST.TOTAL_REACHED, CONV.ROUND_TRIP.AS_SENT, SOURCE_RULES.UPDATE.PARTIAL,
     *   STATUS.SUCCESS.CODE, VALIDATION.BOUNDS.400, VALIDATION.ENUM.400, VALIDATION.REQUIRED.400,
     *   VALIDATION.TYPE.400, VALIDATION.VALID_REQUEST.NOT_400
     */
    async walletWithAlerts(minAlerts) {
      const a = root.for('walletWithAlerts');
      const walletId = await wallet(a);
      const alertIds: string[] = [];
      for (let i = 0; i < minAlerts; i++) {
        const body = {
          resourceId: walletId,
          type: 'wallet_low_balance',
          config: { threshold: `${10 + i}.00` },
          enabled: true,
          notifyPeriod: 3600,
          recipients: ['billing@conform.invalid'],
        };
        alertIds.push((await a.post('/v0/alerts', body)).id);
      }
      return { walletId, alertIds };
    },

    /**
     * An order of a fresh customer.
     * Back office: POST /v0/customers, POST /v0/orders
     * Unlocks: AUTH.MERCHANT.ISOLATION, SCHEDULES.CREATE.BY_ORDER, SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED,
     *   SCHEDULES.END_DATE.PRESENT, SCHEDULES.OWNER.EXACTLY_ONE, VALIDATION.TYPE.400,
     *   VALIDATION.VALID_REQUEST.NOT_400
     */
    async order() {
      const a = root.for('order');
      return {
        orderId: await order(a, await customer(a), [
          { description: 'Conform order line', quantity: 2, unitPrice: '25.00' },
        ]),
      };
    },

    /**
     * An order of n lines and a billing schedule of it: one interval per line.
     * Back office: POST /v0/customers, POST /v0/orders, POST /v0/billingSchedules
     * Unlocks: AUTH.MERCHANT.ISOLATION, CONV.LIST.TOTAL_REACHED, CONV.ROUND_TRIP.AS_SENT, SCHEDULES.DELETE.DELETED,
     *   SCHEDULES.INTERVALS.PAGINATED
     */
    async scheduleWithIntervals(minIntervals) {
      const a = root.for('scheduleWithIntervals');
      const lines = Array.from({ length: Math.max(1, minIntervals) }, (_, i) => ({
        description: `Conform line ${i + 1}`,
        quantity: i + 1,
        unitPrice: '10.00',
      }));
      const orderId = await order(a, await customer(a), lines);
      return { scheduleId: await schedule(a, { orderId }), orderId, intervalCount: lines.length };
    },

    /**
     * A live subscription on the run's one-version plan.
     * Back office: POST /v0/customers, POST /v0/subscriptions (the plan once per run: /v0/fees, /v0/prices,
     *   /v0/plans)
     * Unlocks: AUTH.401.SHAPE, AUTH.MERCHANT.ISOLATION, RATE.FAILED_AUTH.NO_HEADERS,
     *   SCHEDULES.CREATE.SUBSCRIPTION_UNSUPPORTED, SCHEDULES.OWNER.EXACTLY_ONE, VALIDATION.BOUNDS.400,
     *   VALIDATION.REQUIRED.400, VALIDATION.TYPE.400
     */
    async subscription() {
      const a = root.for('subscription');
      const [planId, customerId] = await Promise.all([simplePlan(), customer(a)]);
      return { subscriptionId: await subscribe(a, { customerId, planId }) };
    },

    /**
     * Distinct live subscriptions of one customer, as many as asked: a fresh per-subscription rate-limit bucket each.
     * Back office: POST /v0/customers, POST /v0/subscriptions
     * Unlocks: AUTH.ALLOWANCE.PER_MERCHANT, RATE.BUCKET.PER_ENDPOINT, RATE.EXCEEDED.BODY, RATE.EXCEEDED.STATUS,
     *   RATE.HEADERS.PRESENT, RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED, RATE.PORTAL.BUCKET, RATE.PORTAL.LIMIT,
     *   RATE.RECONCILIATIONS.BUCKET, RATE.RECONCILIATIONS.LIMIT, RATE.REMAINING.DECREMENTS,
     *   RATE.REMAINING.HONOURED, RATE.REMAINING.NON_NEGATIVE, RATE.RESET.WITHIN_WINDOW, RATE.RETRY_AFTER.ON_429,
     *   RATE.WINDOW.READMITS
     */
    subscriptions: (count) => liveSubscriptions(root.for('subscriptions'), count),

    /**
     * A PAID invoice with two taxed lines; amount and taxAmount are what a full refund returns.
     * Back office: POST /v0/customers, POST /v2/invoices, POST /v2/invoices/{id}/finalize, POST
     *   /v2/invoices/{id}/pay
     * Unlocks: AUTH.MERCHANT.ISOLATION, CONV.MONEY.DECIMAL_STRING, REFUNDS.ID.PREFIX, REFUNDS.INVOICE.MATCHES,
     *   REFUNDS.REASON.RECORDED, REFUNDS.STATUS.ENUM, REFUNDS.TOTAL.SUM, VALIDATION.TYPE.400,
     *   VALIDATION.VALID_REQUEST.NOT_400
     */
    async paidInvoice() {
      const a = root.for('paidInvoice');
      const draft = await draftInvoice(a, [
        { description: 'Conform seats', amount: '19.99', quantity: 3, taxRate: 8.25 },
        { description: 'Conform setup', amount: '0.10', quantity: 1, taxRate: 20 },
      ]);
      await a.post(`/v2/invoices/${enc(draft.id)}/finalize`);
      const paid = await a.post(`/v2/invoices/${enc(draft.id)}/pay`);
      return { invoiceId: paid.id, amount: paid.subtotal, taxAmount: paid.taxAmount, currency: paid.currency };
    },

    /**
     * A finalized, unpaid invoice: nothing to refund.
     * Back office: POST /v0/customers, POST /v2/invoices, POST /v2/invoices/{id}/finalize
     * Unlocks: ERRORS.ERROR.SHAPE, ERRORS.ERROR_RESPONSES.SHAPE, REFUNDS.REFUSED.NO_CREDIT_NOTE
     */
    async unrefundableInvoice() {
      const a = root.for('unrefundableInvoice');
      const draft = await draftInvoice(a, [{ description: 'Conform unpaid', amount: '30.00' }]);
      await a.post(`/v2/invoices/${enc(draft.id)}/finalize`);
      return { invoiceId: draft.id };
    },

    /**
     * A one-off payment.
     * Back office: POST /v0/customers, POST /v0/payments
     * Unlocks: AUTH.MERCHANT.ISOLATION, CONV.ROUND_TRIP.AS_SENT, PAYMENTS.AMOUNT.DECIMAL, PAYMENTS.GET.BY_ID,
     *   PAYMENTS.ID.PREFIX, PAYMENTS.STATUS.ENUM
     */
    async payment() {
      const a = root.for('payment');
      const body = {
        amount: '42.50',
        currency: 'USD',
        customerId: await customer(a),
        reference: tag('ref'),
        lineItems: [{ description: 'Conform one-off', amount: '42.50', quantity: 1 }],
      };
      return { paymentId: (await a.post('/v0/payments', body)).id };
    },

    /**
     * A draft invoice of its own per call, and a body adding one line to it (the payload is not shown).
     * Back office: POST /v0/customers, POST /v2/invoices
     * Unlocks: AUTH.401.SHAPE, AUTH.ALLOWANCE.PER_MERCHANT, RATE.BUCKET.PER_ENDPOINT, RATE.EXCEEDED.BODY,
     *   RATE.EXCEEDED.STATUS, RATE.FAILED_AUTH.NO_HEADERS, RATE.HEADERS.PRESENT, RATE.INVOICE_LINE_ITEMS.BUCKET,
     *   RATE.INVOICE_LINE_ITEMS.LIMIT, RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED, RATE.REMAINING.DECREMENTS,
     *   RATE.REMAINING.HONOURED, RATE.REMAINING.NON_NEGATIVE, RATE.RESET.WITHIN_WINDOW, RATE.RETRY_AFTER.ON_429
     */
    async invoiceLineItemsBody() {
      const draft = await draftInvoice(root.for('invoiceLineItemsBody'), [
        { description: 'Conform base line', amount: '5.00' },
      ]);
      return { invoiceId: draft.id, lineItems: [{ description: 'Conform extra line', amount: '1.25', quantity: 2 }] };
    },

    /**
     * A standard and a volume price of a fresh fee, and the sandbox's seeded legacy prices (dynamic, percentage).
     * Back office: POST /v0/fees, POST /v0/prices, GET /v0/prices?model=...
     * Unlocks: AUTH.MERCHANT.ISOLATION, CONV.ROUND_TRIP.AS_SENT, ITEMS.UPDATE.APPLIED, MERCHANTS.OWNER.NAMED,
     *   PRICES.FEE_ID.WHEN_LINKED, PRICES.GET.BY_ID, PRICES.MERCHANT_ID.SINGLE_READ, PRICES.MODEL.ENUM,
     *   PRICES.QUANTITY.NON_NEGATIVE, PRICES.VOLUME.LAST_TIER_OPEN
     */
    async prices() {
      const a = root.for('prices');
      const feeId = await fee(a);
      const standard = await price(a, feeId, { unitPrice: '9.99' });
      const volume = await price(a, feeId, {
        tiers: [
          { unitPrice: '3.00', upTo: '100' },
          { unitPrice: '2.50', upTo: '1000' },
          { unitPrice: '2.00', upTo: null },
        ],
      });
      // Legacy models (dynamic, percentage) cannot be created: the sandbox's seeded ones are listed.
      const legacy: string[] = [];
      for (const model of ['dynamic', 'percentage'])
        legacy.push(...((await a.get('/v0/prices', { model, limit: 5 })).data as Json[]).map((p) => p.id as string));
      return { standard, volume, legacy };
    },

    /**
     * A source rule of a fresh source.
     * Back office: POST /v0/sources, POST /v0/sourceRules
     * Unlocks: ALERTS.UPDATE.OK, AUTH.MERCHANT.ISOLATION, CONV.ROUND_TRIP.AS_SENT, SOURCE_RULES.UPDATE.OBJECT,
     *   SOURCE_RULES.UPDATE.PARTIAL, STATUS.404.UNKNOWN_RESOURCE, VALIDATION.TYPE.400,
     *   VALIDATION.VALID_REQUEST.NOT_400
     */
    async sourceRule() {
      const a = root.for('sourceRule');
      const source = await a.post('/v0/sources', { name: `Conform source ${tag()}` });
      const conditions = [
        { type: 'amount', operator: 'lt', value: '100.00' },
        { type: 'currency', operator: 'eq', value: 'USD' },
      ];
      return {
        ruleId: (
          await a.post('/v0/sourceRules', {
            sourceId: source.id,
            name: 'Conform rule',
            description: 'auto-accept small usage',
            order: 1,
            enabled: true,
            conditions,
          })
        ).id,
      };
    },

    /**
     * A CRM provider name the sandbox knows.
     * Back office: none: a constant
     * Unlocks: AUTH.401.SHAPE, AUTH.ALLOWANCE.PER_MERCHANT, RATE.BUCKET.PER_ENDPOINT, RATE.CRM_ACCOUNTS.BUCKET,
     *   RATE.CRM_ACCOUNTS.LIMIT, RATE.EXCEEDED.BODY, RATE.EXCEEDED.STATUS, RATE.FAILED_AUTH.NO_HEADERS,
     *   RATE.HEADERS.PRESENT, RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED, RATE.REMAINING.DECREMENTS,
     *   RATE.REMAINING.HONOURED, RATE.REMAINING.NON_NEGATIVE, RATE.RESET.WITHIN_WINDOW, RATE.RETRY_AFTER.ON_429
     */
    crmProvider: async () => 'salesforce',

    // What the run created goes when it ends, unless CONFORM_KEEP_FIXTURES is set: then a failure's replay
    // command (report.json) still finds the resources it names.
    close: () => (process.env.CONFORM_KEEP_FIXTURES ? Promise.resolve() : root.cleanup()),
  };
}
