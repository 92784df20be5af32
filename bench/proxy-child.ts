/**
 * The proxy side of npm run bench:proxy: `conform proxy`'s engine (the same call the CLI
 * makes) in its own process, also timing each exchange: the proxy's own time (its whole time
 * minus the target's part) and the time it waited on the target, keyed by the bench's
 * x-bench-seq request header. On SIGTERM it stops, judges, and prints one JSON line.
 * BENCH_JUDGE=off forwards without judging: what the hop alone costs on this machine.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startPassiveProxy } from '../src/passive/session.ts';
import type { PassiveOutcome } from '../src/passive/judge.ts';
import { startTrafficProxy, type ExchangeTiming } from '../src/passive/traffic/recording-proxy.ts';

const target = process.argv[2];
/** How long ready events (a new request, an answer from the target) wait for the event loop. */
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
const overheads: number[] = [];
const upstream: Record<string, number> = {};
const onTiming = (t: ExchangeTiming) => {
  overheads.push(t.ownMs);
  const seq = t.requestHeaders['x-bench-seq'];
  if (seq) upstream[seq] = t.upstreamMs;
};
const forwardOnly = process.env.BENCH_JUDGE === 'off';
let forwarded = 0;
const proxy = forwardOnly
  ? await startTrafficProxy({ target, onTiming, onRecord: () => void (forwarded += 1) }).then((p) => ({
      url: p.url,
      stop: async (): Promise<PassiveOutcome> => {
        await p.close();
        return {
          sources: [],
          errors: [],
          exchanges: forwarded,
          unjudgedExchanges: 0,
          clients: [],
          startedAt: '',
          durationMs: 0,
        };
      },
    }))
  : await startPassiveProxy({ target, onTiming });
loopDelay.enable();
process.stdout.write(`ready ${proxy.url}\n`);
process.once('SIGTERM', () => {
  void proxy.stop().then((outcome) => {
    const sorted = overheads.slice().sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
    const judged = new Set(outcome.sources.flatMap((s) => Object.keys(s.judged)));
    const failed = new Set(outcome.sources.filter((s) => s.suite === 'traffic').flatMap((s) => Object.keys(s.failed)));
    process.stdout.write(
      `${JSON.stringify({ exchanges: outcome.exchanges, overhead: { p50: at(50), p90: at(90), p99: at(99), max: at(100) }, loopDelayNs: { p50: loopDelay.percentile(50), p99: loopDelay.percentile(99), max: loopDelay.max }, upstream, judged: judged.size, serverFailed: [...failed], errors: outcome.errors.length })}\n`,
      // Exit once the line (every exchange's timing, a few hundred kB) is out of the pipe.
      () => process.exit(0),
    );
  });
});
