/**
 * The passive judgement as the four reports of `conform run` (through the same verdicts
 * and reporters), and the exit code `--fail-on` asks for: client rules are reported apart
 * from the server's.
 */
import { randomBytes } from 'node:crypto';
import type { RuleIndex } from '../contract/rules.ts';
import { buildReport, verdictOf, type Report } from '../engine/reporters/index.ts';
import type { PassiveOutcome, PassiveSource } from './judge.ts';
import { passiveNotJudged } from './not-judged.ts';
import { passiveRuleIds } from './units/index.ts';

export type FailOn = 'server' | 'client' | 'both';

export interface PassiveReportInput {
  outcome: PassiveOutcome;
  rules: RuleIndex;
  /** The target's base URL. */
  baseUrl: string;
  /** What was judged: `live traffic through conform proxy`, `HAR file x.har`. */
  source: string;
  toolVersion: string;
  specVersion?: string;
  runId?: string;
}

export function newPassiveRunId(kind: 'proxy' | 'judge'): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', '-');
  return `${stamp}-${kind}-${randomBytes(2).toString('hex')}`;
}

/** A source carrying why each rule the traffic did not judge was not judged. */
function notJudgedSource(o: PassiveOutcome, rules: RuleIndex): PassiveSource {
  const judged = new Set(o.sources.flatMap((s) => [...Object.keys(s.judged), ...Object.keys(s.failed)]));
  const ids = passiveRuleIds();
  const notJudged = passiveNotJudged(rules.rules, judged, new Set([...ids.server, ...ids.client]));
  return {
    id: 'not-judged',
    suite: 'traffic',
    file: '',
    title: 'rules the traffic did not judge',
    fullName: 'traffic › rules the traffic did not judge',
    state: 'skipped',
    skipReason: 'traffic judges only what it shows',
    durationMs: 0,
    ruleIds: [],
    judged: {},
    failed: {},
    findings: [],
    findingCount: 0,
    notes: [],
    exchanges: 0,
    notJudged,
    engineErrors: [],
  };
}

export function buildPassiveReport(input: PassiveReportInput): Report {
  const o = input.outcome;
  const report = buildReport({
    runId: input.runId ?? newPassiveRunId('judge'),
    toolVersion: input.toolVersion,
    startedAt: o.startedAt,
    durationMs: o.durationMs,
    target: { baseUrl: input.baseUrl, bundled: false, sandbox: false },
    profile: 'quick',
    seed: 0,
    suites: ['traffic', 'clients'],
    fixtures: {
      strategy: 'none',
      reason:
        `passive judgement of ${input.source}: ${o.exchanges} exchanges from ${o.clients.length} ` +
        `client(s); rules no exchange touched are not judged`,
    },
    destructive: false,
    ...(input.specVersion ? { specVersion: input.specVersion } : {}),
    rules: input.rules,
    results: [...o.sources, notJudgedSource(o, input.rules)],
    errors: o.errors,
    // Traffic judges what it shows; the gate on how much it showed is --min-judged (passiveVerdict).
    acceptance: { accepted: { target: 'a passive judgement judges only what the traffic shows', 'not-run': 'idem' } },
  });
  const traffic = { source: input.source, exchanges: o.exchanges, clients: o.clients.length };
  return { ...report, run: { ...report.run, traffic } };
}

/** Client rules: the client's side of the contract, judged per client. */
export function isClientRule(id: string, rules: RuleIndex): boolean {
  const kind = rules.byId(id)?.kind as string | undefined;
  return kind === 'client' || passiveRuleIds().client.includes(id);
}

export interface PassiveVerdict {
  exitCode: 0 | 1 | 2 | 3;
  /** Rules the traffic judged (passed or failed), server and client. */
  judged: number;
  serverFailed: string[];
  clientFailed: string[];
}

/**
 * 2 when the judge broke, 1 when a rule of the scope `failOn` names failed, 3 when fewer than
 * `minJudged` rules were judged (no traffic reached the judge, or none of it counted), else 0.
 */
export function passiveVerdict(report: Report, rules: RuleIndex, failOn: FailOn, minJudged = 1): PassiveVerdict {
  const counts = (r: Report['rules'][number]) => !(r as { informational?: boolean }).informational;
  const failed = report.rules.filter((r) => r.verdict === 'failed' && counts(r)).map((r) => r.id);
  const judged = report.rules.filter((r) => (r.verdict === 'passed' || r.verdict === 'failed') && counts(r)).length;
  const clientFailed = failed.filter((id) => isClientRule(id, rules));
  const serverFailed = failed.filter((id) => !clientFailed.includes(id));
  const counted = failOn === 'server' ? serverFailed : failOn === 'client' ? clientFailed : failed;
  // Traffic that judged (almost) nothing proves nothing: a gate must not pass on it.
  const exitCode = report.errors.length ? 2 : counted.length ? 1 : judged < minJudged ? 3 : 0;
  return { exitCode, judged, serverFailed, clientFailed };
}

/** The report says what the process exits with: the verdict `--fail-on` and `--min-judged` give. */
export function withPassiveGate(report: Report, v: PassiveVerdict): Report {
  return { ...report, summary: { ...report.summary, verdict: verdictOf(v.exitCode), exitCode: v.exitCode } };
}
