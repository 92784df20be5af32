/**
 * npm run bench:proxy — what `conform proxy` adds to each exchange, and the memory it holds.
 *
 * `conform serve` and the proxy (proxy-child.ts: the engine call `conform proxy` makes, with
 * the CLI's V8 flags) run as child processes. This process sends a fixed rate of requests
 * (open loop: one every 1/rate s whatever the answers do) for BENCH_DURATION seconds straight
 * to the reference, then the same through the proxy, alternating for BENCH_ROUNDS rounds
 * (after BENCH_WARMUP seconds each way, not measured).
 * Traffic: 80 % GET /v0/customers/{id}, 20 % PATCH /v0/customers/{id} (the judge keeps
 * state for later reads).
 *
 * The figure for the goal is paired, per exchange: what the client waited minus what the
 * proxy waited on the reference for that same exchange (matched by an x-bench-seq header).
 * It holds everything the proxy adds (two loopback hops, queueing in its event loop behind
 * judging, its own work) and leaves out how slow the reference was at that moment. Also
 * printed: each round's percentiles per path and their difference (proxy minus direct),
 * which on a small machine mostly shows the three processes sharing the CPU; the proxy's own
 * time per exchange; its resident memory sampled every 5 s and its peak; what it judged.
 * BENCH_JUDGE=off runs the proxy without its judge (the hop alone).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const RATE = Number(process.env.BENCH_RATE ?? 500);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Seconds of traffic each way before measuring (JIT, connection pools, the judge's caches). */
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3);
const CUSTOMERS = 200;
const KEY = 'sk_test_conform_bench_proxy_key';
const BIN = fileURLToPath(new URL('../bin/conform.js', import.meta.url));
const PROXY_CHILD = fileURLToPath(new URL('./proxy-child.ts', import.meta.url));
/** The V8 flags bin/conform.js's shebang gives `conform proxy`. */
const CLI_FLAGS = (/^#!.*\bnode\b(.*)$/m.exec(readFileSync(BIN, 'utf8'))?.[1] ?? '')
  .split(/\s+/)
  .filter((f) => f.startsWith('--'));

function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; url: string }> {
  const argv =
    args[0] === 'proxy-child' ? [...CLI_FLAGS, '--import', 'tsx', PROXY_CHILD, ...args.slice(1)] : [BIN, ...args];
  const child = spawn(process.execPath, argv, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = ready.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`conform ${args[0]} exited (${code}) before it was ready:\n${out}`)));
  });
}

function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

interface Round {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  sent: number;
  failed: number;
  /** Each request's latency, by its index in the round. */
  latencies: Float64Array;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Open loop at RATE req/s for DURATION_S: each request starts on its schedule, answered or not.
 * Enough connections that no request waits for one, even while the reference stalls.
 */
async function load(base: string, ids: string[], seconds = DURATION_S, tag?: string): Promise<Round> {
  const pool = new Pool(base, { connections: 256, pipelining: 1, keepAliveTimeout: 10_000 });
  const total = Math.round(RATE * seconds);
  const latencies = new Float64Array(total);
  let failed = 0;
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const id = ids[i % ids.length];
    const patch = i % 5 === 4;
    const sent = performance.now();
    pending.push(
      pool
        .request({
          method: patch ? 'PATCH' : 'GET',
          path: `/v0/customers/${id}`,
          headers: {
            authorization: `Bearer ${KEY}`,
            ...(tag ? { 'x-bench-seq': `${tag}:${i}` } : {}),
            ...(patch ? { 'content-type': 'application/json' } : {}),
          },
          ...(patch
            ? { body: JSON.stringify({ taxRates: i % 100, notificationSettings: { invoicePaid: i % 2 === 0 } }) }
            : {}),
        })
        .then(async (res) => {
          await res.body.dump();
          latencies[i] = performance.now() - sent;
          if (res.statusCode >= 300) failed += 1;
        })
        .catch(() => {
          latencies[i] = performance.now() - sent;
          failed += 1;
        }),
    );
  }
  await Promise.all(pending);
  await pool.close();
  const sorted = latencies.slice().sort();
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
    sent: total,
    failed,
    latencies,
  };
}

const ms = (n: number) => n.toFixed(2);
/** monitorEventLoopDelay records each tick of its timer: nanoseconds, the 1 ms interval included. */
const beyondTimer = (ns: number) => Math.max(0, ns / 1e6 - 1);

