/** Seeds and failure reports for generated cases: every failure can be replayed exactly. */
import type fc from 'fast-check';
import { redact } from '../http/redact.ts';
import type { RequestPlan } from './requests.ts';
import { requestPath } from './requests.ts';

/** The environment variable replay commands read the key from; the key itself never appears. */
export const API_KEY_VARIABLE = 'CONFORM_API_KEY';

/** A per-property seed derived from the run seed and a stable label (FNV-1a), so order and sharding do not matter. */
export function deriveSeed(runSeed: number, label: string): number {
  let h = 0x811c9dc5 ^ (runSeed | 0);
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl command replaying the request; the bearer comes from $CONFORM_API_KEY. */
export function curlFor(baseUrl: string, plan: RequestPlan): string {
  const url = baseUrl.replace(/\/+$/, '') + requestPath(plan);
  const parts = [
    'curl',
    '-sS',
    '-X',
    plan.method,
    shellQuote(url),
    '-H',
    `"Authorization: Bearer $${API_KEY_VARIABLE}"`,
  ];
  if (plan.body !== undefined)
    parts.push('-H', shellQuote('Content-Type: application/json'), '--data', shellQuote(JSON.stringify(plan.body)));
  return redact(parts.join(' '));
}

export interface GeneratedFailure {
  title: string;
  seed: number;
  path: string;
  counterexample: unknown;
  replay?: string;
  /** What went wrong on the minimal case. */
  reason: string;
  numRuns: number;
  numShrinks: number;
}

/** Turns a failed fast-check run into a report entry; undefined when the run passed. */
export function failureOf<Ts extends [unknown, ...unknown[]]>(
  title: string,
  details: fc.RunDetails<Ts>,
  replay?: (value: Ts[0]) => string,
): GeneratedFailure | undefined {
  if (!details.failed) return undefined;
  const value = details.counterexample?.[0] as Ts[0];
  const err = details.errorInstance;
  const reason = details.interrupted
    ? 'interrupted before completion'
    : err instanceof Error
      ? err.message
      : err !== null && err !== undefined
        ? String(err)
        : 'too many skipped cases';
  return {
    title,
    seed: details.seed,
    path: details.counterexamplePath ?? '',
    counterexample: value,
    replay: value !== undefined && replay ? replay(value) : undefined,
    reason,
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
  };
}

/** The failure as one message: seed, path, minimal counterexample, replay command. */
export function formatFailure(f: GeneratedFailure): string {
  return [
    `${f.title}: ${f.reason}`,
    `  seed: ${f.seed}  path: ${JSON.stringify(f.path)}  (after ${f.numRuns} run(s), ${f.numShrinks} shrink(s))`,
    `  counterexample: ${safeJson(f.counterexample)}`,
    ...(f.replay ? [`  replay: ${f.replay}`] : []),
  ].join('\n');
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
