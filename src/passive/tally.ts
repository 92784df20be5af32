/**
 * What one source of passive judgements (a server unit, or one client) has found: every
 * judgement and every finding counted, while the findings kept as evidence are capped per
 * rule, so memory stays bounded however long the traffic runs.
 */
import type { Exchange, Finding } from '../engine/types.ts';
import { replayCommand } from '../engine/http/curl.ts';

export const EVIDENCE_PER_RULE = 10;
const MAX_RAW_BODY = 8 * 1024;

function compact(ex: Exchange): Exchange {
  const out = { ...ex };
  if (out.rawBody.length > MAX_RAW_BODY) {
    out.rawBody = `${out.rawBody.slice(0, MAX_RAW_BODY)}… (${ex.rawBody.length} characters, cut)`;
    delete out.body;
  }
  return out;
}

export class Tally {
  readonly judged = new Map<string, number>();
  readonly failed = new Map<string, number>();
  readonly evidence: Finding[] = [];
  private readonly kept = new Map<string, number>();
  exchanges = 0;
  /** Every finding, kept as evidence or not. */
  findingCount = 0;
  notes: string[] = [];

  constructor(
    readonly suite: string,
    readonly title: string,
  ) {}

  /** A condition of each rule was evaluated (held or not). */
  judge(...ruleIds: string[]): void {
    for (const id of ruleIds) this.judged.set(id, (this.judged.get(id) ?? 0) + 1);
  }

  /** A finding: counted for every rule it cites; kept while one of them has room for evidence. */
  fail(f: Finding): void {
    this.findingCount += 1;
    for (const id of f.ruleIds) this.failed.set(id, (this.failed.get(id) ?? 0) + 1);
    if (!f.ruleIds.some((id) => (this.kept.get(id) ?? 0) < EVIDENCE_PER_RULE)) return;
    for (const id of f.ruleIds) this.kept.set(id, (this.kept.get(id) ?? 0) + 1);
    const exchange = f.exchange ? compact(f.exchange) : undefined;
    this.evidence.push({ ...f, ...(exchange ? { exchange, replay: f.replay ?? replayCommand(exchange) } : {}) });
  }

  /** Judges `ruleIds` on one condition: a finding citing them when it failed. */
  check(ruleIds: string[], ok: boolean, failure: () => Omit<Finding, 'ruleIds'>): boolean {
    this.judge(...ruleIds);
    if (!ok) this.fail({ ...failure(), ruleIds });
    return ok;
  }

  note(message: string): void {
    if (this.notes.length < 20 && !this.notes.includes(message)) this.notes.push(message);
  }
}
