/** What `conform proxy` and `conform judge` share: flags, the reports and the closing lines. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from './command.ts';
import { PACKAGE_ROOT } from '../engine/runner/index.ts';
import { paint, type OutputStyle } from '../engine/runner/progress.ts';
import { writeReports, type Report } from '../engine/reporters/index.ts';
import { summaryLines } from '../engine/reporters/console.ts';
import type { RuleIndex } from '../contract/rules.ts';
import type { PassiveOutcome } from '../passive/judge.ts';
import {
  buildPassiveReport,
  newPassiveRunId,
  passiveVerdict,
  withPassiveGate,
  type FailOn,
} from '../passive/report.ts';

export interface ParsedArgs {
  values: Map<string, string>;
  flags: Set<string>;
  positional: string[];
}

/** `--name value`, `--name=value`, boolean flags, positionals; anything else is a usage error. */
export function parseArgs(
  argv: string[],
  valueFlags: readonly string[],
  booleanFlags: readonly string[],
  command: string,
): ParsedArgs {
  const out: ParsedArgs = { values: new Map(), flags: new Set(), positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (valueFlags.includes(name)) {
      const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined || (eq < 0 && v.startsWith('--'))) throw new CliError(`${name} needs a value`);
      out.values.set(name, v);
    } else if (booleanFlags.includes(name) && eq < 0) out.flags.add(name);
    else if (!arg.startsWith('-')) out.positional.push(arg);
    else throw new CliError(`unknown option '${arg}'. Run 'conform ${command} --help'.`);
  }
  return out;
}

export function parseMinJudged(v: string | undefined): number {
  if (v === undefined) return 1;
  if (!/^\d+$/.test(v)) throw new CliError(`--min-judged must be a whole number, got '${v}'`);
  return Number(v);
}

export function parseFailOn(v: string | undefined): FailOn {
  if (v === undefined) return 'both';
  if (v !== 'server' && v !== 'client' && v !== 'both')
    throw new CliError(`--fail-on must be server, client or both, got '${v}'`);
  return v;
}

/** `10m`, `90s`, `1h`, `500ms`, or seconds. */
export function parseDuration(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m || Number(m[1]) <= 0)
    throw new CliError(`--duration must be a positive time such as 30s, 10m or 1h, got '${v}'`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

export function parseBaseUrl(flag: string, v: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new CliError(`${flag} must be an http(s) URL, got '${v}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new CliError(`${flag} must be an http(s) URL, got '${v}'`);
  if (u.search || u.hash) throw new CliError(`${flag} must not carry a query or fragment, got '${v}'`);
  return u.href.replace(/\/$/, '');
}

export function toolVersion(): string {
  try {
    return JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export interface Finish {
  outcome: PassiveOutcome;
  rules: RuleIndex;
  baseUrl: string;
  source: string;
  kind: 'proxy' | 'judge';
  reportDir?: string;
  failOn: FailOn;
  /** Fewer rules judged than this: exit 3 (default 1). */
  minJudged?: number;
  specVersion?: string;
  style: OutputStyle;
}

/** Writes the four reports, prints the closing lines, returns the exit code. */
export async function finishPassive(f: Finish): Promise<{ exitCode: number; report: Report; dir: string }> {
  const runId = newPassiveRunId(f.kind);
  const built = buildPassiveReport({
    outcome: f.outcome,
    rules: f.rules,
    baseUrl: f.baseUrl,
    source: f.source,
    toolVersion: toolVersion(),
    specVersion: f.specVersion,
    runId,
  });
  const minJudged = f.minJudged ?? 1;
  const v = passiveVerdict(built, f.rules, f.failOn, minJudged);
  const report = withPassiveGate(built, v);
  const dir = resolve(f.reportDir ?? join('reports', runId));
  await writeReports(report, dir);
  const o = f.outcome;
  const { style } = f;
  const unjudged = o.unjudgedExchanges
    ? `, ${o.unjudgedExchanges} on operations the document does not show (not judged)`
    : '';
  style.write(`${o.exchanges} exchanges from ${o.clients.length} client(s)${unjudged}`);
  // The same verdict, headline and order as every report and as conform run.
  for (const line of summaryLines(style, report)) style.write(line);
  if (v.exitCode === 3)
    style.write(
      paint(
        style,
        'red',
        o.exchanges
          ? `fewer than ${minJudged} rule(s) judged (--min-judged): the traffic did not reach enough of the interface to gate on`
          : f.kind === 'proxy'
            ? 'no exchange was judged: no client sent its requests through the proxy (point the clients at its URL)'
            : 'no exchange of the recording was judged',
      ),
    );
  if (v.serverFailed.length) style.write(paint(style, 'red', `server rules failed: ${v.serverFailed.join(', ')}`));
  if (v.clientFailed.length) {
    const clients = o.sources
      .filter((s) => s.suite === 'clients' && s.state === 'failed')
      .map((s) => s.title.replace(/^client /, ''));
    style.write(
      paint(style, 'red', `client rules failed: ${v.clientFailed.join(', ')} (clients ${clients.join(', ')})`),
    );
  }
  style.write(`reports: ${dir}/{report.json,junit.xml,report.html,summary.md}`);
  style.write(`exit ${v.exitCode} (--fail-on ${f.failOn})`);
  return { exitCode: v.exitCode, report, dir };
}
