/**
 * npm run fuzz:server — sends generated requests to every operation of a reference server
 * and prints how many were answered with a 5xx, the slowest answer and the server's peak
 * memory. The requests are those of the fuzz test (test/reference/fuzz/requests.ts): valid
 * ones, ones breaking one documented constraint, and valid ones with one field given a
 * hostile value, path ids mostly of resources seeded first.
 *
 * Starts `conform serve` in a child process (in memory unless --database, rate limits
 * raised), or fuzzes --base-url (loopback only; key from CONFORM_API_KEY; --merchant-id
 * names the key's merchant; --server-pid lets it read that server's memory).
 * Bounded: --requests (default 100,000), --concurrency connections (default 4).
 * Exit 1 when any answer was a 5xx. Seeded (--seed): a rerun sends the same requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { Pool } from 'undici';
import { deriveSeed } from '../src/engine/generators/index.ts';
import { loadSpec } from '../src/contract/index.ts';
import { curlOf, fuzzOrder, fuzzRequests, seedResources, type FuzzRequest } from '../test/reference/fuzz/requests.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    'base-url': { type: 'string' },
    'merchant-id': { type: 'string' },
    'server-pid': { type: 'string' },
    database: { type: 'string' },
  },
});
const TOTAL = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const SEED = Number(args.seed);
const DEFAULT_KEY = 'sk_test_conform_reference';

function fail(message: string): never {
  console.error(`fuzz:server: ${message}`);
  process.exit(2);
}
if (!Number.isInteger(TOTAL) || TOTAL < 1 || TOTAL > 1_000_000) fail('--requests must be an integer in 1..1,000,000');
if (!Number.isInteger(CONCURRENCY) || CONCURRENCY < 1 || CONCURRENCY > 64)
  fail('--concurrency must be an integer in 1..64');
if (!Number.isInteger(SEED)) fail('--seed must be an integer');

const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

interface Target {
  baseUrl: string;
  apiKey: string;
  merchantId: string;
  pid?: number;
  child?: ChildProcess;
  /** Lines the server wrote on stderr (its one line per 5xx). */
  stderr: string[];
}

async function startServer(): Promise<Target> {
  const bin = fileURLToPath(new URL('../bin/conform.js', import.meta.url));
  const spec = await loadSpec();
  const raised = [...spec.operations.values()]
    .filter((op) => op.rateLimit)
    .flatMap((op) => ['--rate-limit', `${op.operationId}=1000000000`]);
  // The key goes through the environment: a command line is visible to every user of the machine.
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', ...(args.database ? ['--database', args.database] : []), ...raised],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CONFORM_API_KEY: process.env.CONFORM_API_KEY ?? DEFAULT_KEY },
    },
  );
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (!line.includes('npm warn')) stderr.push(line);
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`conform serve exited (${code}) before it was ready: ${stderr.join(' | ')}`)),
    );
  });
  const m = /listening on (\S+) \(sandbox merchant (\S+)\)/.exec(line);
  if (!m) throw new Error(`unexpected first line of conform serve: ${line}`);
  return {
    baseUrl: m[1],
    merchantId: m[2],
    apiKey: process.env.CONFORM_API_KEY ?? DEFAULT_KEY,
    pid: child.pid,
    child,
    stderr,
  };
}

function externalTarget(): Target {
  const baseUrl = args['base-url']!;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    fail(`--base-url '${baseUrl}' is not a URL`);
  }
  if (!isLoopback(url.hostname))
    fail(`--base-url must be a loopback address (127.0.0.0/8, localhost, [::1]), not ${url.hostname}`);
  if (!args['merchant-id'])
    fail('--merchant-id is required with --base-url (the merchant of the key; conform serve prints it)');
  const apiKey = process.env.CONFORM_API_KEY;
  if (!apiKey)
    fail("set CONFORM_API_KEY to the target's key (a key on the command line is visible to every user of the machine)");
  return {
    baseUrl,
    apiKey,
    merchantId: args['merchant-id']!,
    pid: args['server-pid'] ? Number(args['server-pid']) : undefined,
    stderr: [],
  };
}

interface Slowest {
  ms: number;
  request?: FuzzRequest;
  status?: number;
}

