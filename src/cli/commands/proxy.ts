/**
 * `conform proxy`: a reverse proxy in front of a target that judges every exchange going
 * through it, and the clients that send them, until stopped (SIGINT, SIGTERM, --duration);
 * then writes the four reports.
 */
import { resolve } from 'node:path';
import { CliError, wantsHelp, type Command } from '../command.ts';
import { commandName, named } from '../../engine/messages/command-name.ts';
import { outputStyle } from '../../engine/runner/progress.ts';
import { startPassiveProxy } from '../../passive/session.ts';
import {
  finishPassive,
  parseArgs,
  parseBaseUrl,
  parseDuration,
  parseFailOn,
  parseMinJudged,
  toolVersion,
} from '../passive.ts';

export const usage = `Usage: conform proxy --target URL [options]

A reverse proxy in front of the target. Point your clients (integration tests, SDK test
suite, staging app) at it: every exchange is forwarded unchanged and judged with the
checks of \`conform run\` and the passive rules (rate-limit counting per bucket,
delete-blocker bodies, version-migration answers, PATCH semantics against later reads),
and every client (by a hash of its API key, never the key) against the retry rule and
the documented request constraints. On SIGINT, SIGTERM or --duration it writes
report.json, junit.xml, report.html and summary.md; rules no exchange touched are not
judged.

Options:
  --target URL            the target's base URL (required)
  --port N                port to listen on (default 4011)
  --host ADDR             address to listen on (default 127.0.0.1)
  --duration TIME         stop by itself after TIME (30s, 10m, 1h)
  --report-dir DIR        where the reports go (default reports/<run-id>)
  --har FILE              also record the traffic, keys replaced by client ids, as HAR
                          (judge it again later with conform judge)
  --fail-on server|client|both
                          which failed rules make the exit code 1 (default both)
  --min-judged N          exit 3 when fewer than N rules were judged (default 1: traffic
                          that judged nothing never passes the gate)
  --plain                 plain output (automatic when CI=true or not a TTY)
  -h, --help              this help

Exit codes: 0 no failed rule of the --fail-on scope, 1 one failed, 2 could not run, 3 fewer
than --min-judged rules judged (no failure).`;

function parsePort(v: string | undefined): number {
  if (v === undefined) return 4011;
  if (!/^\d{1,5}$/.test(v) || Number(v) > 65535)
    throw new CliError(`--port must be a port number (0-65535), got '${v}'`);
  return Number(v);
}

/** Resolves on the first SIGINT/SIGTERM or when `ms` elapse. */
function stopSignal(ms: number | undefined): { wait: Promise<string>; dispose(): void } {
  let done: (why: string) => void = () => undefined;
  const wait = new Promise<string>((r) => (done = r));
  const onInt = () => done('SIGINT');
  const onTerm = () => done('SIGTERM');
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  const timer = ms === undefined ? undefined : setTimeout(() => done(`--duration ${ms / 1000} s`), ms);
  return {
    wait,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      if (timer) clearTimeout(timer);
    },
  };
}

const command: Command = {
  name: 'proxy',
  summary: 'Judge live traffic: a reverse proxy in front of a target that judges it and its clients',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    const args = parseArgs(
      argv,
      ['--target', '--port', '--host', '--duration', '--report-dir', '--har', '--fail-on', '--min-judged'],
      ['--plain'],
      'proxy',
    );
    if (args.positional.length)
      throw new CliError(`unexpected argument '${args.positional[0]}'. Run 'conform proxy --help'.`);
    const given = args.values.get('--target');
    if (given === undefined)
      throw new CliError('--target URL is required: the base URL of the API to put the proxy in front of');
    const target = parseBaseUrl('--target', given);
    const port = parsePort(args.values.get('--port'));
    const durationMs = parseDuration(args.values.get('--duration'));
    const failOn = parseFailOn(args.values.get('--fail-on'));
    const minJudged = parseMinJudged(args.values.get('--min-judged'));
    const harPath = args.values.get('--har');
    const style = outputStyle({ plain: args.flags.has('--plain') });
    const stop = stopSignal(durationMs);
    let proxy;
    try {
      proxy = await startPassiveProxy({
        target,
        host: args.values.get('--host') ?? '127.0.0.1',
        port,
        harPath: harPath && resolve(harPath),
        toolVersion: toolVersion(),
      });
    } catch (err) {
      stop.dispose();
      const e = err as NodeJS.ErrnoException;
      if (e?.code === 'EADDRINUSE') throw new CliError(`port ${port} is in use; choose another with --port`);
      if (e?.code === 'EACCES' || e?.code === 'EADDRNOTAVAIL')
        throw new CliError(`cannot listen on ${args.values.get('--host') ?? '127.0.0.1'}:${port} (${e.code})`);
      throw new CliError(`the proxy could not start: ${String(e?.message ?? err).split('\n')[0]}`);
    }
    const recording = harPath ? `, recording to ${harPath}` : '';
    const orAfter = durationMs ? ` (or after ${args.values.get('--duration')})` : '';
    style.write(
      `${commandName()} proxy: ${proxy.url} → ${target}; judging every exchange${recording}. ` +
        `Stop with Ctrl-C or SIGTERM${orAfter} to write the reports.`,
    );
    const why = await stop.wait;
    stop.dispose();
    style.write(`stopping (${why}): letting exchanges in flight finish`);
    const outcome = await proxy.stop();
    const { loadRules, loadSpec } = await import('../../contract/index.ts');
    const [rules, spec] = await Promise.all([loadRules(), loadSpec()]);
    const { exitCode } = await finishPassive({
      outcome,
      rules,
      baseUrl: target,
      source: 'live traffic through conform proxy',
      kind: 'proxy',
      reportDir: args.values.get('--report-dir'),
      failOn,
      minJudged,
      specVersion: spec.version,
      style,
    });
    if (harPath) style.write(`traffic recorded: ${resolve(harPath)}`);
    return exitCode;
  },
};

export default command;
