/**
 * Rate limits (interface document, Limits) on the six listed endpoints, with the published
 * limits read from the spec (x-rate-limit, spec/rules.yaml). The observed x-ratelimit-limit
 * (which may be higher) says how many requests use a bucket up.
 *
 * The measuring is the engine's (src/engine/ratelimit): which window an answer was counted
 * in, using a bucket up, and what is judged on a used-up bucket; a request past the limit
 * refused (RATE.EXCEEDED.STATUS) is judged by the check registry's rate-exceeded judge on the
 * requests the scenarios send, as in `conform proxy` and `conform judge`. A service may count with
 * fixed windows, a sliding window or a token bucket: an admission that a window reset may
 * explain is never held against it. What cannot be judged on a target (a bucket larger than
 * the request budget, windows the suite cannot tell apart) ends its scenario not judged,
 * with the reason.
 *
 * Re-runnable: buckets are used up on fresh merchants and fresh subscriptions where the
 * fixtures can make them, so other suites' buckets are left alone and a second run finds
 * fresh buckets; a bucket found partly used is waited out when its window is short, else
 * judged on what is left of it. Pre-seeded merchants and subscriptions come back run after
 * run: one an earlier run used up within its window is swapped for another, and the bucket
 * compared with is read before, so its 429 counts against the target only where it had room.
 */
import { scenario, type ScenarioRequestOptions } from '../src/engine/scenario/index.ts';
import { loadSpec } from '../src/contract/index.ts';
import {
  BucketDriver,
  QUICK_WAIT_MAX_S,
  exhaust,
  keysShareBucket,
  otherBefore,
  otherUnmoved,
  otherUntouched,
  rateHeaders,
  rateLimitedEndpoints,
  RESET,
  readmit,
  secondKeyRefused,
  statusOf,
  stillRefused,
  type RateLimitedEndpoint,
} from '../src/engine/ratelimit/index.ts';

const spec = await loadSpec();

// Scenarios start in this order (vitest runs a few at a time): the ones that wait out a window first.
const ENDPOINTS: RateLimitedEndpoint[] = (await rateLimitedEndpoints(spec)).sort(
  (a, b) =>
    Number(b.windowSeconds <= QUICK_WAIT_MAX_S) - Number(a.windowSeconds <= QUICK_WAIT_MAX_S) ||
    b.windowSeconds - a.windowSeconds ||
    a.limit - b.limit,
);

const COMMON = [
  'RATE.HEADERS.PRESENT',
  'RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED',
  'RATE.REMAINING.DECREMENTS',
  'RATE.REMAINING.HONOURED#allows-what-remains',
  'RATE.REMAINING.NON_NEGATIVE',
  'RATE.RESET.WITHIN_WINDOW',
  'RATE.EXCEEDED.STATUS',
  'RATE.EXCEEDED.BODY#error-body',
  'RATE.RETRY_AFTER.ON_429',
];

// ------------------------------------------------------------------ full profile: per-minute windows reset
// First in the file: they wait longest, and vitest starts a few scenarios at a time in file order.

for (const ep of ENDPOINTS.filter((e) => e.windowSeconds > QUICK_WAIT_MAX_S)) {
  scenario(
    ['RATE.WINDOW.READMITS', 'RATE.EXCEEDED.STATUS', ep.limitRule],
    `${ep.label}: admitted again ${RESET} seconds after a 429 (${ep.windowSeconds} s window)`,
    async (t) => {
      const d = new BucketDriver(t, ep);
      const done = await exhaust(d);
      if (!done.exhausted) return t.notJudged(done.reason, 'target');
      await readmit(d, done);
    },
    { concurrent: true, profile: 'full', timeoutMs: (ep.windowSeconds * 2 + 60) * 1000 },
  );
}

// ------------------------------------------------------------------ per endpoint: count, 429, buckets, reset

