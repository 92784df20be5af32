/**
 * Rate limits (interface document, Limits) on the six listed endpoints, with the published
 * limits read from the spec (x-rate-limit, spec/rules.yaml). The observed x-ratelimit-limit
 * (which may be higher) says how many requests use a bucket up.
 *
 * Re-runnable: buckets are used up on fresh merchants and fresh subscriptions where the
 * fixtures can make them, so other suites' buckets are left alone and a second run finds
 * fresh buckets; a bucket found partly used is waited out when its window is short, else
 * judged on what is left of it. Windows are not always aligned with our requests, so a
 * count that a new window may explain is retried (ATTEMPTS) before it is called a failure.
 */
import { scenario, FixtureUnavailable, type ScenarioContext, type ScenarioRequestOptions } from '../src/engine/scenario.ts';
import type { Fixtures } from '../src/engine/fixtures/types.ts';
import type { Exchange } from '../src/engine/types.ts';
import { loadSpec } from '../src/spec/index.ts';

const spec = await loadSpec();
const { rules } = await spec.rules();

interface Endpoint {
  operationId: string;
  /** RATE.<SUBJECT>.LIMIT and RATE.<SUBJECT>.BUCKET. */
  limitRule: string;
  bucketRule: string;
  method: string;
  pathTemplate: string;
  /** Published: x-ratelimit-limit may be higher, never lower. */
  limit: number;
  windowSeconds: number;
  bucket: 'merchant' | 'subscription';
  label: string;
}

/** The quick profile waits out windows (and resets) up to this long; per-minute windows only in the full profile. */
const QUICK_WAIT_MAX_S = 10;
/** Refuse to send more than this many requests to use up one bucket. */
const MAX_EXHAUST = 3000;
/** Sequential requests whose remaining is compared one by one. */
const SEQUENTIAL = 2;
/** Tries before an outcome a new window could explain is called a failure. */
const ATTEMPTS = 3;
const MARGIN_MS = 100;
const LIMIT = 'x-ratelimit-limit';
const REMAINING = 'x-ratelimit-remaining';
const RESET = 'x-ratelimit-reset';

/** The rules citing each listed endpoint; its limit, window and bucket are read from the spec. */
const RULES_OF: Record<string, { limit: string; bucket: string }> = {
  listCustomers: { limit: 'RATE.CUSTOMERS_LIST.LIMIT', bucket: 'RATE.CUSTOMERS_LIST.BUCKET' },
  createReconciliation: { limit: 'RATE.RECONCILIATIONS.LIMIT', bucket: 'RATE.RECONCILIATIONS.BUCKET' },
  createPortalSession: { limit: 'RATE.PORTAL.LIMIT', bucket: 'RATE.PORTAL.BUCKET' },
  createInvoiceLineItems: { limit: 'RATE.INVOICE_LINE_ITEMS.LIMIT', bucket: 'RATE.INVOICE_LINE_ITEMS.BUCKET' },
  getCostsReport: { limit: 'RATE.COSTS_REPORT.LIMIT', bucket: 'RATE.COSTS_REPORT.BUCKET' },
  listCrmAccounts: { limit: 'RATE.CRM_ACCOUNTS.LIMIT', bucket: 'RATE.CRM_ACCOUNTS.BUCKET' },
};

const ENDPOINTS: Endpoint[] = [...spec.operations.values()]
  .filter((op) => op.rateLimit)
  .map((op) => {
    const cited = RULES_OF[op.operationId];
    const rule = cited && rules.find((r) => r.id === cited.limit);
    if (!rule?.operations.includes(op.operationId)) throw new Error(`rate-limits suite: no LIMIT rule in spec/rules.yaml for the rate-limited ${op.operationId}; add it to RULES_OF`);
    const { limit, windowSeconds, bucket } = op.rateLimit!;
    return { operationId: op.operationId, limitRule: cited.limit, bucketRule: cited.bucket, method: op.method, pathTemplate: op.pathTemplate, limit, windowSeconds, bucket, label: `${op.method} ${op.pathTemplate}` };
  })
  // Scenarios start in this order (vitest runs a few at a time): the ones that wait out a window first.
  .sort((a, b) => Number(b.windowSeconds <= QUICK_WAIT_MAX_S) - Number(a.windowSeconds <= QUICK_WAIT_MAX_S) || b.windowSeconds - a.windowSeconds || a.limit - b.limit);

