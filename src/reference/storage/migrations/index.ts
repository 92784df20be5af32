import { createHash } from 'node:crypto';
import type { Db } from '../db.ts';
import { platformV1 } from './0001_platform.ts';
import { resourceCounts } from './0002_resource_counts.ts';
import { coveringListIndex } from './0003_covering_list_index.ts';
import { listVersions } from './0004_list_versions.ts';

/**
 * One schema change. Versions are unique integers applied in increasing order and
 * recorded in `schema_migrations`; an applied migration is never edited, only
 * followed by a new one. Platform migrations use 1..99; domain plugins declare theirs
 * (100 and up) on their entry in plugins/index.ts.
 */
export interface Migration {
  version: number;
  name: string;
  /** SQL script (several statements allowed) or a function run inside the migration transaction. */
  up: string | ((db: Db) => Promise<void>);
}

export const platformMigrations: Migration[] = [platformV1, resourceCounts, coveringListIndex, listVersions];

// Any constant works; it only has to be the same in every process sharing the database.
const MIGRATION_LOCK = 7_301_452_118;

/**
 * Applies the missing migrations in one transaction under an advisory lock, so several
 * processes starting at once on one PostgreSQL apply each migration exactly once.
 * Returns the versions applied now.
 */
export async function migrate(db: Db, migrations: Migration[]): Promise<number[]> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].version === sorted[i - 1].version) {
      throw new Error(`two migrations share version ${sorted[i].version}: ${sorted[i - 1].name}, ${sorted[i].name}`);
    }
  }
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => Number(r.version)));
    const now: number[] = [];
    for (const m of sorted) {
      if (applied.has(m.version)) continue;
      if (typeof m.up === 'string') await tx.exec(m.up);
      else await m.up(tx);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      now.push(m.version);
    }
    return now;
  });
}

/** Changes whenever a migration is added or edited (names the cached in-memory template). */
export function migrationsKey(migrations: Migration[]): string {
  const h = createHash('sha256');
  for (const m of [...migrations].sort((a, b) => a.version - b.version))
    h.update(`${m.version}\0${m.name}\0${String(m.up)}\0`);
  return h.digest('hex').slice(0, 16);
}