for (const ep of ENDPOINTS) {
  const short = ep.windowSeconds <= QUICK_WAIT_MAX_S;
  const bucketRules =
    ep.bucket === 'subscription' ? [ep.keys.otherBucket, 'AUTH.ALLOWANCE.PER_MERCHANT'] : [ep.keys.otherBucket];
  scenario(
    [ep.limitRule, ...COMMON, ...bucketRules, ...(short ? ['RATE.WINDOW.READMITS'] : [])],
    `${ep.label}: ${ep.limit} per ${ep.windowSeconds} s per ${ep.bucket}: headers, counting, 429 ` +
      `past the limit, another ${ep.bucket} ` +
      `untouched${ep.bucket === 'subscription' ? ', keys of one merchant share it' : ''}${short ? ', admitted again after the reset' : ''}`,
    async (t) => {
      const d = new BucketDriver(t, ep);
      // Everything the follow-ups need is ready before the window opens.
      const [first, other, second] = await Promise.all([
        d.fresh(),
        d.fresh(),
        ep.bucket === 'subscription'
          ? d.optional((f) => f.secondKeySameMerchant(), `${ep.label}: no second key of the merchant`)
          : undefined,
      ]);
      if (ep.bucket === 'subscription' && !second)
        t.ruleNotJudged(
          'AUTH.ALLOWANCE.PER_MERCHANT',
          `${ep.label}: no second key of the merchant (secondKeySameMerchant)`,
          'credential',
        );
      // How the other bucket stands before this one is used up: an earlier run may have used it.
      const otherWas = await otherBefore(d, first, other);
      let done = await exhaust(d, { first });
      if (!done.exhausted) {
        // Too big to use up: the other bucket is still judged, from its own headers.
        if (done.spent) await otherUnmoved(d, done.spent, otherWas);
        return t.notJudged(done.reason, 'target');
      }
      await stillRefused(d, done);
      if (second) done = await secondKeyRefused(d, done, second.key);
      await otherUntouched(d, done, otherWas);
      if (short) await readmit(d, done);
    },
    { concurrent: true },
  );
}

// ------------------------------------------------------------------ merchant buckets: two keys share one

for (const ep of ENDPOINTS.filter((e) => e.bucket === 'merchant')) {
  const keysShare = ['AUTH.ALLOWANCE.PER_MERCHANT', ep.keys.keysShare!];
  scenario(
    keysShare,
    `${ep.label}: two keys of one merchant draw on one bucket`,
    async (t) => {
      const d = new BucketDriver(t, ep);
      const second = await t.fixture((f) => f.secondKeySameMerchant());
      const why = await keysShareBucket(d, await d.primary(), second.key, keysShare);
      if (why) t.notJudged(why, 'target');
    },
    { concurrent: true },
  );
}

// ------------------------------------------------------------------ one bucket per endpoint

scenario(
  ['RATE.BUCKET.PER_ENDPOINT'],
  'each listed endpoint has its own bucket: using one up leaves the others of the same merchant or subscription as they were',
  async (t) => {
    const groups = (['merchant', 'subscription'] as const)
      .map((kind) => ENDPOINTS.filter((e) => e.bucket === kind).sort((a, b) => a.limit - b.limit))
      .filter((g) => g.length > 1);
    const unjudged = await Promise.all(
      groups.map(async ([victim, ...others]): Promise<string | undefined> => {
        const dv = new BucketDriver(t, victim);
        const target = await dv.fresh({ everyEndpoint: true });
        const drivers = others.map((ep) => new BucketDriver(t, ep));
        const targets = await Promise.all(
          drivers.map((d) =>
            target.subscriptionId
              ? d.forSubscription(target.subscriptionId, target.alone)
              : d.forMerchant(target.key, target.merchantId, target.alone),
          ),
        );
        const before = await Promise.all(drivers.map((d, i) => d.send(targets[i])));
        const done = await exhaust(dv, { first: target, next: async () => target });
        if (!done.exhausted) return done.reason;
        const after = await Promise.all(drivers.map((d, i) => d.send(targets[i])));
        after.forEach((o, i) => {
          if (before[i].ex.status === 429) {
            t.ruleNotJudged(
              'RATE.BUCKET.PER_ENDPOINT',
              `${others[i].label} on ${target.label} was already used up before ${victim.label} was: not compared`,
              'target',
            );
            return;
          }
          const was = rateHeaders(before[i].ex).remaining;
          const now = rateHeaders(o.ex).remaining;
          t.softExpectRule(
            'RATE.BUCKET.PER_ENDPOINT',
            o.ex.status !== 429 && (was === undefined || now === undefined || now >= was - 1),
            `with ${victim.label} used up on ${target.label}, ${others[i].label} went from ` +
              `remaining ${was} to ${now} (${statusOf(o)}) on one request`,
            o.ex,
          );
        });
        return undefined;
      }),
    );
    const reasons = unjudged.filter((r): r is string => r !== undefined);
    if (reasons.length === groups.length) t.notJudged(reasons.join('; '), 'target');
    for (const r of reasons) t.ruleNotJudged('RATE.BUCKET.PER_ENDPOINT', r, 'target');
  },
  { concurrent: true },
);

