/**
 * The rate-limit harness (src/engine/ratelimit) on a fake clock, against in-memory limiters:
 * conforming ones (fixed windows at and far above the published limits, a sliding window,
 * a token bucket, windows that roll over mid-burst) are never failed, and defective ones are,
 * on the rule they break. As in a scenario, every exchange also goes through the registry's
 * rate-exceeded judge (RATE.EXCEEDED.STATUS is its, not the harness's).
 */
import { describe, expect, test } from 'vitest';
import {
  BucketDriver,
  claimBucket,
  exhaust,
  keysShareBucket,
  otherBefore,
  otherUntouched,
  rateHeaders,
  rateLimitedEndpoints,
  rateLimitKeys,
  readmit,
  secondKeyRefused,
  stillRefused,
  windowSurelyLastsUntil,
  REQUEST_BUDGET,
  type Clock,
  type LimitScenario,
  type RateLimitedEndpoint,
} from '../../src/engine/ratelimit/index.ts';
import {
  fixedWindow,
  headerSeconds,
  slidingWindow,
  tokenBucket,
  type LimiterModel,
} from '../../src/faults/catalog/limiters.ts';
import type { Exchange } from '../../src/engine/types.ts';
import { loadRules, loadSpec } from '../../src/contract/index.ts';
import type { Fixtures } from '../../src/engine/fixtures/methods.ts';
import { checkContextFor } from '../../src/engine/checks/index.ts';
import { CheckStream } from '../../src/engine/checks/stream.ts';
import { rateExceeded } from '../../src/engine/checks/rate-exceeded.ts';

const contract = { spec: await loadSpec(), rules: await loadRules() };

const CUSTOMERS: RateLimitedEndpoint = {
  operationId: 'listCustomers',
  limitRule: 'RATE.CUSTOMERS_LIST.LIMIT',
  bucketRule: 'RATE.CUSTOMERS_LIST.BUCKET',
  keys: rateLimitKeys('RATE.CUSTOMERS_LIST.LIMIT', 'RATE.CUSTOMERS_LIST.BUCKET', 'merchant'),
  method: 'GET',
  pathTemplate: '/v0/customers',
  limit: 60,
  windowSeconds: 6,
  bucket: 'merchant',
  label: 'GET /v0/customers',
};
const PORTAL: RateLimitedEndpoint = {
  operationId: 'createPortalSession',
  limitRule: 'RATE.PORTAL.LIMIT',
  bucketRule: 'RATE.PORTAL.BUCKET',
  keys: rateLimitKeys('RATE.PORTAL.LIMIT', 'RATE.PORTAL.BUCKET', 'subscription'),
  method: 'POST',
  pathTemplate: '/v0/subscriptions/{id}/portal',
  limit: 1,
  windowSeconds: 1,
  bucket: 'subscription',
  label: 'POST /v0/subscriptions/{id}/portal',
};

class FakeClock implements Clock {
  t = 1_000_000;
  now = () => this.t;
  sleep = async (ms: number) => {
    this.t += Math.max(0, ms);
  };
}

interface Limiter {
  model: LimiterModel<any>;
  /** Times the published limit (default 1). */
  factor?: number;
  /** Milliseconds each request takes, half before the limiter counts it (default 2). */
  latencyMs?: number;
  /** Defects. */
  admitsAll?: boolean;
  enforce?: (limit: number) => number;
  stuckRemaining?: boolean;
  neverResets?: boolean;
  /** Buckets per key instead of per merchant. */
  perKey?: boolean;
  /** x-ratelimit-reset written with three decimals instead of whole seconds rounded up. */
  fineReset?: boolean;
  /** One bucket for every merchant and subscription. */
  global?: boolean;
}

const MERCHANT_OF: Record<string, string> = { primary: 'org_a', second: 'org_a' };
/** Fixture ids are unique in the worker, as the harness expects of fresh ones. */
let ids = 0;

