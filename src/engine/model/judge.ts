/**
 * What the state model judged over the generated sequences of one scenario: a count per rule
 * part, the parts it could not judge and why, and the violation that ends a sequence.
 */
import type { Exchange, NotJudgedCategory } from '../types.ts';
import type { Spec } from '../../contract/index.ts';
import { edgesOfExchange } from '../generators/live.ts';
import { VALID_NOT_400 } from './parts.ts';

/** A property of the model broken by an answer: it ends the sequence, and fast-check shrinks it. */
export class ModelViolation extends Error {
  constructor(
    /** The rule part broken (`RULE.ID` or `RULE.ID#part`). */
    readonly key: string,
    readonly detail: string,
    readonly exchange?: Exchange,
    /** Other parts the same answer broke (a registry finding citing several). */
    readonly also: readonly string[] = [],
  ) {
    super(`[${key}] ${detail}`);
    this.name = 'ModelViolation';
  }
}

export interface Unjudged {
  reason: string;
  category: NotJudgedCategory;
}

export class ModelJudge {
  /** Judgement key → judgements made (held or broken). */
  readonly judged = new Map<string, number>();
  /** Judgement key → why it could not be judged (the first reason given). */
  readonly unjudged = new Map<string, Unjudged>();

  /** `spec` tells the values the document makes valid from those it leaves to the vendor (generators/edges.ts). */
  constructor(private readonly spec?: Pick<Spec, 'operation' | 'requestSchemas'>) {}

  /**
   * A request of values the document makes valid is not refused with 400; an answer that tells
   * nothing of the request (no answer, a 5xx) or a request carrying an edge value judges nothing.
   */
  notRefused(ex: Exchange, what: string): void {
    if (ex.status === undefined || ex.status >= 500) return;
    if (this.spec && edgesOfExchange(this.spec, ex).length) return;
    this.judge(VALID_NOT_400, ex.status !== 400, `${what}: a request of values the document makes valid got 400`, ex);
  }

  /** Judges `key` on `condition`; a false one throws the violation that ends the sequence. */
  judge(key: string, condition: unknown, detail: string, exchange?: Exchange): void {
    this.judged.set(key, (this.judged.get(key) ?? 0) + 1);
    if (!condition) throw new ModelViolation(key, detail, exchange);
  }

  /** Records why `keys` could not be judged here; a later judgement still counts. */
  cannot(keys: string | string[], reason: string, category: NotJudgedCategory = 'target'): void {
    for (const key of Array.isArray(keys) ? keys : [keys])
      if (!this.unjudged.has(key)) this.unjudged.set(key, { reason, category });
  }

  /** Whether every key was judged or found unjudgeable on this target. */
  settled(keys: readonly string[]): boolean {
    return keys.every((k) => {
      const u = this.unjudged.get(k);
      return this.judged.has(k) || (u !== undefined && u.category !== 'target');
    });
  }
}
