/**
 * What the checks of one answer against its request share: when such a check applies (a 2xx
 * JSON object answer of one documented operation, to a request sent whole and authenticated),
 * what the request sent, and a judgement that cites a rule only on a condition that could fail.
 */
import { isDeepStrictEqual } from 'node:util';
import { Decimal } from 'decimal.js';
import type { Exchange, Finding } from '../types.ts';
import { DECIMAL } from '../predicates.ts';
import {
  bodyShown,
  describeStatus,
  finding,
  is2xx,
  isObject,
  type CheckContext,
  type Evaluation,
  type OperationInfo,
} from './types.ts';

export type Json = Record<string, any>;

/** One answer and the request it answers. */
export interface Answer {
  ex: Exchange & { status: number };
  /** The JSON object answered. */
  got: Json;
  /** The JSON object sent ({} when the request had no JSON object body). */
  sent: Json;
  /** The decoded path parameters (the context's reading of the request). */
  params: Record<string, string>;
  query: URLSearchParams;
}

/**
 * The answer when a check of `operationId` applies: a documented 2xx answer with a JSON object
 * body whose contents the document shows, to an authenticated request that breaks no
 * documented constraint. Anything else is judged by other rules (status, validation, auth).
 */
export function answerTo(
  ex: Exchange,
  ctx: CheckContext,
  op: OperationInfo | undefined,
  operationId: string,
): Answer | undefined {
  if (!op || op.extension || op.operationId !== operationId || !is2xx(ex)) return undefined;
  if (ctx.unauthenticated || ctx.brokenRequest || !isObject(ex.body) || !bodyShown(ctx, op, ex.status))
    return undefined;
  const { body, params, query } = ctx.request;
  return { ex, got: ex.body as Json, sent: isObject(body) ? body : {}, params, query };
}

/** The rules one check judged on one exchange, and the findings against them. */
export class Judgement {
  private readonly judged = new Set<string>();
  private readonly findings: Finding[] = [];

  constructor(
    private readonly check: string,
    private readonly ex: Exchange,
  ) {}

  /** Judges `ruleIds` on `ok`; when it is false, a finding says `title` and `problem`. */
  expect(ruleIds: string | string[], ok: boolean, title: string, problem: () => string): boolean {
    const ids = Array.isArray(ruleIds) ? ruleIds : [ruleIds];
    for (const id of ids) this.judged.add(id);
    if (!ok) this.findings.push(finding(this.check, ids, title, `${describeStatus(this.ex)}: ${problem()}`, this.ex));
    return ok;
  }

  /** What the check returns: nothing when it judged nothing. */
  done(): Evaluation | undefined {
    return this.judged.size ? { judged: [...this.judged], findings: this.findings } : undefined;
  }
}

export const sameJson = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);

export const show = (v: unknown): string =>
  v === undefined ? 'nothing' : (JSON.stringify(v)?.slice(0, 120) ?? String(v));

/** `read` holds what was `sent`: equal primitives, arrays item by item, every key of a sent object held in turn (extra keys allowed). */
export function holds(read: unknown, sent: unknown): boolean {
  if (Array.isArray(sent))
    return Array.isArray(read) && read.length === sent.length && sent.every((v, i) => holds(read[i], v));
  if (!isObject(sent)) return sameJson(read, sent);
  return isObject(read) && Object.entries(sent).every(([k, v]) => holds(read[k], v));
}

/** Of `fields`, those the request sent (`sent[k] !== undefined`). */
export const sentFields = (sent: Json, fields: readonly string[]): string[] =>
  fields.filter((k) => sent[k] !== undefined);

/** Of `fields`, those the request sent whose answer does not hold the value sent. */
export function notHeld(sent: Json, got: Json, fields: readonly string[], same = sameJson): string[] {
  return sentFields(sent, fields).filter((k) => !same(got[k], sent[k]));
}

/** `k sent X, got Y` for each field. */
export const sentVsGot = (fields: readonly string[], sent: Json, got: Json): string =>
  fields.map((k) => `${k} sent ${show(sent[k])}, got ${show(got[k])}`).join('; ');

/** The same decimal value (`10.5` and `10.50`); anything that is not a decimal string compares as is. */
export function decimalEquals(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || !DECIMAL.test(a) || !DECIMAL.test(b)) return a === b;
  return new Decimal(a).equals(b);
}
