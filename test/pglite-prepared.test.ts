// Named prepared statements on the embedded database (src/db/pglite-prepared.ts): a statement with
// parameters is parsed once per database and then only bound and executed; results, errors, locking
// and transactions are exactly those of PGlite's own query().
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, pgliteOptions, type Db } from '../src/db/index.ts';
import { preparedStatements } from '../src/db/pglite-prepared.ts';

const PREPARED = 'select statement from pg_prepared_statements where not from_sql order by statement';
const statementsOf = async (q: { query: <T>(sql: string) => Promise<T[]> }) => (await q.query<{ statement: string }>(PREPARED)).map((r) => r.statement);

describe('the embedded database sends statements with parameters as named prepared statements', () => {
  let raw: PGlite;
  beforeAll(async () => {
    raw = new PGlite(pgliteOptions({}));
    await raw.waitReady;
    await raw.exec(`create table things (id int primary key, born date, price numeric(10,2), big bigint, doc jsonb, at timestamptz, tags text[], ids uuid[], blob bytea, ok boolean, note text)`);
  });
  afterAll(() => raw.close());

  it('prepares a statement once, reuses it, and leaves parameterless ones unnamed', async () => {
    const p = preparedStatements(raw);
    const sql = 'select $1::int + 1 as n';
    expect((await p.query(sql, [1])).rows).toEqual([{ n: 2 }]);
    expect((await p.query(sql, [41])).rows).toEqual([{ n: 42 }]);
    await p.query('select 1 as one', []);
    expect((await raw.query<{ statement: string }>(PREPARED)).rows.map((r) => r.statement)).toEqual([sql]);
  });

  it('serialises parameters and parses rows exactly as PGlite query() does', async () => {
    const p = preparedStatements(raw);
    const insert = 'insert into things values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning *';
    const at = new Date('2026-11-26T10:20:30.456Z');
    const values = [1, '2000-02-29', 12.5, 9_007_199_254_740_991, { a: [1, 'two', null] }, at, ['x', 'y z'], ['0b0f3d5e-8f7c-4a39-9c1f-2f6d2b8f8a11'], new Uint8Array([0, 255, 7]), true, null];
    const viaPrepared = (await p.query(insert, values)).rows;
    const viaQuery = (await raw.query(insert.replace('$1,', '2 + 0 * $1,'), values)).rows;
    expect(viaPrepared).toEqual([{ ...(viaQuery[0] as object), id: 1 }]);
    expect(viaPrepared[0]).toMatchObject({ born: '2000-02-29', price: 12.5, doc: { a: [1, 'two', null] }, at, tags: ['x', 'y z'], ok: true, note: null });
    const read = 'select * from things where id = any($1::int[]) order by id';
    expect((await p.query(read, [[1, 2]])).rows).toEqual((await raw.query(read, [[1, 2]])).rows);
    const write = await p.query('update things set note = $1 where id > $2', ['n', 0]);
    expect(write.affectedRows).toBe(2);
  });

  it('reports errors with their SQLSTATE and stays usable afterwards', async () => {
    const p = preparedStatements(raw);
    await expect(p.query('select $1::int / 0 as boom', [1])).rejects.toMatchObject({ code: '22012' });
    await expect(p.query('insert into things (id) values ($1)', [1])).rejects.toMatchObject({ code: '23505' });
    await expect(p.query('select nope from things where id = $1', [1])).rejects.toMatchObject({ code: '42703' });
    expect((await p.query('select count(*)::int as n from things where id > $1', [0])).rows).toEqual([{ n: 2 }]);
  });

  it('runs inside a transaction, rolls back with it, and keeps statements outside waiting for it', async () => {
    const p = preparedStatements(raw);
    const count = 'select count(*)::int as n from things where id >= $1';
    let insideDone = false;
    const inside = raw.transaction(async (tx) => {
      await p.query('insert into things (id) values ($1)', [10], tx);
      expect((await p.query(count, [10], tx)).rows).toEqual([{ n: 1 }]);
      await new Promise((r) => setTimeout(r, 50));
      insideDone = true;
      await tx.rollback();
    });
    // Sent while the transaction is open: answered after it ended, so it sees the rollback.
    const outside = p.query(count, [10]).then((r) => ({ rows: r.rows, afterTransaction: insideDone }));
    await inside;
    expect(await outside).toEqual({ rows: [{ n: 0 }], afterTransaction: true });
  });

  it('prepares a statement again when a schema change altered its result type', async () => {
    const p = preparedStatements(raw);
    await raw.exec('create table shapes (id int)');
    await raw.exec('insert into shapes values (1)');
    const sql = 'select * from shapes where id = $1';
    expect((await p.query(sql, [1])).rows).toEqual([{ id: 1 }]);
    await raw.exec('alter table shapes add column label text');
    // Outside a transaction nothing ran when the cached plan was refused: it is prepared again and sent once more.
    expect((await p.query(sql, [1])).rows).toEqual([{ id: 1, label: null }]);
    await raw.exec('alter table shapes add column size int');
    // Inside one the refusal aborts the transaction; the next statement prepares it afresh.
    await expect(raw.transaction((tx) => p.query(sql, [1], tx))).rejects.toMatchObject({ code: '0A000' });
    expect((await p.query(sql, [1])).rows).toEqual([{ id: 1, label: null, size: null }]);
  });

  it('sends statements unnamed past its bound', async () => {
    const small = new PGlite(pgliteOptions({}));
    try {
      const p = preparedStatements(small, 2);
      for (const n of [1, 2, 3, 4]) expect((await p.query(`select $1::int * ${n} as n`, [2])).rows).toEqual([{ n: 2 * n }]);
      expect(p.size).toBe(2);
      expect((await small.query<{ statement: string }>(PREPARED)).rows.map((r) => r.statement)).toEqual(['select $1::int * 1 as n', 'select $1::int * 2 as n']);
    } finally {
      await small.close();
    }
  });
});

