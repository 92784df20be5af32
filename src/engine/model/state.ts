/**
 * The documented state the model holds for one sequence: the resources the run created or was
 * given, as the target last showed them, and the properties every representation of them must
 * keep (its owner), whichever operation answered it.
 */
import type { Exchange } from '../types.ts';
import type { ScenarioContext } from '../scenario/types.ts';
import { RequestSequence } from '../http/replay-script.ts';
import { OWNER } from './parts.ts';
import { ModelViolation, type ModelJudge } from './judge.ts';
export { compareInstants } from '../predicates.ts';

export type Json = Record<string, any>;

/** Resource kinds whose `merchantId` names their owner merchant (Resources > Merchant organization, Price, Item). */
export type Kind = 'customer' | 'item' | 'price' | 'alert' | 'sourceRule' | 'subscription';
const OWNED: ReadonlySet<Kind> = new Set(['customer', 'item', 'price']);

export interface Tracked {
  kind: Kind;
  id: string;
  /** The last representation the target answered for it, in the target's own form. */
  seen?: Json;
  /** Its DELETE succeeded. */
  deleted: boolean;
}

export function track(kind: Kind, id: string): Tracked {
  return { kind, id, deleted: false };
}

/** The body of an answer as an object (empty when there is none). */
export function bodyOf(ex: Exchange): Json {
  return ex.body && typeof ex.body === 'object' && !Array.isArray(ex.body) ? (ex.body as Json) : {};
}

export const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

/**
 * Judges what every representation of a tracked resource keeps that only the model knows: its
 * owner names the key's merchant. Its timestamps on course are the registry's (timestamps-course).
 */
export function observe(
  judge: ModelJudge,
  merchantId: string,
  r: Tracked,
  body: Json,
  ex: Exchange | undefined,
  where: string,
): void {
  if (OWNED.has(r.kind) && body.merchantId !== undefined)
    judge.judge(
      OWNER,
      body.merchantId === merchantId,
      `${where}: ${r.kind} ${r.id}, made for the merchant of the API key (${merchantId}), names merchantId ${show(body.merchantId)}`,
      ex,
    );
}

/**
 * The requests of one sequence, sent through the scenario's client (so the check registry
 * judges each answer too) and kept for the replay script of a failure. What one answer shows is
 * the registry's to judge: a finding it makes ends the sequence, as a broken property of the
 * model does, so fast-check shrinks it. It ends once the command that drew it has judged what
 * it knows of that answer (a part of the model's own, broken by the same answer, is reported
 * broken, not held): at the command's end (runModel) or at its next request.
 */
export class ModelHttp {
  readonly sequence = new RequestSequence();
  /** The registry's first finding on this sequence's answers, not yet ending it. */
  private pending?: ModelViolation;

  constructor(private readonly t: Pick<ScenarioContext, 'http' | 'findings'>) {}

  async send(method: string, path: string, body?: unknown): Promise<Exchange> {
    this.settle();
    const before = this.t.findings.length;
    const ex = await this.t.http.request(method, path, {
      ...(body === undefined ? {} : { body }),
      onExchange: (e) => this.sequence.add(e),
    });
    // The registry's findings (source check:<name>), not the scenario's own.
    const found = this.t.findings.slice(before).find((f) => f.source.startsWith('check:') && f.ruleIds.length);
    if (found)
      this.pending = new ModelViolation(
        found.ruleIds[0],
        `${found.title}: ${found.message}`,
        found.exchange ?? ex,
        found.ruleIds.slice(1),
      );
    return ex;
  }

  /** Ends the sequence on a finding the registry made on one of its answers. */
  settle(): void {
    if (this.pending) throw this.pending;
  }

  /** A step the script cannot replay with curl (a read made through the fixtures). */
  comment(text: string): void {
    this.sequence.comment(text);
  }
}