/** A target behind one limiter: every request is answered from the fake clock. */
function fakeTarget(ep: RateLimitedEndpoint, lim: Limiter, clock: FakeClock) {
  const buckets = new Map<string, { state: unknown; spent: boolean }>();
  const limit = Math.round(ep.limit * (lim.factor ?? 1));
  const windowMs = ep.windowSeconds * 1000;
  const secs = (ms: number) => (lim.fineReset ? (Math.max(ms, 1) / 1000).toFixed(3) : String(headerSeconds(ms)));
  let sent = 0;
  return {
    get sent() {
      return sent;
    },
    async request(method: string, path: string, opts: { key?: string | null } = {}): Promise<Exchange> {
      sent += 1;
      const latency = lim.latencyMs ?? 2;
      const startedAt = new Date(clock.now()).toISOString();
      await clock.sleep(latency / 2);
      const key = opts.key ?? 'primary';
      const who = lim.perKey ? key : (MERCHANT_OF[key] ?? key);
      const id = `${lim.global ? 'everyone' : ep.bucket === 'subscription' ? path : who}|${lim.perKey ? key : ''}|${ep.operationId}`;
      const b = buckets.get(id) ?? { state: undefined, spent: false };
      buckets.set(id, b);
      const enforced = lim.enforce ? lim.enforce(limit) : limit;
      const d =
        lim.neverResets && b.spent
          ? { admitted: false, remaining: 0, resetMs: windowMs, retryAfterMs: windowMs, state: b.state }
          : lim.model.hit(b.state, clock.now(), enforced, windowMs);
      b.state = d.state;
      if (!d.admitted) b.spent = true;
      const admitted = lim.admitsAll || d.admitted;
      const remaining = lim.stuckRemaining && admitted ? limit - 1 : Math.max(0, d.remaining + (limit - enforced));
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(admitted ? remaining : 0),
        'x-ratelimit-reset': secs(d.resetMs),
      };
      if (!admitted) headers['retry-after'] = secs(d.retryAfterMs);
      await clock.sleep(latency / 2);
      const body = admitted
        ? { object: 'list', data: [] }
        : { error: 'rate_limit_exceeded', message: `Too many requests to ${ep.label}` };
      return {
        method,
        path,
        url: `http://fake${path}`,
        requestHeaders: {},
        status: admitted ? 200 : 429,
        responseHeaders: headers,
        body,
        rawBody: JSON.stringify(body),
        durationMs: latency,
        startedAt,
      };
    },
  };
}

class Failed extends Error {}
class NotMet extends Error {}

/**
 * A scenario context recording judgements; expectRule throws on a failure as the real one does.
 * Its requests go to `send` (a test may replace it), and each answer through the registry's
 * rate-exceeded judge, whose judgements are recorded alike.
 */
function fakeScenario(
  target: ReturnType<typeof fakeTarget>,
  profile: 'quick' | 'full' = 'quick',
  reused: string[] = [],
) {
  const judged: Array<{ rule: string; ok: boolean; message: string }> = [];
  const stream = new CheckStream([rateExceeded]);
  const fake = {
    send: (method: string, path: string, opts?: { key?: string | null }) => target.request(method, path, opts),
  };
  const notJudged: Array<{ rules: string[]; reason: string; category?: string }> = [];
  const notes: string[] = [];
  const fixtures = {
    subscriptions: async (n: number) => Array.from({ length: n }, () => `sub_${++ids}`),
    otherMerchantKey: async () => {
      // Keys of an earlier run (a pre-seeded file) first, then fresh merchants.
      const key = reused.shift() ?? `other${++ids}`;
      MERCHANT_OF[key] = `org_${key}`;
      return { key, merchantId: MERCHANT_OF[key] };
    },
    merchant: async () => ({ merchantId: 'org_a' }),
    secondKeySameMerchant: async () => ({ key: 'second', merchantId: 'org_a' }),
  } as unknown as Fixtures;
  const judge = (rule: string, ok: unknown, message: string) => {
    judged.push({ rule, ok: !!ok, message });
    return !!ok;
  };
  const t: LimitScenario = {
    http: {
      async request(method, path, opts = {}) {
        const ex = await fake.send(method, path, opts);
        const unauthenticated = !!opts.unauthenticated || opts.key === null;
        const credential = unauthenticated ? undefined : (opts.key ?? 'primary');
        const outcome = stream.observe({
          exchange: ex,
          ctx: checkContextFor(contract, ex, { unauthenticated }),
          ...(credential === undefined ? {} : { credential }),
        });
        for (const rule of outcome.judged) {
          const broke = outcome.findings.filter((f) => f.ruleIds.includes(rule));
          if (!broke.length) judge(rule, true, 'held');
          for (const f of broke) judge(rule, false, f.message);
        }
        expect(outcome.errors).toEqual([]);
        return ex;
      },
    },
    target: { profile },
    fixture: (fn) => fn(fixtures),
    expectRule(rule, ok, message) {
      if (!judge(rule, ok, message)) throw new Failed(`${rule}: ${message}`);
    },
    softExpectRule: (rule, ok, message) => judge(rule, ok, message),
    precondition(ok: unknown, what: string): asserts ok {
      if (!ok) throw new NotMet(what);
    },
    ruleNotJudged: (rules, reason, category) => void notJudged.push({ rules: [rules].flat(), reason, category }),
    note: (m) => void notes.push(m),
    rateLimitScenario: () => undefined,
  };
  return {
    t,
    fake,
    judged,
    notJudged,
    notes,
    failed: () => judged.filter((j) => !j.ok).map((j) => `${j.rule}: ${j.message}`),
    passed: (rule: string) => judged.some((j) => j.rule === rule && j.ok),
  };
}