// ------------------------------------------------------------------ endpoint-specific 429 messages

/** The two endpoints cheapest to use up. */
const [FIRST, SECOND] = [...ENDPOINTS].sort((a, b) => a.limit - b.limit || a.windowSeconds - b.windowSeconds);

const messageOf = (body: unknown): string | undefined => {
  const m = (body as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' && m.trim() !== '' ? m.trim() : undefined;
};

scenario(
  ['RATE.EXCEEDED.BODY#endpoint-specific'],
  `429 messages are endpoint-specific: ${FIRST.label} and ${SECOND.label} do not give the same one`,
  async (t) => {
    const outcomes = await Promise.all([FIRST, SECOND].map((ep) => exhaust(new BucketDriver(t, ep))));
    for (const o of outcomes) if (!o.exhausted) return t.notJudged(o.reason, 'target');
    const [ma, mb] = outcomes.map((o) => (o.exhausted ? messageOf(o.rejected.ex.body) : undefined));
    // A 429 without a message is the too-many-requests check's finding; the two messages are compared when both have text.
    if (ma === undefined || mb === undefined)
      return t.notJudged(
        `a 429 without a message (${FIRST.label}: ${JSON.stringify(ma)}, ${SECOND.label}: ${JSON.stringify(mb)}): nothing to compare`,
        'target',
      );
    // The two 429s are in this scenario's stream: the rate-messages check compares their messages.
  },
  { concurrent: true },
);

// ------------------------------------------------------------------ failed authentication

scenario(
  ['RATE.FAILED_AUTH.NO_HEADERS', 'AUTH.401.SHAPE'],
  'requests failing authentication on the listed endpoints get 401 and carry no rate headers',
  async (t) => {
    const revoked = await t.fixture((f) => f.revokedKey());
    const subscription = ENDPOINTS.some((e) => e.bucket === 'subscription')
      ? (await t.fixture((f) => f.subscription())).subscriptionId
      : undefined;
    const keys: Array<[string, ScenarioRequestOptions]> = [
      ['no Authorization', { key: null }],
      ['a malformed Authorization', { headers: { authorization: 'Bearer conform not-a-key' } }],
      ['a revoked key', { key: revoked }],
    ];
    const sent = await Promise.all(
      ENDPOINTS.flatMap((ep) =>
        keys.map(async ([, opts]) => {
          const d = new BucketDriver(t, ep);
          const target =
            ep.bucket === 'subscription' ? await d.forSubscription(subscription!, false) : await d.primary();
          return (await d.send(target, undefined, { ...opts, unauthenticated: true })).ex;
        }),
      ),
    );
    sent.forEach((ex, i) => {
      const [what] = keys[i % keys.length];
      // The 401 is the authentication rule's; its headers are the registry's (failed-auth-headers).
      t.softExpectRule(
        'AUTH.401.SHAPE#status-401',
        ex.status === 401,
        `${what}: got ${ex.status ?? ex.transportError}, not 401`,
        ex,
      );
    });
  },
  { concurrent: true },
);

// RATE.UNLISTED.NOT_JUDGED and RATE.DASHBOARD.EXEMPT (restraint) and RETRY.CLIENT.* (client) are
// rules about the tool itself: the project's own tests judge them, never a run against a target.
