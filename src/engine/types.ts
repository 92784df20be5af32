/** One HTTP request and what came back (or why nothing came back). */
export interface Exchange {
  /** The documented or extension operation this request targets, when known. */
  operationId?: string;
  method: string;
  /** Path with query string, relative to the base URL. */
  path: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  /** Absent when the transport failed (see `transportError`). */
  status?: number;
  responseHeaders: Record<string, string>;
  /** Parsed JSON body; undefined when the body was empty or not JSON. */
  body?: unknown;
  rawBody: string;
  /** Set when the body was not valid JSON although content was present. */
  jsonError?: string;
  /** Connection reset, timeout, oversize body, DNS failure... */
  transportError?: string;
  /** No complete response came within the request's time limit: the target is slow, not shown broken. */
  timedOut?: boolean;
  durationMs: number;
  startedAt: string;
}

/** A broken rule, with the evidence. */
export interface Finding {
  /** Name of the check or scenario that produced it. */
  source: string;
  ruleIds: string[];
  title: string;
  message: string;
  exchange?: Exchange;
  /** Replay command, API key redacted. */
  replay?: string;
  /** A bash script replaying every request of the scenario up to this finding (rate limits), keys redacted. */
  replaySequence?: string;
  /** fast-check seed and path, when the failure came from generation. */
  seed?: number;
  counterexample?: unknown;
  /** The fields it concerns, as JSON Pointers, where the judge knows them (an expected failure may be limited to one). */
  fields?: string[];
  /** The index of the declared expected failure (conform.config.yaml `expectedFailures`) covering it: it fails nothing. */
  expected?: number;
}

/**
 * Why a rule was not judged: a missing fixture or credential, a fixture found used up,
 * the run's profile or destructive setting, a property of the target the suite cannot
 * judge through, a target too slow to judge within the time limits, or a rule that does not
 * apply to this target.
 */
export type NotJudgedCategory =
  'fixture' | 'credential' | 'fixture-used-up' | 'profile' | 'destructive' | 'target' | 'slow' | 'not-applicable';

/** Rules a scenario (or a judge) could not judge, and why. */
export interface NotJudgedMark {
  reason: string;
  category: NotJudgedCategory;
  ruleIds: string[];
  /** The mark ended the scenario. */
  endedScenario?: boolean;
}

/** The tool broke (a check or scenario code threw): never the target's fault. */
export interface EngineErrorRecord {
  /** The check or scenario that broke. */
  source: string;
  message: string;
  stack?: string;
  /** Rules left unjudged by it. */
  ruleIds: string[];
}
