import { describe, expect, it } from 'vitest';
import { openDb, parseDatabaseUrl } from '../../../src/reference/storage/db.ts';
import { newId } from '../../../src/reference/storage/ids.ts';
import { migrate, platformMigrations, type Migration } from '../../../src/reference/storage/migrations/index.ts';
import { createRepository } from '../../../src/reference/storage/repository.ts';
import { drivers } from './drivers.ts';

describe('database URLs', () => {
  it('parses memory, file and postgres, refuses the rest', () => {
    expect(parseDatabaseUrl(undefined)).toEqual({ kind: 'memory' });
    expect(parseDatabaseUrl('memory')).toEqual({ kind: 'memory' });
    expect(parseDatabaseUrl('file:./data')).toEqual({ kind: 'file', dir: './data' });
    expect(parseDatabaseUrl('postgres://u@h/db')).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
    expect(parseDatabaseUrl('postgresql://u@h/db').kind).toBe('postgres');
    expect(() => parseDatabaseUrl('mysql://x')).toThrow(/unsupported database/);
    expect(() => parseDatabaseUrl('file:')).toThrow(/names no directory/);
  });

  it('refuses an unreachable PostgreSQL with a clear message and no password', async () => {
    await expect(openDb({ kind: 'postgres', url: 'postgres://u:secret@127.0.0.1:1/x' })).rejects.toThrow(
      /cannot reach PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/,
    );
  });
});

describe('ids', () => {
  it('are prefix_ + alphanumerics', () => {
    for (let i = 0; i < 200; i++) expect(newId('cus')).toMatch(/^cus_[a-zA-Z0-9]{24}$/);
    expect(new Set(Array.from({ length: 1000 }, () => newId('x'))).size).toBe(1000);
  });
});

