/**
 * The passive judge: takes traffic one exchange at a time (live from `conform proxy`, or
 * read from a HAR file by `conform judge`) and runs every unit on it. Its outcome is a set
 * of judgement sources (one per server unit, one per client) that the verdicts and the
 * reporters of `conform run` take as they take scenarios.
 */
import type { RuleIndex, Spec } from '../contract/index.ts';
import type { RunError, ScenarioResult } from '../engine/runner/types.ts';
import { readRequest } from '../engine/checks/request.ts';
import { requestBreaks } from '../engine/checks/request-breaks.ts';
import { toExchange, endOf, type TrafficRecord } from './traffic/record.ts';
import { ANONYMOUS } from './traffic/scrub.ts';
import { Tally } from './tally.ts';
import type { JudgeContext, Observed, PassiveUnit } from './types.ts';
import { createUnits } from './units/index.ts';
import type { PassiveNotJudged } from './not-judged.ts';

export const SERVER_SUITE = 'traffic';
export const CLIENT_SUITE = 'clients';
const MAX_ERRORS = 20;
/** Clients judged apart; later ones share one source (their findings still name them). */
export const MAX_CLIENTS = 10_000;

/** A judgement source: a ScenarioResult for the reporters, with every finding counted. */
export type PassiveSource = ScenarioResult & {
  failed: Record<string, number>;
  findingCount: number;
  /** Rules not judged, and why (see not-judged.ts). */
  notJudged?: PassiveNotJudged[];
};

export interface PassiveOutcome {
  sources: PassiveSource[];
  /** Engine errors (a unit that broke): never the target's fault. */
  errors: RunError[];
  exchanges: number;
  /** Exchanges on operations the spec does not know or reference extensions (never judged). */
  unjudgedExchanges: number;
  clients: string[];
  startedAt: string;
  durationMs: number;
}

export class PassiveJudge {
  private readonly servers = new Map<PassiveUnit, Tally>();
  private readonly clients = new Map<string, Tally>();
  private readonly errors: RunError[] = [];
  private errorCount = 0;
  private exchanges = 0;
  private unjudged = 0;
  private firstMs: number | undefined;
  private lastMs: number | undefined;
  private readonly ctx: JudgeContext;
  private finished = false;

  constructor(
    private readonly spec: Spec,
    rules: RuleIndex,
    private readonly baseUrl: string,
    private readonly units: readonly PassiveUnit[] = createUnits(),
  ) {
    for (const u of units) if (u.scope === 'server') this.servers.set(u, new Tally(SERVER_SUITE, u.title));
    this.ctx = {
      spec,
      rules,
      server: (u) => this.servers.get(u)!,
      client: (id) => {
        let t = this.clients.get(id);
        if (!t) {
          const key = this.clients.size < MAX_CLIENTS ? id : 'more';
          t =
            this.clients.get(key) ??
            new Tally(CLIENT_SUITE, key === 'more' ? `clients beyond the first ${MAX_CLIENTS}` : `client ${id}`);
          this.clients.set(key, t);
        }
        return t;
      },
    };
  }

  observe(record: TrafficRecord): void {
    if (this.finished) throw new Error('the judge has finished');
    this.exchanges += 1;
    this.firstMs = Math.min(this.firstMs ?? record.startedMs, record.startedMs);
    this.lastMs = Math.max(this.lastMs ?? 0, endOf(record));
    const pathOnly = record.path.split('?')[0];
    const wire = toExchange(record, this.baseUrl);
    const request = readRequest(this.spec, wire);
    const breaks = requestBreaks(this.spec, request);
    const operation = request.operation && this.spec.operation(request.operation.operationId);
    const exchange = operation ? { operationId: operation.operationId, ...wire } : wire;
    const documented = !!operation && !operation.extension;
    if (!documented) this.unjudged += 1;
    const o: Observed = {
      record,
      exchange,
      operation,
      request,
      breaks,
      documented,
      client: record.client,
      authenticated: record.client !== ANONYMOUS,
      startMs: record.startedMs,
      endMs: endOf(record),
      got: exchange.body,
    };
    this.ctx.client(record.client).exchanges += 1;
    for (const unit of this.units) {
      try {
        unit.observe(o, this.ctx);
      } catch (err) {
        this.engineError(unit, err, `${record.method} ${pathOnly}`);
      }
    }
  }

  private engineError(unit: PassiveUnit, err: unknown, where: string): void {
    this.errorCount += 1;
    if (this.errors.length < MAX_ERRORS)
      this.errors.push({
        suite: unit.scope === 'server' ? SERVER_SUITE : CLIENT_SUITE,
        message: `engine error in passive unit ${unit.name} on ${where}: ${String((err as Error)?.stack ?? err)}`,
      });
  }

  /** Ends the traffic: units judge what waited for its end; returns the sources. */
  finish(): PassiveOutcome {
    if (!this.finished) {
      this.finished = true;
      for (const unit of this.units) {
        try {
          unit.finish?.(this.ctx);
        } catch (err) {
          this.engineError(unit, err, 'the end of the traffic');
        }
      }
    }
    const sources = [
      ...[...this.servers.values()].map((t, i) => source(t, `traffic-${i}`)),
      ...[...this.clients.entries()].map(([id, t]) => source(t, `client-${id}`)),
    ];
    const errors =
      this.errorCount > this.errors.length
        ? [...this.errors, { message: `${this.errorCount - this.errors.length} more engine errors` }]
        : [...this.errors];
    return {
      sources,
      errors,
      exchanges: this.exchanges,
      unjudgedExchanges: this.unjudged,
      clients: [...this.clients.keys()],
      startedAt: new Date(this.firstMs ?? Date.now()).toISOString(),
      durationMs: Math.max(0, Math.round((this.lastMs ?? 0) - (this.firstMs ?? 0))),
    };
  }
}

function source(t: Tally, id: string): PassiveSource {
  const judged = Object.fromEntries(t.judged);
  const failed = Object.fromEntries(t.failed);
  const ruleIds = [...new Set([...Object.keys(judged), ...Object.keys(failed)])].sort();
  return {
    id,
    suite: t.suite,
    file: '',
    title: t.title,
    fullName: `${t.suite} › ${t.title}`,
    // Only rules it judged are cited: citing alone never passes a rule.
    state: t.findingCount > 0 ? 'failed' : ruleIds.length ? 'passed' : 'skipped',
    ...(ruleIds.length || t.findingCount ? {} : { skipReason: 'no exchange of the traffic gave it anything to judge' }),
    durationMs: 0,
    ruleIds,
    judged,
    failed,
    findings: t.evidence,
    findingCount: t.findingCount,
    notes: t.notes,
    exchanges: t.exchanges,
    notJudged: [],
    engineErrors: [],
  };
}
