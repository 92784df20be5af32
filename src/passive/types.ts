/** What the passive judge's units see and how they report. */
import type { Operation, RuleIndex, Spec } from '../contract/index.ts';
import type { TrafficRecord } from './traffic/record.ts';
import type { Exchange } from '../engine/types.ts';
import type { SentRequest } from '../engine/checks/request.ts';
import type { RequestBreaks } from '../engine/checks/request-breaks.ts';
import type { Tally } from './tally.ts';

/** One exchange of the traffic, with what the spec says about it. */
export interface Observed {
  record: TrafficRecord;
  /** The engine's exchange (what the checks read, and the evidence). */
  exchange: Exchange;
  /** The operation the request fits (documented or reference extension), if any. */
  operation?: Operation;
  /** The request, read once against the spec (what the checks' context carries too). */
  request: SentRequest;
  /** What the request breaks of the document, read once (the checks' context and the client units share it). */
  breaks: RequestBreaks;
  /** A documented operation (not a reference extension): the only ones judged. */
  documented: boolean;
  /** `CLIENT_KEY_<hash>` or `anonymous`. */
  client: string;
  /** The request carried a bearer token. */
  authenticated: boolean;
  startMs: number;
  endMs: number;
  /** The parsed JSON response body (undefined when none or not JSON). */
  got: unknown;
}

export interface JudgeContext {
  spec: Spec;
  rules: RuleIndex;
  /** The tally of a server unit. */
  server(unit: PassiveUnit): Tally;
  /** The tally of one client (client rules, reported apart from the server). */
  client(id: string): Tally;
}

/**
 * One small passive rule set. Server units judge the target from the traffic; client units
 * judge whoever sent it. A unit keeps only bounded state (windows, recent resources).
 */
export interface PassiveUnit {
  name: string;
  scope: 'server' | 'client';
  /** One line: what the unit judges. */
  title: string;
  ruleIds: readonly string[];
  observe(o: Observed, ctx: JudgeContext): void;
  /** End of the traffic: judgements that wait for it (a retry chain that stopped). */
  finish?(ctx: JudgeContext): void;
}
