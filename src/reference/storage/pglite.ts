import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, openAsBlob } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { DatabaseLocation, Db } from './db.ts';
import { lockDataDirectory } from './dirlock.ts';

type Queryable = Pick<Transaction, 'query' | 'exec'>;

function run(q: Queryable) {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      const res = await q.query<T>(sql, params as any[]);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  };
}

/**
 * PGlite has one connection, and each query or transaction holds it exclusively. The
 * transaction in progress is carried by async context: a call on this Db made from within
 * it joins it (anything else would wait for the connection the transaction holds).
 */
function wrap(pglite: PGlite, kind: Db['kind']): Db {
  const current = new AsyncLocalStorage<Db & { ended: boolean }>();
  const active = () => {
    const tx = current.getStore();
    return tx && !tx.ended ? tx : undefined;
  };
  const direct = run(pglite);
  return {
    kind,
    query: (sql, params) => (active() ?? direct).query(sql, params),
    exec: (sql) => (active() ?? direct).exec(sql),
    async transaction(fn) {
      const joined = active();
      if (joined) return fn(joined);
      return pglite.transaction(async (t) => {
        const tx: Db & { ended: boolean } = {
          ...run(t),
          kind,
          ended: false,
          transaction: (f) => f(tx),
          inTransaction: () => true,
          retriedTransactions: () => 0,
          close: async () => {},
        };
        try {
          return await current.run(tx, () => fn(tx));
        } finally {
          tx.ended = true;
        }
      });
    },
    inTransaction: () => active() !== undefined,
    // One connection runs one transaction at a time: nothing to deadlock with.
    retriedTransactions: () => 0,
    close: () => pglite.close(),
  };
}

/**
 * PostgreSQL's default 128 MB buffer pool lives in PGlite's WebAssembly memory, which only
 * grows: a run fills it with pages its in-memory file system already holds. A small pool
 * keeps the process ~140 MB lighter at the reference's data sizes.
 */
const START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c',
  'shared_buffers=8MB',
  '-c',
  'work_mem=2MB',
  '-c',
  'temp_buffers=1MB',
];

/**
 * 1 MB WAL segments instead of 16 MB: the data directory lives in memory (and in the
 * template below), and a new cluster starts with one whole segment.
 */
const INITDB_PARAMS = ['--wal-segsize=1'];
/** Names the cluster layout in the template's file name, so a layout change rebuilds it. */
const LAYOUT = 'wal1';

/**
 * A fresh PGlite pays ~3 s for initdb and ~0.5 s for our migrations. In memory we
 * start from a data directory initialised and migrated once per (PGlite version,
 * migrations) and cached in the OS temp dir.
 */
async function templatePath(key: string): Promise<string> {
  // package.json is not in PGlite's exports map: find it beside the resolved entry.
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  const version = (JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const cache = join(tmpdir(), 'billing-conform');
  await mkdir(cache, { recursive: true });
  return join(cache, `pglite-${version}-${LAYOUT}-${key}.tar`);
}

async function readTemplate(template?: MemoryTemplate): Promise<{ path?: string; blob?: Blob }> {
  try {
    const path = await templatePath(template?.key ?? 'empty');
    try {
      // A file-backed Blob: PGlite reads it once, with no second copy held here.
      return { path, blob: await openAsBlob(path) };
    } catch {
      return { path };
    }
  } catch {
    return {};
  }
}

async function openMemory(template?: MemoryTemplate): Promise<PGlite> {
  const { path, blob } = await readTemplate(template);
  if (blob) {
    try {
      return await PGlite.create({ loadDataDir: blob, startParams: START_PARAMS });
    } catch {
      // A broken template: rebuild it below.
    }
  }
  const db = await PGlite.create({ startParams: START_PARAMS, initDbStartParams: INITDB_PARAMS });
  if (template) await template.prepare(wrap(db, 'memory'));
  if (path) {
    try {
      const dump = await db.dumpDataDir('none');
      const tmp = `${path}.${process.pid}.${Date.now()}`;
      await writeFile(tmp, Buffer.from(await dump.arrayBuffer()));
      await rename(tmp, path);
    } catch {
      // A cache miss next time is harmless.
    }
  }
  return db;
}

/** A new directory starts from the template too when one is cached (skips initdb). */
async function openDirectory(dir: string, template?: MemoryTemplate): Promise<PGlite> {
  await mkdir(dir, { recursive: true });
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    const { blob } = await readTemplate(template);
    if (blob) return PGlite.create({ dataDir: dir, loadDataDir: blob, startParams: START_PARAMS });
  }
  return PGlite.create({ dataDir: dir, startParams: START_PARAMS, initDbStartParams: INITDB_PARAMS });
}

/** How to build the in-memory template: `prepare` (migrations) runs once per `key`. */
export interface MemoryTemplate {
  key: string;
  prepare(db: Db): Promise<void>;
}

export async function openPglite(location: DatabaseLocation, template?: MemoryTemplate): Promise<Db> {
  if (location.kind === 'postgres') throw new Error('openPglite: not a PGlite location');
  if (location.kind === 'memory') {
    const db = await openMemory(template);
    // In memory there is nothing to make durable: don't wait for WAL flushes on commit.
    await db.exec('SET synchronous_commit = off');
    return wrap(db, 'memory');
  }
  // One process per directory: a second one would not see the first one's writes.
  await mkdir(location.dir, { recursive: true });
  const release = await lockDataDirectory(location.dir);
  try {
    const db = wrap(await openDirectory(location.dir, template), 'file');
    return {
      ...db,
      close: async () => {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
