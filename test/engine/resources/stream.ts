/** A stream of exchanges for the resource judges' tests: each one answered before the next is sent. */
import type { RuleIndex, Spec } from '../../../src/contract/index.ts';
import { checkContextFor, RESOURCE_CHECKS, type Check, type CheckOutcome } from '../../../src/engine/checks/index.ts';
import { CheckStream } from '../../../src/engine/checks/stream.ts';
import type { Exchange } from '../../../src/engine/types.ts';

export interface Step {
  method: string;
  path: string;
  sent?: unknown;
  /** Undefined: no answer came. */
  status: number | undefined;
  got?: unknown;
  /** Who sends it (default the run's key); null: no credential. */
  credential?: string | null;
  /** Time added before it is sent (negative: sent before the previous one was answered). */
  waitMs?: number;
}

export class Stream {
  readonly stream: CheckStream;
  private clock = Date.parse('2030-01-01T00:00:00Z');
  readonly judged = new Map<string, number>();
  readonly findings: CheckOutcome['findings'] = [];
  readonly errors: CheckOutcome['errors'] = [];

  constructor(
    private readonly contract: { spec: Spec; rules: RuleIndex },
    merchant = 'org_primary1',
    checks: readonly Check[] = RESOURCE_CHECKS,
  ) {
    this.stream = new CheckStream(checks);
    this.stream.ledger.merchantOf.set('primary', merchant);
  }

  private take(out: CheckOutcome): CheckOutcome {
    for (const r of out.judged) this.judged.set(r, (this.judged.get(r) ?? 0) + 1);
    this.findings.push(...out.findings);
    this.errors.push(...out.errors);
    return out;
  }

  send(step: Step): CheckOutcome {
    this.clock += step.waitMs ?? 0;
    const startedAt = new Date(this.clock).toISOString();
    this.clock += 20;
    const rawBody = step.got === undefined ? '' : JSON.stringify(step.got);
    const exchange: Exchange = {
      method: step.method,
      path: step.path,
      url: `http://target${step.path}`,
      requestHeaders: { authorization: 'Bearer $CONFORM_API_KEY', 'content-type': 'application/json' },
      ...(step.sent === undefined ? {} : { requestBody: step.sent }),
      ...(step.status === undefined ? { transportError: 'socket hang up' } : { status: step.status }),
      responseHeaders: rawBody ? { 'content-type': 'application/json' } : {},
      body: step.got,
      rawBody,
      durationMs: 5,
      startedAt,
    };
    const ctx = checkContextFor(this.contract, exchange);
    const credential = step.credential === null ? undefined : (step.credential ?? 'primary');
    return this.take(this.stream.observe({ exchange, ctx, ...(credential ? { credential } : {}) }));
  }

  finish(): CheckOutcome {
    return this.take(this.stream.finish());
  }

  /** The findings against a rule part (or any part of a rule). */
  failed(rule: string): CheckOutcome['findings'] {
    return this.findings.filter((f) => f.ruleIds.some((r) => r === rule || r.startsWith(`${rule}#`)));
  }
}
