// The consultation list's page cache (src/lib/page-cache.ts, migration
// 0870): a page is served again only to its own account, only after the session check, and only
// while nothing it shows has changed. Every write below goes straight to the database, as another
// process, the CLI or a hand-run UPDATE would: the app learns of it only through the data version.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../src/db/index.ts';
import { PageCache } from '../src/lib/page-cache.ts';
import { CONSULTATION_LIST_SQL, DATA_VERSION_SQL, pageForUser, serialiseConsultations } from '../src/modules/consultations/repository.ts';
import { call, createTestContext, firstRow, seedPatient, statementsDuring, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

interface History {
  doctorId: string;
  consultationId: string;
  paymentId: string;
  prescriptionId: string;
  submissionId: string;
  subscriptionId: string;
}

async function seedDoctor(): Promise<string> {
  const id = randomUUID();
  await ctx.db.query(
    `insert into users (id, email, first_name, last_name, is_doctor, doctor_license_number, email_verified_at, referral_code)
     values ($1, $2, 'Greg', 'House', true, 'LANR-1', now(), $3)`,
    [id, `doc-${id.slice(0, 8)}@example.org`, id.slice(0, 10).toUpperCase()],
  );
  return id;
}

/** One approved consultation with its submission, payment, prescription and plan, and two more pending. */
async function seedHistory(p: Patient, doctorId?: string): Promise<History> {
  const doctor = doctorId ?? (await seedDoctor());
  const submission = firstRow(await ctx.db.query(
    `insert into questionnaire_submissions (user_id, category, version_id, answers, outcome, result)
     values ($1, 'weight_loss', $2, '[]', 'eligible', '{"eligible": true}') returning id`,
    [p.id, randomUUID()],
  ));
  const c = firstRow(await ctx.db.query(
    `insert into consultations (user_id, doctor_id, category, status, plan, supply_days, treatment_id, dosage, questionnaire_submission_id, decided_at, created_at)
     values ($1, $2, 'weight_loss', 'approved', 'one_off', 28, 'wegovy', '0.25mg', $3, now(), now() - interval '1 day') returning id`,
    [p.id, doctor, submission.id],
  ));
  for (let i = 0; i < 2; i++) {
    await ctx.db.query(`insert into consultations (user_id, category, status, plan, created_at) values ($1, 'weight_loss', 'pending_review', 'one_off', now() - $2::interval)`, [
      p.id,
      `${i + 2} days`,
    ]);
  }
  const payment = firstRow(await ctx.db.query(
    `insert into payments (user_id, consultation_id, provider, provider_payment_id, amount_cents, status, captured_at)
     values ($1, $2, 'sandbox', $3, 24900, 'succeeded', now()) returning id`,
    [p.id, c.id, randomUUID()],
  ));
  const rx = firstRow(await ctx.db.query(
    `insert into prescriptions (user_id, consultation_id, doctor_id, category, treatment_id, treatment_name, dosage, issued_at)
     values ($1, $2, $3, 'weight_loss', 'wegovy', 'Wegovy', '0.25mg', now()) returning id`,
    [p.id, c.id, doctor],
  ));
  const plan = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, status, provider, price_cents, cycle_days, started_at, current_period_start, current_period_end)
     values ($1, 'weight_loss', 'wegovy', 'active', 'sandbox', 9900, 28, now(), now(), now() + interval '28 days') returning id`,
    [p.id],
  ));
  return { doctorId: doctor, consultationId: c.id, paymentId: payment.id, prescriptionId: rx.id, submissionId: submission.id, subscriptionId: plan.id };
}

/** The page as computed now, without any cache: the reference every answer must equal. */
async function fresh(userId: string, limit = 20, offset = 0) {
  const rows = await pageForUser(ctx.db, userId, limit, offset);
  return JSON.parse(JSON.stringify(await serialiseConsultations(ctx.db, ctx.deps, rows)));
}

const list = (p: Patient, query = '') => call(ctx, 'GET', `/v1/users/consultations/${query}`, { token: p.access });

/** Counts the page statements the app sends while fn runs. */
async function pageStatements(fn: () => Promise<void>): Promise<number> {
  return (await statementsDuring(ctx, fn)).filter((sql) => sql === CONSULTATION_LIST_SQL).length;
}

describe('consultation list cache', () => {
  it('serves an unchanged page again, byte for byte, without reading the page', async () => {
    const p = await seedPatient(ctx);
    await seedHistory(p);
    const first = await list(p);
    expect(first.status).toBe(200);
    let again = first;
    expect(await pageStatements(async () => void (again = await list(p)))).toBe(0);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['content-length']).toBe(first.headers['content-length']);
    expect(again.headers['cache-control']).toBe('no-store');
    // Another page size or offset is another entry.
    expect(await pageStatements(async () => void (await list(p, '?limit=1&offset=1')))).toBe(1);
    expect((await list(p, '?limit=1&offset=1')).body.results).toStrictEqual((await fresh(p.id, 1, 1)));
  });

  it('counts its hits and misses in /metrics', async () => {
    const p = await seedPatient(ctx);
    await seedHistory(p);
    const counter = async (outcome: string) => {
      const text = (await call(ctx, 'GET', '/metrics')).text;
      return Number(new RegExp(`^list_cache_lookups_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    };
    const [hits, misses] = [await counter('hit'), await counter('miss')];
    await list(p);
    await list(p);
    await list(p);
    expect(await counter('miss')).toBe(misses + 1);
    expect(await counter('hit')).toBe(hits + 2);
    expect((await call(ctx, 'GET', '/metrics')).text).toMatch(/^list_cache_bytes [1-9]\d*$/m);
  });

  // Each write is one a real writer makes somewhere (status machine, refunds, prescribing, plans,
  // questionnaires, profile, the back office); what matters is that the table and the shown column
  // change, whoever writes.
  const writes: [string, (h: History, p: Patient) => Promise<unknown>][] = [
    ['a consultation status', (h) => ctx.db.query(`update consultations set status = 'rejected', decision_reason = 'Contraindicated' where id = $1`, [h.consultationId])],
    ['a new consultation', (_h, p) => ctx.db.query(`insert into consultations (user_id, category, status, plan) values ($1, 'weight_loss', 'pending_review', 'one_off')`, [p.id])],
    ['a deleted consultation', (h, p) => ctx.db.query(`delete from consultations where user_id = $1 and status = 'pending_review' and id <> $2 and created_at = (select min(created_at) from consultations where user_id = $1)`, [p.id, h.consultationId])],
    ['a refund', (h) => ctx.db.query(`update payments set refunded_amount_cents = 4900 where id = $1`, [h.paymentId])],
    ['a payment that moves no money', (h) => ctx.db.query(`update payments set provider_order_name = '#1042' where id = $1`, [h.paymentId])],
    ['a new payment', (h, p) => ctx.db.query(`insert into payments (user_id, consultation_id, provider, provider_payment_id, amount_cents, status) values ($1, $2, 'sandbox', $3, 100, 'failed')`, [p.id, h.consultationId, randomUUID()])],
    ['a prescription', (h) => ctx.db.query(`update prescriptions set instructions = 'Once weekly' where id = $1`, [h.prescriptionId])],
    ['a deleted prescription', (h) => ctx.db.query(`delete from prescriptions where id = $1`, [h.prescriptionId])],
    ['a plan status', (h) => ctx.db.query(`update subscriptions set status = 'paused' where id = $1`, [h.subscriptionId])],
    ['a questionnaire outcome', (h) => ctx.db.query(`update questionnaire_submissions set outcome = 'held_for_review' where id = $1`, [h.submissionId])],
    ['the profile', (_h, p) => ctx.db.query(`update users set city = 'Hamburg' where id = $1`, [p.id])],
    ['totals repaired by hand', (_h, p) => ctx.db.query(`update account_totals set spent_cents = spent_cents + 1 where user_id = $1`, [p.id])],
    ['the doctor’s name', (h) => ctx.db.query(`update users set last_name = 'Wilson' where id = $1`, [h.doctorId])],
    ['the doctor’s licence', (h) => ctx.db.query(`update users set doctor_license_number = 'LANR-2' where id = $1`, [h.doctorId])],
  ];

  for (const [what, write] of writes) {
    it(`shows ${what} on the next request`, async () => {
      const p = await seedPatient(ctx);
      const h = await seedHistory(p);
      const before = await list(p);
      expect((await list(p)).text).toBe(before.text); // filed and served from the cache
      await write(h, p);
      const after = await list(p);
      expect(after.status).toBe(200);
      expect(after.body.results).toStrictEqual(await fresh(p.id));
      expect(after.body.count).toBe(Number(firstRow(await ctx.db.query('select count(*) as n from consultations where user_id = $1', [p.id])).n));
      expect(after.text).not.toBe(before.text);
    });
  }

  it('shows a former doctor’s new name on the consultations they decided', async () => {
    const p = await seedPatient(ctx);
    const h = await seedHistory(p);
    await ctx.db.query(`update users set is_doctor = false, doctor_license_number = null where id = $1`, [h.doctorId]);
    const before = await list(p);
    expect((await list(p)).text).toBe(before.text);
    await ctx.db.query(`update users set first_name = 'Gregory' where id = $1`, [h.doctorId]);
    const after = await list(p);
    expect(after.body.results[0].doctor.first_name).toBe('Gregory');
    expect(after.body.results).toStrictEqual(await fresh(p.id));
  });

  it('keeps another account’s page cached when one account writes', async () => {
    const doctorId = await seedDoctor();
    const a = await seedPatient(ctx);
    const b = await seedPatient(ctx);
    const ha = await seedHistory(a, doctorId);
    await seedHistory(b, doctorId);
    await list(a);
    await list(b);
    await ctx.db.query(`update payments set refunded_amount_cents = 100 where id = $1`, [ha.paymentId]);
    expect(await pageStatements(async () => void (await list(b)))).toBe(0);
    expect(await pageStatements(async () => void (await list(a)))).toBe(1);
  });

  it('never serves one account’s page to another (same address, same moment)', async () => {
    const doctorId = await seedDoctor();
    const a = await seedPatient(ctx, { first_name: 'Alice' });
    const b = await seedPatient(ctx, { first_name: 'Bob' });
    await seedHistory(a, doctorId);
    await seedHistory(b, doctorId);
    const pa = await list(a);
    expect((await list(a)).text).toBe(pa.text);
    const pb = await list(b);
    expect(pb.status).toBe(200);
    expect(pb.body.results.every((c: { user: { id: string } }) => c.user.id === b.id)).toBe(true);
    expect(pb.body.results).toStrictEqual(await fresh(b.id));
    // An account with nothing sees an empty page, not a cached one.
    const c = await seedPatient(ctx);
    const pc = await list(c);
    expect(pc.body).toStrictEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('checks the session before serving a cached page', async () => {
    const p = await seedPatient(ctx);
    await seedHistory(p);
    expect((await list(p)).status).toBe(200);
    await ctx.db.query('update refresh_families set revoked_at = now() where user_id = $1', [p.id]);
    const res = await list(p);
    expect(res.status).toBe(401);
    expect(res.text).not.toContain(p.email);
    const q = await seedPatient(ctx);
    await seedHistory(q);
    expect((await list(q)).status).toBe(200);
    await ctx.db.query('update users set disabled_at = now() where id = $1', [q.id]);
    expect((await list(q)).status).toBe(401);
  });

  it('files nothing from a HEAD request', async () => {
    const p = await seedPatient(ctx);
    await seedHistory(p);
    const head = await ctx.app.inject({ method: 'HEAD', url: '/v1/users/consultations/', headers: { authorization: `Bearer ${p.access}` } });
    expect(head.body).toBe('');
    const get = await list(p);
    expect(get.body.results).toStrictEqual(await fresh(p.id));
    expect(get.body.results).toHaveLength(3);
  });

  it('answers the latest data after parallel reads and writes', async () => {
    const p = await seedPatient(ctx);
    const h = await seedHistory(p);
    await list(p);
    const reads = Array.from({ length: 12 }, () => list(p));
    const writes = [
      ctx.db.query(`update payments set refunded_amount_cents = 900 where id = $1`, [h.paymentId]),
      ctx.db.query(`update users set city = 'Köln' where id = $1`, [p.id]),
      ctx.db.query(`insert into consultations (user_id, category, status, plan) values ($1, 'weight_loss', 'pending_review', 'one_off')`, [p.id]),
    ];
    const answers = await Promise.all([...reads, ...writes]);
    for (const r of answers.slice(0, reads.length) as Awaited<ReturnType<typeof list>>[]) expect(r.status).toBe(200);
    const after = await list(p);
    expect(after.body.count).toBe(4);
    expect(after.body.results).toStrictEqual(await fresh(p.id));
    expect(after.body.results[0].user.city).toBe('Köln');
  });

  it('raises the data version in the writer’s transaction, and not on a rolled-back write', async () => {
    const p = await seedPatient(ctx);
    const h = await seedHistory(p);
    const version = async () => firstRow(await ctx.db.query(DATA_VERSION_SQL, [p.id])).data_version as string;
    const v0 = await version();
    await ctx.db
      .tx(async (t) => {
        await t.query(`update payments set refunded_amount_cents = 1 where id = $1`, [h.paymentId]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await version()).toBe(v0);
    await ctx.db.query(`update payments set refunded_amount_cents = 1 where id = $1`, [h.paymentId]);
    expect(await version()).not.toBe(v0);
  });

  it('raises the version once per transaction, at commit, however many rows it writes', async () => {
    const p = await seedPatient(ctx);
    await seedHistory(p);
    const raw = async (q: Pick<Queryable, 'query'> = ctx.db) =>
      Number(firstRow(await q.query<{ data_version: string }>('select data_version from account_totals where user_id = $1', [p.id])).data_version);
    const v0 = await raw();
    await ctx.db.tx(async (t) => {
      await t.query(`update consultations set dosage = '0.5mg' where user_id = $1`, [p.id]);
      await t.query(`update users set city = 'Bonn' where id = $1`, [p.id]);
      // Not yet: the bump is deferred to commit, after every other lock the transaction takes.
      expect(await raw(t)).toBe(v0);
    });
    expect(await raw()).toBe(v0 + 1);
    // A bulk insert moves the counters (migration 0700 locks the row for them at once): the
    // version goes up with them, and the commit adds nothing more.
    await ctx.db.tx(async (t) => {
      await t.query(`insert into consultations (user_id, category, status, plan) select $1, 'weight_loss', 'pending_review', 'one_off' from generate_series(1, 500)`, [p.id]);
      await t.query(`update consultations set dosage = '1mg' where user_id = $1`, [p.id]);
      await t.query(`update users set city = 'Köln' where id = $1`, [p.id]);
    });
    expect(await raw()).toBe(v0 + 2);
    const after = await list(p, '?limit=5');
    expect(after.body.count).toBe(503);
    expect(after.body.results[0].user.city).toBe('Köln');
    expect(after.body.results[0].dosage).toBe('1mg');
  });

  // Two writers of one account whose rows cross: A holds a plan and waits for a payment that B
  // holds, and B writes a consultation before it commits. Had A's first statement locked the
  // account's totals row (a bump per statement), B's consultation would wait for A while A waits for
  // B: a deadlock, one of them aborted. Bumped at commit, B commits and then A does.
  it.runIf(process.env.DATABASE_URL)('takes the account’s version lock at commit: crossing writers of one account both commit', async () => {
    const p = await seedPatient(ctx);
    const h = await seedHistory(p);
    let aWrotePlan!: () => void;
    const aReady = new Promise<void>((resolve) => (aWrotePlan = resolve));
    let bWrotePayment!: () => void;
    const bReady = new Promise<void>((resolve) => (bWrotePayment = resolve));
    const v0 = Number(firstRow(await ctx.db.query('select data_version from account_totals where user_id = $1', [p.id])).data_version);
    const a = ctx.db.tx(async (t) => {
      await t.query(`update subscriptions set status = 'paused' where id = $1`, [h.subscriptionId]);
      aWrotePlan();
      // B's payment update would never come with a per-statement bump (it would wait for A).
      await Promise.race([bReady, new Promise((resolve) => setTimeout(resolve, 2000))]);
      await t.query(`update payments set provider_order_name = 'A' where id = $1`, [h.paymentId]);
    });
    const b = ctx.db.tx(async (t) => {
      await aReady;
      await t.query(`update payments set provider_order_name = 'B' where id = $1`, [h.paymentId]);
      bWrotePayment();
      await t.query(`update consultations set dosage = '0.5mg' where id = $1`, [h.consultationId]);
    });
    await Promise.all([a, b]);
    expect(Number(firstRow(await ctx.db.query('select data_version from account_totals where user_id = $1', [p.id])).data_version)).toBe(v0 + 2);
    const after = await list(p);
    expect(after.body.results).toStrictEqual(await fresh(p.id));
    expect(after.body.results.find((c: { id: string }) => c.id === h.consultationId).payments[0].provider_order_name).toBe('A');
  });

  // The structural guard: the version is only as good as the triggers behind it. A new table or a
  // new users alias read by the list without them fails here, before any stale page can be served.
  it('has version triggers on every table the list reads', async () => {
    const tables = new Set([...CONSULTATION_LIST_SQL.matchAll(/\b(?:from|join)\s+([a-z_]+)\b/g)].map((m) => m[1]!));
    expect([...tables].sort()).toEqual(['account_data_epoch', 'account_totals', 'consultations', 'payments', 'prescriptions', 'questionnaire_submissions', 'subscriptions', 'users']);
    const triggers = await ctx.db.query<{ relname: string; tgtype: number; proname: string; tgdeferrable: boolean; tginitdeferred: boolean }>(
      `select c.relname, t.tgtype, p.proname, t.tgdeferrable, t.tginitdeferred
         from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
        where not t.tgisinternal and p.proname like 'account_data_version%'`,
    );
    const has = (table: string, event: number, fn: string) =>
      // tgtype bits: 1 row-level, 2 before, 4 insert, 8 delete, 16 update. Row-level AFTER, deferred
      // to commit (the migration says why).
      triggers.some((t) => t.relname === table && (t.tgtype & event) !== 0 && (t.tgtype & 3) === 1 && t.tgdeferrable && t.tginitdeferred && t.proname === fn);
    for (const table of tables) {
      if (table === 'account_data_epoch') continue; // the epoch is itself part of the version
      if (table === 'account_totals') {
        // Its shown columns raise the version in the row's own write (a BEFORE trigger).
        expect(triggers.some((t) => t.relname === 'account_totals' && t.proname === 'account_data_version_totals' && (t.tgtype & 16) !== 0 && (t.tgtype & 3) === 3), 'account_totals: before update').toBe(true);
        continue;
      }
      if (table === 'users') {
        expect(has('users', 16, 'account_data_version_users'), 'users: update').toBe(true);
        continue;
      }
      for (const [event, name] of [[4, 'insert'], [8, 'delete'], [16, 'update']] as const) {
        expect(has(table, event, 'account_data_version_bump'), `${table}: ${name}`).toBe(true);
      }
    }
    // users is read as the account (u: any update bumps it) and as prescribers, whose shown columns
    // must all be ones the epoch trigger compares.
    const aliases = [...CONSULTATION_LIST_SQL.matchAll(/\busers\s+([a-z]+)\b/g)].map((m) => m[1]!);
    expect(aliases.sort()).toEqual(['d', 'rd', 'u']);
    const source = firstRow(await ctx.db.query<{ prosrc: string }>(`select prosrc from pg_proc where proname = 'account_data_version_users'`)).prosrc;
    for (const alias of ['d', 'rd']) {
      const columns = new Set([...CONSULTATION_LIST_SQL.matchAll(new RegExp(`\\b${alias}\\.([a-z_]+)`, 'g'))].map((m) => m[1]!));
      for (const column of columns) {
        if (column === 'id') continue; // the key, never updated
        expect(source, `${alias}.${column}`).toContain(`new.${column}`);
      }
    }
  });

  it('is off with LIST_CACHE_MB=0: every request reads the page', async () => {
    const off = await createTestContext({ LIST_CACHE_MB: '0' });
    try {
      const p = await seedPatient(off);
      const seen = await statementsDuring(off, async () => {
        await call(off, 'GET', '/v1/users/consultations/', { token: p.access });
        await call(off, 'GET', '/v1/users/consultations/', { token: p.access });
      });
      expect(seen.filter((s) => s === CONSULTATION_LIST_SQL)).toHaveLength(2);
      expect(seen).not.toContain(DATA_VERSION_SQL);
    } finally {
      await off.close();
    }
  });
});

describe('PageCache', () => {
  const body = (n: number, fill = 'x') => Buffer.from(fill.repeat(n));

  it('answers only the version a body was filed under', () => {
    const c = new PageCache(1000);
    c.set('a', '1.0', body(10));
    expect(c.get('a', '1.0')?.toString()).toBe('x'.repeat(10));
    expect(c.get('a', '2.0')).toBeUndefined();
    expect(c.get('b', '1.0')).toBeUndefined();
    c.set('a', '2.0', body(5, 'y'));
    expect(c.get('a', '1.0')).toBeUndefined();
    expect(c.get('a', '2.0')?.toString()).toBe('yyyyy');
    expect(c.stats()).toEqual({ hits: 2, misses: 3, bytes: 5, entries: 1 });
  });

  it('keeps within its bytes, dropping the least recently used first', () => {
    const c = new PageCache(100);
    c.set('a', 'v', body(40));
    c.set('b', 'v', body(40));
    expect(c.get('a', 'v')).toBeDefined(); // a is now the most recently used
    c.set('c', 'v', body(40));
    expect(c.get('b', 'v')).toBeUndefined();
    expect(c.get('a', 'v')).toBeDefined();
    expect(c.get('c', 'v')).toBeDefined();
    expect(c.stats().bytes).toBe(80);
    c.set('huge', 'v', body(101));
    expect(c.get('huge', 'v')).toBeUndefined();
    expect(c.stats()).toMatchObject({ bytes: 80, entries: 2 });
  });
});
