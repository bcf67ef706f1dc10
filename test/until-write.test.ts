// Reads kept until the next write on the embedded database (src/db/until-write.ts): the
// classification of statements, the memo's rules on a real PGlite (in-process and in its worker
// thread), and what a patient and an attacker see over HTTP: a revoked session, a disabled account and
// a new record take effect on the very next request.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPglite, type Db } from '../src/db/index.ts';
import { UntilWrite, isSoleWriter, mayWrite, writeCounter } from '../src/db/until-write.ts';
import { SESSION_ACCOUNT_SQL } from '../src/http/auth.repository.ts';
import { CONSULTATION_LIST_SQL, DATA_VERSION_SQL } from '../src/modules/consultations/repository.ts';
import { call, createTestContext, seedPatient, statementsDuring, type TestContext } from './support/harness.ts';

describe('mayWrite', () => {
  it('reads: the hot statements and plain selects, whatever their column names', () => {
    for (const sql of [
      SESSION_ACCOUNT_SQL,
      DATA_VERSION_SQL,
      CONSULTATION_LIST_SQL,
      'select "id", "updated_at", "deleted_at", "inserted_by" from "users" where "id" = $1',
      '  SELECT 1',
      'select locale, lower(email) from users where email = $1',
    ]) {
      expect(mayWrite(sql), sql.slice(0, 60)).toBe(false);
    }
  });

  it('writes: every modifying statement, locks, sequences, notifications, settings and scripts', () => {
    for (const sql of [
      'insert into users (email) values ($1)',
      'update refresh_families set revoked_at = now() where id = $1',
      'delete from sessions where id = $1',
      'with moved as (update orders set status = $2 returning id) select count(*) from moved',
      'select * from orders where id = $1 for update',
      'select * from orders where id = $1 for no key update',
      'select * from orders where id = $1 for share',
      'select * from orders where id = $1 for key share',
      "select nextval('invoice_numbers')",
      "select setval('invoice_numbers', 10)",
      "select pg_notify('c', 'x')",
      "select set_config('app.user', $1, true)",
      'select pg_advisory_xact_lock(42)',
      'select * into scratch from users',
      'truncate users',
      'merge into users u using x on true when matched then do nothing',
      'begin',
      'commit',
      'create table t (id int); insert into t values (1)',
      'vacuum',
      // Conservative: a write word anywhere counts, even inside a literal.
      "select locale from users where email like 'into%'",
      'analyze users',
      '',
    ]) {
      expect(mayWrite(sql), sql).toBe(true);
    }
  });
});

