/**
 * npm run bench:slow-clients — the reference server's memory before, during and after many
 * clients that send half a body and stall, and whether it keeps answering other clients
 * meanwhile. Starts `conform serve` (in memory, default limits) in a child process and
 * reads its RSS from /proc. Each slow client declares SLOW_DECLARED bytes (default
 * 1,000,000) and sends SLOW_SENT (default 100,000); the server must cut them off (408 once
 * its request timeout passes, 503 past its budget for bodies in flight) and give the memory
 * back. Loopback only; bounded: SLOW_CLIENTS connections (default 1,000), and it waits at
 * most SLOW_WAIT_S seconds (default 90) for the server to close them.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

const CLIENTS = Number(process.env.SLOW_CLIENTS ?? 1000);
const DECLARED = Number(process.env.SLOW_DECLARED ?? 1_000_000);
const SENT = Number(process.env.SLOW_SENT ?? 100_000);
const WAIT_S = Number(process.env.SLOW_WAIT_S ?? 90);
const KEY = 'sk_test_conform_reference';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

interface SlowClient {
  socket: Socket;
  /** What the server wrote before it closed the connection. */
  closed: Promise<string>;
  isClosed: () => boolean;
}

function slowClient(port: number): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    let done = false;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /v0/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${DECLARED}\r\n\r\n`,
      );
      socket.write(`{"name":"${'x'.repeat(Math.max(0, SENT - 9))}`);
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      const closed = new Promise<string>((ok) => socket.on('close', () => ((done = true), ok(answer))));
      resolve({ socket, closed, isClosed: () => done });
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

async function timed(
  url: string,
  init: Parameters<typeof request>[1],
): Promise<{ status: number | string; ms: number }> {
  const t = performance.now();
  try {
    const res = await request(url, { ...init, headersTimeout: 10_000, bodyTimeout: 10_000 });
    await res.body.text();
    return { status: res.statusCode, ms: performance.now() - t };
  } catch (err) {
    return { status: (err as { code?: string }).code ?? 'error', ms: performance.now() - t };
  }
}

async function main(): Promise<void> {
  const bin = fileURLToPath(new URL('../bin/conform.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CONFORM_API_KEY: KEY },
  });
  const serverLines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => serverLines.push(l));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`conform serve exited (${code}) before it was ready`)));
  });
  const [, baseUrl, merchantId] = /listening on (\S+) \(sandbox merchant (\S+)\)/.exec(line) ?? [];
  const port = Number(new URL(baseUrl).port);
  const pid = child.pid!;
  const auth = { authorization: `Bearer ${KEY}` };
  try {
    // Warm: a few whole requests, then let the heap settle.
    for (let i = 0; i < 20; i++) await timed(`${baseUrl}/v0/merchants/${merchantId}`, { headers: auth });
    await sleep(3000);
    const idle = rssOf(pid);
    console.log(`conform serve on ${baseUrl}; load average ${loadavg()[0].toFixed(1)}; idle RSS ${idle.toFixed(0)} MB`);

    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 200);
    const t0 = performance.now();
    const clients: SlowClient[] = [];
    for (let i = 0; i < CLIENTS; i += 50) {
      const batch = await Promise.allSettled(Array.from({ length: Math.min(50, CLIENTS - i) }, () => slowClient(port)));
      for (const b of batch) if (b.status === 'fulfilled') clients.push(b.value);
    }
    const opened = performance.now() - t0;
    const heldAtOpen = clients.filter((c) => !c.isClosed()).length;
    console.log(
      `${clients.length} slow clients connected in ${(opened / 1000).toFixed(1)} s (each declared ${DECLARED} bytes, sent ${SENT}); ${heldAtOpen} still open`,
    );

    // Other clients meanwhile: reads on fresh connections, and a small write (its body needs the budget).
    const reads = [];
    for (let i = 0; i < 20; i++) reads.push(await timed(`${baseUrl}/v0/merchants/${merchantId}`, { headers: auth }));
    const write = await timed(`${baseUrl}/v0/customers`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'meanwhile' }),
    });
    const heldDuring = clients.filter((c) => !c.isClosed()).length;
    const during = rssOf(pid);
    const readStatuses = [...new Set(reads.map((r) => r.status))].join('/');
    console.log(
      `meanwhile, with ${heldDuring} slow clients open: 20 GET answered ${readStatuses}, slowest ${Math.max(...reads.map((r) => r.ms)).toFixed(0)} ms; a POST answered ${write.status} in ${write.ms.toFixed(0)} ms; RSS ${during.toFixed(0)} MB`,
    );

    const all = Promise.all(clients.map((c) => c.closed));
    let giveUp: NodeJS.Timeout | undefined;
    const answers = await Promise.race([
      all,
      new Promise<undefined>((r) => (giveUp = setTimeout(() => r(undefined), WAIT_S * 1000))),
    ]);
    clearTimeout(giveUp);
    const closedAfter = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const stillOpen = clients.filter((c) => !c.isClosed()).length;
    const statuses = new Map<string, number>();
    for (const a of answers ?? []) {
      const s = /^HTTP\/1\.1 (\d{3})/.exec(a)?.[1] ?? 'closed without an answer';
      statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
    console.log(
      stillOpen
        ? `${stillOpen} slow clients still open after ${WAIT_S} s`
        : `the server closed all ${clients.length} by ${closedAfter.toFixed(1)} s: ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}`,
    );
    for (const c of clients) c.socket.destroy();

    await sleep(5000);
    const after5 = rssOf(pid);
    await sleep(10_000);
    const after15 = rssOf(pid);
    const after = await timed(`${baseUrl}/v0/customers`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'after' }),
    });
    console.log(`after: a POST answered ${after.status}; load average ${loadavg()[0].toFixed(1)}\n`);
    console.log('| server RSS | MB |\n|---|---|');
    console.log(`| idle | ${idle.toFixed(0)} |`);
    console.log(`| peak with ${clients.length} slow clients | ${peak.toFixed(0)} |`);
    console.log(`| 5 s after they were closed | ${after5.toFixed(0)} |`);
    console.log(`| 15 s after | ${after15.toFixed(0)} |`);
    if (serverLines.length)
      console.log(`\nserver stderr: ${serverLines.length} line(s), e.g. ${serverLines[0].slice(0, 200)}`);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

await main();