/** The per-endpoint scenario of the suite: use a bucket up, then every follow-up. */
async function scenario(ep: RateLimitedEndpoint, lim: Limiter) {
  const clock = new FakeClock();
  const target = fakeTarget(ep, lim, clock);
  const s = fakeScenario(target);
  const d = new BucketDriver(s.t, ep, clock);
  let reason: string | undefined;
  try {
    const [first, other] = [await d.fresh(), await d.fresh()];
    const before = await otherBefore(d, first, other);
    const done = await exhaust(d, { first });
    if (!done.exhausted) reason = done.reason;
    else {
      await stillRefused(d, done);
      const after = ep.bucket === 'subscription' ? await secondKeyRefused(d, done, 'second') : done;
      await otherUntouched(d, after, before);
      await readmit(d, after);
    }
  } catch (err) {
    if (!(err instanceof Failed)) throw err;
  }
  return { ...s, reason, sent: target.sent };
}

describe('conforming limiters are never failed', () => {
  test('fixed windows at the published limits: every rule judged and passed', async () => {
    const outcomes = [];
    for (const ep of [CUSTOMERS, PORTAL]) {
      const r = await scenario(ep, { model: fixedWindow });
      outcomes.push(r);
      expect(r.failed(), ep.label).toEqual([]);
      expect(r.reason).toBeUndefined();
      const { admitsLimit, otherBucket } = ep.keys;
      for (const rule of [admitsLimit, otherBucket, 'RATE.WINDOW.READMITS'])
        expect(r.passed(rule), `${ep.label} ${rule}`).toBe(true);
    }
    // A request is surely above the limit within a 6 s window; on a 1 s window whose reset is written in whole
    // seconds ("1" may mean a few ms) none is, so its 429 judges nothing: never passed on a 429 alone.
    const [customers, portal] = outcomes;
    expect(customers.passed('RATE.EXCEEDED.STATUS')).toBe(true);
    expect(portal.judged.filter((j) => j.rule === 'RATE.EXCEEDED.STATUS')).toEqual([]);
    expect((await scenario(PORTAL, { model: fixedWindow, fineReset: true })).passed('RATE.EXCEEDED.STATUS')).toBe(true);
    expect((await scenario(CUSTOMERS, { model: fixedWindow })).passed('RATE.REMAINING.DECREMENTS')).toBe(true);
  });

  test('limits ten times the published ones: used up and judged; a hundred times: not judged, with the budget as the reason, never passed', async () => {
    const x10 = await scenario(CUSTOMERS, { model: fixedWindow, factor: 10 });
    expect(x10.failed()).toEqual([]);
    expect(x10.passed('RATE.EXCEEDED.STATUS')).toBe(true);
    const x100 = await scenario(CUSTOMERS, { model: fixedWindow, factor: 100 });
    expect(x100.failed()).toEqual([]);
    expect(x100.passed('RATE.EXCEEDED.STATUS')).toBe(false);
    expect(x100.reason).toContain(
      `x-ratelimit-remaining is 5999, so using the bucket up takes more than the ${REQUEST_BUDGET} requests`,
    );
    // The published limit still is: no 429 within it.
    expect(x100.passed(CUSTOMERS.keys.admitsLimit)).toBe(true);
    expect(x100.sent).toBeLessThan(REQUEST_BUDGET);
  });

  test('a window that rolls over mid-burst (a slow target, a hundred times the limit of a 1 s window) is never read as a violation', async () => {
    for (const model of [fixedWindow, slidingWindow, tokenBucket]) {
      const r = await scenario(PORTAL, { model, factor: 100, latencyMs: 30 });
      expect(r.failed(), model.name).toEqual([]);
      if (!r.passed('RATE.EXCEEDED.STATUS')) expect(r.reason, model.name).toMatch(/cannot be told apart/);
    }
  });

  test('a slow target (700 ms a request) on a 1 s window: the follow-ups that land in the next window are never failed, the reset is waited out past them', async () => {
    for (const model of [fixedWindow, slidingWindow, tokenBucket]) {
      const r = await scenario(PORTAL, { model, latencyMs: 700 });
      expect(r.failed(), model.name).toEqual([]);
    }
  });

  test('a sliding window and a token bucket, at the published limits and ten times them', async () => {
    for (const model of [slidingWindow, tokenBucket]) {
      for (const ep of [CUSTOMERS, PORTAL]) {
        for (const factor of [1, 10]) {
          for (const fineReset of [false, true]) {
            const r = await scenario(ep, { model, factor, fineReset });
            expect(r.failed(), `${model.name} ${ep.label} x${factor} fine reset ${fineReset}`).toEqual([]);
          }
        }
      }
    }
    // The sliding window refuses as a fixed window does: judged.
    expect((await scenario(CUSTOMERS, { model: slidingWindow })).passed('RATE.EXCEEDED.STATUS')).toBe(true);
  });

  test('a token bucket found nearly empty, on a target slower than its refill: remaining stays put or rises between answers, never failed', async () => {
    // 30 per 60 s gives a token back every 2 s; nearly empty, its reset (until full) is most of a minute away.
    const crm: RateLimitedEndpoint = { ...CUSTOMERS, limit: 30, windowSeconds: 60 };
    for (const latencyMs of [1000, 2500, 4500]) {
      const clock = new FakeClock();
      const lim: Limiter = { model: tokenBucket };
      const s = fakeScenario(fakeTarget(crm, lim, clock));
      const d = new BucketDriver(s.t, crm, clock);
      const first = await d.fresh();
      for (let i = 0; i < 27; i++) await d.send(first);
      lim.latencyMs = latencyMs;
      await exhaust(d, { first }).catch((err) => {
        if (!(err instanceof Failed)) throw err;
      });
      expect(s.failed(), `latency ${latencyMs} ms`).toEqual([]);
    }
  });
});

