/**
 * The PostgreSQL driver when a connection checked out for a transaction is lost: the
 * transaction fails with DatabaseUnavailableError (answered 503), never an 'error' event
 * nobody handles (which ended the process), and the pool serves the next request. A connection
 * cut during COMMIT is settled by asking the database what became of the transaction: a
 * committed one is acknowledged, never answered as failed.
 *
 * A TCP proxy between the pool and the database cuts connections where a test asks.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, openDb, type Db } from '../../../src/reference/storage/db.ts';
import { DATABASE_URL, isolatedPgUrl, PG_SKIP } from './drivers.ts';

type Cut = 'none' | 'before COMMIT reaches the database' | 'after the database answered COMMIT';

/** Forwards connections to the database; `cut` drops the next connection that sends COMMIT. */
class CuttingProxy {
  cut: Cut = 'none';
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(target: { host: string; port: number }) {
    this.server = createServer((client) => {
      const upstream = createConnection(target);
      this.sockets.add(client).add(upstream);
      let committing = false;
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('data', (chunk) => {
        if (this.cut !== 'none' && chunk.includes('COMMIT\0')) {
          if (this.cut === 'before COMMIT reaches the database') {
            this.cut = 'none';
            return drop();
          }
          committing = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        if (committing) {
          // The database committed and answered: the answer never arrives.
          this.cut = 'none';
          return drop();
        }
        client.write(chunk);
      });
      for (const s of [client, upstream]) {
        s.on('error', () => drop());
        s.on('close', () => {
          this.sockets.delete(s);
          drop();
        });
      }
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe.skipIf(!DATABASE_URL)(`PostgreSQL: a connection lost while checked out${PG_SKIP}`, () => {
  let db: Db;
  let proxy: CuttingProxy;
  let admin: pg.Client;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const isolated = await isolatedPgUrl();
    drop = isolated.drop;
    const direct = new URL(isolated.url);
    proxy = new CuttingProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(isolated.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(await proxy.listen());
    db = await openDb({ kind: 'postgres', url: viaProxy.toString() });
    await db.exec('CREATE TABLE cut_writes (name text PRIMARY KEY)');
    admin = new pg.Client({ connectionString: isolated.url });
    await admin.connect();
  });
  afterAll(async () => {
    await db?.close();
    await admin?.end();
    await proxy?.close();
    await drop?.();
  });

  const stored = async (name: string) =>
    (await admin.query('SELECT 1 FROM cut_writes WHERE name = $1', [name])).rowCount === 1;

  it('a session terminated mid-transaction fails it with DatabaseUnavailableError, and the pool goes on', async () => {
    const attempt = db.transaction(async (tx) => {
      await tx.query("INSERT INTO cut_writes VALUES ('terminated')");
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      await tx.query('SELECT 1');
    });
    const err = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as DatabaseUnavailableError).inDoubt).toBe(false);
    expect(await stored('terminated')).toBe(false);
    // the broken client left the pool: the next transactions and queries are served
    for (let i = 0; i < 12; i++) await db.transaction((tx) => tx.query('SELECT 1'));
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
  });

  it('a COMMIT cut before it reached the database fails the write, and nothing is stored', async () => {
    proxy.cut = 'before COMMIT reaches the database';
    const err = await db
      .transaction((tx) => tx.query("INSERT INTO cut_writes VALUES ('never committed')"))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(await stored('never committed')).toBe(false);
    expect((await db.query('SELECT 1')).rowCount).toBe(1);
  });

  it('a COMMIT the database carried out whose answer was cut is acknowledged, not answered as failed', async () => {
    proxy.cut = 'after the database answered COMMIT';
    const out = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO cut_writes VALUES ('committed, answer lost')");
      return 'acknowledged';
    });
    expect(proxy.cut, 'the proxy cut the connection').toBe('none');
    expect(out).toBe('acknowledged');
    expect(await stored('committed, answer lost')).toBe(true);
  });

  it('a query outside a transaction on a lost connection fails with DatabaseUnavailableError', async () => {
    const sql = 'SELECT pg_sleep(30) AS cut_outside_a_transaction';
    const sleeping = db.query(sql);
    let terminated = 0;
    for (let i = 0; i < 250 && terminated === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { rows } = await admin.query<{ n: number }>(
        'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE query = $1',
        [sql],
      );
      terminated = rows[0].n;
    }
    expect(terminated).toBe(1);
    await expect(sleeping).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect((await db.query('SELECT 1')).rowCount).toBe(1);
  });
});