const COMMON = ['RATE.HEADERS.PRESENT', 'RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED', 'RATE.REMAINING.DECREMENTS', 'RATE.REMAINING.NON_NEGATIVE', 'RATE.RESET.WITHIN_WINDOW', 'RATE.EXCEEDED.STATUS', 'RATE.EXCEEDED.BODY', 'RATE.RETRY_AFTER.ON_429'];

/** A header as a number (the rate-headers check judges the format). */
function hdr(ex: Exchange | undefined, name: string): number | undefined {
  const v = ex?.responseHeaders[name];
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : undefined;
}

const statusOf = (ex: Exchange) => ex.status ?? ex.transportError ?? 'no response';

/**
 * Sends `n` requests in parallel, at most BURST_IN_FLIGHT at a time: the worker's connection
 * pool is shared, and a burst that filled it would hold up another scenario's 1 s window.
 */
const BURST_IN_FLIGHT = 8;
async function burst(n: number, send: () => Promise<Exchange>): Promise<Exchange[]> {
  const out: Exchange[] = [];
  let next = 0;
  const lane = async () => {
    while (next < n) {
      next += 1;
      out.push(await send());
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, BURST_IN_FLIGHT) }, lane));
  return out;
}

/** Ids handed out in this worker: a merchant or subscription seen before is not fresh. */
const claimed = new Set<string>();
function claim(id: string): boolean {
  if (claimed.has(id)) return false;
  claimed.add(id);
  return true;
}

async function optional<T>(t: ScenarioContext, fn: (f: Fixtures) => Promise<T>, what: string): Promise<T | undefined> {
  try {
    return await t.fixture(fn);
  } catch (err) {
    if (!(err instanceof FixtureUnavailable) && (err as Error)?.name !== 'FixtureUnavailable') throw err;
    t.note(`${what}: ${(err as Error).message}`);
    return undefined;
  }
}

/** Where requests go: one bucket. */
interface Target {
  /** undefined: the primary key. */
  key?: string;
  merchantId?: string;
  subscriptionId?: string;
  path: string;
  body?: unknown;
  /** Only this scenario sends on the bucket (fresh merchant or subscription): counts must be exact. */
  alone: boolean;
  label: string;
}

/** One endpoint as a scenario drives it. */
class Bench {
  private provider?: string;
  private body?: unknown;
  private noted = false;

  constructor(readonly t: ScenarioContext, readonly ep: Endpoint) {}

  private async path(subscriptionId?: string): Promise<string> {
    let p = this.ep.pathTemplate;
    if (p.includes('{crmProvider}')) {
      this.provider ??= await this.t.fixture((f) => f.crmProvider());
      p = p.replace('{crmProvider}', encodeURIComponent(this.provider));
    }
    return subscriptionId ? p.replace('{id}', encodeURIComponent(subscriptionId)) : p;
  }

  /** The payload is not shown; the fixtures give a body the target accepts (a draft invoice of the primary merchant). */
  private async requestBody(): Promise<unknown> {
    if (this.ep.operationId !== 'createInvoiceLineItems') return undefined;
    this.body ??= await this.t.fixture((f) => f.invoiceLineItemsBody());
    return this.body;
  }

  /** A bucket nobody else uses: a fresh subscription, or a fresh merchant's key (else the primary merchant). */
  async fresh(): Promise<Target> {
    if (this.ep.bucket === 'subscription') {
      const [id] = await this.t.fixture((f) => f.subscriptions(1));
      return { subscriptionId: id, path: await this.path(id), alone: claim(`sub:${id}`), label: `subscription ${id}` };
    }
    const other = await optional(this.t, (f) => f.otherMerchantKey(), 'no fresh merchant: using the primary merchant');
    if (!other) return this.primary();
    return this.forMerchant(other.key, other.merchantId, claim(`org:${other.merchantId}`));
  }

