/**
 * The scenario API the suites in suites/ are written with.
 *
 *   scenario(['CUSTOMERS.GET.BY_ID'], 'a customer reads back by id', async (t) => {
 *     const { customerId } = await t.fixture((f) => f.customer());
 *     const res = await t.http.get(`/v0/customers/${customerId}`);
 *     t.expectStatus('CUSTOMERS.GET.BY_ID', res, 200);
 *     t.expectRule('CUSTOMERS.GET.BY_ID', (res.body as any)?.id === customerId, 'the customer read is the one asked for', res);
 *   });
 *
 * Every exchange runs the check registry; any finding fails the scenario and cites its
 * rules. A missing fixture or credential skips the scenario with a reason naming it.
 * What was exercised and found is recorded on the vitest task meta for the reporters.
 */
import { afterAll, expect, test, type TestContext } from 'vitest';
import { loadSpec } from '../spec/index.ts';
import type { Exchange, Finding } from './types.ts';
import { HttpClient, type RequestOptions } from './http/client.ts';
import { replayCommand } from './http/replay.ts';
import { redact, redactDeep } from './redact.ts';
import { runChecks, type SpecView } from './checks/index.ts';
import { FixtureUnavailable, type Fixtures } from './fixtures/types.ts';
import { inFixtureScope } from './fixtures/scope.ts';
import { closeWorkerFixtures, targetContext, workerFixtures, type TargetContext } from './context.ts';

export { describe, beforeAll, afterAll } from 'vitest';
export { FixtureUnavailable } from './fixtures/types.ts';

export interface ScenarioOptions {
  /** Deletes, refunds...: skipped unless the target allows destructive scenarios. */
  destructive?: boolean;
  /** Only in the full profile (e.g. waits for per-minute windows). */
  profile?: 'full';
  timeoutMs?: number;
  /** Runs concurrently with the other concurrent scenarios of its file. */
  concurrent?: boolean;
}

/** What the reporters read back from each scenario (task meta `conform`); plain JSON. */
export interface ScenarioRecord {
  ruleIds: string[];
  /** Rule id → number of judgements (checks on exchanges, expectRule calls). */
  judged: Record<string, number>;
  findings: Finding[];
  notes: string[];
  exchanges: number;
  skipReason?: string;
  /** Skipped by the run's own options (profile, destructive off), not for a missing fixture. */
  skippedByOption?: boolean;
  /** The scenario stopped on an error that is not a finding (its rules fail with it). */
  aborted?: string;
}

export interface ScenarioRequestOptions extends RequestOptions {
  /** Sent without valid credentials on purpose (checks then expect no rate headers, etc.). */
  unauthenticated?: boolean;
}

export interface ScenarioHttp {
  request(method: string, path: string, opts?: ScenarioRequestOptions): Promise<Exchange>;
  get(path: string, opts?: ScenarioRequestOptions): Promise<Exchange>;
  post(path: string, body?: unknown, opts?: ScenarioRequestOptions): Promise<Exchange>;
  patch(path: string, body?: unknown, opts?: ScenarioRequestOptions): Promise<Exchange>;
  put(path: string, body?: unknown, opts?: ScenarioRequestOptions): Promise<Exchange>;
  delete(path: string, opts?: ScenarioRequestOptions): Promise<Exchange>;
}

export interface TargetInfo {
  baseUrl: string;
  merchantId?: string;
  profile: 'quick' | 'full';
  seed: number;
  bundled: boolean;
  sandbox: boolean;
  destructive: boolean;
  fixtureStrategy: string;
}

export interface ScenarioContext {
  readonly http: ScenarioHttp;
  readonly target: TargetInfo;
  /** Resolves a fixture; a FixtureUnavailable skips the scenario naming what is missing. */
  fixture<T>(fn: (f: Fixtures) => Promise<T>): Promise<T>;
  /** Records a judgement of `ruleId`; when `condition` is false, records a finding and stops the scenario. */
  expectRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): void;
  /** Like expectRule but carries on: returns the condition. */
  checkRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): boolean;
  /** expectRule on the status code (one value or a list); with several rule ids, a wrong status fails each of them. */
  expectStatus(ruleIds: string | string[], exchange: Exchange, expected: number | number[]): void;
  /** Turns off the client's automatic 429 retry for the rest of this scenario. */
  rateLimitScenario(): void;
  /** Marks rules as exercised without a specific assertion (e.g. covered by the checks on an exchange). */
  exercise(...ruleIds: string[]): void;
  /** An advisory note (never a failure): shown in the reports. */
  note(message: string): void;
  /** Skips the scenario with a reason. */
  skip(reason: string): never;
  sleep(ms: number): Promise<void>;
  readonly findings: readonly Finding[];
}

