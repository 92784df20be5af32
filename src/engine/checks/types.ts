/** What checks know about the contract, and the check shape. */
import type { ResourceIndex, RuleIndex } from '../../contract/index.ts';
import type { Exchange, Finding } from '../types.ts';
import type { Ledger, Shown, Walk } from './resources/ledger.ts';
import type { Broken } from './request-breaks.ts';

export interface ResponseInfo {
  /** The key that matched: '200', '2XX', 'default'... */
  key?: string;
  schema?: unknown;
  /** The `x-not-shown` note of the response, when the document does not show it. */
  notShown?: string;
}

export interface OperationInfo {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** Reference extension operations are never judged. */
  extension?: boolean;
  /** The six rate-limited endpoints of the Limits table. */
  rateLimit?: { limit: number; windowSeconds: number; bucket: string };
  responses: Record<string, ResponseInfo>;
  /** Its parameters, with the notes of those the document does not show. */
  parameters?: readonly { name: string; in: string; referenceChoice?: string; notShown?: string }[];
}

/** A request as sent, read against the spec (checks/request.ts reads it). */
export interface SentRequest {
  /** The operation the request fits (documented or reference extension), if any. */
  operation?: OperationInfo;
  /** Its decoded path parameters ({} when no operation fits). */
  params: Record<string, string>;
  /** The query string as sent, without `?`. */
  queryString: string;
  query: URLSearchParams;
  /** The JSON body sent, parsed when it travelled as text; undefined when none or not JSON. */
  body: unknown;
  /** A body travelled as text that does not parse as JSON (blank text is no body). */
  bodyNotJson: boolean;
}

export interface ValidationResult {
  valid: boolean;
  errors: { path: string; message: string; keyword?: string }[];
}

/** The part of the spec loader (src/contract/index.ts) the checks use; the loader's `Spec` is one. */
export interface SpecView {
  operations: ReadonlyMap<string, OperationInfo>;
  findOperation(method: string, path: string): OperationInfo | undefined;
  responseFor(operationId: string, status: number): ResponseInfo | undefined;
  validateResponseBody(operationId: string, status: number, body: unknown): ValidationResult;
  /** A value against one of the spec's component schemas (Error, ValidationError...), by the shared ajv. */
  validateSchema(componentName: string, value: unknown): ValidationResult;
  /** One of the spec's component schemas, inlined (a value it states: a default, a pattern). */
  componentSchema(name: string): unknown;
  /** The documented resources (x-resource) and the operations acting on each. */
  resources: ResourceIndex;
}

/** What a check may know besides the exchange. */
export interface CheckContext {
  spec: SpecView;
  /** spec/rules.yaml: the contract data checks read (id patterns, list operations, success codes). */
  rules: RuleIndex;
  /** True while a rate-limit scenario is deliberately exhausting a bucket. */
  rateLimitScenario?: boolean;
  /** True when the request was sent without valid credentials on purpose. */
  unauthenticated?: boolean;
  /**
   * True when the request breaks a documented constraint or its body is not JSON (read off the
   * request by requestBreaks, the same way in `conform run` and the passive judge): only the
   * validation rules judge its answer, never a check of what the answer holds.
   */
  brokenRequest?: boolean;
  /** The documented constraints the request breaks, read with `brokenRequest`. */
  brokenConstraints?: readonly Broken[];
  /**
   * True when a scenario broke the request on purpose and set everything else up validly: the
   * refusal is then the only right answer (checks/refusals.ts), not just one that holds.
   */
  brokenOnPurpose?: boolean;
  /** The exchange's request, read once (checkContextFor): its path parameters, query and JSON body. */
  request: SentRequest;
}

export interface Evaluation {
  /** Rule ids this check judged on the exchange (passed or failed). */
  judged: string[];
  findings: Finding[];
}