  /** The primary key's merchant (shared with other suites: counts are lower bounds). */
  async primary(): Promise<Target> {
    const m = await optional(this.t, (f) => f.merchant(), 'primary merchant id unknown');
    return { merchantId: m?.merchantId, path: await this.path(), body: await this.requestBody(), alone: false, label: 'the primary merchant' };
  }

  async forMerchant(key: string | undefined, merchantId: string | undefined, alone: boolean): Promise<Target> {
    if (this.ep.bucket === 'subscription') throw new Error(`${this.ep.label} counts per subscription`);
    if (this.ep.operationId === 'createInvoiceLineItems' && key !== undefined && !this.noted) {
      this.noted = true;
      this.t.note(`${this.ep.label} on merchant ${merchantId}: the fixtures' body names a draft invoice of the primary merchant, so this merchant's requests may be refused (404); they still count in its bucket`);
    }
    return { key, merchantId, path: await this.path(), body: await this.requestBody(), alone, label: `merchant ${merchantId ?? '(unknown)'}` };
  }

  async forSubscription(subscriptionId: string, alone: boolean): Promise<Target> {
    return { subscriptionId, path: await this.path(subscriptionId), alone, label: `subscription ${subscriptionId}` };
  }

  send(target: Target, key: string | undefined = target.key, opts: ScenarioRequestOptions = {}): Promise<Exchange> {
    return this.t.http.request(this.ep.method, target.path, { key, body: target.body, retry429: false, ...opts });
  }

  /** Seconds until this bucket's window resets, or undefined when the profile does not wait that long. */
  waitFor(ex: Exchange): number | undefined {
    const seconds = Math.min(hdr(ex, RESET) ?? hdr(ex, 'retry-after') ?? this.ep.windowSeconds, this.ep.windowSeconds);
    return this.t.target.profile === 'full' || seconds <= QUICK_WAIT_MAX_S ? seconds : undefined;
  }
}

interface Exhausted {
  target: Target;
  limit: number;
  /** The latest 429 of the bucket and when it came back (performance.now()). */
  rejected: Exchange;
  rejectedAt: number;
}

function rejectedAgain(done: Exhausted, ex: Exchange): void {
  if (ex.status !== 429) return;
  done.rejected = ex;
  done.rejectedAt = performance.now();
}

/** Sends the first request of a window, waiting out a bucket found partly used when its window is short. */
async function openWindow(b: Bench, target: Target): Promise<{ probe: Exchange; fresh: boolean }> {
  for (let i = 0; ; i++) {
    const probe = await b.send(target);
    const limit = hdr(probe, LIMIT);
    const fresh = probe.status !== 429 && limit !== undefined && hdr(probe, REMAINING) === limit - 1;
    const wait = fresh || i > 0 ? undefined : b.waitFor(probe);
    if (wait === undefined) return { probe, fresh };
    b.t.note(`${b.ep.label} on ${target.label}: bucket found in use (remaining ${probe.responseHeaders[REMAINING]} of ${probe.responseHeaders[LIMIT]}); waiting ${wait} s for its window to reset`);
    await b.t.sleep(wait * 1000 + MARGIN_MS);
  }
}

/**
 * Uses a bucket up: the first request, SEQUENTIAL more one by one (remaining drops by one
 * each), the rest of the window at once, then one more, which must get 429. `next` gives the
 * target of each attempt (a fresh bucket when it can). Undefined when the observed limit is
 * too large to use up safely.
 */
