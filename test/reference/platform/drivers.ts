import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../../../src/reference/storage/db.ts';

export const DATABASE_URL = process.env.DATABASE_URL;
/** Why the PostgreSQL variants are skipped, shown in the test name. */
export const PG_SKIP = DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set; .ci/postgres.sh sets it in CI)';

/** A URL whose connections live in a fresh schema of the shared test database. */
export async function isolatedPgUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const sep = DATABASE_URL!.includes('?') ? '&' : '?';
  return {
    url: `${DATABASE_URL}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

export interface DriverCase {
  name: string;
  skip: boolean;
  /** A fresh, empty database of that kind. */
  open(): Promise<{ db: Db; url: string; dispose(): Promise<void> }>;
}

export const drivers: DriverCase[] = [
  {
    name: 'PGlite in memory',
    skip: false,
    async open() {
      const db = await openDb({ kind: 'memory' });
      return { db, url: 'memory', dispose: () => db.close() };
    },
  },
  {
    name: `PostgreSQL${PG_SKIP}`,
    skip: !DATABASE_URL,
    async open() {
      const { url, drop } = await isolatedPgUrl();
      const db = await openDb({ kind: 'postgres', url });
      return {
        db,
        url,
        dispose: async () => {
          await db.close();
          await drop();
        },
      };
    },
  },
];
