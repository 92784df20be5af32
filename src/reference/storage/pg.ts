import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { isRetryable, type Db } from './db.ts';

// timestamptz and int8 come back as strings, like PGlite's JSON-friendly output would need.
const types = {
  getTypeParser: (oid: number, format?: any) => {
    if (oid === 20) return (v: string) => Number(v); // int8: our counters stay far below 2^53
    return pg.types.getTypeParser(oid, format);
  },
};

/** Attempts of one transaction that keeps meeting deadlocks or serialization failures. */
const MAX_ATTEMPTS = 8;

const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** attempt));

/** A connection inside one transaction; unusable once the transaction ended. */
function txDb(client: pg.PoolClient): Db & { ended: boolean } {
  const tx: Db & { ended: boolean } = {
    kind: 'postgres',
    ended: false,
    async query<T>(sql: string, params?: unknown[]) {
      if (tx.ended) throw new Error('query on a transaction that already ended');
      const res = await client.query(sql, params as any[]);
      return { rows: res.rows as T[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(sql: string) {
      if (tx.ended) throw new Error('query on a transaction that already ended');
      await client.query(sql);
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
  const active = () => {
    const tx = current.getStore();
    return tx && !tx.ended ? tx : undefined;
  };
  const once = async <T>(fn: (tx: Db) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    const tx = txDb(client);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const out = await current.run(tx, () => fn(tx));
      await client.query('COMMIT');
      return out;
    } catch (err) {
      // A connection that cannot even roll back is broken: drop it from the pool.
      broken = await client.query('ROLLBACK').then(
        () => undefined,
        (e: Error) => e,
      );
      throw err;
    } finally {
      tx.ended = true;
      client.release(broken);
    }
  };
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      const tx = active();
      if (tx) return tx.query<T>(sql, params);
      const res = await pool.query(sql, params as any[]);
      return { rows: res.rows as T[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(sql: string) {
      const tx = active();
      if (tx) return tx.exec(sql);
      await pool.query(sql);
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
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    const e = err as Error;
    throw new Error(
      `cannot reach PostgreSQL at ${redactUrl(url)}: ${e.message || (err as any).code || 'connection failed'}`,
    );
  }
  return poolDb(pool);
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