async function exhaust(b: Bench, opts: { first?: Target; next?: () => Promise<Target> } = {}): Promise<Exhausted | undefined> {
  const { t, ep } = b;
  const next = opts.next ?? (() => b.fresh());
  t.rateLimitScenario();
  let why = '';
  let rule = 'RATE.EXCEEDED.STATUS';
  let last: Exchange | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const target = attempt === 1 && opts.first ? opts.first : await next();
    const { probe, fresh } = await openWindow(b, target);
    const limit = hdr(probe, LIMIT);
    const remaining = hdr(probe, REMAINING);
    if (probe.status === 429) {
      t.note(`${ep.label} on ${target.label}: bucket already used up by other traffic; its 429 is judged`);
      return { target, limit: limit ?? ep.limit, rejected: probe, rejectedAt: performance.now() };
    }
    t.expectRule('RATE.HEADERS.PRESENT', limit !== undefined && remaining !== undefined, `${ep.label}: no numeric x-ratelimit-limit and x-ratelimit-remaining to count with`, probe);
    t.checkRule(ep.limitRule, limit! >= ep.limit, `x-ratelimit-limit ${limit} is below the published ${ep.limit} per ${ep.windowSeconds} s`, probe);
    const exact = fresh && target.alone;
    if (!fresh) t.note(`${ep.label} on ${target.label}: bucket in use (remaining ${remaining} of ${limit}); judging what is left of its window`);
    if (remaining! > MAX_EXHAUST) {
      if (exact) {
        const sent = await burst(ep.limit - 1, () => b.send(target));
        const early = sent.find((x) => x.status === 429);
        t.checkRule(ep.limitRule, !early, `429 within the published ${ep.limit} requests of a fresh window`, early);
      }
      return t.notJudged(`${ep.label}: x-ratelimit-remaining ${remaining} is more than the ${MAX_EXHAUST} requests this run may send to use the bucket up; only the published ${ep.limit} were sent`, 'target');
    }

    let admitted = 1;
    let prev = probe;
    let rejected: Exchange | undefined;
    let rolled = false;
    for (let i = 0; i < Math.min(SEQUENTIAL, remaining!) && !rejected; i++) {
      const cur = await b.send(target);
      if (cur.status === 429) rejected = cur;
      else {
        admitted += 1;
        const before = hdr(prev, REMAINING)!;
        const after = hdr(cur, REMAINING);
        // Not lower than before: a new window may have begun between the two (retried), or counting is broken.
        if (after !== undefined && after >= before) {
          rolled = true;
          why = `remaining went from ${before} to ${after} between two requests`;
          last = cur;
          break;
        }
        t.checkRule('RATE.REMAINING.DECREMENTS', after !== undefined && (exact ? after === before - 1 : after < before), `${ep.label}: remaining went from ${before} to ${after} on one counted request`, cur);
        prev = cur;
      }
    }
    if (rolled) {
      rule = 'RATE.REMAINING.DECREMENTS';
      continue;
    }
    if (!rejected) {
      const left = Math.max(0, hdr(prev, REMAINING) ?? 0);
      const sent = await burst(left, () => b.send(target));
      rejected = sent.find((x) => x.status === 429);
      admitted += sent.filter((x) => x.status !== 429).length;
    }
    if (!rejected) {
      const extra = await b.send(target);
      if (extra.status !== 429) {
        admitted += 1;
        rule = 'RATE.EXCEEDED.STATUS';
        why = `request ${admitted} of a window whose x-ratelimit-limit is ${limit} was admitted (${statusOf(extra)}, remaining ${extra.responseHeaders[REMAINING]})`;
        last = extra;
        continue;
      }
      rejected = extra;
    }
    if (exact) t.expectRule(ep.limitRule, admitted >= limit!, `429 after only ${admitted} requests in a fresh window whose x-ratelimit-limit is ${limit}`, rejected);
    return { target, limit: limit!, rejected, rejectedAt: performance.now() };
  }
  t.expectRule(rule, false, `${ep.label}: no 429 past the limit in ${ATTEMPTS} windows: ${why}`, last);
  return undefined;
}

