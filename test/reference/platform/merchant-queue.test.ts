/**
 * One busy merchant never starves the others: a merchant's write requests wait for their turn
 * in the process (KeyedQueue) before they take a database connection, so waiting on the
 * merchant's lock does not hold connections another merchant needs.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../../src/reference/http/keyedQueue.ts';
import { DATABASE_URL, isolatedPgUrl, PG_SKIP } from './drivers.ts';
import { startTestServer } from './helpers.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('KeyedQueue', () => {
  it('runs at most `width` tasks of one key at once, in arrival order; other keys do not wait', async () => {
    const queue = new KeyedQueue(2);
    const started: string[] = [];
    const release = new Map<string, () => void>();
    const task = (name: string) => () =>
      new Promise<string>((resolve) => {
        started.push(name);
        release.set(name, () => resolve(name));
      });
    const a = ['a1', 'a2', 'a3', 'a4'].map((n) => queue.run('A', task(n)));
    const b = queue.run('B', task('b1'));
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    expect(queue.size('A')).toEqual({ running: 2, waiting: 2 });
    release.get('a2')!();
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    for (const name of ['a1', 'a3', 'b1']) release.get(name)!();
    for (let i = 0; i < 5; i++) await nextTurn();
    release.get('a4')!();
    expect(await Promise.all([...a, b])).toEqual(['a1', 'a2', 'a3', 'a4', 'b1']);
    expect(queue.size('A')).toEqual({ running: 0, waiting: 0 });
  });

  it('a task that throws gives its turn to the next', async () => {
    const queue = new KeyedQueue(1);
    const failing = queue.run('A', async () => {
      throw new Error('no');
    });
    const next = queue.run('A', async () => 'next');
    await expect(failing).rejects.toThrow('no');
    expect(await next).toBe('next');
  });

  it('startAfterPendingIo: pending I/O runs before each task, never task after task in one turn of the loop', async () => {
    const queue = new KeyedQueue(1, { startAfterPendingIo: true });
    const order: string[] = [];
    setImmediate(() => order.push('pending before the first task'));
    const first = queue.run('A', async () => {
      order.push('first');
      setImmediate(() => order.push('arrived during the first'));
    });
    const second = queue.run('A', async () => void order.push('second'));
    await Promise.all([first, second]);
    expect(order).toEqual(['pending before the first task', 'first', 'arrived during the first', 'second']);
  });

  it('without startAfterPendingIo, the next task starts as soon as the last ended', async () => {
    const queue = new KeyedQueue(1);
    const order: string[] = [];
    const first = queue.run('A', async () => {
      order.push('first');
      setImmediate(() => order.push('arrived during the first'));
    });
    const second = queue.run('A', async () => void order.push('second'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });

  it('refuses a width below 1', () => {
    expect(() => new KeyedQueue(0)).toThrow(/positive integer/);
  });
});

describe.skipIf(!DATABASE_URL)(`PostgreSQL: a merchant waiting on its lock leaves the pool to others${PG_SKIP}`, () => {
  it("another merchant's reads are answered while one merchant's writes wait, which hold two connections", async () => {
    const { url, drop } = await isolatedPgUrl();
    const application = `conform_queue_${randomBytes(4).toString('hex')}`;
    const s = await startTestServer({ database: `${url}&application_name=${application}` });
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    try {
      const other = await s.call('POST', '/v0/merchants', { body: { name: 'reader' } });
      const otherKey = (await s.call('POST', '/v0/apiKeys', { body: { name: 'r', merchantId: other.body.id } })).body
        .secret as string;
      const readable = (await s.call('POST', '/v0/customers', { key: otherKey, body: { name: 'read me' } })).body;
      const customer = (await s.call('POST', '/v0/customers', { body: { name: 'written' } })).body;

      // The writer merchant's lock, held from outside: its writes queue behind it.
      await admin.query('BEGIN');
      await admin.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`merchant-writes:${s.merchantId}`]);
      const writes = Array.from({ length: 30 }, (_, i) =>
        s.call('PATCH', `/v0/customers/${customer.id}`, { body: { externalId: `w${i}` } }),
      );
      const waitingOnLock = async () =>
        (
          await admin.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
            [application],
          )
        ).rows[0].n;
      let waiting = 0;
      for (let i = 0; i < 250 && waiting < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        waiting = await waitingOnLock();
      }
      // More than the pool's 10 would wait if each write took its connection first.
      for (let i = 0; i < 20; i++) {
        const read = await s.call('GET', `/v0/customers/${readable.id}`, { key: otherKey });
        expect(read.status, JSON.stringify(read.body)).toBe(200);
      }
      expect(await waitingOnLock(), "the writer merchant's transactions waiting on its lock").toBe(2);

      await admin.query('COMMIT');
      const answers = await Promise.all(writes);
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect((await s.call('GET', `/v0/customers/${customer.id}`)).body.externalId).toMatch(/^w\d+$/);
    } finally {
      await admin.query('ROLLBACK').catch(() => {});
      await admin.end();
      await s.close();
      await drop();
    }
  });
});
