/**
 * The registry over a stream of exchanges: a scenario's requests (`conform run`), a proxy
 * session (`conform proxy`) or a HAR file (`conform judge`). Each exchange is judged by every
 * check of one exchange and by every judge of the stream (a check's `open()`, fresh per
 * stream), then recorded in the stream's ledger (what it has shown so far). Crash isolation as
 * runChecks: a judge that throws is the tool's error, never a finding against the target.
 */
import type { Exchange, Finding } from '../types.ts';
import { replayCommand } from '../http/curl.ts';
import { redactDeep } from '../http/redact.ts';
import { runChecks, CHECKS, type CheckOutcome } from './index.ts';
import { operationOf, type Check, type CheckContext, type Evaluation, type StreamJudge } from './types.ts';
import { Ledger } from './resources/ledger.ts';
import { readShown } from './resources/shown.ts';

export interface StreamExchange {
  exchange: Exchange;
  ctx: CheckContext;
  /** Who sent it (see StreamContext.credential). */
  credential?: string;
}

/** When an exchange started and ended (ms), from its own record. */
export function timingOf(ex: Exchange): { startMs: number; endMs: number } {
  const startMs = Date.parse(ex.startedAt);
  const start = Number.isNaN(startMs) ? 0 : startMs;
  return { startMs: start, endMs: start + Math.max(0, ex.durationMs) };
}

export class CheckStream {
  readonly ledger = new Ledger();
  private readonly judges: { check: Check; judge: StreamJudge }[];
  private finished = false;

  constructor(private readonly checks: readonly Check[] = CHECKS) {
    this.judges = checks.filter((c) => c.open).map((check) => ({ check, judge: check.open!() }));
  }

  /** Judges one exchange: the checks of one exchange, then the judges of the stream. */
  observe({ exchange, ctx, credential }: StreamExchange): CheckOutcome {
    const outcome = runChecks(exchange, ctx, this.checks);
    const op = outcome.operation ?? operationOf(ctx.spec, exchange);
    if (!op || op.extension || exchange.status === undefined) {
      for (const { check, judge } of this.judges) {
        try {
          judge.unread?.(exchange, {
            ...timingOf(exchange),
            spec: ctx.spec,
            ...(credential !== undefined ? { credential } : {}),
          });
        } catch (err) {
          outcome.errors.push(crash(check.name, exchange, err));
        }
      }
      return outcome;
    }
    const { startMs, endMs } = timingOf(exchange);
    const merchant = credential === undefined ? undefined : this.ledger.merchantOf.get(credential);
    let shown;
    try {
      shown = readShown(exchange, ctx, op, merchant);
    } catch (err) {
      outcome.errors.push(crash('stream', exchange, err));
      return outcome;
    }
    const timing = { credential, startMs, endMs };
    const walk = shown?.page ? this.ledger.addPage(exchange, shown, timing) : undefined;
    const streamCtx = {
      ...ctx,
      ledger: this.ledger,
      ...(shown ? { shown } : {}),
      ...(walk ? { walk } : {}),
      ...(credential !== undefined ? { credential } : {}),
      ...(merchant !== undefined ? { merchant } : {}),
      startMs,
      endMs,
    };
    const judged = new Set(outcome.judged);
    for (const { check, judge } of this.judges) {
      let result: Evaluation | undefined;
      try {
        result = judge.observe(exchange, streamCtx, op);
      } catch (err) {
        outcome.errors.push(crash(check.name, exchange, err));
        continue;
      }
      collect(result, exchange, judged, outcome.findings);
    }
    outcome.judged = [...judged];
    if (shown) this.ledger.learn(shown, exchange, timing);
    return outcome;
  }

  /** The end of the stream: what the judges waited for. Once. */
  finish(): CheckOutcome {
    const outcome: CheckOutcome = { judged: [], findings: [], errors: [] };
    if (this.finished) return outcome;
    this.finished = true;
    const judged = new Set<string>();
    for (const { check, judge } of this.judges) {
      try {
        collect(judge.finish?.(this.ledger), undefined, judged, outcome.findings);
      } catch (err) {
        outcome.errors.push({
          source: `check:${check.name}`,
          message: `check ${check.name} crashed at the end of the stream: ${String((err as Error)?.message ?? err)}`,
          stack: (err as Error)?.stack,
        });
      }
    }
    outcome.judged = [...judged];
    return outcome;
  }
}

function collect(
  result: Evaluation | undefined,
  exchange: Exchange | undefined,
  judged: Set<string>,
  findings: Finding[],
): void {
  if (!result) return;
  for (const r of result.judged) judged.add(r);
  for (const f of result.findings) {
    const evidence = f.exchange ?? exchange;
    findings.push(redactDeep({ ...f, ...(evidence ? { replay: replayCommand(evidence) } : {}) }));
  }
}

function crash(name: string, exchange: Exchange, err: unknown): CheckOutcome['errors'][number] {
  return {
    source: `check:${name}`,
    message: `check ${name} crashed on ${exchange.method} ${exchange.path}: ${String((err as Error)?.message ?? err)}`,
    stack: (err as Error)?.stack,
  };
}