/** After x-ratelimit-reset seconds (of the latest 429) the bucket admits again, with a full window. */
async function readmit(b: Bench, done: Exhausted): Promise<void> {
  const { t, ep } = b;
  const reset = hdr(done.rejected, RESET) ?? hdr(done.rejected, 'retry-after');
  t.expectRule('RATE.WINDOW.READMITS', reset !== undefined, 'the 429 gives no x-ratelimit-reset to wait for', done.rejected);
  const wait = Math.min(reset!, ep.windowSeconds) * 1000 + MARGIN_MS - (performance.now() - done.rejectedAt);
  if (wait > 0) await t.sleep(wait);
  const ex = await b.send(done.target);
  t.expectRule('RATE.WINDOW.READMITS', ex.status !== 429, `still 429 ${reset} s after a 429 whose x-ratelimit-reset was ${reset}`, ex);
  if (done.target.alone) {
    const limit = hdr(ex, LIMIT);
    t.checkRule('RATE.REMAINING.DECREMENTS', limit !== undefined && hdr(ex, REMAINING) === limit - 1, `the first request of a new window left ${ex.responseHeaders[REMAINING]} of ${limit}`, ex);
  }
}

/** Another merchant's or subscription's bucket is untouched by this one's being used up. */
async function otherUntouched(b: Bench, done: Exhausted, other: Target | undefined): Promise<void> {
  const { t, ep } = b;
  const same = other === undefined || (ep.bucket === 'merchant' ? other.merchantId === done.target.merchantId : other.subscriptionId === done.target.subscriptionId);
  if (same) {
    t.ruleNotJudged(ep.bucketRule, `${ep.label}: no second ${ep.bucket} to compare with another ${ep.bucket}`, 'fixture');
    return;
  }
  const ex = await b.send(other);
  t.checkRule(ep.bucketRule, ex.status !== 429, `with the bucket of ${done.target.label} used up, ${other.label} got 429`, ex);
  const limit = hdr(ex, LIMIT);
  if (other.alone && ex.status !== 429) t.checkRule(ep.bucketRule, limit !== undefined && hdr(ex, REMAINING) === limit - 1, `with the bucket of ${done.target.label} used up, the first request of ${other.label} left ${ex.responseHeaders[REMAINING]} of ${limit}`, ex);
}

/**
 * A second key of the merchant is refused on the used-up subscription (allowances are the
 * merchant's). A window just begun would admit it too: only a repeated admission fails.
 */
async function secondKeyRefused(b: Bench, first: Exhausted, secondKey: string): Promise<Exhausted> {
  const { t, ep } = b;
  let done = first;
  for (let attempt = 1; ; attempt++) {
    const ex = await b.send(done.target, secondKey);
    rejectedAgain(done, ex);
    if (ex.status === 429 || attempt >= ATTEMPTS) {
      t.checkRule('AUTH.ALLOWANCE.PER_MERCHANT', ex.status === 429, `${ep.label}: with ${done.target.label} used up by one key, another key of the same merchant was admitted (${attempt} windows)`, ex);
      return done;
    }
    const again = await exhaust(b);
    if (!again) return done;
    done = again;
  }
}

// ------------------------------------------------------------------ full profile: per-minute windows reset
// First in the file: they wait longest, and vitest starts a few scenarios at a time in file order.

for (const ep of ENDPOINTS.filter((e) => e.windowSeconds > QUICK_WAIT_MAX_S)) {
  scenario(
    ['RATE.WINDOW.READMITS', 'RATE.EXCEEDED.STATUS', ep.limitRule],
    `${ep.label}: admitted again x-ratelimit-reset seconds after a 429 (${ep.windowSeconds} s window)`,
    async (t) => {
      const b = new Bench(t, ep);
      const done = await exhaust(b);
      if (done) await readmit(b, done);
    },
    { concurrent: true, profile: 'full', timeoutMs: (ep.windowSeconds * 2 + 60) * 1000 },
  );
}

// ------------------------------------------------------------------ per endpoint: count, 429, buckets, reset