describe('another bucket used by an earlier run', () => {
  const CRM: RateLimitedEndpoint = {
    operationId: 'listCrmAccounts',
    limitRule: 'RATE.CRM_ACCOUNTS.LIMIT',
    bucketRule: 'RATE.CRM_ACCOUNTS.BUCKET',
    keys: rateLimitKeys('RATE.CRM_ACCOUNTS.LIMIT', 'RATE.CRM_ACCOUNTS.BUCKET', 'merchant'),
    method: 'GET',
    pathTemplate: '/v0/integrations/salesforce/accounts',
    limit: 30,
    windowSeconds: 60,
    bucket: 'merchant',
    label: 'GET /v0/integrations/{crmProvider}/accounts',
  };

  /**
   * The per-endpoint scenario where some merchants the fixtures hand out were used up moments
   * ago (a second run on one fixtures file): the one used up first, or the one compared with.
   */
  async function rerun(usedUp: number, which: 'first' | 'other', factor = 1) {
    const clock = new FakeClock();
    const target = fakeTarget(CRM, { model: fixedWindow, factor }, clock);
    const stale = Array.from({ length: usedUp }, () => `stale${++ids}`);
    for (const key of stale) {
      MERCHANT_OF[key] = `org_${key}`;
      for (let i = 0; i <= CRM.limit * factor; i++) await target.request('GET', CRM.pathTemplate, { key });
    }
    const fresh = `fresh${++ids}`;
    MERCHANT_OF[fresh] = `org_${fresh}`;
    const s = fakeScenario(target, 'quick', which === 'first' ? [...stale] : [fresh, ...stale]);
    const d = new BucketDriver(s.t, CRM, clock);
    const [first, other] = [await d.fresh(), await d.fresh()];
    const before = await otherBefore(d, first, other);
    const done = await exhaust(d, { first });
    if (!done.exhausted) throw new Error(done.reason);
    await otherUntouched(d, done, before);
    return s;
  }

  test('the bucket compared with was used up: never held against the target; another fresh merchant is compared instead, and judged', async () => {
    const s = await rerun(1, 'other');
    expect(s.failed()).toEqual([]);
    expect(s.passed(CRM.keys.otherBucket)).toBe(true);
    expect(s.notes.join('\n')).toMatch(/had no request left .* earlier traffic within its window/);
  });

  test('every merchant tried for the comparison was used up: not judged, with the reason, never failed', async () => {
    const s = await rerun(5, 'other');
    expect(s.failed()).toEqual([]);
    expect(s.passed(CRM.keys.otherBucket)).toBe(false);
    expect(s.notJudged).toEqual([
      expect.objectContaining({
        rules: [CRM.keys.otherBucket],
        category: 'target',
        reason: expect.stringMatching(/had no request left before .* its 429 is not attributable/),
      }),
    ]);
  });

  test('the bucket to use up was used up: a fresh one is used up instead, so the published limit is judged', async () => {
    const s = await rerun(1, 'first');
    expect(s.failed()).toEqual([]);
    expect(s.notes.join('\n')).toMatch(
      /bucket found used up \(earlier traffic within its window\); trying a fresh one/,
    );
    expect(s.judged.filter((j) => j.rule === CRM.keys.admitsLimit && j.message.startsWith('429 after only'))).toEqual([
      expect.objectContaining({ ok: true }),
    ]);
    expect(s.passed(CRM.keys.otherBucket)).toBe(true);
  });

  test('every bucket tried was used up: its 429 is judged, whether a fresh window admits the limit is not, and the limit header is left to its check', async () => {
    const ok = await rerun(5, 'first');
    expect(ok.failed()).toEqual([]);
    expect(ok.judged.filter((j) => j.rule === CRM.keys.admitsLimit)).toEqual([]);
    // The limit the header shows is RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED's, judged by the rate-headers check alone.
    const low = await rerun(5, 'first', 0.5);
    expect(low.failed()).toEqual([]);
    expect(low.judged.map((j) => j.rule)).not.toContain('RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED');
  });
});

