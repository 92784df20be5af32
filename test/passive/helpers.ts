/** Traffic records and a judge for the passive tests. */
import { loadRules, loadSpec } from '../../src/contract/index.ts';
import { PassiveJudge, type PassiveOutcome } from '../../src/passive/judge.ts';
import type { PassiveUnit } from '../../src/passive/types.ts';
import type { TrafficRecord } from '../../src/passive/traffic/record.ts';
import { clientIdOf } from '../../src/passive/traffic/scrub.ts';

export const KEY = 'sk_test_passive_helper_key_0001';
export const CLIENT = clientIdOf(KEY);

export interface RecOptions {
  status?: number;
  sent?: unknown;
  got?: unknown;
  headers?: Record<string, string>;
  requestHeaders?: Record<string, string>;
  /** Bearer key (default KEY); null sends none. */
  key?: string | null;
  start?: number;
  duration?: number;
}

/** A record as the proxy makes it: the key already turned into the client id. */
export function rec(method: string, path: string, o: RecOptions = {}): TrafficRecord {
  const client = o.key === null ? 'anonymous' : clientIdOf(o.key ?? KEY);
  const body = o.got === undefined ? '' : JSON.stringify(o.got);
  return {
    client,
    method,
    path,
    requestHeaders: {
      ...(o.key === null ? {} : { authorization: `Bearer $${client}` }),
      ...(o.sent !== undefined ? { 'content-type': 'application/json' } : {}),
      ...o.requestHeaders,
    },
    requestBody: o.sent === undefined ? '' : typeof o.sent === 'string' ? o.sent : JSON.stringify(o.sent),
    status: o.status ?? 200,
    responseHeaders: { ...(body ? { 'content-type': 'application/json' } : {}), ...o.headers },
    responseBody: body,
    startedMs: o.start ?? 1_000_000,
    durationMs: o.duration ?? 5,
  };
}

export async function judge(records: TrafficRecord[], units?: PassiveUnit[]): Promise<PassiveOutcome> {
  const [spec, rules] = await Promise.all([loadSpec(), loadRules()]);
  const j = new PassiveJudge(spec, rules, 'http://target.test', units);
  for (const r of records) j.observe(r);
  return j.finish();
}

/** Per rule: `passed`/`failed` over every source, or undefined when nothing judged it. */
export function verdicts(o: PassiveOutcome): Map<string, 'passed' | 'failed'> {
  const out = new Map<string, 'passed' | 'failed'>();
  for (const s of o.sources) {
    for (const id of Object.keys(s.judged)) if (!out.has(id)) out.set(id, 'passed');
    for (const id of Object.keys(s.failed)) out.set(id, 'failed');
  }
  return out;
}

export function messages(o: PassiveOutcome, ruleId: string): string[] {
  return o.sources
    .flatMap((s) => s.findings)
    .filter((f) => f.ruleIds.includes(ruleId))
    .map((f) => f.message);
}
