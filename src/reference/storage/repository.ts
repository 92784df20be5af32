import type { Db } from './db.ts';
import { newId } from './ids.ts';

/** What every stored resource carries; the rest of `data` is the resource's own fields. */
export interface StoredFields {
  id: string;
  createdAt: string;
  updatedAt: string;
}

export type Doc = Record<string, unknown>;

export interface ListOptions {
  /** Equality on top-level fields of `data` (JSON containment, so values may be objects or arrays). */
  where?: Doc;
  limit?: number;
  offset?: number;
  /** Default: insertion order. A top-level field of `data` (`createdAt`, `name`...) sorts as text. */
  orderBy?: { field: string; direction?: 'asc' | 'desc' };
}

export interface ListResult<T> {
  data: T[];
  total: number;
}

/**
 * Generic storage of merchant-owned resources as JSON documents in one table
 * (`resources`). Every lookup is filtered by merchant: another merchant's resource
 * is simply not found. `data` is the resource representation as served (the repository
 * sets `id`, `createdAt`, `updatedAt`; the caller sets `object` and the rest).
 */
export interface Repository {
  readonly db: Db;
  /** Stores a new resource with a fresh `prefix_...` id (or `opts.id`). */
  insert<T extends Doc = Doc>(
    type: string,
    merchantId: string,
    data: Doc,
    opts: { prefix: string; id?: string },
  ): Promise<T & StoredFields>;
  get<T extends Doc = Doc>(type: string, id: string, merchantId: string): Promise<(T & StoredFields) | null>;
  /** Same, locking the row until the transaction ends (`SELECT ... FOR UPDATE`). Use inside `transaction`. */
  getForUpdate<T extends Doc = Doc>(type: string, id: string, merchantId: string): Promise<(T & StoredFields) | null>;
  /**
   * Same, with a shared lock (`SELECT ... FOR SHARE`): the row can neither change nor be
   * deleted until the transaction ends. A request creating a dependant takes it on the
   * parent, so a concurrent delete of the parent either sees the dependant or wins first.
   */
  getForShare<T extends Doc = Doc>(type: string, id: string, merchantId: string): Promise<(T & StoredFields) | null>;
  /**
   * Shallow-merges `patch` into the stored document (a key set to `undefined` is removed),
   * or replaces it with `fn(current)`. Bumps `updatedAt`. Null when not found.
   */
  update<T extends Doc = Doc>(
    type: string,
    id: string,
    merchantId: string,
    patch: Doc | ((current: T & StoredFields) => Doc),
  ): Promise<(T & StoredFields) | null>;
  /** True when a row was deleted. */
  delete(type: string, id: string, merchantId: string): Promise<boolean>;
  list<T extends Doc = Doc>(
    type: string,
    merchantId: string,
    opts?: ListOptions,
  ): Promise<ListResult<T & StoredFields>>;
  count(type: string, merchantId: string, where?: Doc): Promise<number>;
  /**
   * Runs `fn` in one transaction. Every call on this repository made from within `fn`
   * joins it (through async context), nested `transaction` calls too.
   */
  transaction<T>(fn: (repo: Repository) => Promise<T>): Promise<T>;
  /** Raw SQL on the same connection (inside a transaction when called on its repository). */
  query<T = Doc>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface RepositoryOptions {
  /** Clock for `createdAt`/`updatedAt`; tests may inject one. */
  now?: () => Date;
}

/** Ordered ids of one (merchant, type) under its committed list version. */
type IdCache = Map<string, { version: number; ids: string[] }>;
const ID_CACHE_KEYS = 256;
const ID_CACHE_MAX_IDS = 500_000;

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Row {
  merchant_id: string;
  type: string;
  data: Doc;
}

function owned(row: Row | undefined, type: string, merchantId: string): any {
  return row && row.merchant_id === merchantId && row.type === type ? row.data : null;
}

function withoutUndefined(doc: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(doc)) if (v !== undefined) out[k] = v;
  return out;
}