describe('a PGlite without the locking methods the named path uses', () => {
  it('sends every statement through PGlite query(), in and out of transactions, instead of failing', async () => {
    const db = new PGlite(pgliteOptions({}));
    await db.waitReady;
    try {
      // As a PGlite version that renamed its underscore methods would look from outside (its own
      // methods, bound to the real instance, keep working).
      const renamed = new Proxy(db, {
        get(target, prop) {
          if (prop === '_runExclusiveTransaction') return undefined;
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const p = preparedStatements(renamed);
      expect((await p.query('select $1::int * 2 as n', [21])).rows).toEqual([{ n: 42 }]);
      await db.transaction(async (tx) => {
        expect((await p.query('select $1::text as t', ['in'], tx)).rows).toEqual([{ t: 'in' }]);
      });
      expect(p.size).toBe(0);
      expect(await statementsOf({ query: async <T>(sql: string) => (await db.query<T>(sql)).rows })).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

describe.each([false, true])('the embedded database handle (worker: %s)', (worker) => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite({ worker });
    await db.exec('create table notes (id int primary key, body text)');
  });
  afterAll(() => db.close());

  it('names statements with parameters, in and out of transactions', async () => {
    await db.query('insert into notes values ($1, $2)', [1, 'a']);
    await db.tx(async (q) => {
      await q.query('insert into notes values ($1, $2)', [2, 'b']);
      expect(await q.query('select body from notes where id = $1', [2])).toEqual([{ body: 'b' }]);
    });
    expect(await db.query('select body from notes where id = $1', [1])).toEqual([{ body: 'a' }]);
    expect(await statementsOf(db)).toEqual(['insert into notes values ($1, $2)', 'select body from notes where id = $1']);
    const err = await db.query('insert into notes values ($1, $2)', [1, 'again']).catch((e: unknown) => e as Record<string, unknown>);
    expect(err).toMatchObject({ code: '23505', statement: 'insert into notes values ($1, $2)' });
    expect(err).not.toHaveProperty('params');
    expect(await db.execute('update notes set body = $1 where id > $2', ['c', 0])).toMatchObject({ rowCount: 2 });
  });
});
