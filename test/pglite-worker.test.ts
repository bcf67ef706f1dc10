// The embedded database in a worker thread (src/db/pglite-worker.ts), the server's default: the
// driver itself against an in-process PGlite on the same data (rows, types, errors, transactions,
// statements waiting for a transaction, dump and clone), then the app on it (HTTP, and a worker that
// dies: 503 and /readyz 503, never a hang or a dead process).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { isDatabaseUnavailable, openPglite, type Db, type DumpableDb } from '../src/db/index.ts';
import { workerOf } from '../src/db/pglite-worker.ts';
import { call, createTestContext, newPatient, type TestContext } from './support/harness.ts';

const templateFile = inject('pgliteTemplate');
const template = () => new Blob([readFileSync(templateFile)]);

/** The fields a caller may read from a failed statement. */
function failure(err: unknown) {
  const e = err as Record<string, unknown>;
  return { isError: err instanceof Error, code: e.code, constraint: e.constraint, statement: e.statement, detail: e.detail, params: e.params, message: e.message };
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

// The PostgreSQL run of the suite builds no PGlite template: the driver is PGlite-only.
describe.skipIf(!templateFile)('the PGlite worker driver', () => {
  let db: DumpableDb;
  let inProcess: DumpableDb;

  beforeAll(async () => {
    db = (await openPglite({ loadDataDir: template(), worker: true })) as DumpableDb;
    inProcess = (await openPglite({ loadDataDir: template() })) as DumpableDb;
    for (const d of [db, inProcess]) {
      await d.exec(`create table w_items (id int primary key, label text not null, price numeric(10,2), big int8, day date, blob bytea, meta jsonb, at timestamptz);
                    create unique index w_items_label on w_items (label);`);
    }
  });
  afterAll(async () => {
    await db?.close();
    await inProcess?.close();
  });

  it('runs in a worker thread, not in-process', () => {
    expect(workerOf(db)).toBeDefined();
    expect(workerOf(inProcess)).toBeUndefined();
  });

  it('returns the same plain rows and types as the in-process driver (DATE a string, NUMERIC/INT8 numbers)', async () => {
    const insert = 'insert into w_items values ($1, $2, $3, $4, $5, $6, $7, $8) returning *';
    const params = [1, 'one', '12.50', 9_007_199_254, '2024-02-29', new Uint8Array([0, 1, 255]), { a: [1, 'x'] }, new Date('2024-03-01T10:00:00Z')];
    const viaWorker = await db.execute(insert, params);
    const here = await inProcess.execute(insert, params);
    expect(viaWorker.rowCount).toBe(1);
    expect(viaWorker).toEqual(here);
    const [row] = await db.query<Record<string, unknown>>('select * from w_items where id = $1', [1]);
    expect(row).toEqual({ id: 1, label: 'one', price: 12.5, big: 9_007_199_254, day: '2024-02-29', blob: new Uint8Array([0, 1, 255]), meta: { a: [1, 'x'] }, at: new Date('2024-03-01T10:00:00Z') });
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    const updated = await db.execute('update w_items set label = label where id > $1', [-1]);
    expect(updated.rowCount).toBe(1);
  });

  it('keeps SQLSTATE code, constraint and statement label, and drops parameters and detail, like in-process', async () => {
    const sql = 'insert into w_items (id, label) values ($1, $2)';
    const viaWorker = failure(await caught(db.query(sql, [2, 'one'])));
    const here = failure(await caught(inProcess.query(sql, [2, 'one'])));
    expect(viaWorker).toEqual({ isError: true, code: '23505', constraint: 'w_items_label', statement: sql, detail: undefined, params: undefined, message: here.message });
    expect(here.code).toBe('23505');
    expect(failure(await caught(db.query('select * from w_items where id = $1', ['not a number'])))).toMatchObject({ code: '22P02', params: undefined });
    expect(failure(await caught(db.exec('select * from no_such_table')))).toMatchObject({ code: '42P01' });
  });

  it('commits a transaction, and rolls it back when its function throws (its error passes unchanged)', async () => {
    const value = await db.tx(async (q) => {
      await q.execute('insert into w_items (id, label) values ($1, $2)', [10, 'ten']);
      return (await q.query<{ n: number }>('select count(*)::int as n from w_items where id = $1', [10]))[0]?.n;
    });
    expect(value).toBe(1);
    class Refused extends Error {}
    const err = await caught(
      db.tx(async (q) => {
        await q.execute('insert into w_items (id, label) values ($1, $2)', [11, 'eleven']);
        throw new Refused('no');
      }),
    );
    expect(err).toBeInstanceOf(Refused);
    // A failed statement inside a transaction reaches the caller with its code, and rolls back too.
    const dup = await caught(
      db.tx(async (q) => {
        await q.execute('insert into w_items (id, label) values ($1, $2)', [12, 'twelve']);
        await q.execute('insert into w_items (id, label) values ($1, $2)', [13, 'ten']);
      }),
    );
    expect(failure(dup)).toMatchObject({ code: '23505', constraint: 'w_items_label' });
    expect(await db.query('select id from w_items where id >= 10 order by id')).toEqual([{ id: 10 }]);
  });

  it('keeps a transaction exclusive: statements and transactions sent meanwhile wait for it, then run', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const begun = new Promise<void>((r) => (inside = r));
    const order: string[] = [];
    const first = db.tx(async (q) => {
      await q.execute('insert into w_items (id, label) values ($1, $2)', [20, 'twenty']);
      inside();
      await gate;
      await q.execute('update w_items set label = $1 where id = $2', ['twenty-done', 20]);
      order.push('tx');
    });
    await begun;
    const outside = db.query<{ label: string }>('select label from w_items where id = $1', [20]).then((rows) => {
      order.push('read');
      return rows;
    });
    const second = db.tx(async (q) => {
      order.push('second tx');
      return q.query<{ label: string }>('select label from w_items where id = $1', [20]);
    });
    // Both are in the worker, waiting on PGlite's mutex, while the first transaction is open.
    await new Promise((r) => setTimeout(r, 100));
    expect(order).toEqual([]);
    release();
    await first;
    expect(await outside).toEqual([{ label: 'twenty-done' }]);
    expect(await second).toEqual([{ label: 'twenty-done' }]);
    expect(order[0]).toBe('tx');
    expect(order.slice(1).sort()).toEqual(['read', 'second tx']);
  });

  it('runs many concurrent statements, each answered with its own rows', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => db.query<{ n: number }>('select $1::int * 2 as n', [i])));
    expect(answers.map((rows) => rows[0]?.n)).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
  });

  it('dumps its data directory, and a clone loaded from the dump (in a worker too) holds the same rows', async () => {
    await db.exec('checkpoint');
    const dump = await db.dump();
    expect(dump.size).toBeGreaterThan(1000);
    const clone = await openPglite({ loadDataDir: dump, worker: true });
    try {
      expect(await clone.query('select id, label from w_items where id in (1, 10) order by id')).toEqual([
        { id: 1, label: 'one' },
        { id: 10, label: 'ten' },
      ]);
      // The clone is its own database.
      await clone.execute('delete from w_items');
      expect((await db.query('select count(*)::int as n from w_items'))[0]).toEqual({ n: 3 });
    } finally {
      await clone.close();
    }
  });

  it('refuses to start on data that is not a database, without hanging', async () => {
    const err = await caught(openPglite({ loadDataDir: new Blob([new Uint8Array(4096).fill(7)]), worker: true }));
    expect(err).toBeInstanceOf(Error);
  });

  it('rejects statements after close instead of hanging', async () => {
    const other: Db = await openPglite({ loadDataDir: template(), worker: true });
    await other.close();
    expect(isDatabaseUnavailable(await caught(other.query('select 1')))).toBe(true);
    await other.close(); // closing twice is harmless
  });
});

