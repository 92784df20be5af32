import pg from 'pg';
import type { Db } from './db.ts';

// timestamptz and int8 come back as strings, like PGlite's JSON-friendly output would need.
const types = {
  getTypeParser: (oid: number, format?: any) => {
    if (oid === 20) return (v: string) => Number(v); // int8: our counters stay far below 2^53
    return pg.types.getTypeParser(oid, format);
  },
};

type Client = pg.Pool | pg.PoolClient;

function wrap(c: Client, pool: pg.Pool): Db {
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      const res = await c.query(sql, params as any[]);
      return { rows: res.rows as T[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(sql: string) {
      await c.query(sql);
    },
    async transaction(fn) {
      if (c !== pool) return fn(wrap(c, pool)); // nested: join the outer transaction
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client, pool));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** A pool on `url`; fails fast (and clearly) when the server cannot be reached. */
export async function openPg(url: string): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.CONFORM_PG_POOL ?? 10), connectionTimeoutMillis: 5000, types });
  pool.on('error', () => {}); // an idle client dropped by the server is replaced on next use
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    const e = err as Error;
    throw new Error(`cannot reach PostgreSQL at ${redactUrl(url)}: ${e.message || (err as any).code || 'connection failed'}`);
  }
  return wrap(pool, pool);
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