for (const ep of ENDPOINTS) {
  const short = ep.windowSeconds <= QUICK_WAIT_MAX_S;
  const bucketRules = ep.bucket === 'subscription' ? [ep.bucketRule, 'AUTH.ALLOWANCE.PER_MERCHANT'] : [ep.bucketRule];
  scenario(
    [ep.limitRule, ...COMMON, ...bucketRules, ...(short ? ['RATE.WINDOW.READMITS'] : [])],
    `${ep.label}: ${ep.limit} per ${ep.windowSeconds} s per ${ep.bucket}: headers, counting, 429 past the limit, another ${ep.bucket} untouched${ep.bucket === 'subscription' ? ', keys of one merchant share it' : ''}${short ? ', admitted again after the reset' : ''}`,
    async (t) => {
      const b = new Bench(t, ep);
      // Everything the follow-ups need is ready before the window opens.
      const [first, other, second] = await Promise.all([
        b.fresh(),
        b.fresh(),
        ep.bucket === 'subscription' ? optional(t, (f) => f.secondKeySameMerchant(), `${ep.label}: no second key of the merchant; AUTH.ALLOWANCE.PER_MERCHANT not judged here`) : undefined,
      ]);
      if (ep.bucket === 'subscription' && !second) t.ruleNotJudged('AUTH.ALLOWANCE.PER_MERCHANT', `${ep.label}: no second key of the merchant (secondKeySameMerchant)`, 'credential');
      let done = await exhaust(b, { first });
      if (!done) return;
      // Still refused within the window (unless a new window may have begun: remaining back at limit - 1).
      const again = await b.send(done.target);
      rejectedAgain(done, again);
      if (again.status === 429 || hdr(again, REMAINING) !== done.limit - 1) t.checkRule('RATE.EXCEEDED.STATUS', again.status === 429, `a second request past the limit within the window got ${statusOf(again)}`, again);
      if (second) done = await secondKeyRefused(b, done, second.key);
      await otherUntouched(b, done, other);
      if (short) await readmit(b, done);
    },
    { concurrent: true },
  );
}

// ------------------------------------------------------------------ merchant buckets: two keys share one

for (const ep of ENDPOINTS.filter((e) => e.bucket === 'merchant')) {
  scenario(
    ['AUTH.ALLOWANCE.PER_MERCHANT', ep.bucketRule],
    `${ep.label}: two keys of one merchant draw on one bucket`,
    async (t) => {
      t.rateLimitScenario();
      const b = new Bench(t, ep);
      const second = await t.fixture((f) => f.secondKeySameMerchant());
      const target = await b.primary();
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const a1 = await b.send(target);
        const r1 = hdr(a1, REMAINING);
        const reset = hdr(a1, RESET);
        // Room for three requests, and time to send them in one window.
        if (a1.status === 429 || r1 === undefined || r1 < 2 || reset === undefined || reset < 2) {
          const wait = b.waitFor(a1);
          if (wait === undefined) return t.notJudged(`${ep.label}: the primary merchant's bucket is nearly used up by other traffic (remaining ${a1.responseHeaders[REMAINING]}, reset ${a1.responseHeaders[RESET]} s) and this profile does not wait that long`, 'target');
          await t.sleep(wait * 1000 + MARGIN_MS);
          continue;
        }
        const b1 = await b.send(target, second.key);
        const a2 = await b.send(target);
        const r2 = hdr(b1, REMAINING);
        const r3 = hdr(a2, REMAINING);
        const shared = r2 !== undefined && r3 !== undefined && r2 < r1 && r3 < r2;
        const message = `remaining went ${r1} (key A), ${r2} (key B), ${r3} (key A) within one window: the keys of merchant ${target.merchantId ?? ''} do not draw on one bucket`;
        t.checkRule('AUTH.ALLOWANCE.PER_MERCHANT', shared, message, b1);
        t.checkRule(ep.bucketRule, shared, message, b1);
        return;
      }
      t.notJudged(`${ep.label}: no window of the primary merchant with room for three requests in ${ATTEMPTS} tries`, 'target');
    },
    { concurrent: true },
  );
}

