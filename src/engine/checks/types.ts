/** What checks know about the contract, and the engine's richer check shape. */
import type { CheckContext, Exchange, Finding } from '../types.ts';

export interface ResponseInfo {
  /** The key that matched: '200', '2XX', 'default'... */
  key?: string;
  schema?: unknown;
  headers?: string[] | Record<string, unknown>;
  [extra: string]: unknown;
}

export interface OperationInfo {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** Reference extension operations are never judged. */
  extension?: boolean;
  /** The six rate-limited endpoints of the Limits table. */
  rateLimit?: { limit: number; windowSeconds: number; bucket: string };
  responses?: Record<string, ResponseInfo>;
  [extra: string]: unknown;
}

export interface ValidationResult {
  valid: boolean;
  errors: { path: string; message: string; keyword?: string }[];
}

/** The part of the spec loader (src/spec/index.ts) the checks use. */
export interface SpecView {
  operations: Record<string, OperationInfo> | Map<string, OperationInfo>;
  findOperation(method: string, path: string): OperationInfo | undefined;
  responseFor(operationId: string, status: number): ResponseInfo | undefined;
  validateResponseBody(operationId: string, status: number, body: unknown): ValidationResult;
  validateSchema?(componentName: string, value: unknown): ValidationResult;
}

export interface EngineCheckContext extends CheckContext {
  spec: SpecView;
}

export interface Evaluation {
  /** Rule ids this check judged on the exchange (passed or failed). */
  judged: string[];
  findings: Finding[];
}

/** A small named unit run on every exchange; it says which rules it judged, so unbroken rules count as judged. */
export interface EngineCheck {
  name: string;
  ruleIds: string[];
  description: string;
  /** Runs even on extension and unknown operations (transport failures). */
  always?: boolean;
  evaluate(exchange: Exchange, ctx: EngineCheckContext, op: OperationInfo | undefined): Evaluation;
}

export function defineCheck(def: EngineCheck): EngineCheck {
  return def;
}

export function operationById(spec: SpecView, id: string): OperationInfo | undefined {
  const ops = spec.operations;
  return ops instanceof Map ? ops.get(id) : ops[id];
}

/** Builds a finding for a check; the registry adds the replay command. */
export function finding(check: string, ruleIds: string[], title: string, message: string, exchange: Exchange): Finding {
  return { source: `check:${check}`, ruleIds, title, message, exchange };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function describeStatus(ex: Exchange): string {
  return `${ex.method} ${ex.path} → ${ex.status ?? 'no response'}`;
}

/** An `x-not-shown` note that covers the body itself (not just the status code): nothing in the body is judged. */
const BODY_NOT_SHOWN = /body|payload|code values|field|shape|element/i;

/**
 * The declared response whose body may be judged, or undefined when none is declared or
 * the document does not show the body (the schema then records the reference's choice).
 */
export function judgeableResponse(ctx: EngineCheckContext, op: OperationInfo, status: number): ResponseInfo | undefined {
  const declared = ctx.spec.responseFor(op.operationId, status);
  if (!declared) return undefined;
  const note = declared.notShown;
  if (typeof note === 'string' && BODY_NOT_SHOWN.test(note)) return undefined;
  return declared;
}

/** True when the body of this response is documented (so conventions inside it may be judged). */
export function bodyShown(ctx: EngineCheckContext, op: OperationInfo, status: number): boolean {
  const declared = ctx.spec.responseFor(op.operationId, status);
  return !declared || judgeableResponse(ctx, op, status) !== undefined;
}