describe.each(drivers)('$name', (driver) => {
  it.skipIf(driver.skip)('applies migrations once, idempotently, also when two runs race', async () => {
    const { db, dispose } = await driver.open();
    try {
      const extra: Migration = {
        version: 100,
        name: 'extra',
        up: "CREATE INDEX resources_extra ON resources ((data->>'externalId'))",
      };
      const [a, b] = await Promise.all([
        migrate(db, [...platformMigrations, extra]),
        migrate(db, [...platformMigrations, extra]),
      ]);
      expect([...a, ...b].sort((x, y) => x - y)).toEqual([...platformMigrations.map((m) => m.version), 100]);
      expect(await migrate(db, [...platformMigrations, extra])).toEqual([]);
      const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => Number(r.version))).toEqual([...platformMigrations.map((m) => m.version), 100]);
      await expect(migrate(db, [...platformMigrations, { ...extra, name: 'dup' }, extra])).rejects.toThrow(
        /share version 100/,
      );
    } finally {
      await dispose();
    }
  });

  it.skipIf(driver.skip)('rolls a failing migration back entirely', async () => {
    const { db, dispose } = await driver.open();
    try {
      await migrate(db, platformMigrations);
      const bad: Migration = { version: 101, name: 'bad', up: 'CREATE TABLE half (x int); SELECT no_such_function();' };
      await expect(migrate(db, [...platformMigrations, bad])).rejects.toThrow();
      const { rows } = await db.query("SELECT to_regclass('half') AS t");
      expect(rows[0].t).toBeNull();
      expect(await migrate(db, platformMigrations)).toEqual([]);
    } finally {
      await dispose();
    }
  });

  it.skipIf(driver.skip)('keeps each merchant to its own resources', async () => {
    const { db, dispose } = await driver.open();
    try {
      await migrate(db, platformMigrations);
      const repo = createRepository(db, { now: () => new Date('2030-01-01T00:00:00Z') });
      const c = await repo.insert(
        'customer',
        'org_a',
        { object: 'customer', name: 'Ada', externalId: 'e1', tags: ['x'] },
        { prefix: 'cus' },
      );
      expect(c).toMatchObject({
        id: expect.stringMatching(/^cus_/),
        object: 'customer',
        name: 'Ada',
        createdAt: '2030-01-01T00:00:00.000Z',
        updatedAt: '2030-01-01T00:00:00.000Z',
      });
      expect(await repo.get('customer', c.id, 'org_a')).toEqual(c);
      expect(await repo.get('customer', c.id, 'org_b')).toBeNull();
      expect(await repo.get('subscription', c.id, 'org_a')).toBeNull();
      expect(await repo.update('customer', c.id, 'org_b', { name: 'Eve' })).toBeNull();
      expect(await repo.delete('customer', c.id, 'org_b')).toBe(false);

      const u = await repo.update('customer', c.id, 'org_a', { name: 'Grace', externalId: undefined });
      expect(u).toMatchObject({ id: c.id, name: 'Grace', createdAt: c.createdAt });
      expect(u).not.toHaveProperty('externalId');
      const f = await repo.update<{ name: string }>('customer', c.id, 'org_a', (cur) => ({
        ...cur,
        name: cur.name + '!',
      }));
      expect(f!.name).toBe('Grace!');
      expect(await repo.delete('customer', c.id, 'org_a')).toBe(true);
      expect(await repo.get('customer', c.id, 'org_a')).toBeNull();
    } finally {
      await dispose();
    }
  });

  it.skipIf(driver.skip)('lists with filters, pagination, order and totals', async () => {
    const { db, dispose } = await driver.open();
    try {
      await migrate(db, platformMigrations);
      const repo = createRepository(db);
      for (let i = 0; i < 25; i++)
        await repo.insert(
          'customer',
          'org_a',
          { object: 'customer', n: i, name: `c${String(i).padStart(2, '0')}`, parity: i % 2 ? 'odd' : 'even' },
          { prefix: 'cus' },
        );
      await repo.insert('customer', 'org_b', { object: 'customer', n: 99, parity: 'odd' }, { prefix: 'cus' });
      const page = await repo.list<{ n: number }>('customer', 'org_a', { limit: 10, offset: 20 });
      expect(page.total).toBe(25);
      expect(page.data.map((d) => d.n)).toEqual([20, 21, 22, 23, 24]);
      const odd = await repo.list<{ n: number }>('customer', 'org_a', { where: { parity: 'odd' }, limit: 100 });
      expect(odd.total).toBe(12);
      expect(odd.data.every((d) => d.n % 2 === 1)).toBe(true);
      const desc = await repo.list<{ name: string }>('customer', 'org_a', {
        orderBy: { field: 'name', direction: 'desc' },
        limit: 2,
      });
      expect(desc.data.map((d) => d.name)).toEqual(['c24', 'c23']);
      expect(await repo.count('customer', 'org_a', { parity: 'even' })).toBe(13);
      expect(await repo.count('customer', 'org_b')).toBe(1);
      // totals stay right through deletes and raw SQL inserts (kept by a trigger)
      expect(await repo.delete('customer', page.data[0].id as string, 'org_a')).toBe(true);
      await repo.query(
        "INSERT INTO resources (id, merchant_id, type, data, created_at, updated_at) VALUES ('cus_raw1', 'org_a', 'customer', '{}', now(), now()), ('cus_raw2', 'org_a', 'customer', '{}', now(), now())",
      );
      expect(await repo.count('customer', 'org_a')).toBe(26);
      expect((await repo.list('customer', 'org_a', { limit: 1 })).total).toBe(26);
      expect((await repo.list('customer', 'org_a', { limit: 1, offset: 1000 })).total).toBe(26);
      expect(await repo.count('subscription', 'org_a')).toBe(0);
      await expect(
        repo.list('customer', 'org_a', { orderBy: { field: "x'; drop table resources; --" } }),
      ).rejects.toThrow(/bad orderBy/);
    } finally {
      await dispose();
    }
  });

  it.skipIf(driver.skip)(
    'serves deep pages from cached ids that follow every insert, delete and rollback',
    async () => {
      const { db, dispose } = await driver.open();
      try {
        await migrate(db, platformMigrations);
        const repo = createRepository(db);
        const ids: string[] = [];
        for (let i = 0; i < 150; i++)
          ids.push((await repo.insert('customer', 'org_a', { object: 'customer', n: i }, { prefix: 'cus' })).id);
        const deep = async (offset: number) =>
          (await repo.list<{ n: number }>('customer', 'org_a', { limit: 5, offset })).data.map((d) => d.n);
        expect(await deep(120)).toEqual([120, 121, 122, 123, 124]);
        expect(await deep(148)).toEqual([148, 149]);
        expect(await deep(150)).toEqual([]);
        expect((await repo.list('customer', 'org_a', { limit: 5, offset: 148 })).total).toBe(150);
        await repo.delete('customer', ids[0], 'org_a');
        await repo.insert('customer', 'org_a', { object: 'customer', n: 150 }, { prefix: 'cus' });
        expect(await deep(120)).toEqual([121, 122, 123, 124, 125]);
        expect(await deep(146)).toEqual([147, 148, 149, 150]);
        // another merchant's inserts leave this list alone; a rolled-back insert never shows
        await repo.insert('customer', 'org_b', { object: 'customer', n: -1 }, { prefix: 'cus' });
        await expect(
          repo.transaction(async (tx) => {
            await tx.insert('customer', 'org_a', { object: 'customer', n: 999 }, { prefix: 'cus' });
            expect(
              (await tx.list<{ n: number }>('customer', 'org_a', { limit: 5, offset: 148 })).data.map((d) => d.n),
            ).toEqual([149, 150, 999]);
            throw new Error('rollback');
          }),
        ).rejects.toThrow('rollback');
        expect(await deep(146)).toEqual([147, 148, 149, 150]);
        await repo.insert('customer', 'org_a', { object: 'customer', n: 151 }, { prefix: 'cus' });
        expect(await deep(146)).toEqual([147, 148, 149, 150, 151]);
        // raw SQL writes move the version too
        await repo.query("DELETE FROM resources WHERE merchant_id = 'org_a' AND data->>'n' = '149'");
        expect(await deep(146)).toEqual([147, 148, 150, 151]);
      } finally {
        await dispose();
      }
    },
  );

  it.skipIf(driver.skip)('commits or rolls back a transaction as a whole', async () => {
    const { db, dispose } = await driver.open();
    try {
      await migrate(db, platformMigrations);
      const repo = createRepository(db);
      await expect(
        repo.transaction(async (tx) => {
          await tx.insert('customer', 'org_a', { object: 'customer' }, { prefix: 'cus' });
          await tx.transaction(async (inner) =>
            inner.insert('customer', 'org_a', { object: 'customer' }, { prefix: 'cus' }),
          );
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await repo.count('customer', 'org_a')).toBe(0);
      await repo.transaction(async (tx) => {
        await tx.insert('customer', 'org_a', { object: 'customer' }, { prefix: 'cus' });
        await tx.insert('customer', 'org_a', { object: 'customer' }, { prefix: 'cus' });
      });
      expect(await repo.count('customer', 'org_a')).toBe(2);
    } finally {
      await dispose();
    }
  });
});