// ------------------------------------------------------------------ one bucket per endpoint

scenario(
  ['RATE.BUCKET.PER_ENDPOINT'],
  'each listed endpoint has its own bucket: using one up leaves the others of the same merchant or subscription as they were',
  async (t) => {
    t.rateLimitScenario();
    const groups = (['merchant', 'subscription'] as const).map((kind) => ENDPOINTS.filter((e) => e.bucket === kind).sort((a, b) => a.limit - b.limit));
    await Promise.all(groups.filter((g) => g.length > 1).map(async ([victim, ...others]) => {
      const bv = new Bench(t, victim);
      const target = await bv.fresh();
      const benches = others.map((ep) => new Bench(t, ep));
      const targets = await Promise.all(benches.map((bb) => (target.subscriptionId ? bb.forSubscription(target.subscriptionId, target.alone) : bb.forMerchant(target.key, target.merchantId, target.alone))));
      const before = await Promise.all(benches.map((bb, i) => bb.send(targets[i])));
      const done = await exhaust(bv, { first: target, next: async () => target });
      if (!done) return;
      const after = await Promise.all(benches.map((bb, i) => bb.send(targets[i])));
      after.forEach((ex, i) => {
        if (before[i].status === 429) {
          t.ruleNotJudged('RATE.BUCKET.PER_ENDPOINT', `${others[i].label} on ${target.label} was already used up before ${victim.label} was: not compared`, 'target');
          return;
        }
        const was = hdr(before[i], REMAINING);
        const now = hdr(ex, REMAINING);
        t.checkRule(
          'RATE.BUCKET.PER_ENDPOINT',
          ex.status !== 429 && (was === undefined || now === undefined || now >= was - 1),
          `with ${victim.label} used up on ${target.label}, ${others[i].label} went from remaining ${was} to ${now} (${statusOf(ex)}) on one request`,
          ex,
        );
      });
    }));
  },
  { concurrent: true },
);

// ------------------------------------------------------------------ failed authentication, unlisted endpoints, dashboard

scenario(
  ['RATE.FAILED_AUTH.NO_HEADERS'],
  'requests failing authentication on the listed endpoints carry no rate headers',
  async (t) => {
    const revoked = await t.fixture((f) => f.revokedKey());
    const subscription = ENDPOINTS.some((e) => e.bucket === 'subscription') ? (await t.fixture((f) => f.subscription())).subscriptionId : undefined;
    const keys: Array<[string, ScenarioRequestOptions]> = [
      ['no Authorization', { key: null }],
      ['a malformed Authorization', { headers: { authorization: 'Bearer conform not-a-key' } }],
      ['a revoked key', { key: revoked }],
    ];
    const sent = await Promise.all(ENDPOINTS.flatMap((ep) => keys.map(async ([, opts]) => {
      const b = new Bench(t, ep);
      const target = ep.bucket === 'subscription' ? await b.forSubscription(subscription!, false) : await b.primary();
      return b.send(target, undefined, { ...opts, unauthenticated: true });
    })));
    sent.forEach((ex, i) => {
      const [what] = keys[i % keys.length];
      t.expectStatus('RATE.FAILED_AUTH.NO_HEADERS', ex, 401);
      const present = [LIMIT, REMAINING, RESET, 'retry-after'].filter((h) => ex.responseHeaders[h] !== undefined);
      t.checkRule('RATE.FAILED_AUTH.NO_HEADERS', present.length === 0, `${what}: the 401 carries ${present.join(', ')}`, ex);
    });
  },
  { concurrent: true },
);

// RATE.UNLISTED.NOT_JUDGED and RATE.DASHBOARD.EXEMPT (restraint) and RETRY.CLIENT.* (client) are
// rules about the tool itself: the project's own tests judge them, never a run against a target.