describe('writeCounter', () => {
  it('raises the epoch once a write has finished, failed or not; reads leave it', async () => {
    const c = writeCounter();
    await c.around('select 1', async () => expect(c.writeEpoch()).toBe(0));
    expect(c.writeEpoch()).toBe(0);
    let during = -1;
    await c.around('update t set x = 1', async () => void (during = c.writeEpoch()));
    // While it runs, nobody can know of it yet (its caller is still waiting): kept answers stand.
    expect(during).toBe(0);
    expect(c.writeEpoch()).toBe(1);
    await expect(c.around('delete from t', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(c.writeEpoch()).toBe(2);
  });

  it('leaves the epoch for a plain insert, update or delete that changed no row, and only for those', async () => {
    const c = writeCounter();
    const rows = (n: number) => () => Promise.resolve({ rowCount: n });
    const count = (r: { rowCount: number }) => r.rowCount;
    for (const sql of ['update t set x = 1 where false', '  DELETE from t where id = $1', 'insert into t select 1 where false', 'insert into t values (1) on conflict do nothing']) {
      await c.around(sql, rows(0), count);
    }
    expect(c.writeEpoch()).toBe(0);
    await c.around('update t set x = 1', rows(1), count);
    expect(c.writeEpoch()).toBe(1);
    // 0 rows reported by anything else, or no row count at all, still counts as a write.
    for (const [sql, rowsOf] of [
      ['with d as (delete from t returning 1) select count(*) from d', count],
      ["select nextval('s')", count],
      ['select * from t for update', count],
      ['truncate t', count],
      ['merge into t using u on t.id = u.id when matched then delete', count],
      ['update t set x = 1', undefined],
    ] as const) {
      const before = c.writeEpoch();
      await c.around(sql, rows(0), rowsOf);
      expect(c.writeEpoch(), sql).toBe(before + 1);
    }
  });
});

describe('UntilWrite on a real embedded database', () => {
  for (const worker of [false, true]) {
    describe(worker ? 'in its worker thread' : 'in-process', () => {
      let db: Db;
      beforeAll(async () => {
        db = await openPglite({ worker });
        await db.exec('create table notes (id int primary key, body text)');
        await db.query("insert into notes values (1, 'first')");
      });
      afterAll(() => db.close());

      it('keeps an answer until any write, then reads again; a miss is never kept', async () => {
        expect(isSoleWriter(db)).toBe(true);
        const memo = new UntilWrite<string>(10);
        let reads = 0;
        const body = (id: number) => () => {
          reads++;
          return db.query<{ body: string }>('select body from notes where id = $1', [id]).then((r) => r[0]?.body);
        };
        expect(await memo.get(db, '1', body(1))).toBe('first');
        expect(await memo.get(db, '1', body(1))).toBe('first');
        expect(reads).toBe(1);
        // A write of anything (here the same row, but any table counts) is seen at once.
        await db.query("update notes set body = 'second' where id = 1");
        expect(await memo.get(db, '1', body(1))).toBe('second');
        expect(reads).toBe(2);
        // Inside a transaction too.
        await db.tx((t) => t.query("update notes set body = 'third' where id = 1"));
        expect(await memo.get(db, '1', body(1))).toBe('third');
        // A missing row is asked every time.
        expect(await memo.get(db, '2', body(2))).toBeUndefined();
        expect(await memo.get(db, '2', body(2))).toBeUndefined();
        expect(reads).toBe(5);
      });

      it('a write sent while a read is in flight makes that read not kept', async () => {
        const memo = new UntilWrite<string>(10);
        let reads = 0;
        const read = () => {
          reads++;
          return db.query<{ body: string }>('select body from notes where id = 1').then((r) => r[0]?.body);
        };
        // The read is sent first, the write right after it (before the read's answer arrives).
        const first = memo.get(db, 'k', read);
        const write = db.query("update notes set body = 'fourth' where id = 1");
        await Promise.all([first, write]);
        expect(await memo.get(db, 'k', read)).toBe('fourth');
        expect(reads).toBe(2);
      });

      it('keeps its answers across a write that changed no row, not across one that did', async () => {
        const memo = new UntilWrite<string>(10);
        let reads = 0;
        const read = () => {
          reads++;
          return db.query<{ body: string }>('select body from notes where id = $1', [1]).then((r) => r[0]?.body);
        };
        const kept = await memo.get(db, 'k', read);
        await db.query('update notes set body = $1 where id = $2', ['never', 404]);
        await db.execute('delete from notes where id = $1', [404]);
        await db.tx((t) => t.query('update notes set body = $1 where id = $2', ['never', 405]));
        expect(await memo.get(db, 'k', read)).toBe(kept);
        expect(reads).toBe(1);
        await db.execute('update notes set body = $1 where id = $2', ['fifth', 1]);
        expect(await memo.get(db, 'k', read)).toBe('fifth');
        expect(reads).toBe(2);
      });

      it('is bounded: the oldest key goes first', async () => {
        const memo = new UntilWrite<string>(2);
        let reads = 0;
        const read = () => Promise.resolve(String(++reads));
        await memo.get(db, 'a', read);
        await memo.get(db, 'b', read);
        await memo.get(db, 'c', read);
        expect(await memo.get(db, 'c', read)).toBe('3');
        expect(await memo.get(db, 'b', read)).toBe('2');
        expect(await memo.get(db, 'a', read)).toBe('4');
      });
    });
  }
});

describe('over HTTP', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx.close());

  const profile = (token: string) => call(ctx, 'GET', '/v1/users/profile/', { token });
  const sessionChecks = (seen: string[]) => seen.filter((s) => s === SESSION_ACCOUNT_SQL).length;

  it('asks for the session once while nothing is written (embedded), every time on PostgreSQL', async () => {
    const p = await seedPatient(ctx);
    expect((await profile(p.access)).status).toBe(200);
    const seen = await statementsDuring(ctx, async () => {
      for (let i = 0; i < 3; i++) expect((await profile(p.access)).status).toBe(200);
    });
    expect(sessionChecks(seen)).toBe(ctx.db.kind === 'pg' ? 3 : 0);
  });

  it('a signed-out session is refused on the very next request', async () => {
    const p = await seedPatient(ctx);
    expect((await profile(p.access)).status).toBe(200);
    expect((await profile(p.access)).status).toBe(200);
    const out = await call(ctx, 'POST', '/v1/users/logout/', { token: p.access, json: { refresh: p.refresh } });
    expect(out.status).toBeLessThan(300);
    expect((await profile(p.access)).status).toBe(401);
  });

  it('a session revoked or an account disabled by another writer of the same database is refused at once', async () => {
    const p = await seedPatient(ctx);
    const q = await seedPatient(ctx);
    for (const x of [p, q]) expect((await profile(x.access)).status).toBe(200);
    await ctx.db.query('update refresh_families set revoked_at = now() where user_id = $1', [p.id]);
    expect((await profile(p.access)).status).toBe(401);
    expect((await profile(q.access)).status).toBe(200);
    await ctx.db.query('update users set disabled_at = now() where id = $1', [q.id]);
    expect((await profile(q.access)).status).toBe(401);
  });

  it('an idle scheduler pass (every 30 s) keeps kept answers: its writes that match nothing change nothing', async () => {
    await ctx.deps.scheduler.runDue();
    const db = ctx.deps.db;
    const spies = [vi.spyOn(db, 'query'), vi.spyOn(db, 'execute')];
    const before = ctx.db.writeEpoch?.();
    try {
      await ctx.deps.scheduler.runDue();
      // The pass does send writes (expiries, retention, plan windows); none of them changes a row here.
      expect([...spies[0]!.mock.calls, ...spies[1]!.mock.calls].map((c) => String(c[0])).filter(mayWrite).length).toBeGreaterThan(5);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    if (before !== undefined) expect(ctx.db.writeEpoch!()).toBe(before);
  });

  it('every statement-level trigger on a row write reads only its transition tables (what a 0-row write may skip)', async () => {
    // A statement trigger without transition tables could write although its statement changed no
    // row, and then a 0-row write would have to count (src/db/until-write.ts).
    const triggers = await ctx.db.query<{ name: string; transition: boolean }>(
      `select tgname as name, (tgoldtable is not null or tgnewtable is not null) as transition
         from pg_trigger where not tgisinternal and (tgtype & 1) = 0 and (tgtype & 28) <> 0`,
    );
    expect(triggers.length).toBeGreaterThan(0);
    expect(triggers.filter((t) => !t.transition).map((t) => t.name)).toEqual([]);
  });

  it('an idle mail dispatcher pass (twice a second in production) writes nothing, so it keeps nothing from being kept', async () => {
    // Send whatever earlier tests queued, then time an idle pass.
    while ((await ctx.deps.mail.runOnce()) > 0) {
      /* drain */
    }
    // Every statement of the pass, through either entry of the handle (the query builder uses execute).
    const db = ctx.deps.db;
    const sent: string[] = [];
    const spies = [vi.spyOn(db, 'query'), vi.spyOn(db, 'execute'), vi.spyOn(db, 'tx')];
    try {
      expect(await ctx.deps.mail.runOnce()).toBe(0);
      for (const call of [...spies[0]!.mock.calls, ...spies[1]!.mock.calls]) sent.push(String(call[0]));
      expect(spies[2]!.mock.calls).toHaveLength(0);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(sent).toHaveLength(1);
    expect(sent.filter(mayWrite)).toEqual([]);
    if (ctx.db.writeEpoch) {
      const before = ctx.db.writeEpoch();
      expect(await ctx.deps.mail.runOnce()).toBe(0);
      expect(ctx.db.writeEpoch()).toBe(before);
    }
  });

  it('a cached list page shows a new consultation on the next request', async () => {
    const p = await seedPatient(ctx);
    const list = () => call(ctx, 'GET', '/v1/users/consultations/', { token: p.access });
    expect((await list()).body.count).toBe(0);
    expect((await list()).body.count).toBe(0);
    await ctx.db.query("insert into consultations (user_id, category, status, plan) values ($1, 'hair_growth', 'pending_review', 'one_off')", [p.id]);
    const after = await list();
    expect(after.body.count).toBe(1);
    expect(after.body.results).toHaveLength(1);
  });
});
