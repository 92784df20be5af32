/**
 * The documented state the model holds for one sequence: the resources the run created or was
 * given, as the target last showed them, and the properties every representation of them must
 * keep (its owner, createdAt, updatedAt), whichever operation answered it.
 */
import type { Exchange } from '../types.ts';
import type { ScenarioContext } from '../scenario-types.ts';
import { RequestSequence } from '../http/replay-script.ts';
import { CREATED_FIXED, OWNER, UPDATED_NOT_BACK } from './parts.ts';
import type { ModelJudge } from './judge.ts';
import type { RuleIndex } from '../../contract/index.ts';
import { compareInstants, unsentFields } from '../predicates.ts';

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
  createdAt?: string;
  updatedAt?: string;
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
 * Judges what every representation of a tracked resource keeps, then remembers its timestamps:
 * its owner names the key's merchant, createdAt never changes, updatedAt never goes back.
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
  const created = compareInstants(body.createdAt, r.createdAt);
  if (created !== undefined)
    judge.judge(
      CREATED_FIXED,
      created === 0,
      `${where}: ${r.kind} ${r.id} has createdAt ${body.createdAt}, earlier answers ${r.createdAt}`,
      ex,
    );
  const updated = compareInstants(body.updatedAt, r.updatedAt);
  if (updated !== undefined)
    judge.judge(
      UPDATED_NOT_BACK,
      updated >= 0,
      `${where}: ${r.kind} ${r.id} has updatedAt ${body.updatedAt}, before the ${r.updatedAt} an earlier answer gave`,
      ex,
    );
  if (r.createdAt === undefined && compareInstants(body.createdAt, body.createdAt) !== undefined)
    r.createdAt = body.createdAt;
  if (compareInstants(body.updatedAt, body.updatedAt) !== undefined && !(updated !== undefined && updated < 0))
    r.updatedAt = body.updatedAt;
}

/**
 * The requests of one sequence, sent through the scenario's client (so the check registry
 * judges each answer too) and kept for the replay script of a failure.
 */
export class ModelHttp {
  readonly sequence = new RequestSequence();

  constructor(private readonly t: Pick<ScenarioContext, 'http'>) {}

  send(method: string, path: string, body?: unknown): Promise<Exchange> {
    return this.t.http.request(method, path, {
      ...(body === undefined ? {} : { body }),
      onExchange: (ex) => this.sequence.add(ex),
    });
  }

  /** A step the script cannot replay with curl (a read made through the fixtures). */
  comment(text: string): void {
    this.sequence.comment(text);
  }
}

/** Judges `ruleId`'s "keeps what it did not send" on one update's answer (predicates.ts unsentFields). */
export function judgeUnsent(
  r: { judge: ModelJudge },
  rules: RuleIndex,
  ruleId: string,
  sent: Json,
  before: Json,
  after: Json,
  what: string,
  ex: Exchange,
): void {
  for (const u of unsentFields(rules, ruleId, sent, before, after))
    r.judge.judge(ruleId, u.kept, `${what}: ${u.field}, not sent, went ${show(u.was)} → ${show(u.now)}`, ex);
}
