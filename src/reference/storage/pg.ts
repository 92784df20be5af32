import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { DatabaseUnavailableError, isRetryable, type Db } from './db.ts';

// timestamptz and int8 come back as strings, like PGlite's JSON-friendly output would need.
const types = {
  getTypeParser: (oid: number, format?: any) => {
    if (oid === 20) return (v: string) => Number(v); // int8: our counters stay far below 2^53
    return pg.types.getTypeParser(oid, format);
  },
};

/** Attempts of one transaction that keeps meeting deadlocks or serialization failures. */
const MAX_ATTEMPTS = 8;

/** How often, and how far apart, a lost COMMIT's outcome is asked while it cannot be told yet. */
const OUTCOME_ASKS = 10;
const OUTCOME_PAUSE_MS = 50;

const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** attempt));

/**
 * Errors of a connection that is gone or cannot be had: class 08 (connection exception), a
 * session terminated (by an administrator, a crash of another backend), a server starting
 * or stopping, no connection slot left, and the socket's own errors.
 */
const UNAVAILABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);
/** pg's own words for a socket that ended, a client already broken, a pool that could not connect in time. */
const UNAVAILABLE_MESSAGE = /Connection terminated|not queryable|timeout exceeded when trying to connect/;

/** True when `err` says the database connection is lost or cannot be had (not what a statement did). */
export function isConnectionFailure(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  if (err instanceof AggregateError && err.errors.some(isConnectionFailure)) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && (e.code.startsWith('08') || UNAVAILABLE_CODES.has(e.code))) return true;
  return typeof e?.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message);
}

const unavailable = (err: unknown) =>
  isConnectionFailure(err) && !(err instanceof DatabaseUnavailableError) ? new DatabaseUnavailableError(err) : err;

/** A connection inside one transaction; unusable once the transaction ended. */
function txDb(client: pg.PoolClient): Db & { ended: boolean } {
  const tx: Db & { ended: boolean } = {
    kind: 'postgres',
    ended: false,
    async query<T>(sql: string, params?: unknown[]) {
      if (tx.ended) throw new Error('query on a transaction that already ended');
      const res = await client.query(sql, params as any[]).catch((err: unknown) => Promise.reject(unavailable(err)));
      return { rows: res.rows as T[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(sql: string) {
      if (tx.ended) throw new Error('query on a transaction that already ended');
      await client.query(sql).catch((err: unknown) => Promise.reject(unavailable(err)));
    },
    transaction: (fn) => fn(tx),
    inTransaction: () => true,
    retriedTransactions: () => 0,
    close: async () => {},
  };
  return tx;
}

/**
 * The pool as a Db. The transaction in progress is carried by async context, so code
 * that holds the pool's Db (a repository built at start) still joins it.
 */
function poolDb(pool: pg.Pool): Db {
  const current = new AsyncLocalStorage<Db & { ended: boolean }>();
  let retried = 0;
  // Every client listens for its errors from its first connection on, for its whole life. The
  // pool's own listener is off while a client is checked out, and pool.connect() hands a new
  // client over a promise: a session terminated while checked out, or right as it connected
  // (its error in the same read as its ready message), would otherwise be an 'error' event
  // nobody handles, which ends the process. A client that lost its connection is never reused.
  const lostOf = new WeakMap<pg.PoolClient, unknown>();
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      if (!lostOf.has(client)) lostOf.set(client, err);
    });
  });
  const active = () => {
    const tx = current.getStore();
    return tx && !tx.ended ? tx : undefined;
  };
  /** What became of a transaction whose connection went during its COMMIT, when a new connection can tell. */
  const commitOutcome = async (xid: string): Promise<'committed' | 'not committed' | 'unknown'> => {
    // A backend terminated mid-COMMIT may still be ending, and the connection asked on may be
    // lost too: asked again a few times (half a second in all) before the outcome is unknown.
    for (let asked = 1; ; asked++) {
      let status: string | null | undefined;
      try {
        const { rows } = await pool.query<{ status: string | null }>('SELECT txid_status($1::bigint) AS status', [xid]);
        status = rows[0]?.status;
      } catch {
        // The connection asked on may be lost too (every session terminated at once): ask again.
        status = 'not answered';
      }
      if (status === 'committed') return 'committed';
      if (status === 'aborted') return 'not committed';
      if ((status !== 'in progress' && status !== 'not answered') || asked >= OUTCOME_ASKS) return 'unknown';
      await new Promise((resolve) => setTimeout(resolve, OUTCOME_PAUSE_MS));
    }
  };
  const once = async <T>(fn: (tx: Db) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch((err: unknown) => Promise.reject(unavailable(err)));
    /** Why the client must not go back to the pool (its connection lost, or a ROLLBACK that failed). */
    let broken: unknown;
    const tx = txDb(client);
    let xid: string | undefined;
    let answer: { out: T } | undefined;
    try {
      // The transaction id, asked with BEGIN (one round trip), tells a lost COMMIT's outcome.
      const begun = (await client.query('BEGIN; SELECT txid_current()::text AS xid')) as unknown as pg.QueryResult[];
      xid = begun[1].rows[0].xid as string;
      answer = { out: await current.run(tx, () => fn(tx)) };
      await client.query('COMMIT');
      return answer.out;
    } catch (err) {
      const lost = lostOf.get(client) ?? (isConnectionFailure(err) ? err : undefined);
      if (lost === undefined) {
        broken = await client.query('ROLLBACK').then(
          () => undefined,
          (e: unknown) => e,
        );
        throw err;
      }
      broken = lost;
      // Cut during COMMIT (the handler had its answer): the database knows whether it committed.
      if (answer && xid) {
        const outcome = await commitOutcome(xid);
        if (outcome === 'committed') return answer.out;
        throw new DatabaseUnavailableError(lost, { inDoubt: outcome === 'unknown' });
      }
      throw err instanceof DatabaseUnavailableError ? err : new DatabaseUnavailableError(lost);
    } finally {
      tx.ended = true;
      broken ??= lostOf.get(client); // lost after COMMIT returned: the answer stands, the client goes
      // A client released with an error is closed, never handed out again.
      client.release(broken === undefined ? undefined : broken instanceof Error ? broken : new Error(String(broken)));
    }
  };
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      const tx = active();
      if (tx) return tx.query<T>(sql, params);
      const res = await pool.query(sql, params as any[]).catch((err: unknown) => Promise.reject(unavailable(err)));
      return { rows: res.rows as T[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(sql: string) {
      const tx = active();
      if (tx) return tx.exec(sql);
      await pool.query(sql).catch((err: unknown) => Promise.reject(unavailable(err)));
    },
    async transaction(fn) {
      const tx = active();
      if (tx) return fn(tx); // nested: join the outer transaction
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(fn);
        } catch (err) {
          if (!isRetryable(err) || attempt >= MAX_ATTEMPTS) throw err;
          retried++;
          await pause(attempt);
        }
      }
    },
    inTransaction: () => active() !== undefined,
    retriedTransactions: () => retried,
    close: () => pool.end(),
  };
}

/** A pool on `url`; fails fast (and clearly) when the server cannot be reached. */
export async function openPg(url: string): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: Number(process.env.CONFORM_PG_POOL ?? 10),
    connectionTimeoutMillis: 5000,
    types,
  });
  pool.on('error', () => {}); // an idle client dropped by the server is replaced on next use
  const db = poolDb(pool);
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    const e = err as Error;
    throw new Error(
      `cannot reach PostgreSQL at ${redactUrl(url)}: ${e.message || (err as any).code || 'connection failed'}`,
    );
  }
  return db;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the given URL';
  }
}