/** Thrown when a scenario has findings: the test fails, and the reporters read the findings from the meta. */
export class ConformanceFailure extends Error {
  constructor(findings: Finding[]) {
    super(describeFindings(findings));
    this.name = 'ConformanceFailure';
  }
}

function describeFindings(findings: Finding[]): string {
  const lines = findings.slice(0, 20).map((f) => `[${f.ruleIds.join(', ') || 'scenario'}] ${f.title}: ${f.message}`);
  if (findings.length > 20) lines.push(`... and ${findings.length - 20} more`);
  return redact(`${findings.length} finding${findings.length === 1 ? '' : 's'}:\n${lines.join('\n')}`);
}

const MAX_FINDINGS = 50;
const MAX_RAW_BODY = 8 * 1024;

/** A copy of an exchange small enough for the task meta and the reports. */
export function compactExchange(ex: Exchange): Exchange {
  const out = redactDeep({ ...ex });
  if (out.rawBody.length > MAX_RAW_BODY) {
    out.rawBody = `${out.rawBody.slice(0, MAX_RAW_BODY)}… (${ex.rawBody.length} characters, cut)`;
    delete out.body;
  }
  return out;
}

function metaOf(ctx: TestContext): ScenarioRecord {
  return (ctx.task.meta as { conform?: ScenarioRecord }).conform!;
}

let specPromise: Promise<SpecView> | undefined;
function spec(): Promise<SpecView> {
  specPromise ??= loadSpec().then((s) => s as unknown as SpecView);
  return specPromise;
}

class Scenario implements ScenarioContext {
  readonly findings: Finding[] = [];
  readonly http: ScenarioHttp;
  readonly target: TargetInfo;
  private retry = true;
  private rateLimited = false;

  constructor(
    private readonly record: ScenarioRecord,
    private readonly ctx: TestContext,
    private readonly targetCtx: TargetContext,
    private readonly client: HttpClient,
    private readonly specView: SpecView,
    private readonly plainClient: HttpClient,
  ) {
    this.target = {
      baseUrl: targetCtx.baseUrl,
      merchantId: targetCtx.merchantId,
      profile: targetCtx.profile,
      seed: targetCtx.seed,
      bundled: targetCtx.bundled,
      sandbox: targetCtx.sandbox,
      destructive: targetCtx.destructive,
      fixtureStrategy: targetCtx.fixtures.strategy,
    };
    const request = (method: string, path: string, opts: ScenarioRequestOptions = {}) => this.send(method, path, opts);
    this.http = {
      request,
      get: (path, opts) => request('GET', path, opts),
      post: (path, body, opts) => request('POST', path, { ...opts, body }),
      patch: (path, body, opts) => request('PATCH', path, { ...opts, body }),
      put: (path, body, opts) => request('PUT', path, { ...opts, body }),
      delete: (path, opts) => request('DELETE', path, opts),
    };
  }

  private async send(method: string, path: string, opts: ScenarioRequestOptions): Promise<Exchange> {
    const unauthenticated = opts.unauthenticated ?? (opts.key === null || opts.headers?.authorization !== undefined || opts.headers?.Authorization !== undefined);
    const { unauthenticated: _, ...rest } = opts;
    return this.client.request(method, path, {
      ...rest,
      retry429: opts.retry429 ?? this.retry,
      onExchange: (exchange) => {
        this.record.exchanges += 1;
        const outcome = runChecks(exchange, { spec: this.specView, rateLimitScenario: this.rateLimited, unauthenticated });
        for (const r of outcome.judged) this.record.judged[r] = (this.record.judged[r] ?? 0) + 1;
        for (const f of outcome.findings) this.addFinding(f.ruleIds.length ? f : { ...f, ruleIds: [...this.record.ruleIds] });
        opts.onExchange?.(exchange);
      },
    });
  }

  private addFinding(f: Finding): void {
    this.findings.push(f);
    if (this.record.findings.length < MAX_FINDINGS) {
      this.record.findings.push(redactDeep({ ...f, exchange: f.exchange ? compactExchange(f.exchange) : undefined }));
    }
  }

  async fixture<T>(fn: (f: Fixtures) => Promise<T>): Promise<T> {
    const fixtures = await workerFixtures(this.targetCtx, this.plainClient);
    return fn(fixtures);
  }

  private judge(ruleId: string, condition: unknown, message: string, exchange?: Exchange): boolean {
    this.record.judged[ruleId] = (this.record.judged[ruleId] ?? 0) + 1;
    if (condition) return true;
    const detail = exchange ? `${exchange.method} ${exchange.path} → ${exchange.status ?? exchange.transportError ?? 'no response'}` : '';
    this.addFinding({
      source: 'scenario',
      ruleIds: [ruleId],
      title: message,
      message: detail ? `${message} (${detail})` : message,
      exchange,
      replay: exchange ? replayCommand(exchange) : undefined,
    });
    return false;
  }

  expectRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): void {
    if (!this.judge(ruleId, condition, message, exchange)) throw new ConformanceFailure(this.findings);
  }

  checkRule(ruleId: string, condition: unknown, message: string, exchange?: Exchange): boolean {
    return this.judge(ruleId, condition, message, exchange);
  }

  expectStatus(ruleIds: string | string[], exchange: Exchange, expected: number | number[]): void {
    const ids = Array.isArray(ruleIds) ? ruleIds : [ruleIds];
    const list = Array.isArray(expected) ? expected : [expected];
    const got = exchange.status ?? `no response (${exchange.transportError ?? 'unknown'})`;
    const ok = exchange.status !== undefined && list.includes(exchange.status);
    const message = `expected ${list.join(' or ')}, got ${got}`;
    for (const id of ids.slice(0, -1)) this.judge(id, ok, message, exchange);
    this.expectRule(ids[ids.length - 1], ok, message, exchange);
  }

  rateLimitScenario(): void {
    this.retry = false;
    this.rateLimited = true;
  }

  exercise(...ruleIds: string[]): void {
    for (const r of ruleIds) this.record.judged[r] = (this.record.judged[r] ?? 0) + 1;
  }

  note(message: string): void {
    this.record.notes.push(redact(message));
  }

  skip(reason: string): never {
    this.record.skipReason = redact(reason);
    this.ctx.skip(this.record.skipReason);
    throw new Error('unreachable');
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

function isSkip(err: unknown): boolean {
  // vitest's ctx.skip() throws its own marker error.
  return (err as { code?: string })?.code === 'VITEST_PENDING';
}

/** Suite files that registered the fixture cleanup (modules are shared across files in a worker). */
const cleanupRegistered = new Set<string>();

/** Defines a scenario: a vitest test citing the rule ids it exercises. */
export function scenario(ruleIds: string[], title: string, fn: (t: ScenarioContext) => Promise<void>, opts: ScenarioOptions = {}): void {
  const file = expect.getState().testPath ?? '';
  if (!cleanupRegistered.has(file)) {
    // Once per suite file: release what the fixtures created when the file is done.
    cleanupRegistered.add(file);
    afterAll(() => closeWorkerFixtures());
  }
  const define = opts.concurrent ? test.concurrent : test;
  define(
    title,
    async (ctx) => {
      const record: ScenarioRecord = { ruleIds: [...ruleIds], judged: {}, findings: [], notes: [], exchanges: 0 };
      (ctx.task.meta as { conform?: ScenarioRecord }).conform = record;
      const target = targetContext();
      if (opts.destructive && !target.destructive) {
        record.skipReason = 'destructive scenario (deletes, refunds) not allowed on this target: mark it `sandbox: true` or set `destructive: true` in conform.config.yaml';
        record.skippedByOption = true;
        return ctx.skip(record.skipReason);
      }
      if (opts.profile === 'full' && target.profile !== 'full') {
        record.skipReason = 'runs in the full profile only (--profile full)';
        record.skippedByOption = true;
        return ctx.skip(record.skipReason);
      }
      const specView = await spec();
      const resolveOperation = (method: string, path: string) => specView.findOperation(method, path)?.operationId;
      const options = { baseUrl: target.baseUrl, apiKey: target.apiKey.value, apiKeyLabel: target.apiKey.label, timeoutMs: target.timeoutMs, resolveOperation };
      const t = new Scenario(record, ctx, target, new HttpClient(options), specView, new HttpClient(options));
      try {
        // Fixture entries a strategy hands out (file) are this scenario's until it ends.
        await inFixtureScope({ title, destructive: opts.destructive }, () => fn(t));
      } catch (err) {
        if (isSkip(err)) throw err;
        if (err instanceof FixtureUnavailable || (err as Error)?.name === 'FixtureUnavailable') {
          const f = err as FixtureUnavailable;
          if (!t.findings.length) {
            record.skipReason = redact(`fixture '${f.fixture}' unavailable: ${f.reason}`);
            return ctx.skip(record.skipReason);
          }
          // What was found before the fixture went missing still stands; the missing fixture blames no rule.
          record.notes.push(redact(`stopped early: fixture '${f.fixture}' unavailable: ${f.reason}`));
          throw new ConformanceFailure(t.findings);
        }
        if (!(err instanceof ConformanceFailure)) {
          record.aborted = redact(String((err as Error)?.message ?? err)).slice(0, 2000);
          if (t.findings.length) throw new ConformanceFailure(t.findings);
          throw new Error(record.aborted);
        }
        throw err;
      }
      if (t.findings.length) throw new ConformanceFailure(t.findings);
    },
    opts.timeoutMs,
  );
}

export function metaRecord(ctx: TestContext): ScenarioRecord | undefined {
  return metaOf(ctx);
}