describe('defective limiters fail the rule they break', () => {
  test('one bucket for every merchant: the BUCKET rule, on the per-merchant and the per-subscription endpoint alike', async () => {
    for (const ep of [CUSTOMERS, PORTAL]) {
      const r = await scenario(ep, { model: fixedWindow, global: true });
      expect(
        r.failed().filter((f) => f.startsWith(ep.keys.otherBucket)),
        ep.label,
      ).toEqual([
        expect.stringMatching(/got 429 \(it had \d+ request\(s\) left before, and only this scenario sends on it\)/),
      ]);
    }
  });

  test('no 429 past the limit: RATE.EXCEEDED.STATUS', async () => {
    const r = await scenario(CUSTOMERS, { model: fixedWindow, admitsAll: true });
    expect(r.failed()).toEqual([
      expect.stringMatching(
        /^RATE\.EXCEEDED\.STATUS: GET \/v0\/customers → 200: admission 61 with one API key on \/v0\/customers within one window whose x-ratelimit-limit is 60: the window the answer at .* was counted in \(x-ratelimit-reset 6\) surely lasted/,
      ),
    ]);
    // The bucket was never used up: what follows from a used-up one is not judged, and says why.
    expect(r.reason).toMatch(
      /^GET \/v0\/customers: 61 requests on merchant org_other\d+ were answered without a 429 within one window whose x-ratelimit-limit is 60: the bucket was never used up/,
    );
  });

  test('a 429 before the limit: the LIMIT rule', async () => {
    const r = await scenario(CUSTOMERS, { model: fixedWindow, enforce: (l) => l - 5 });
    expect(r.failed()).toEqual([expect.stringMatching(/^RATE\.CUSTOMERS_LIST\.LIMIT: 429 after only 55 requests/)]);
  });

  test('a remaining that does not count: RATE.REMAINING.DECREMENTS', async () => {
    const r = await scenario(CUSTOMERS, { model: fixedWindow, stuckRemaining: true });
    // One pair of answers cannot tell it from a token bucket refilling; the whole count can.
    expect(r.failed()[0]).toMatch(
      /^RATE\.REMAINING\.DECREMENTS: GET \/v0\/customers: remaining fell by 0 \(from 59 to 59\) over 59 more requests/,
    );
  });

  test('a window that never reopens: RATE.WINDOW.READMITS', async () => {
    const r = await scenario(PORTAL, { model: fixedWindow, neverResets: true });
    expect(r.failed()).toEqual([
      expect.stringMatching(/^RATE\.WINDOW\.READMITS: POST \/v0\/subscriptions\/\{id\}\/portal: still 429/),
    ]);
  });

  test('an admission right after a 429, within the window the 429 gave: RATE.EXCEEDED.STATUS; the same admission once the window may have reset: not judged', async () => {
    // Fine-grained reset: a second request 2 ms after the 429 is surely within its window.
    const clock = new FakeClock();
    const target = fakeTarget(CUSTOMERS, { model: fixedWindow, fineReset: true }, clock);
    const s = fakeScenario(target);
    const d = new BucketDriver(s.t, CUSTOMERS, clock);
    const done = await exhaust(d);
    if (!done.exhausted) throw new Error(done.reason);
    expect(s.passed('RATE.EXCEEDED.STATUS')).toBe(true);
    s.fake.send = async (...args) => ({ ...(await target.request(...args)), status: 200 });
    await stillRefused(d, done);
    expect(s.failed()).toEqual([
      expect.stringMatching(
        /^RATE\.EXCEEDED\.STATUS: GET \/v0\/customers → 200: admission 61 with one API key on \/v0\/customers within one window/,
      ),
    ]);
    // Whole-second resets rounded up on a 1 s window: neither the window nor the 429's wait surely remains.
    const coarseClock = new FakeClock();
    const coarseTarget = fakeTarget(PORTAL, { model: fixedWindow }, coarseClock);
    const coarse = fakeScenario(coarseTarget);
    const d2 = new BucketDriver(coarse.t, PORTAL, coarseClock);
    const used = await exhaust(d2);
    if (!used.exhausted) throw new Error(used.reason);
    coarse.fake.send = async (...args) => ({ ...(await coarseTarget.request(...args)), status: 200 });
    await stillRefused(d2, used);
    expect(coarse.failed()).toEqual([]);
    expect(coarse.judged.filter((j) => j.rule === 'RATE.EXCEEDED.STATUS')).toEqual([]);
    expect(coarse.notes.join('\n')).toMatch(
      /admitted \(200\) when the window of the 429 may have reset already; not held/,
    );
  });

  test('buckets per key: a second key is admitted on a used-up subscription, and keys of one merchant do not share', async () => {
    const r = await scenario(PORTAL, { model: fixedWindow, perKey: true, fineReset: true });
    // The subscription's bucket admitted a second request within its window: above its limit too.
    expect(r.failed()).toEqual([
      expect.stringMatching(/^RATE\.EXCEEDED\.STATUS: .*admission 2 on subscription sub_\d+ within one window/),
      expect.stringMatching(/^AUTH\.ALLOWANCE\.PER_MERCHANT: .*another key of the same merchant was admitted/),
    ]);
    const clock = new FakeClock();
    const s = fakeScenario(fakeTarget(CUSTOMERS, { model: fixedWindow, perKey: true }, clock));
    const d = new BucketDriver(s.t, CUSTOMERS, clock);
    expect(
      await keysShareBucket(d, await d.primary(), 'second', ['AUTH.ALLOWANCE.PER_MERCHANT', CUSTOMERS.keys.keysShare!]),
    ).toBeUndefined();
    expect(s.failed().map((f) => f.split(':')[0])).toEqual([
      'AUTH.ALLOWANCE.PER_MERCHANT',
      'RATE.CUSTOMERS_LIST.BUCKET#keys-share',
    ]);
  });

  test('keys sharing a bucket pass, whatever the limiter: a nearly full token bucket is spent into a longer window, its refill taken off', async () => {
    for (const model of [fixedWindow, slidingWindow, tokenBucket]) {
      const clock = new FakeClock();
      const s = fakeScenario(fakeTarget(CUSTOMERS, { model }, clock));
      const d = new BucketDriver(s.t, CUSTOMERS, clock);
      expect(
        await keysShareBucket(d, await d.primary(), 'second', ['AUTH.ALLOWANCE.PER_MERCHANT']),
        model.name,
      ).toBeUndefined();
      expect(s.judged, model.name).toEqual([
        expect.objectContaining({ rule: 'AUTH.ALLOWANCE.PER_MERCHANT', ok: true }),
      ]);
    }
  });

  test('keys with buckets of their own fail, whatever the limiter, a token bucket refilling between the requests included', async () => {
    for (const model of [fixedWindow, slidingWindow, tokenBucket])
      for (const latencyMs of [2, 40]) {
        const clock = new FakeClock();
        const s = fakeScenario(fakeTarget(CUSTOMERS, { model, perKey: true, latencyMs }, clock));
        const d = new BucketDriver(s.t, CUSTOMERS, clock);
        expect(await keysShareBucket(d, await d.primary(), 'second', ['AUTH.ALLOWANCE.PER_MERCHANT'])).toBeUndefined();
        expect(s.failed(), `${model.name}, ${latencyMs} ms`).toEqual([
          expect.stringMatching(
            /^AUTH\.ALLOWANCE\.PER_MERCHANT: remaining went \d+ \(key A\), then \d+ requests of key B/,
          ),
        ]);
      }
  });

  test('a slow token bucket target (refilling almost half a token per request) is still judged, sharing its bucket: passed', async () => {
    const clock = new FakeClock();
    const s = fakeScenario(fakeTarget(CUSTOMERS, { model: tokenBucket, latencyMs: 40 }, clock));
    const d = new BucketDriver(s.t, CUSTOMERS, clock);
    expect(await keysShareBucket(d, await d.primary(), 'second', ['AUTH.ALLOWANCE.PER_MERCHANT'])).toBeUndefined();
    expect(s.judged).toEqual([expect.objectContaining({ rule: 'AUTH.ALLOWANCE.PER_MERCHANT', ok: true })]);
  });
});

