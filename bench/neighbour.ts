/**
 * npm run bench:neighbour — does one merchant busy writing starve another merchant's reads?
 *
 * `conform serve` runs as its own process, on each store in turn (PostgreSQL, PGlite in memory,
 * PGlite in a directory). Through the API it makes two merchants with a key each, and seeds
 * customers for each (BENCH_CUSTOMERS, default 500). Then closed-loop clients (undici; each
 * sends its next request once the last is answered; latencies timed by the client) measure:
 *
 * - **B alone**: merchant B reads (GET /v0/customers/{id}) at BENCH_B_CONNECTIONS (10) for
 *   BENCH_DURATION seconds (10), after a 2 s warm-up;
 * - **A alone**: merchant A updates its customers (PATCH /v0/customers/{id}) at
 *   BENCH_A_CONNECTIONS (50), the same time;
 * - **B while A writes**: B's reads again, while A writes, started 1 s before B.
 *
 * A's load runs in a process of its own, so its client work does not delay B's clock. It
 * prints B's rate and p50 alone and beside A, their ratio, and A's write rate alone and beside
 * B. BENCH_B_RATE paces B's reads (requests per second in all) instead of as fast as answered.
 * With `--baseline <ref>` (or BENCH_BASELINE) the same runs of that commit alternate with this
 * checkout's, store by store, and print side by side: the commit's files are taken with
 * `git archive` into a directory beside this checkout (sharing node_modules), so the
 * repository itself is left as it is.
 *
 * PostgreSQL: DATABASE_URL when set (each server gets a schema of its own, dropped after),
 * otherwise a throwaway cluster started for the run (test/reference/platform/pg-cluster.ts);
 * skipped, saying why, when neither can be had. BENCH_STORES narrows the stores
 * (`postgres,memory,file`), BENCH_ROUNDS repeats the runs (default 1; medians printed).
 * Loopback only; run it alone on the machine.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool, request } from 'undici';
import { clusterSkipReason, startCluster, type Cluster } from '../test/reference/platform/pg-cluster.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const A_CONNECTIONS = Number(process.env.BENCH_A_CONNECTIONS ?? 50);
const B_CONNECTIONS = Number(process.env.BENCH_B_CONNECTIONS ?? 10);
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 500);
const B_RATE = process.env.BENCH_B_RATE ? Number(process.env.BENCH_B_RATE) : undefined;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const KEY = `sk_test_bench_neighbour_${randomBytes(6).toString('hex')}`;

const { values: flags } = parseArgs({ options: { baseline: { type: 'string' }, load: { type: 'string' } } });
const BASELINE = flags.baseline ?? process.env.BENCH_BASELINE;

type Store = 'postgres' | 'memory' | 'file';
const STORES = (process.env.BENCH_STORES ?? 'postgres,memory,file').split(',').map((s) => s.trim()) as Store[];

interface Tree {
  label: string;
  root: string;
}

/** The files of `ref` in a directory beside this checkout, sharing its node_modules (git state untouched). */
function treeOf(ref: string): Tree {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const dir = join(tmpdir(), `conform-bench-neighbour-${commit.slice(0, 12)}`);
  if (!existsSync(join(dir, 'bin', 'conform.js'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], { cwd: ROOT });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  }
  return { label: `${ref} (${commit.slice(0, 7)})`, root: dir };
}

interface Server {
  baseUrl: string;
  stop(): Promise<void>;
}

/** `conform serve` of `tree` on `database`, once it listens. */
async function serve(tree: Tree, database: string): Promise<Server> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(tree.root, 'bin/conform.js'), 'serve', '--port', '0', '--database', database],
    {
      cwd: tree.root,
      env: { ...process.env, CONFORM_API_KEY: KEY, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const seen = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    void exited.then(() => reject(new Error(`conform serve exited before listening: ${out.slice(-600)}`)));
  });
  return {
    baseUrl,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function call(baseUrl: string, key: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const r = await request(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await r.body.json()) as any;
  if (r.statusCode >= 300) throw new Error(`${method} ${path}: ${r.statusCode} ${JSON.stringify(parsed)}`);
  return parsed;
}

/** A merchant of its own with a key and `CUSTOMERS` customers. */
async function merchantWithCustomers(baseUrl: string, name: string): Promise<{ key: string; ids: string[] }> {
  const merchant = await call(baseUrl, KEY, 'POST', '/v0/merchants', { name });
  const { secret } = await call(baseUrl, KEY, 'POST', '/v0/apiKeys', { name, merchantId: merchant.id });
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < CUSTOMERS; i = next++)
      ids[i] = (await call(baseUrl, secret, 'POST', '/v0/customers', { name: `${name} ${i}` })).id;
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { key: secret, ids };
}

