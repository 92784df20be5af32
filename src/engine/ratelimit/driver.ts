/**
 * Drives one rate-limited endpoint for a scenario: where its requests go (which bucket),
 * sending them with the timing the window attribution needs (timing.ts), and waiting out a
 * window. The measuring procedures that use it are in exhaust.ts and follow-ups.ts.
 */
import { isFixtureUnavailable } from '../fixtures/types.ts';
import type { Fixtures } from '../fixtures/methods.ts';
import type { Exchange, NotJudgedCategory } from '../types.ts';
import type { RequestOptions } from '../http/client.ts';
import type { RateLimitedEndpoint } from './endpoints.ts';
import { rateHeaders } from './headers.ts';
import { realClock, type Clock, type Timed } from './timing.ts';

/** The quick profile waits out windows (and resets) up to this long; per-minute windows only in the full profile. */
export const QUICK_WAIT_MAX_S = 10;
/** Added to every wait for a window to reset. */
export const MARGIN_MS = 100;

/** What the procedures need of a scenario (suites pass their ScenarioContext). */
export interface LimitScenario {
  readonly http: {
    request(method: string, path: string, opts?: RequestOptions & { unauthenticated?: boolean }): Promise<Exchange>;
  };
  readonly target: { profile: 'quick' | 'full' };
  fixture<T>(fn: (f: Fixtures) => Promise<T>): Promise<T>;
  expectRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): void;
  softExpectRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): boolean;
  /** What must hold before anything can be judged: when it does not, the scenario ends, its parts not judged. */
  precondition(condition: unknown, what: string, exchange?: Exchange): asserts condition;
  /** Records that rules were not judged here (the scenario carries on). */
  ruleNotJudged(ruleIds: string | string[], reason: string, category?: NotJudgedCategory): void;
  note(message: string): void;
  rateLimitScenario(): void;
}

/** Where requests go: one bucket. */
export interface BucketTarget {
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

/**
 * Buckets handed out in this worker: a merchant's or subscription's bucket on one endpoint
 * seen before is not fresh. Buckets are per endpoint, so one merchant serves several
 * endpoints' scenarios (a fixtures file hands an entry to one scenario at a time); a
 * scenario that sends on every endpoint of its merchant or subscription claims them all.
 */
const claimed = new Set<string>();
export function claimBucket(owner: string, operationId: string | '*'): boolean {
  const [any, all, one] = [`${owner} any`, `${owner} *`, `${owner} ${operationId}`];
  if (claimed.has(all) || claimed.has(operationId === '*' ? any : one)) return false;
  claimed.add(any).add(operationId === '*' ? all : one);
  return true;
}

export class BucketDriver {
  private provider?: string;
  private body?: unknown;
  private noted = false;

  constructor(
    readonly t: LimitScenario,
    readonly ep: RateLimitedEndpoint,
    readonly clock: Clock = realClock,
  ) {
    t.rateLimitScenario();
  }

  /** A fixture the scenario can do without: undefined (with a note) when it is unavailable. */
  async optional<T>(fn: (f: Fixtures) => Promise<T>, what: string): Promise<T | undefined> {
    try {
      return await this.t.fixture(fn);
    } catch (err) {
      if (!isFixtureUnavailable(err)) throw err;
      this.t.note(`${what}: ${(err as Error).message}`);
      return undefined;
    }
  }

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

  /**
   * A bucket nobody else uses: a fresh subscription, or a fresh merchant's key (else the
   * primary merchant). `everyEndpoint`: the scenario sends on its other endpoints too.
   */
  async fresh(opts: { everyEndpoint?: boolean } = {}): Promise<BucketTarget> {
    const op = opts.everyEndpoint ? '*' : this.ep.operationId;
    if (this.ep.bucket === 'subscription') {
      const [id] = await this.t.fixture((f) => f.subscriptions(1));
      const alone = claimBucket(`sub:${id}`, op);
      return { subscriptionId: id, path: await this.path(id), alone, label: `subscription ${id}` };
    }
    const other = await this.optional((f) => f.otherMerchantKey(), 'no fresh merchant: using the primary merchant');
    if (!other) return this.primary();
    return this.forMerchant(other.key, other.merchantId, claimBucket(`org:${other.merchantId}`, op));
  }

  /** The primary key's merchant (shared with other suites: counts are lower bounds). */
  async primary(): Promise<BucketTarget> {
    const m = await this.optional((f) => f.merchant(), 'primary merchant id unknown');
    return {
      merchantId: m?.merchantId,
      path: await this.path(),
      body: await this.requestBody(),
      alone: false,
      label: 'the primary merchant',
    };
  }

  async forMerchant(key: string | undefined, merchantId: string | undefined, alone: boolean): Promise<BucketTarget> {
    if (this.ep.bucket === 'subscription') throw new Error(`${this.ep.label} counts per subscription`);
    if (this.ep.operationId === 'createInvoiceLineItems' && key !== undefined && !this.noted) {
      this.noted = true;
      this.t.note(
        `${this.ep.label} on merchant ${merchantId}: the fixtures' body names a draft invoice of the ` +
          `primary merchant, so this merchant's requests may be refused (404); they still count in its bucket`,
      );
    }
    return {
      key,
      merchantId,
      path: await this.path(),
      body: await this.requestBody(),
      alone,
      label: `merchant ${merchantId ?? '(unknown)'}`,
    };
  }

  async forSubscription(subscriptionId: string, alone: boolean): Promise<BucketTarget> {
    return { subscriptionId, path: await this.path(subscriptionId), alone, label: `subscription ${subscriptionId}` };
  }

  /** One request to the bucket, never retried, with when it was sent and answered. */
  async send(
    target: BucketTarget,
    key: string | undefined = target.key,
    opts: RequestOptions & { unauthenticated?: boolean } = {},
  ): Promise<Timed> {
    const sentAt = this.clock.now();
    const ex = await this.t.http.request(this.ep.method, target.path, {
      key,
      body: target.body,
      retry429: false,
      ...opts,
    });
    return { ex, sentAt, receivedAt: this.clock.now() };
  }

  /** Seconds until this bucket's window resets, or undefined when the profile does not wait that long. */
  waitFor(o: Timed): number | undefined {
    const h = rateHeaders(o.ex);
    const seconds = Math.min(h.reset?.seconds ?? h.retryAfter?.seconds ?? this.ep.windowSeconds, this.ep.windowSeconds);
    return this.t.target.profile === 'full' || seconds <= QUICK_WAIT_MAX_S ? seconds : undefined;
  }

  sleep(ms: number): Promise<void> {
    return this.clock.sleep(ms);
  }
}