/** The target, except that `key` does not authenticate (401, no rate headers). */
function refusing(target: ReturnType<typeof fakeTarget>, key: string): ReturnType<typeof fakeTarget> {
  return {
    get sent() {
      return target.sent;
    },
    async request(method: string, path: string, opts: { key?: string | null } = {}): Promise<Exchange> {
      const ex = await target.request(method, path, opts);
      if (opts.key !== key) return ex;
      const body = { error: 'unauthorized', message: 'Invalid API key' };
      return { ...ex, status: 401, responseHeaders: { 'content-type': 'application/json' }, body };
    },
  };
}

describe('what is judged part by part, and what is not judged', () => {
  test('a bucket shared with other traffic (the primary merchant): whether a fresh window admits the limit not judged, with the reason', async () => {
    const clock = new FakeClock();
    const s = fakeScenario(fakeTarget(CUSTOMERS, { model: fixedWindow }, clock));
    const d = new BucketDriver(s.t, CUSTOMERS, clock);
    const primary = await d.primary();
    const done = await exhaust(d, { first: primary, next: async () => primary });
    expect(done.exhausted).toBe(true);
    expect(s.failed()).toEqual([]);
    expect(s.judged.filter((j) => j.rule === CUSTOMERS.keys.admitsLimit)).toEqual([]);
    expect(s.notJudged).toContainEqual(
      expect.objectContaining({
        rules: [CUSTOMERS.keys.admitsLimit],
        category: 'target',
        reason: expect.stringMatching(/shared with other traffic .* whether a fresh window admits 60 requests/),
      }),
    );
  });

  test('a fresh merchant whose key gets 401: a precondition, nothing judged (no missing rate header blamed)', async () => {
    const clock = new FakeClock();
    const s = fakeScenario(refusing(fakeTarget(CUSTOMERS, { model: fixedWindow }, clock), `other${ids + 1}`));
    const d = new BucketDriver(s.t, CUSTOMERS, clock);
    await expect(exhaust(d)).rejects.toThrow(/authenticates on GET \/v0\/customers/);
    expect(s.judged).toEqual([]);
  });

  test("a second key of the merchant, or the other merchant's key, that gets 401: the allowance and the other bucket not judged (credential), never failed", async () => {
    const clock = new FakeClock();
    const s = fakeScenario(refusing(fakeTarget(PORTAL, { model: fixedWindow }, clock), 'second'));
    const d = new BucketDriver(s.t, PORTAL, clock);
    const done = await exhaust(d);
    if (!done.exhausted) throw new Error(done.reason);
    await secondKeyRefused(d, done, 'second');
    expect(s.failed()).toEqual([]);
    expect(s.judged.filter((j) => j.rule === 'AUTH.ALLOWANCE.PER_MERCHANT')).toEqual([]);
    expect(s.notJudged).toContainEqual(
      expect.objectContaining({ rules: ['AUTH.ALLOWANCE.PER_MERCHANT'], category: 'credential' }),
    );

    const c = fakeScenario(fakeTarget(CUSTOMERS, { model: fixedWindow }, clock));
    const dc = new BucketDriver(c.t, CUSTOMERS, clock);
    const [first, other] = [await dc.fresh(), await dc.fresh()];
    const before = await otherBefore(dc, first, other);
    const used = await exhaust(dc, { first });
    if (!used.exhausted) throw new Error(used.reason);
    c.fake.send = refusing(fakeTarget(CUSTOMERS, { model: fixedWindow }, clock), other.key!).request;
    await otherUntouched(dc, used, before);
    expect(c.failed()).toEqual([]);
    expect(c.judged.filter((j) => j.rule === CUSTOMERS.keys.otherBucket)).toEqual([]);
    expect(c.notJudged).toContainEqual(
      expect.objectContaining({ rules: [CUSTOMERS.keys.otherBucket], category: 'credential' }),
    );
  });

  test("a merchant's bucket is claimed per endpoint: fresh for another endpoint, not for the same one, nor once a scenario sends on all", () => {
    const org = `org:claims${++ids}`;
    expect(claimBucket(org, 'listCustomers')).toBe(true);
    expect(claimBucket(org, 'getCostsReport')).toBe(true);
    expect(claimBucket(org, 'listCustomers')).toBe(false);
    expect(claimBucket(org, '*')).toBe(false);
    const whole = `org:claims${++ids}`;
    expect(claimBucket(whole, '*')).toBe(true);
    expect(claimBucket(whole, 'listCustomers')).toBe(false);
  });

  test('the part keys come from one place, and spec/rules.yaml must list exactly those parts', async () => {
    // A LIMIT rule makes one condition (a fresh window admits the limit): judged under its bare id.
    expect(CUSTOMERS.keys).toEqual({
      admitsLimit: 'RATE.CUSTOMERS_LIST.LIMIT',
      otherBucket: 'RATE.CUSTOMERS_LIST.BUCKET#other-merchant-unaffected',
      keysShare: 'RATE.CUSTOMERS_LIST.BUCKET#keys-share',
    });
    // A subscription bucket's rule makes one condition: judged under its bare id.
    expect(PORTAL.keys).toEqual({
      admitsLimit: 'RATE.PORTAL.LIMIT',
      otherBucket: 'RATE.PORTAL.BUCKET',
    });
    const spec = await loadSpec();
    const real = await rateLimitedEndpoints(spec);
    expect(real.find((e) => e.operationId === 'listCustomers')?.keys).toEqual(CUSTOMERS.keys);
    const { rules } = await spec.rules();
    const drifted = rules.map((r) =>
      r.id === 'RATE.PORTAL.LIMIT' ? { ...r, parts: [{ id: 'other', statement: 'x' }] } : r,
    );
    await expect(
      rateLimitedEndpoints({ ...spec, operations: spec.operations, rules: async () => ({ rules: drifted }) } as never),
    ).rejects.toThrow(/RATE\.PORTAL\.LIMIT lists parts \[other\]/);
  });
});