interface Figures {
  rate: number;
  /** Latency percentiles in ms, measured by the client. */
  p50: number;
  p99: number;
  /** Answers other than 2xx, and requests with no answer. */
  bad: number;
}

interface LoadSpec {
  baseUrl: string;
  key: string;
  ids: string[];
  method: 'GET' | 'PATCH';
  connections: number;
  seconds: number;
  /** Requests per second over all clients, when paced (BENCH_B_RATE); as fast as answered otherwise. */
  rate?: number;
}

/** `connections` clients, each sending its next request as soon as the last is answered, for `seconds`. */
async function closedLoop(spec: LoadSpec): Promise<Figures> {
  const pool = new Pool(spec.baseUrl, { connections: spec.connections, pipelining: 1 });
  const headers = { authorization: `Bearer ${spec.key}`, 'content-type': 'application/json' };
  const latencies: number[] = [];
  let bad = 0;
  const started = performance.now();
  const until = started + spec.seconds * 1000;
  const gap = spec.rate ? (spec.connections * 1000) / spec.rate : 0;
  const client = async (n: number) => {
    let next = started + (gap * n) / spec.connections;
    while (performance.now() < until) {
      if (gap) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
        next += gap;
      }
      const id = spec.ids[Math.floor(Math.random() * spec.ids.length)];
      const body = spec.method === 'PATCH' ? JSON.stringify({ taxRates: Math.floor(Math.random() * 100) }) : undefined;
      const t0 = performance.now();
      try {
        const r = await pool.request({ method: spec.method, path: `/v0/customers/${id}`, headers, body });
        await r.body.dump();
        if (r.statusCode >= 300) bad += 1;
        else latencies.push(performance.now() - t0);
      } catch {
        bad += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, (_, n) => client(n)));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((x, y) => x - y);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rate: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), bad };
}

/** The same load from a process of its own, so its client work does not slow the other load's clock. */
function closedLoopApart(spec: LoadSpec): Promise<Figures> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--load', JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Figures) : reject(new Error(`load process exited ${code}`)),
    ),
  );
}

interface Run {
  /** B reading, A idle. */
  alone: Figures;
  /** A writing, B idle. */
  writerAlone: Figures;
  /** B reading while A writes. */
  beside: Figures;
  /** A writing while B reads. */
  writer: Figures;
}