/**
 * A small named unit of the registry. It judges one exchange at a time (`evaluate`), or the
 * stream of a scenario's, a proxy session's or a HAR file's exchanges (`open`: a fresh judge per
 * stream, told of each exchange in turn and of the stream's end). Either way it returns the
 * rules it judged and what broke them, or nothing when it does not apply.
 */
export interface Check {
  name: string;
  ruleIds: string[];
  description: string;
  /** Runs even on extension and unknown operations (transport failures). */
  always?: boolean;
  evaluate?(exchange: Exchange, ctx: CheckContext, op: OperationInfo | undefined): Evaluation | undefined;
  open?(): StreamJudge;
}

/** What a judge of the stream knows of one exchange besides what a check of one exchange knows. */
export interface StreamContext extends CheckContext {
  /** What the stream has shown before this exchange. */
  ledger: Ledger;
  /** What this exchange shows of a documented resource, when it acts on one. */
  shown?: Shown;
  /** The walk of a list this page belongs to, when it continues or completes one. */
  walk?: Walk;
  /** Who sent it: `primary` (the run's key), another key, or the passive judge's client id; undefined: no credential. */
  credential?: string;
  /** The merchant that credential acts for, when known. */
  merchant?: string;
  startMs: number;
  endMs: number;
}

/** A judge over one stream of exchanges (a check's `open()`); it keeps what it needs between them. */
export interface StreamJudge {
  observe(exchange: Exchange, ctx: StreamContext, op: OperationInfo | undefined): Evaluation | undefined;
  /** The end of the stream: judgements that waited for it. */
  finish?(ledger: Ledger): Evaluation | undefined;
  /** An exchange no judge reads (an extension or unknown operation, or no answer): a write there may have changed anything. */
  unread?(exchange: Exchange, timing: { startMs: number; endMs: number; credential?: string; spec: SpecView }): void;
}

export function defineCheck(def: Check): Check {
  return def;
}

/** The operation an exchange targets: its operationId, else its method and path. */
export function operationOf(
  spec: SpecView,
  exchange: Pick<Exchange, 'operationId' | 'method' | 'path'>,
): OperationInfo | undefined {
  return exchange.operationId
    ? spec.operations.get(exchange.operationId)
    : spec.findOperation(exchange.method, exchange.path.split('?')[0]);
}

/** The operations a rule of spec/rules.yaml names. */
export function ruleOperations(ctx: CheckContext, ruleId: string): string[] {
  return ctx.rules.byId(ruleId)?.operations ?? [];
}

/** A success status (2xx). */
export function is2xx(ex: Exchange): ex is Exchange & { status: number } {
  return ex.status !== undefined && ex.status >= 200 && ex.status < 300;
}

/** Builds a finding for a check; the registry adds the replay command. */
export function finding(check: string, ruleIds: string[], title: string, message: string, exchange: Exchange): Finding {
  return { source: `check:${check}`, ruleIds, title, message, exchange };
}

export { isObject } from '../predicates.ts';

export function describeStatus(ex: Exchange): string {
  return `${ex.method} ${ex.path} → ${ex.status ?? 'no response'}`;
}

/** An `x-not-shown` note that covers the body itself (not just the status code): nothing in the body is judged. */
const BODY_NOT_SHOWN = /body|payload|code values|field|shape|element/i;

/**
 * The declared response whose body may be judged, or undefined when none is declared or
 * the document does not show the body (the schema then records the reference's choice).
 */
export function judgeableResponse(ctx: CheckContext, op: OperationInfo, status: number): ResponseInfo | undefined {
  const declared = ctx.spec.responseFor(op.operationId, status);
  if (!declared) return undefined;
  if (declared.notShown !== undefined && BODY_NOT_SHOWN.test(declared.notShown)) return undefined;
  return declared;
}

/** True when the body of this response is documented (so conventions inside it may be judged). */
export function bodyShown(ctx: CheckContext, op: OperationInfo, status: number): boolean {
  const declared = ctx.spec.responseFor(op.operationId, status);
  return !declared || judgeableResponse(ctx, op, status) !== undefined;
}