test('keys not compared: the reason names what the answer lacks, or how the bucket stood, never a guess', async () => {
  const COSTS: RateLimitedEndpoint = {
    ...CUSTOMERS,
    operationId: 'getCostsReport',
    pathTemplate: '/v0/costs/report',
    limit: 600,
    windowSeconds: 60,
    label: 'GET /v0/costs/report',
  };
  const why = async (ep: RateLimitedEndpoint, edit: (h: Record<string, string>) => void) => {
    const clock = new FakeClock();
    const target = fakeTarget(ep, { model: fixedWindow }, clock);
    const s = fakeScenario({
      ...target,
      request: async (...args: Parameters<typeof target.request>) => {
        const ex = await target.request(...args);
        edit(ex.responseHeaders);
        return ex;
      },
    });
    const d = new BucketDriver(s.t, ep, clock);
    return keysShareBucket(d, await d.primary(), 'second', ['AUTH.ALLOWANCE.PER_MERCHANT']);
  };
  expect(await why(CUSTOMERS, (h) => delete h['x-ratelimit-remaining'])).toBe(
    "GET /v0/customers: x-ratelimit-remaining absent on the primary merchant's answer (200): nothing to count with",
  );
  expect(await why(COSTS, (h) => (h['x-ratelimit-remaining'] = 'lots'))).toMatch(
    /: x-ratelimit-remaining "lots" is not a number on the primary merchant's answer/,
  );
  expect(await why(COSTS, (h) => delete h['x-ratelimit-reset'])).toMatch(/: x-ratelimit-reset absent on the primary/);
  expect(await why(COSTS, (h) => (h['x-ratelimit-remaining'] = '1'))).toMatch(
    /^GET \/v0\/costs\/report: the primary merchant's bucket has too little room for \d+ requests \(remaining 1, reset \d+ s\) and this profile does not wait that long$/,
  );
});

