/**
 * A catalog fault: a proxy Fault plus what the fault-injection mode needs to judge it
 * (area, the rules it should trip, the suites worth running) and a small demo exchange
 * the unit tests replay to prove the hooks change what the description says.
 */
import type { Fault, ProxyRequest, ProxyResponse } from '../fault-proxy.ts';

/**
 * Fault areas: where a fault belongs, named after the suite that is written to catch it
 * (suites/<area>.suite.ts; `merchants-products` stands for the merchants, products, prices,
 * source-rules and wallets suites) plus conventions (schemas, errors). Rules have families
 * (spec/rules.yaml); faults have areas.
 */
export const FAULT_AREAS = [
  'auth',
  'rate-limits',
  'version-migration',
  'delete-blockers',
  'webhooks',
  'items',
  'customers',
  'alerts',
  'billing-schedules',
  'refunds-payments',
  'merchants-products',
  'conventions',
] as const;
export type FaultArea = (typeof FAULT_AREAS)[number];

/** The suites of the `merchants-products` area. */
export const MERCHANTS_PRODUCTS_SUITES = ['merchants', 'products', 'prices', 'source-rules', 'wallets'];

/** One exchange of a demo: the request a client sends and what the target would answer to what reaches it. */
export interface DemoStep {
  req: ProxyRequest;
  /** The target's answer; a function sees the request as the fault forwarded it. */
  res: ProxyResponse | ((forwarded: ProxyRequest) => ProxyResponse);
}

/** What one demo step produced. */
export interface DemoOutcome {
  /** The request that reached the target (undefined: the fault answered by itself). */
  forwarded?: ProxyRequest;
  /** What the client got. */
  response: ProxyResponse;
  /** ctx.applied() calls during this step. */
  applied: number;
  /** How long the fault's hooks took (for faults about timing). */
  durationMs?: number;
}

export interface FaultDemo {
  /** Earlier steps set state up; the last one is the exchange the fault alters. */
  steps: DemoStep[];
  /** A problem with the outcome (the fault did not do what it claims), or undefined. */
  verify(last: DemoOutcome, all: DemoOutcome[]): string | undefined;
}

export interface CatalogFault extends Fault {
  name: string;
  area: FaultArea;
  description: string;
  /** A benign variant: a conforming behaviour the suites must NOT flag. */
  benign?: boolean;
  /**
   * Neither a fault nor benign: the document does not decide whether the behaviour is
   * allowed (why, in a few words). Run and reported apart, counted in neither rate.
   */
  indeterminate?: string;
  /**
   * Why the fault's answers cannot be told from right ones by traffic alone (what knowledge the
   * traffic does not carry): `npm run faults:passive` counts it among the faults that do not
   * show in traffic.
   */
  offTraffic?: string;
  /** The kind of a generated fault (drop, type, bound-lax...); hand-written faults have none. */
  kind?: string;
  /** Rule ids the fault is expected to trip (empty for benign variants). */
  rules: string[];
  /** The suites that exercise it (suites/<name>.suite.ts), to keep each run bounded. */
  suites: string[];
  /** Hints for a bundled target: raise the reference's rate limits so an emulated bucket is the only one that binds. */
  target?: { raiseRateLimits?: number };
  demo: FaultDemo;
}
