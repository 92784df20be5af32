/**
 * npm run bench:server — throughput and latency of the reference server on loopback.
 *
 * The server runs in a child process (its own event loop and core), in memory, with
 * 10k customers seeded and listCustomers' limit raised by configuration. autocannon
 * drives, from this process, for each of GET /v0/customers/{id}, PATCH /v0/customers/{id}
 * and GET /v0/customers (first page, and a random offset in 0..10k: offset paging walks
 * the skipped rows): one run at full speed, then one at a fixed 1000 req/s.
 * Bounded: BENCH_DURATION seconds per run (default 10), BENCH_CONNECTIONS (default 10).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SEED = Number(process.env.BENCH_CUSTOMERS ?? 10_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const FIXED_RATE = Number(process.env.BENCH_RATE ?? 1000);

interface Ready {
  baseUrl: string;
  apiKey: string;
  ids: string[];
}

async function child(): Promise<void> {
  const { startReferenceServer } = await import('../src/reference/index.ts');
  const { newCustomer } = await import('../src/reference/domain/customers.ts');
  const ref = await startReferenceServer({
    port: 0,
    host: '127.0.0.1',
    database: process.env.BENCH_DATABASE,
    rateLimits: { listCustomers: 1_000_000_000 },
  });
  const ids: string[] = [];
  const now = new Date().toISOString();
  for (let start = 0; start < SEED; start += 500) {
    const values: string[] = [];
    const params: unknown[] = [];
    for (let i = start; i < Math.min(SEED, start + 500); i++) {
      const c = newCustomer(
        ref.merchantId,
        { name: `Customer ${i}`, email: `c${i}@example.com`, externalId: `ext-${i}` },
        now,
      );
      ids.push(c.id);
      params.push(c.id, ref.merchantId, JSON.stringify(c));
      const n = params.length;
      values.push(`($${n - 2}, $${n - 1}, 'customer', $${n}::jsonb, now(), now())`);
    }
    await ref.db.query(
      `INSERT INTO resources (id, merchant_id, type, data, created_at, updated_at) VALUES ${values.join(', ')}`,
      params,
    );
  }
  await ref.db.query('VACUUM ANALYZE resources');
  const ready: Ready = { baseUrl: ref.baseUrl, apiKey: ref.apiKey, ids };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  const stop = () => void ref.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

interface Scenario {
  name: string;
  method: 'GET' | 'PATCH';
  path: () => string;
  body?: () => string;
}

async function parent(): Promise<void> {
  // autocannon ships no types.
  const { default: autocannon } = (await import('autocannon' as string)) as {
    default: (opts: object, cb: (err: Error | null, result: any) => void) => void;
  };
  const self = fileURLToPath(import.meta.url);
  const server = spawn(process.execPath, ['--import', 'tsx', self, '--child'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: server.stdout! });
  const t0 = Date.now();
  const ready = await new Promise<Ready>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as Ready));
    server.once('exit', (code) => reject(new Error(`bench server exited (${code}) before it was ready`)));
  });
  console.log(
    `reference server ready on ${ready.baseUrl} with ${ready.ids.length} customers in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );

  const pick = () => ready.ids[Math.floor(Math.random() * ready.ids.length)];
  const scenarios: Scenario[] = [
    { name: 'GET /v0/customers/{id}', method: 'GET', path: () => `/v0/customers/${pick()}` },
    {
      name: 'PATCH /v0/customers/{id}',
      method: 'PATCH',
      path: () => `/v0/customers/${pick()}`,
      body: () =>
        JSON.stringify({
          taxRates: Math.floor(Math.random() * 100),
          notificationSettings: { invoicePaid: Math.random() < 0.5 },
        }),
    },
    { name: 'GET /v0/customers (first page)', method: 'GET', path: () => '/v0/customers?limit=10' },
    {
      name: 'GET /v0/customers (random offset)',
      method: 'GET',
      path: () => `/v0/customers?limit=10&offset=${Math.floor(Math.random() * (ready.ids.length - 10))}`,
    },
  ];

  const run = (s: Scenario, rate?: number) =>
    new Promise<any>((resolve, reject) => {
      autocannon(
        {
          url: ready.baseUrl,
          connections: CONNECTIONS,
          duration: DURATION,
          ...(rate ? { overallRate: rate } : {}),
          headers: { authorization: `Bearer ${ready.apiKey}`, 'content-type': 'application/json' },
          requests: [
            {
              method: s.method,
              setupRequest: (req: any) => ({ ...req, path: s.path(), ...(s.body ? { body: s.body() } : {}) }),
            },
          ],
        },
        (err: Error | null, result: any) => (err ? reject(err) : resolve(result)),
      );
    });

  const rows: string[][] = [];
  try {
    for (const s of scenarios) {
      for (const rate of [undefined, FIXED_RATE]) {
        const r = await run(s, rate);
        const bad = r.non2xx + r.errors + r.timeouts;
        rows.push([
          s.name,
          rate ? `${rate} req/s` : 'max',
          r.requests.average.toFixed(0),
          String(r.latency.p50),
          String(r.latency.p99),
          String(r.latency.max),
          String(bad),
        ]);
        console.log(
          `  ${s.name} (${rate ? `${rate} req/s` : 'max'}): ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${bad ? `, ${bad} non-2xx/errors` : ''}`,
        );
      }
    }
  } finally {
    server.kill('SIGTERM');
  }
  const header = ['scenario', 'load', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx'];
  console.log(`\n${DURATION} s per run, ${CONNECTIONS} connections, loopback, ${ready.ids.length} customers\n`);
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

if (process.argv.includes('--child')) await child();
else await parent();
