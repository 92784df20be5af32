/**
 * The SQL connection the repository runs on: PGlite (in memory or a directory) or a
 * PostgreSQL pool through `pg`. Both speak the same SQL; callers never see which.
 */
export interface Db {
  /** One statement with `$1..$n` parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[]; rowCount: number }>;
  /** A script of several statements, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in one transaction (BEGIN/COMMIT, ROLLBACK on throw). While it runs, every
   * call on this Db made from within `fn` (however deep, through async context) joins it,
   * and so do nested `transaction` calls. On PostgreSQL a transaction that hits a deadlock
   * or a serialization failure is rolled back and `fn` runs again (a few times at most).
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** True when called from within a transaction of this Db. */
  inTransaction(): boolean;
  /** Transactions run again after a deadlock or serialization failure since the Db opened (PGlite: always 0). */
  retriedTransactions(): number;
  close(): Promise<void>;
  /** `memory`, `file` or `postgres`. */
  readonly kind: DbKind;
}

export type DbKind = 'memory' | 'file' | 'postgres';

/** Where the data lives, parsed from `--database` / DATABASE_URL. */
export type DatabaseLocation = { kind: 'memory' } | { kind: 'file'; dir: string } | { kind: 'postgres'; url: string };

/**
 * `memory` (or empty) → PGlite in memory; `file:<dir>` → PGlite in a directory;
 * `postgres://` / `postgresql://` → PostgreSQL. Anything else throws.
 */
export function parseDatabaseUrl(value: string | undefined): DatabaseLocation {
  const v = (value ?? '').trim();
  if (v === '' || v === 'memory' || v === 'memory:' || v === ':memory:') return { kind: 'memory' };
  if (v.startsWith('file:')) {
    let dir = v.slice('file:'.length);
    if (dir.startsWith('//')) dir = new URL(v).pathname;
    if (!dir) throw new Error(`database URL '${v}' names no directory (use file:./data)`);
    return { kind: 'file', dir };
  }
  if (/^postgres(ql)?:\/\//.test(v)) return { kind: 'postgres', url: v };
  throw new Error(`unsupported database '${v}': use memory, file:<dir> or postgres://...`);
}

/**
 * The database could not be reached, or dropped the connection a request was using
 * (terminated session, restart, reset): answered 503, and the server goes on. `inDoubt`
 * when the connection went while its COMMIT was under way and the outcome could not be
 * learnt: the write may or may not be stored.
 */
export class DatabaseUnavailableError extends Error {
  readonly code = 'DATABASE_UNAVAILABLE';
  readonly inDoubt: boolean;
  constructor(cause: unknown, opts: { inDoubt?: boolean } = {}) {
    const why = (cause as { message?: string } | null)?.message || String(cause);
    super(`database unavailable: ${why}`, { cause });
    this.name = 'DatabaseUnavailableError';
    this.inDoubt = opts.inDoubt ?? false;
  }
}

/** PostgreSQL's deadlock_detected and serialization_failure: the transaction may simply run again. */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Opens the database named by `location`. Drivers are loaded on demand. An in-memory
 * database starts from a cached template already carrying `template.prepare`'s work.
 */
export async function openDb(
  location: DatabaseLocation,
  template?: { key: string; prepare(db: Db): Promise<void> },
): Promise<Db> {
  if (location.kind === 'postgres') return (await import('./pg.ts')).openPg(location.url);
  return (await import('./pglite.ts')).openPglite(location, template);
}
