/**
 * npm run bench:restart — `conform serve --database file:DIR` killed with SIGKILL while it takes
 * writes, and restarted at once, BENCH_ROUNDS times (default 100). Each server runs under a
 * parent that does not reap it (test/reference/platform/unreaped-parent.mjs), so the killed
 * server is still a zombie when its successor starts, as under a supervisor slow to wait for
 * it. BENCH_WRITERS clients (default 4) create customers until the kill, 0.2-2 s after the
 * first write was acknowledged. Every
 * restart must listen, and every acknowledged write (201) must read back after it (GET by id,
 * same name). Every 10th restart starts three servers at once: exactly one may listen, the
 * others must be refused naming it. At the end all acknowledged writes are read once more and
 * the last server is stopped cleanly. Loopback only; exits 1 when a restart failed or a write
 * was lost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 4);
const KEY = 'sk_test_conform_reference';
const BIN = fileURLToPath(new URL('../bin/conform.js', import.meta.url));
const PARENT = fileURLToPath(new URL('../test/reference/platform/unreaped-parent.mjs', import.meta.url));
const START_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

interface Server {
  parent: ChildProcess;
  pid: number;
  /** Set once it listens. */
  baseUrl?: string;
  /** What it printed (refusals: one line on stderr). */
  output: string;
  startMs: number;
}

/** Starts a server under a non-reaping parent; resolves once it listens or has ended. */
async function start(dir: string): Promise<Server> {
  const t0 = performance.now();
  const parent = spawn(
    process.execPath,
    [PARENT, process.execPath, BIN, 'serve', '--port', '0', '--database', `file:${dir}`],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const s: Server = { parent, pid: 0, output: '', startMs: 0 };
  const onData = (chunk: Buffer) => (s.output += chunk.toString());
  parent.stdout!.on('data', onData);
  parent.stderr!.on('data', onData);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    s.pid ||= Number(/^child (\d+)$/m.exec(s.output)?.[1] ?? 0);
    const m = /listening on (http:\/\/\S+)/.exec(s.output);
    if (m) s.baseUrl = m[1];
    const state = s.pid ? procState(s.pid) : 'R';
    if (s.baseUrl || state === 'Z' || state === undefined) break;
    await sleep(20);
  }
  s.startMs = performance.now() - t0;
  return s;
}

/** Lets the parent reap its server (killed or refused) and exit. */
async function reap(s: Server): Promise<void> {
  if (s.parent.exitCode !== null) return;
  const exited = new Promise((r) => s.parent.once('exit', r));
  s.parent.stdin!.end('\n');
  await exited;
}

async function call(baseUrl: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const r = await request(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.statusCode, body: (await r.body.json()) as any };
}

interface Written {
  id: string;
  name: string;
}