/** Per exchange through the proxy: the client's latency minus the proxy's wait on the reference. */
function pairedAdded(rounds: Round[], upstream: Record<string, number>) {
  const all: number[] = [];
  const perRound: number[] = [];
  let unmatched = 0;
  rounds.forEach((r, k) => {
    const xs: number[] = [];
    r.latencies.forEach((latency, i) => {
      const waited = upstream[`r${k + 1}:${i}`];
      if (waited === undefined) unmatched += 1;
      else xs.push(latency - waited);
    });
    xs.sort((a, b) => a - b);
    perRound.push(percentile(Float64Array.from(xs), 99));
    all.push(...xs);
  });
  const sorted = Float64Array.from(all.sort((a, b) => a - b));
  return {
    n: all.length,
    unmatched,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
    rounds: perRound,
  };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'conform-bench-proxy-'));
  const server = await start(['serve', '--port', '0', '--api-key', KEY], /listening on (http:\/\/\S+)/);
  let proxy: { child: ChildProcess; url: string } | undefined;
  try {
    const ids: string[] = [];
    const pool = new Pool(server.url);
    for (let i = 0; i < CUSTOMERS; i++) {
      const res = await pool.request({
        method: 'POST',
        path: '/v0/customers',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Bench ${i}` }),
      });
      ids.push(((await res.body.json()) as { id: string }).id);
    }
    await pool.close();
    proxy = await start(['proxy-child', server.url], /ready (http:\/\/\S+)/);
    const pid = proxy.child.pid!;
    const samples: string[] = [];
    const t0 = performance.now();
    const sampler = setInterval(
      () => samples.push(`${Math.round((performance.now() - t0) / 1000)} s: ${memoryMb(pid).rss.toFixed(0)} MB`),
      5000,
    );
    console.log(
      `reference ${server.url}, proxy ${proxy.url}; ${RATE} req/s for ${DURATION_S} s per run, ${ROUNDS} rounds (80 % GET, 20 % PATCH of ${CUSTOMERS} customers)` +
        `${process.env.BENCH_JUDGE === 'off' ? '; forwarding only, no judging (BENCH_JUDGE=off)' : ''}\n`,
    );
    console.log('| round | path | p50 ms | p90 ms | p99 ms | max ms | non-2xx |');
    console.log('|---|---|---:|---:|---:|---:|---:|');
    const added: Array<{ p50: number; p99: number }> = [];
    const throughRounds: Round[] = [];
    // The load generator's own event-loop delay while it drives the proxy: it is in the paired figure too.
    const clientDelays: Array<{ p99: number; max: number }> = [];
    if (WARMUP_S > 0) {
      await load(server.url, ids, WARMUP_S);
      await load(proxy.url, ids, WARMUP_S);
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const direct = await load(server.url, ids);
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const through = await load(proxy.url, ids, DURATION_S, `r${round}`);
      delay.disable();
      clientDelays.push({ p99: beyondTimer(delay.percentile(99)), max: beyondTimer(delay.max) });
      throughRounds.push(through);
      for (const [name, r] of [
        ['direct', direct],
        ['proxy', through],
      ] as const)
        console.log(`| ${round} | ${name} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.failed} |`);
      added.push({ p50: through.p50 - direct.p50, p99: through.p99 - direct.p99 });
    }
    clearInterval(sampler);
    const mem = memoryMb(pid);
    let last = '';
    proxy.child.stdout!.on('data', (d) => (last += d));
    proxy.child.kill('SIGTERM');
    // 'close', not 'exit': the last line (every exchange's timing) may still be in the pipe at exit.
    await new Promise((r) => proxy!.child.once('close', r));
    const judged = JSON.parse(last.trim().split('\n').pop()!) as {
      exchanges: number;
      overhead: Record<'p50' | 'p90' | 'p99' | 'max', number>;
      upstream: Record<string, number>;
      loopDelayNs: Record<'p50' | 'p99' | 'max', number>;
      judged: number;
      serverFailed: string[];
      errors: number;
    };
    const paired = pairedAdded(throughRounds, judged.upstream);
    console.log(
      `\nadded per exchange (paired: client's wait minus the proxy's wait on the reference; ${paired.n} exchanges, ${paired.unmatched} unmatched): ` +
        `p50 ${ms(paired.p50)} ms, p90 ${ms(paired.p90)} ms, **p99 ${ms(paired.p99)} ms**, max ${ms(paired.max)} ms; per round p99 ${paired.rounds.map(ms).join(', ')} ms`,
    );
    const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(
      `path against path (proxy minus direct), median of ${ROUNDS} rounds: p50 ${ms(median(added.map((a) => a.p50)))} ms, p99 ${ms(median(added.map((a) => a.p99)))} ms`,
    );
    console.log(`per round: ${added.map((a, i) => `${i + 1}: p50 +${ms(a.p50)}, p99 +${ms(a.p99)}`).join('; ')}`);
    console.log(
      `proxy memory: RSS ${mem.rss.toFixed(0)} MB at the end, peak ${mem.peak.toFixed(0)} MB; samples ${samples.join(', ')}`,
    );
    const o = judged.overhead;
    console.log(
      `time inside the proxy per exchange (${judged.exchanges} exchanges): p50 ${ms(o.p50)} ms, p90 ${ms(o.p90)} ms, p99 ${ms(o.p99)} ms, max ${ms(o.max)} ms`,
    );
    const d = judged.loopDelayNs;
    console.log(
      `event-loop delay beyond its 1 ms timer: proxy p50 ${ms(beyondTimer(d.p50))} ms, p99 ${ms(beyondTimer(d.p99))} ms, max ${ms(beyondTimer(d.max))} ms (whole run); ` +
        `load generator per round p99 ${clientDelays.map((c) => ms(c.p99)).join(', ')} ms, max ${clientDelays.map((c) => ms(c.max)).join(', ')} ms`,
    );
    console.log(
      `judged ${judged.judged} rules; server rules failed: ${judged.serverFailed.join(', ') || 'none'}; engine errors ${judged.errors}`,
    );
  } finally {
    if (proxy && proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
    server.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
