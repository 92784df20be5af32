/**
 * The reference on PostgreSQL outlives its database's hiccups: its sessions terminated while
 * writes are under way (pg_terminate_backend), and a crash and restart of the database
 * (pg_ctl stop -m immediate, then start). The server runs as its own process (`conform serve`),
 * since what broke was the process: an 'error' event of a connection checked out of the pool
 * had no listener and ended it.
 *
 * Writers of several merchants create customers and update one customer each, in a loop. Every
 * answer must be a 2xx or a 503 in the Error shape with a Retry-After; afterwards every
 * acknowledged write is read back, no write answered as failed is stored (one whose COMMIT
 * was cut may go either way, and says so), the process is still up, and requests succeed again
 * soon after the database is back (the figure is printed; asserted within a generous 10 s).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServe, type Child } from './child.ts';
import { DATABASE_URL, isolatedPgUrl, PG_SKIP } from './drivers.ts';
import { clusterSkipReason, startCluster } from './pg-cluster.ts';

const MERCHANTS = 4;
const WRITERS_PER_MERCHANT = 5;
/** A generous bound on "serves again within a second of the database returning". */
const RECOVERY_BOUND_MS = 10_000;
const KEY = `sk_test_${randomBytes(12).toString('hex')}`;

const agent = new Agent({ connections: MERCHANTS * WRITERS_PER_MERCHANT + 4 });
afterAll(() => agent.close());

interface Answer {
  status: number;
  body: any;
  retryAfter?: string;
}