async function main(): Promise<void> {
  const spec = await loadSpec();
  const load0 = loadavg()[0];
  const target = args['base-url'] ? externalTarget() : await startServer();
  const pool = new Pool(target.baseUrl, { connections: CONCURRENCY, pipelining: 1 });
  const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
  let peakSampled = 0;
  const sampler = setInterval(() => {
    const m = target.pid ? memoryOf(target.pid) : undefined;
    if (m) peakSampled = Math.max(peakSampled, m.rss);
  }, 200);
  try {
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await pool.request({
        method: method as 'GET',
        path: url,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    };
    const ids = await seedResources(call, target.merchantId);
    const idle = target.pid ? memoryOf(target.pid) : undefined;
    console.log(
      `target ${target.baseUrl}${target.child ? ' (conform serve, started here)' : ''}; ${TOTAL} requests over ${spec.operations.size} operations, seed ${SEED}, ${CONCURRENCY} connections; load average ${load0.toFixed(1)}`,
    );
    if (idle) console.log(`server RSS after seeding: ${idle.rss.toFixed(0)} MB`);

    const operations = fuzzOrder(spec);
    const byStatus = new Map<number, number>();
    const serverErrors: string[] = [];
    let transportErrors = 0;
    let sent = 0;
    const slowest: Slowest = { ms: 0 };
    const t0 = performance.now();
    for (const [i, op] of operations.entries()) {
      const count = Math.floor((TOTAL * (i + 1)) / operations.length) - Math.floor((TOTAL * i) / operations.length);
      if (count === 0) continue;
      const batch = fc.sample(fuzzRequests(spec, op, ids), { seed: deriveSeed(SEED, op.operationId), numRuns: count });
      let next = 0;
      const worker = async () => {
        while (next < batch.length) {
          const r = batch[next++];
          const start = performance.now();
          try {
            const res = await pool.request({
              method: r.method as 'GET',
              path: r.url,
              headers: r.payload === undefined ? { authorization: headers.authorization } : headers,
              body: r.payload,
            });
            const text = await res.body.text();
            const ms = performance.now() - start;
            byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
            if (ms > slowest.ms) Object.assign(slowest, { ms, request: r, status: res.statusCode });
            if (res.statusCode >= 500 && serverErrors.length < 10)
              serverErrors.push(`${res.statusCode} ${text.slice(0, 200)}\n    ${curlOf(target.baseUrl, r, 500)}`);
          } catch (err) {
            transportErrors++;
            if (transportErrors <= 5)
              console.log(`  transport error on ${r.method} ${r.url.slice(0, 120)}: ${(err as Error).message}`);
          }
          sent++;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      if (sent % 10_000 < count) console.log(`  ${sent} sent (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
    const seconds = (performance.now() - t0) / 1000;
    const end = target.pid ? memoryOf(target.pid) : undefined;
    const classes = (lo: number) =>
      [...byStatus].filter(([s]) => s >= lo && s < lo + 100).reduce((n, [, c]) => n + c, 0);
    const fivexx = classes(500);
    console.log(
      `\n${sent} requests in ${seconds.toFixed(1)} s (${(sent / seconds).toFixed(0)} req/s); load average ${load0.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`,
    );
    console.log(
      `answers: 2xx ${classes(200)}, 4xx ${classes(400)}, 5xx ${fivexx}, transport errors ${transportErrors}`,
    );
    console.log(
      `statuses: ${[...byStatus]
        .sort(([a], [b]) => a - b)
        .map(([s, c]) => `${s}: ${c}`)
        .join(', ')}`,
    );
    if (slowest.request)
      console.log(
        `slowest answer: ${slowest.ms.toFixed(0)} ms, ${slowest.status} to ${slowest.request.method} ${slowest.request.url.slice(0, 160)}${slowest.request.payload ? ` (${slowest.request.payload.length}-character body)` : ''}`,
      );
    if (end)
      console.log(
        `server memory (RSS): ${idle?.rss.toFixed(0)} MB after seeding, ${peakSampled.toFixed(0)} MB peak while fuzzed (sampled every 200 ms), ${end.rss.toFixed(0)} MB at the end; ${end.peak.toFixed(0)} MB peak over the process's life (VmHWM, boot included)`,
      );
    else console.log('server memory: not measured (give --server-pid for a server this script did not start)');
    if (target.child)
      console.log(
        `server stderr: ${target.stderr.length} line(s)${target.stderr.length ? `, first: ${target.stderr[0].slice(0, 300)}` : ''}`,
      );
    console.log(`5xx answers: ${fivexx}`);
    for (const e of serverErrors) console.log(`  ${e}`);
    process.exitCode = fivexx > 0 ? 1 : 0;
  } finally {
    clearInterval(sampler);
    await pool.close();
    if (target.child) {
      const exited = new Promise((resolve) => target.child!.once('exit', resolve));
      target.child.kill('SIGTERM');
      await exited;
    }
  }
}

await main();