describe.skipIf(!templateFile)('the app on the PGlite worker', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({}, { pgliteWorker: true });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('serves a patient through the worker, and answers 503 (never 500 or a hang) once the worker has died', async () => {
    expect(workerOf(ctx.deps.db)).toBeDefined();
    const p = await newPatient(ctx, 'wk');
    const profile = await call(ctx, 'GET', '/v1/users/profile/', { token: p.access });
    expect(profile.status).toBe(200);
    expect((await call(ctx, 'GET', '/readyz')).status).toBe(200);

    // A statement in flight when the worker dies is rejected as "database unavailable".
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inFlight = ctx.deps.db.tx(async (q) => {
      await q.query('select 1');
      await gate;
      return q.query('select 2');
    });
    const waiting = ctx.deps.db.query('select 3'); // waits in the worker for the transaction
    await new Promise((r) => setTimeout(r, 50));
    const stderr = process.stderr.write.bind(process.stderr);
    const written: string[] = [];
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await workerOf(ctx.deps.db)!.terminate();
    } finally {
      process.stderr.write = stderr;
    }
    release();
    const lost = await caught(waiting);
    expect(isDatabaseUnavailable(lost)).toBe(true);
    expect(failure(lost).code).toBe('57P01');
    expect(isDatabaseUnavailable(await caught(inFlight))).toBe(true);
    // Said once, on stderr, for whoever runs the process.
    expect(written.join('')).toContain('the embedded database worker stopped');

    const after = await call(ctx, 'GET', '/v1/users/profile/', { token: p.access });
    expect(after.status).toBe(503);
    expect(after.body).toMatchObject({ code: 'database_unavailable' });
    expect(after.headers['retry-after']).toBe('2');
    const ready = await call(ctx, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'unavailable', checks: { database: 'unreachable' } });
  });
});