export function createRepository(db: Db, options: RepositoryOptions = {}): Repository {
  const now = options.now ?? (() => new Date());
  const idCache: IdCache = new Map();

  /**
   * An unfiltered page in insertion order from the cached ids of (merchant, type): one
   * small query for the version and total, one primary-key fetch for the page. The ids
   * are re-read in one statement (one snapshot) whenever the version moved.
   */
  async function cachedPage(type: string, merchantId: string, limit: number, offset: number): Promise<ListResult<any>> {
    const key = `${merchantId}\u0000${type}`;
    const { rows } = await db.query<{ n: number; version: number }>(
      'SELECT n::int AS n, version::bigint AS version FROM resource_counts WHERE merchant_id = $1 AND type = $2',
      [merchantId, type],
    );
    if (!rows[0] || Number(rows[0].n) === 0) return { data: [], total: 0 };
    let entry = idCache.get(key);
    if (!entry || entry.version !== Number(rows[0].version)) {
      const fresh = await db.query<{ version: number; ids: string[] | null }>(
        `SELECT (SELECT version FROM resource_counts WHERE merchant_id = $1 AND type = $2)::bigint AS version,
                ARRAY(SELECT id FROM resources WHERE merchant_id = $1 AND type = $2 ORDER BY seq) AS ids`,
        [merchantId, type],
      );
      entry = { version: Number(fresh.rows[0].version), ids: fresh.rows[0].ids ?? [] };
      if (entry.ids.length <= ID_CACHE_MAX_IDS) {
        if (idCache.size >= ID_CACHE_KEYS) idCache.delete(idCache.keys().next().value!);
        idCache.delete(key);
        idCache.set(key, entry);
      }
    }
    const pageIds = entry.ids.slice(offset, offset + limit);
    if (pageIds.length === 0) return { data: [], total: entry.ids.length };
    const page = await db.query<{ id: string; data: Doc }>(
      'SELECT id, data FROM resources WHERE id = ANY($1::text[])',
      [pageIds],
    );
    const byId = new Map(page.rows.map((r) => [r.id, r.data]));
    // A row deleted since the ids were read is simply missing from this page.
    return { data: pageIds.map((id) => byId.get(id)).filter((d) => d !== undefined) as any[], total: entry.ids.length };
  }

  const repo: Repository = {
    db,
    async insert(type, merchantId, data, opts) {
      const at = now();
      const iso = at.toISOString();
      const id = opts.id ?? newId(opts.prefix);
      const doc = withoutUndefined({
        id,
        ...data,
        createdAt: (data.createdAt as string) ?? iso,
        updatedAt: (data.updatedAt as string) ?? iso,
      });
      doc.id = id;
      await db.query(
        'INSERT INTO resources (id, merchant_id, type, data, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)',
        [id, merchantId, type, JSON.stringify(doc), at],
      );
      return doc as any;
    },
    // Lookups go by primary key alone and check owner and type on the row: PGlite never
    // analyzes its tables, and its planner may otherwise scan a merchant's whole list.
    async get(type, id, merchantId) {
      const { rows } = await db.query<Row>('SELECT merchant_id, type, data FROM resources WHERE id = $1', [id]);
      return owned(rows[0], type, merchantId);
    },
    async getForUpdate(type, id, merchantId) {
      const { rows } = await db.query<Row>('SELECT merchant_id, type, data FROM resources WHERE id = $1 FOR UPDATE', [
        id,
      ]);
      return owned(rows[0], type, merchantId);
    },
    async getForShare(type, id, merchantId) {
      const { rows } = await db.query<Row>('SELECT merchant_id, type, data FROM resources WHERE id = $1 FOR SHARE', [
        id,
      ]);
      return owned(rows[0], type, merchantId);
    },
    async update(type, id, merchantId, patch) {
      return repo.transaction(async (r) => {
        const current = await r.getForUpdate(type, id, merchantId);
        if (!current) return null;
        const at = now();
        const next = typeof patch === 'function' ? (patch as (c: any) => Doc)(current) : { ...current, ...patch };
        const doc = withoutUndefined({ ...next, id, createdAt: current.createdAt, updatedAt: at.toISOString() });
        await r.db.query('UPDATE resources SET data = $1, updated_at = $2 WHERE id = $3', [
          JSON.stringify(doc),
          at,
          id,
        ]);
        return doc as any;
      });
    },
    async delete(type, id, merchantId) {
      return repo.transaction(async (r) => {
        if (!(await r.getForUpdate(type, id, merchantId))) return false;
        await r.db.query('DELETE FROM resources WHERE id = $1', [id]);
        return true;
      });
    },
    async list(type, merchantId, opts = {}) {
      const params: unknown[] = [merchantId, type];
      let where = 'merchant_id = $1 AND type = $2';
      if (opts.where && Object.keys(withoutUndefined(opts.where)).length > 0) {
        params.push(JSON.stringify(withoutUndefined(opts.where)));
        where += ` AND data @> $${params.length}::jsonb`;
      }
      let order = 'seq ASC';
      if (opts.orderBy) {
        if (!FIELD.test(opts.orderBy.field)) throw new Error(`list: bad orderBy field '${opts.orderBy.field}'`);
        const dir = opts.orderBy.direction === 'desc' ? 'DESC' : 'ASC';
        order = `data->>'${opts.orderBy.field}' ${dir}, seq ${dir}`;
      }
      // Clamped so any number a client sends stays a valid SQL integer literal.
      const clamp = (n: number) =>
        Number.isFinite(n) ? Math.min(Math.max(0, Math.floor(n)), Number.MAX_SAFE_INTEGER) : 0;
      const limit = clamp(opts.limit ?? 100);
      const offset = clamp(opts.offset ?? 0);
      const countedSql =
        'SELECT COALESCE((SELECT n FROM resource_counts WHERE merchant_id = $1 AND type = $2), 0)::int AS n';
      const pageSql = (extra = '') =>
        `SELECT data${extra} FROM resources WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`;
      // Only outside a transaction are the versions read all committed ones: only then the cache.
      if (params.length === 2 && !opts.orderBy && offset > 100 && !db.inTransaction())
        return cachedPage(type, merchantId, limit, offset);
      if (params.length === 2) {
        // Unfiltered: the kept total rides along with the page (one round trip).
        const page = await db.query<{ data: Doc; total: number }>(pageSql(`, (${countedSql}) AS total`), params);
        if (page.rows.length > 0)
          return { data: page.rows.map((r) => r.data as any), total: Number(page.rows[0].total) };
        const { rows } = await db.query<{ n: number }>(countedSql, params);
        return { data: [], total: Number(rows[0].n) };
      }
      const [page, total] = await Promise.all([
        db.query<{ data: Doc }>(pageSql(), params),
        db.query<{ n: number }>(`SELECT count(*)::int AS n FROM resources WHERE ${where}`, params),
      ]);
      return { data: page.rows.map((r) => r.data as any), total: Number(total.rows[0].n) };
    },
    async count(type, merchantId, where) {
      if (!where || Object.keys(withoutUndefined(where)).length === 0) {
        const { rows } = await db.query<{ n: number }>(
          'SELECT COALESCE((SELECT n FROM resource_counts WHERE merchant_id = $1 AND type = $2), 0)::int AS n',
          [merchantId, type],
        );
        return Number(rows[0].n);
      }
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM resources WHERE merchant_id = $1 AND type = $2 AND data @> $3::jsonb',
        [merchantId, type, JSON.stringify(withoutUndefined(where))],
      );
      return Number(rows[0].n);
    },
    transaction(fn) {
      return db.transaction(() => fn(repo));
    },
    async query(sql, params) {
      return (await db.query<any>(sql, params)).rows;
    },
  };
  return repo;
}