describe('reading the waits', () => {
  const answer = (status: number, headers: Record<string, string>): Exchange => ({
    method: 'GET',
    path: '/v0/customers',
    url: 'http://fake/v0/customers',
    requestHeaders: {},
    status,
    responseHeaders: headers,
    rawBody: '',
    durationMs: 1,
    startedAt: new Date(0).toISOString(),
  });

  test('a wait keeps the precision it was written with; an HTTP-date retry-after counts from the date header, to the second', () => {
    expect(
      rateHeaders(answer(200, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '6' })),
    ).toEqual({ limit: 60, remaining: 7, reset: { seconds: 6, precision: 1 }, retryAfter: undefined });
    expect(
      rateHeaders(
        answer(429, {
          'x-ratelimit-reset': '0.25',
          'retry-after': 'Sun, 06 Nov 1994 08:49:40 GMT',
          date: 'Sun, 06 Nov 1994 08:49:37 GMT',
        }),
      ),
    ).toMatchObject({ reset: { seconds: 0.25, precision: 0.01 }, retryAfter: { seconds: 3, precision: 1 } });
    expect(rateHeaders(answer(200, { 'x-ratelimit-limit': 'many', 'x-ratelimit-remaining': '-1' }))).toMatchObject({
      limit: undefined,
      remaining: undefined,
    });
  });

  test('a window surely lasts its reset less one unit of precision from when the request was sent; a 429 by the shorter of reset and retry-after', () => {
    const sent = { sentAt: 10_000, receivedAt: 10_050 };
    expect(windowSurelyLastsUntil({ ...sent, ex: answer(200, { 'x-ratelimit-reset': '6' }) })).toBe(15_000);
    expect(windowSurelyLastsUntil({ ...sent, ex: answer(200, { 'x-ratelimit-reset': '1' }) })).toBe(10_000);
    expect(windowSurelyLastsUntil({ ...sent, ex: answer(200, { 'x-ratelimit-reset': '2.5' }) })).toBe(12_400);
    expect(windowSurelyLastsUntil({ ...sent, ex: answer(429, { 'x-ratelimit-reset': '6', 'retry-after': '3' }) })).toBe(
      12_000,
    );
    expect(windowSurelyLastsUntil({ ...sent, ex: answer(200, {}) })).toBeUndefined();
  });
});

describe('readmission after a whole-second reset', () => {
  /** When the readmitting request went out, in ms after the window's first request. */
  async function readmittedAfter(latencyMs: number) {
    const clock = new FakeClock();
    const target = fakeTarget(CUSTOMERS, { model: fixedWindow, latencyMs }, clock);
    const s = fakeScenario(target);
    const sent: Array<{ at: number; status?: number }> = [];
    const send = s.fake.send;
    s.fake.send = async (method, path, opts) => {
      const at = clock.now();
      const ex = await send(method, path, opts);
      sent.push({ at, status: ex.status });
      return ex;
    };
    const d = new BucketDriver(s.t, CUSTOMERS, clock);
    const done = await exhaust(d, { first: await d.fresh() });
    if (!done.exhausted) throw new Error(done.reason);
    await readmit(d, done);
    expect(s.failed()).toEqual([]);
    expect(s.passed('RATE.WINDOW.READMITS')).toBe(true);
    expect(sent.at(-1)?.status).toBe(200);
    return sent.at(-1)!.at - sent[0].at;
  }

  test('is waited from the 429 answered just after the reset drops, not up to a second late', async () => {
    // The first 429 comes a fraction of a second into the 6 s window: its rounded reset says 6 s.
    for (const latencyMs of [10, 25]) {
      const after = await readmittedAfter(latencyMs);
      expect(after, `latency ${latencyMs} ms`).toBeGreaterThanOrEqual(6000);
      expect(after, `latency ${latencyMs} ms`).toBeLessThan(6000 + 300);
    }
  });
});