/** Writers create customers until the server dies; resolves with the acknowledged ones. */
async function writeUntilKilled(s: Server, round: number): Promise<{ acked: Written[]; inFlight: number }> {
  const acked: Written[] = [];
  let inFlight = 0;
  let alive = true;
  const writer = async (w: number) => {
    for (let n = 0; alive; n++) {
      const name = `r${round} w${w} n${n}`;
      try {
        const r = await call(s.baseUrl!, 'POST', '/v0/customers', { name });
        if (r.status !== 201) throw new Error(`POST /v0/customers answered ${r.status}: ${JSON.stringify(r.body)}`);
        acked.push({ id: r.body.id, name });
      } catch (err) {
        if (alive) throw err;
        inFlight++; // sent, never acknowledged: the kill cut it
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  // Killed while writes flow: once the first is acknowledged, 0.2-2 s later.
  for (let i = 0; i < 3000 && acked.length === 0; i++) await sleep(10);
  await sleep(200 + Math.random() * 1800);
  alive = false;
  process.kill(s.pid, 'SIGKILL');
  await Promise.all(writers);
  // A zombie before its successor starts (its parent does not reap it).
  for (let i = 0; i < 100 && procState(s.pid) !== 'Z'; i++) await sleep(10);
  return { acked, inFlight };
}

async function readBack(baseUrl: string, written: Written[]): Promise<number> {
  let lost = 0;
  let next = 0;
  const reader = async () => {
    while (next < written.length) {
      const w = written[next++];
      const r = await call(baseUrl, 'GET', `/v0/customers/${w.id}`);
      if (r.status !== 200 || r.body.name !== w.name) lost++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, reader));
  return lost;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'conform-restart-'));
  const all: Written[] = [];
  const startTimes: number[] = [];
  let failed = 0;
  let lost = 0;
  let zombies = 0;
  let inFlight = 0;
  let threeAtOnce = 0;
  let server = await start(dir);
  if (!server.baseUrl) throw new Error(`the first server did not listen:\n${server.output}`);
  console.log(`${ROUNDS} rounds on ${dir}; ${WRITERS} writers; load average ${loadavg()[0].toFixed(1)}`);
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const { acked, inFlight: cut } = await writeUntilKilled(server, round);
      inFlight += cut;
      if (procState(server.pid) === 'Z') zombies++;
      const three = round % 10 === 0;
      const started = await Promise.all(Array.from({ length: three ? 3 : 1 }, () => start(dir)));
      const listening = started.filter((s) => s.baseUrl);
      const refusedOk = started
        .filter((s) => !s.baseUrl)
        .every((s) => listening.length === 1 && s.output.includes(`is in use by process ${listening[0].pid}`));
      await Promise.all([server, ...started.filter((s) => !s.baseUrl)].map(reap));
      if (three) threeAtOnce++;
      if (listening.length !== 1 || !refusedOk) {
        failed++;
        console.log(`round ${round}: ${listening.length} of ${started.length} listen`);
        started.forEach((s) => console.log(`  pid ${s.pid}: ${s.output.trim().split('\n').slice(-1)[0]}`));
        if (listening.length === 0) {
          // As a supervisor would: again, now that the predecessor was reaped.
          const again = await start(dir);
          if (!again.baseUrl) throw new Error(`no server listens, even once reaped: stopping\n${again.output}`);
          listening.push(again);
        }
        for (const extra of listening.slice(1)) {
          process.kill(extra.pid, 'SIGKILL');
          await reap(extra);
        }
      }
      server = listening[0];
      startTimes.push(server.startMs);
      const lostNow = await readBack(server.baseUrl!, acked);
      if (lostNow) console.log(`round ${round}: ${lostNow} of ${acked.length} acknowledged writes lost`);
      lost += lostNow;
      all.push(...acked);
      if (round % 10 === 0)
        console.log(
          `round ${round}: ${all.length} acknowledged writes so far; load average ${loadavg()[0].toFixed(1)}`,
        );
    }
    const lostAtEnd = await readBack(server.baseUrl!, all);
    server.parent.stdin!.end('\n'); // reaps the server once it stops
    process.kill(server.pid, 'SIGTERM');
    await new Promise((r) => server.parent.once('exit', r));
    const lockLeft = existsSync(join(dir, 'conform.lock'));
    console.log('\n| figure | value |\n|---|---|');
    console.log(
      `| restarts that listened at once | ${ROUNDS - failed} of ${ROUNDS} (${threeAtOnce} of them three at once) |`,
    );
    console.log(`| predecessor a zombie when its successor started | ${zombies} of ${ROUNDS} |`);
    console.log(
      `| start to listening, ms | p50 ${pct(startTimes, 0.5).toFixed(0)}, p95 ${pct(startTimes, 0.95).toFixed(0)}, max ${Math.max(...startTimes).toFixed(0)} |`,
    );
    console.log(`| acknowledged writes | ${all.length} (${inFlight} more cut by the kill, unacknowledged) |`);
    console.log(`| acknowledged writes lost | ${lost} after their restart, ${lostAtEnd} at the end |`);
    console.log(`| lock left after the last, clean stop | ${lockLeft ? 'yes' : 'no'} |`);
    console.log(`load average at the end ${loadavg()[0].toFixed(1)}`);
    process.exitCode = failed || lost || lostAtEnd || lockLeft ? 1 : 0;
  } finally {
    if (server.parent.exitCode === null) {
      process.kill(server.pid, 'SIGKILL');
      await reap(server);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