async function once(tree: Tree, database: string): Promise<Run> {
  const server = await serve(tree, database);
  try {
    const a = await merchantWithCustomers(server.baseUrl, 'merchant A');
    const b = await merchantWithCustomers(server.baseUrl, 'merchant B');
    const reads = {
      baseUrl: server.baseUrl,
      key: b.key,
      ids: b.ids,
      method: 'GET',
      connections: B_CONNECTIONS,
      rate: B_RATE,
    } as const;
    const writes = {
      baseUrl: server.baseUrl,
      key: a.key,
      ids: a.ids,
      method: 'PATCH',
      connections: A_CONNECTIONS,
    } as const;
    await closedLoop({ ...reads, seconds: 2 }); // warm-up
    const alone = await closedLoop({ ...reads, seconds: DURATION });
    const writerAlone = await closedLoopApart({ ...writes, seconds: DURATION });
    const writing = closedLoopApart({ ...writes, seconds: DURATION + 2 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const beside = await closedLoop({ ...reads, seconds: DURATION });
    return { alone, writerAlone, beside, writer: await writing };
  } finally {
    await server.stop();
  }
}

/** A fresh database of `store` for one server, and how to drop it. */
async function freshDatabase(store: Store, postgresUrl?: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (store === 'memory') return { url: 'memory', drop: async () => {} };
  if (store === 'file') {
    const dir = mkdtempSync(join(tmpdir(), 'conform-bench-neighbour-data-'));
    return { url: `file:${dir}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const sep = postgresUrl!.includes('?') ? '&' : '?';
  return {
    url: `${postgresUrl}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      const c = new pg.Client({ connectionString: postgresUrl });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
const medianFigures = (fs: Figures[]): Figures => ({
  rate: median(fs.map((f) => f.rate)),
  p50: median(fs.map((f) => f.p50)),
  p99: median(fs.map((f) => f.p99)),
  bad: fs.reduce((n, f) => n + f.bad, 0),
});

const fmt = (f: Figures, unit = 'req/s') => `${f.rate.toFixed(0)} ${unit}, p50 ${f.p50.toFixed(1)} ms`;

async function main(): Promise<void> {
  const trees: Tree[] = [{ label: 'this checkout', root: ROOT }];
  if (BASELINE) trees.push(treeOf(BASELINE));
  let cluster: Cluster | undefined;
  let postgresUrl = process.env.DATABASE_URL || undefined;
  let postgresSkip = '';
  if (STORES.includes('postgres') && !postgresUrl) {
    postgresSkip = clusterSkipReason();
    if (!postgresSkip) {
      cluster = await startCluster();
      postgresUrl = cluster.url;
    }
  }
  console.log(
    `bench:neighbour — B reads at ${B_CONNECTIONS} connections${B_RATE ? ` (${B_RATE} req/s in all)` : ''}, alone and while A writes at ${A_CONNECTIONS}; ` +
      `${DURATION} s each, ${CUSTOMERS} customers per merchant, ${ROUNDS} round(s); node ${process.version}, ` +
      `${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)}`,
  );
  const rows: string[][] = [];
  try {
    for (const store of STORES) {
      if (store === 'postgres' && !postgresUrl) {
        console.log(`  postgres: skipped (DATABASE_URL is not set and ${postgresSkip})`);
        continue;
      }
      const runs = trees.map(() => [] as Run[]);
      for (let round = 0; round < ROUNDS; round++)
        for (let t = 0; t < trees.length; t++) {
          const db = await freshDatabase(store, postgresUrl);
          try {
            const r = await once(trees[t], db.url);
            runs[t].push(r);
            const bad = r.alone.bad + r.writerAlone.bad + r.beside.bad + r.writer.bad;
            console.log(
              `  ${store}, ${trees[t].label}, round ${round + 1}: B alone ${fmt(r.alone)}; A alone ${fmt(r.writerAlone, 'writes/s')}; ` +
                `B while A writes ${fmt(r.beside)}; A while B reads ${fmt(r.writer, 'writes/s')}${bad ? `; non-2xx/errors ${bad}` : ''}`,
            );
          } finally {
            await db.drop();
          }
        }
      for (let t = 0; t < trees.length; t++) {
        const m = (pick: (r: Run) => Figures) => medianFigures(runs[t].map(pick));
        const [alone, writerAlone, beside, writer] = [
          m((r) => r.alone),
          m((r) => r.writerAlone),
          m((r) => r.beside),
          m((r) => r.writer),
        ];
        rows.push([
          store,
          trees[t].label,
          fmt(alone),
          `${fmt(beside)}, p99 ${beside.p99.toFixed(1)} ms`,
          `×${(beside.p50 / alone.p50).toFixed(1)}`,
          fmt(writerAlone, 'writes/s'),
          fmt(writer, 'writes/s'),
          String(alone.bad + writerAlone.bad + beside.bad + writer.bad),
        ]);
      }
    }
  } finally {
    await cluster?.dispose();
  }
  const header = [
    'store',
    'tree',
    'B alone',
    'B while A writes',
    'B p50 ×',
    'A alone',
    'A while B reads',
    'non-2xx/errors',
  ];
  console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

if (flags.load) process.stdout.write(JSON.stringify(await closedLoop(JSON.parse(flags.load) as LoadSpec)));
else await main();