async function call(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const r = await request(`${baseUrl}${path}`, {
    method: method as 'GET',
    dispatcher: agent,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.body.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text for the message
  }
  return { status: r.statusCode, body: parsed, retryAfter: r.headers['retry-after'] as string | undefined };
}

async function expectOk(answer: Promise<Answer>, status: number): Promise<any> {
  const a = await answer;
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  return a.body;
}

/** How a write was answered: stored for sure, refused for sure, or cut in its COMMIT (either way). */
type Outcome = 'acknowledged' | 'failed' | 'in doubt';

/** A 503 of a lost database, in the Error shape: the one failure a hiccup may cause. */
function outcomeOf(a: Answer, okStatus: number, unexpected: string[], what: string): Outcome {
  if (a.status === okStatus) return 'acknowledged';
  const shaped =
    a.status === 503 &&
    a.body?.error === 'service_unavailable' &&
    typeof a.body?.message === 'string' &&
    a.retryAfter !== undefined &&
    ['DATABASE_UNAVAILABLE', 'COMMIT_OUTCOME_UNKNOWN'].includes(a.body?.code);
  if (!shaped) unexpected.push(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
  return a.body?.code === 'COMMIT_OUTCOME_UNKNOWN' ? 'in doubt' : 'failed';
}

interface Writer {
  key: string;
  customerId: string;
  /** How each update of the writer's own customer was answered; the i-th set externalId `v<i>`. */
  updates: Outcome[];
  /** Customers the writer created, by name. */
  creates: Map<string, { outcome: Outcome; id?: string }>;
}

interface Load {
  writers: Writer[];
  /** When (Date.now()) each 2xx answer came. */
  successes: number[];
  /** Answers neither 2xx nor the 503 of a lost database. */
  unexpected: string[];
  /** Requests that got no HTTP answer (the server gone, the connection reset). */
  transportErrors: string[];
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Merchants, each with a key and one customer per writer; then the writers loop until stopped. */
async function startLoad(baseUrl: string): Promise<Load> {
  const writers: Writer[] = [];
  for (let m = 0; m < MERCHANTS; m++) {
    const merchant = await expectOk(call(baseUrl, KEY, 'POST', '/v0/merchants', { name: `outage ${m}` }), 201);
    const apiKey = await expectOk(
      call(baseUrl, KEY, 'POST', '/v0/apiKeys', { name: `outage ${m}`, merchantId: merchant.id }),
      201,
    );
    for (let w = 0; w < WRITERS_PER_MERCHANT; w++) {
      const own = await expectOk(call(baseUrl, apiKey.secret, 'POST', '/v0/customers', { name: 'own' }), 201);
      writers.push({ key: apiKey.secret, customerId: own.id, updates: [], creates: new Map() });
    }
  }
  const load: Load = { writers, successes: [], unexpected: [], transportErrors: [], stop: async () => {} };
  let running = true;
  const loop = async (writer: Writer, w: number) => {
    for (let i = 0; running && load.transportErrors.length < 50; i++) {
      let answer: Answer | undefined;
      try {
        if (i % 2 === 0) {
          const name = `w${w}-${i}`;
          answer = await call(baseUrl, writer.key, 'POST', '/v0/customers', { name });
          const outcome = outcomeOf(answer, 201, load.unexpected, `create ${name}`);
          writer.creates.set(name, { outcome, id: outcome === 'acknowledged' ? answer.body.id : undefined });
        } else {
          const value = `v${writer.updates.length}`;
          writer.updates.push('in doubt'); // until answered
          answer = await call(baseUrl, writer.key, 'PATCH', `/v0/customers/${writer.customerId}`, {
            externalId: value,
          });
          const outcome = outcomeOf(answer, 200, load.unexpected, `update ${writer.customerId} to ${value}`);
          writer.updates[writer.updates.length - 1] = outcome;
          if (outcome === 'acknowledged' && answer.body.externalId !== value)
            load.unexpected.push(`update to ${value} answered ${JSON.stringify(answer.body)}`);
        }
      } catch (err) {
        load.transportErrors.push(String(err));
      }
      if (answer && answer.status < 300) load.successes.push(Date.now());
      // A refused request is tried again shortly, not at once: the outage is not spun through.
      else await sleep(50);
    }
  };
  const loops = writers.map((writer, w) => loop(writer, w));
  load.stop = async () => {
    running = false;
    await Promise.all(loops);
  };
  return load;
}

/** Every merchant's customers, by name (all pages). */
async function storedNames(baseUrl: string, key: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (let offset = 0; ; offset += 100) {
    const page = await expectOk(call(baseUrl, key, 'GET', `/v0/customers?limit=100&offset=${offset}`), 200);
    for (const c of page.data) names.add(c.name);
    if (page.data.length < 100) return names;
  }
}

/**
 * What was stored against what was answered: an acknowledged write is there (read back by id,
 * and in the list), a write answered as failed is not, one in doubt may be either. The last
 * value of a writer's own customer is its last acknowledged update or a later one in doubt.
 */
async function violations(baseUrl: string, load: Load): Promise<string[]> {
  const found: string[] = [];
  const namesByKey = new Map<string, Set<string>>();
  for (const writer of load.writers) {
    if (!namesByKey.has(writer.key)) namesByKey.set(writer.key, await storedNames(baseUrl, writer.key));
    const names = namesByKey.get(writer.key)!;
    for (const [name, { outcome, id }] of writer.creates) {
      if (outcome === 'acknowledged') {
        const read = await call(baseUrl, writer.key, 'GET', `/v0/customers/${id}`);
        if (read.status !== 200 || read.body.name !== name)
          found.push(`acknowledged create ${name} (${id}) reads ${read.status}`);
        if (!names.has(name)) found.push(`acknowledged create ${name} is not listed`);
      } else if (outcome === 'failed' && names.has(name)) found.push(`create ${name} answered as failed is stored`);
    }
    const own = await expectOk(call(baseUrl, writer.key, 'GET', `/v0/customers/${writer.customerId}`), 200);
    const last = own.externalId === undefined ? -1 : Number(/^v(\d+)$/.exec(own.externalId)?.[1] ?? NaN);
    const lastAcknowledged = writer.updates.lastIndexOf('acknowledged');
    if (!(last >= lastAcknowledged))
      found.push(`${writer.customerId} holds ${own.externalId}, acknowledged v${lastAcknowledged}`);
    else if (last >= 0 && writer.updates[last] === 'failed')
      found.push(`${writer.customerId} holds ${own.externalId}, whose update was answered as failed`);
  }
  return found;
}

function tally(load: Load): string {
  const all = load.writers.flatMap((w) => [...w.updates, ...[...w.creates.values()].map((c) => c.outcome)]);
  const n = (o: Outcome) => all.filter((x) => x === o).length;
  return `${all.length} writes: ${n('acknowledged')} acknowledged, ${n('failed')} answered 503, ${n('in doubt')} 503 in doubt`;
}

/** After the load: the answers were the allowed ones, nothing acknowledged is lost, nothing failed is kept. */
async function expectConsistent(child: Child, load: Load): Promise<void> {
  expect(load.transportErrors.slice(0, 5), 'requests without an HTTP answer').toEqual([]);
  expect(load.unexpected.slice(0, 10), 'answers other than 2xx or the 503 of a lost database').toEqual([]);
  expect(await violations(child.baseUrl, load)).toEqual([]);
}

/** The server process has not ended (what broke before: an 'error' event nobody listened for). */
function expectAlive(child: Child): void {
  const ended = child.proc.exitCode ?? child.proc.signalCode;
  expect(ended, `the server ended (${ended}): ${child.output().slice(-1500)}`).toBeNull();
  expect(child.output()).not.toMatch(/Unhandled|uncaught/i);
}

/** Milliseconds from `since` to the first 2xx answer after it, or undefined. */
const firstSuccessAfter = (load: Load, since: number) => {
  const at = load.successes.find((t) => t >= since);
  return at === undefined ? undefined : at - since;
};

async function waitForSuccessAfter(load: Load, since: number, boundMs: number): Promise<number | undefined> {
  const deadline = Date.now() + boundMs;
  while (firstSuccessAfter(load, since) === undefined && Date.now() < deadline) await sleep(20);
  return firstSuccessAfter(load, since);
}

async function stopServer(child: Child | undefined): Promise<void> {
  if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGTERM');
  await child.exited;
}

const SERVE_ARGS = ['--rate-limit', 'listCustomers=1000000'];

describe('the reference on PostgreSQL outlives its database', () => {
  it.skipIf(!DATABASE_URL)(
    `sessions terminated under write load: the server stays up, every acknowledged write is stored${PG_SKIP}`,
    async () => {
      const { url, drop } = await isolatedPgUrl();
      // The server's sessions are told apart from other tests' on the shared database by name.
      const application = `conform_outage_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      let child: Child | undefined;
      try {
        child = await spawnServe(['--database', `${url}&application_name=${application}`, ...SERVE_ARGS], {
          CONFORM_API_KEY: KEY,
        });
        const load = await startLoad(child.baseUrl);
        await sleep(1000);
        let terminated = 0;
        let lastTerminationAt = 0;
        for (let round = 0; round < 5; round++) {
          const { rows } = await admin.query<{ n: number }>(
            'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1',
            [application],
          );
          terminated += rows[0].n;
          lastTerminationAt = Date.now();
          await sleep(400);
        }
        const recoveredMs = await waitForSuccessAfter(load, lastTerminationAt, RECOVERY_BOUND_MS);
        await sleep(1000);
        await load.stop();
        console.log(
          `sessions terminated: ${terminated} over 5 rounds; ${tally(load)}; ` +
            `first 2xx ${recoveredMs ?? 'never'} ms after the last termination`,
        );
        expectAlive(child);
        expect(terminated, 'sessions of the server were terminated').toBeGreaterThan(0);
        expect(recoveredMs ?? Infinity, 'ms to a 2xx after the last termination').toBeLessThan(RECOVERY_BOUND_MS);
        await expectConsistent(child, load);
      } finally {
        await stopServer(child);
        await admin.end();
        await drop();
      }
    },
    120_000,
  );

  const clusterSkip = DATABASE_URL ? clusterSkipReason() : 'DATABASE_URL is not set; .ci/postgres.sh sets it in CI';
  it.skipIf(clusterSkip !== '')(
    `a database crash and restart under write load (its own cluster): the server stays up, serves again` +
      (clusterSkip ? ` (skipped: ${clusterSkip})` : ''),
    async () => {
      const cluster = await startCluster();
      let child: Child | undefined;
      try {
        child = await spawnServe(['--database', cluster.url, ...SERVE_ARGS], { CONFORM_API_KEY: KEY });
        const load = await startLoad(child.baseUrl);
        await sleep(1000);
        await cluster.stop('immediate');
        const downAt = Date.now();
        await sleep(1000);
        const servedWhileDown = load.successes.filter((t) => t > downAt + 100).length;
        await cluster.start();
        const upAt = Date.now();
        const recoveredMs = await waitForSuccessAfter(load, upAt, RECOVERY_BOUND_MS);
        await sleep(1000);
        await load.stop();
        console.log(
          `database down ${upAt - downAt} ms (pg_ctl stop -m immediate, then start); ${tally(load)}; ` +
            `first 2xx ${recoveredMs ?? 'never'} ms after pg_ctl start returned`,
        );
        expectAlive(child);
        expect(servedWhileDown, '2xx answers while the database was down').toBe(0);
        expect(recoveredMs ?? Infinity, 'ms to a 2xx after the database came back').toBeLessThan(RECOVERY_BOUND_MS);
        await expectConsistent(child, load);
      } finally {
        await stopServer(child);
        await cluster.dispose();
      }
    },
    120_000,
  );
});
