// The consultation list's one-statement read: the same bodies as the per-record
// serialisation, at most three statements per request (session, data version, page; an unchanged page
// is served from the list cache after the first two, test/list-cache.test.ts), exact counters kept by the
// triggers of migration 0700, and money totals beyond the 32-bit range.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSULTATION_LIST_SQL, DATA_VERSION_SQL, pageForUser, serialiseConsultations } from '../src/modules/consultations/repository.ts';
import { SESSION_ACCOUNT_SQL } from '../src/http/auth.repository.ts';
import { call, createTestContext, seedPatient, statementsDuring, type Patient, type Res, type TestContext, firstRow } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

// Timestamps with microseconds, so that the SQL formatting must truncate exactly as the drivers do.
const at = (i: number) => `2026-0${1 + (i % 9)}-1${i % 10}T0${i % 10}:1${i % 6}:2${i % 10}.${String(100000 + i * 7919).slice(-6)}+00:00`;

const refund = (createdAt: string) => ({
  id: 're_1',
  amount_cents: 100,
  total_refunded_cents: 100,
  currency: 'EUR',
  status: 'succeeded',
  reason: 'requested_by_customer',
  created_at: new Date(createdAt).toISOString(),
  refunds: [{ id: 're_1', amount_cents: 100, status: 'succeeded', reason: 'requested_by_customer', created_at: new Date(createdAt).toISOString() }],
});

async function seedHistory(p: Patient, n: number) {
  const doctorId = randomUUID();
  await ctx.db.query(
    `insert into users (id, email, first_name, last_name, is_doctor, doctor_license_number, email_verified_at, referral_code)
     values ($1, $2, 'Greg', 'House', true, 'LANR-1', now(), $3)`,
    [doctorId, `doc-${doctorId.slice(0, 8)}@example.org`, doctorId.slice(0, 10).toUpperCase()],
  );
  const sub = firstRow(await ctx.db.query(
    `insert into questionnaire_submissions (user_id, category, version_id, answers, outcome, result, created_at)
     values ($1, 'weight_loss', $2, '[]', 'eligible', '{"eligible": true}', $3) returning id`,
    [p.id, randomUUID(), at(3)],
  ));
  for (let i = 0; i < n; i++) {
    const decided = i % 3 === 0;
    const c = firstRow(await ctx.db.query(
      `insert into consultations (user_id, doctor_id, category, status, plan, supply_days, treatment_id, dosage, form_snapshot,
         questionnaire_submission_id, created_at, updated_at, decided_at)
       values ($1, $2, 'weight_loss', $3, 'one_off', 28, 'wegovy', '0.25mg', $4::jsonb, $5, $6, $7, $8) returning id`,
      [
        p.id,
        decided ? doctorId : null,
        decided ? 'approved' : 'pending_review',
        JSON.stringify([{ step_id: 1, question_key: 'height_cm', value: 180 }, { step_id: 2, question_key: 'bp', values: { sys: 120 } }]),
        i === 0 ? sub.id : null,
        at(i),
        at(i + 1),
        decided ? at(i + 2) : null,
      ],
    ));
    await ctx.db.query(
      `insert into payments (user_id, consultation_id, provider, provider_payment_id, amount_cents, refunded_amount_cents, status, captured_at, refund, created_at, updated_at)
       values ($1, $2, 'sandbox', $3, $4, $5, $6, $7, $8::jsonb, $7, $7)`,
      [p.id, c.id, randomUUID(), 1000 + i, i % 4 === 0 ? 100 : 0, i % 5 === 4 ? 'failed' : 'succeeded', at(i + 4), i % 4 === 0 ? JSON.stringify(refund(at(i + 5))) : null],
    );
    if (decided) {
      await ctx.db.query(
        `insert into prescriptions (user_id, consultation_id, doctor_id, category, treatment_id, treatment_name, dosage, issued_at, valid_until)
         values ($1, $2, $3, 'weight_loss', 'wegovy', 'Wegovy', '0.25mg', $4, $5)`,
        [p.id, c.id, doctorId, at(i + 5), i % 2 ? at(i + 6) : null],
      );
    }
  }
  await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, status, provider, price_cents, cycle_days, started_at, current_period_start, current_period_end, created_at)
     values ($1, 'weight_loss', 'wegovy', 'active', 'sandbox', 9900, 28, now(), now(), now() + interval '28 days', $2)`,
    [p.id, at(7)],
  );
}

/** What the totals must be, computed from the rows themselves. */
async function recount(userId: string) {
  const [r] = await ctx.db.query(
    `select (select count(*) from consultations where user_id = $1) as consultation_count,
            (select coalesce(sum(amount_cents::bigint), 0) from payments where user_id = $1 and status <> 'failed') as spent_cents,
            (select coalesce(sum(refunded_amount_cents::bigint), 0) from payments where user_id = $1) as refunded_cents`,
    [userId],
  );
  return r;
}

async function totalsOf(userId: string) {
  const [r] = await ctx.db.query('select consultation_count, spent_cents, refunded_cents from account_totals where user_id = $1', [userId]);
  return r;
}

describe('consultation list', () => {
  it('answers every page with exactly the bodies the per-record serialisation produces', async () => {
    const p = await seedPatient(ctx, { document_type: 'passport', city: 'Berlin', date_of_birth: '1980-02-29' });
    await seedHistory(p, 23);
    for (const [limit, offset] of <[number, number][]>[
      [20, 0],
      [20, 20],
      [5, 3],
      [20, 40],
    ]) {
      const res = await call(ctx, 'GET', `/v1/users/consultations/?limit=${limit}&offset=${offset}`, { token: p.access });
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(23);
      const rows = await pageForUser(ctx.db, p.id, limit, offset);
      const expected = await serialiseConsultations(ctx.db, ctx.deps, rows);
      expect(res.body.results.length).toBe(Math.max(0, Math.min(limit, 23 - offset)));
      // Same values (the response serialiser then writes them in schema order, see serialisation.test.ts).
      expect(res.body.results).toStrictEqual(JSON.parse(JSON.stringify(expected)));
    }
    const first = (await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access })).body.results[0];
    expect(first.user).toMatchObject({ consultation_count: 23, subscription_status: 'active', last_subscription_at: new Date(at(7)).toISOString(), city: 'Berlin' });
    expect(first.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('reads the page in one statement after the session and version checks; an unchanged page in none', async () => {
    const p = await seedPatient(ctx);
    await seedHistory(p, 3);
    let first!: Res;
    const seen = await statementsDuring(ctx, async () => void (first = await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access })));
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(3);
    // Session check, data version, the page: three sequential round trips at most.
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe(DATA_VERSION_SQL);
    expect(seen[2]).toBe(CONSULTATION_LIST_SQL);
    let again!: Res;
    const seenAgain = await statementsDuring(ctx, async () => void (again = await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access })));
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    if (ctx.db.kind === 'pg') {
      // Unchanged data: the session check and the version only.
      expect(seenAgain).toHaveLength(2);
      expect(seenAgain[1]).toBe(DATA_VERSION_SQL);
    } else {
      // The embedded database, written by nothing since: both answers are still the database's (src/db/until-write.ts).
      expect(seenAgain).toEqual([]);
    }
    // Any write in between: both are asked again.
    await ctx.db.query('update users set city = city where id = $1', [p.id]);
    const seenAfterWrite = await statementsDuring(ctx, () => call(ctx, 'GET', '/v1/users/consultations/', { token: p.access }));
    expect(seenAfterWrite.slice(0, 2)).toEqual([SESSION_ACCOUNT_SQL, DATA_VERSION_SQL]);
  });

  it('keeps the counters exact through inserts, status and refund changes, moves and deletes', async () => {
    const p = await seedPatient(ctx);
    const q = await seedPatient(ctx);
    await seedHistory(p, 6);
    expect(await totalsOf(p.id)).toEqual(await recount(p.id));
    const pay = firstRow(await ctx.db.query("select id from payments where user_id = $1 and status = 'succeeded' limit 1", [p.id]));
    await ctx.db.query("update payments set refunded_amount_cents = 250, status = 'partially_refunded' where id = $1", [pay.id]);
    expect(await totalsOf(p.id)).toEqual(await recount(p.id));
    await ctx.db.query("update payments set status = 'failed' where id = $1", [pay.id]);
    expect(await totalsOf(p.id)).toEqual(await recount(p.id));
    await ctx.db.query('update payments set user_id = $2 where id = $1', [pay.id, q.id]);
    await ctx.db.query("update payments set status = 'succeeded' where id = $1", [pay.id]);
    expect(await totalsOf(p.id)).toEqual(await recount(p.id));
    expect(await totalsOf(q.id)).toEqual(await recount(q.id));
    const c = firstRow(await ctx.db.query('select id from consultations where user_id = $1 and doctor_id is null limit 1', [p.id]));
    await ctx.db.query('delete from payments where consultation_id = $1', [c.id]);
    await ctx.db.query('delete from consultations where id = $1', [c.id]);
    expect(await totalsOf(p.id)).toEqual(await recount(p.id));
    await ctx.db.tx(async (t) => {
      await t.query('update payments set amount_cents = amount_cents + 1 where user_id = $1', [p.id]);
    });
    expect(await totalsOf(p.id)).toEqual(await recount(p.id));
    // Statements touching many rows of several accounts at once (the triggers work per statement).
    await ctx.db.query(
      `insert into payments (user_id, provider, provider_payment_id, amount_cents, refunded_amount_cents, status)
       select case when g % 2 = 0 then $1::uuid else $2::uuid end, 'sandbox', gen_random_uuid()::text, 100 * g, g, case when g % 3 = 0 then 'failed' else 'succeeded' end
         from generate_series(1, 50) g`,
      [p.id, q.id],
    );
    await ctx.db.query(
      `insert into consultations (user_id, category, plan) select case when g % 2 = 0 then $1::uuid else $2::uuid end, 'weight_loss', 'one_off' from generate_series(1, 7) g`,
      [p.id, q.id],
    );
    await ctx.db.query("update payments set status = case when status = 'failed' then 'succeeded' else 'failed' end, refunded_amount_cents = refunded_amount_cents * 2 where user_id in ($1, $2)", [p.id, q.id]);
    await ctx.db.query('update consultations set user_id = case when user_id = $1 then $2::uuid else $1::uuid end where user_id in ($1, $2) and doctor_id is null', [p.id, q.id]);
    await ctx.db.query('delete from payments where user_id in ($1, $2) and amount_cents between 1000 and 3000', [p.id, q.id]);
    expect(await totalsOf(p.id)).toEqual(await recount(p.id));
    expect(await totalsOf(q.id)).toEqual(await recount(q.id));
    const list = await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access });
    const expected = await recount(p.id);
    if (!expected) throw new Error('no account totals');
    expect(list.body.count).toBe(expected.consultation_count);
    expect(list.body.results[0].user).toMatchObject({
      consultation_count: expected.consultation_count,
      total_spent_cents: expected.spent_cents,
      total_refunded_cents: expected.refunded_cents,
    });
    // Deleting the account cascades to everything, totals included, without tripping the triggers.
    await ctx.db.query('delete from users where id = $1', [q.id]);
    expect(await totalsOf(q.id)).toBeUndefined();
  });

  it('sums money beyond the 32-bit integer range exactly (list summary and referrals)', async () => {
    const referrer = await seedPatient(ctx);
    const p = await seedPatient(ctx, { referred_by: referrer.id });
    await seedHistory(p, 1);
    const big = 2_000_000_000; // two of these exceed int4's 2,147,483,647
    for (let i = 0; i < 3; i++) {
      await ctx.db.query(
        `insert into payments (user_id, provider, provider_payment_id, amount_cents, refunded_amount_cents, status)
         values ($1, 'sandbox', $2, $3, $4, 'partially_refunded')`,
        [p.id, randomUUID(), big, big - 1],
      );
    }
    const expected = await recount(p.id);
    if (!expected) throw new Error('no account totals');
    expect(expected.spent_cents).toBeGreaterThan(2 ** 32);
    const list = await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access });
    expect(list.status).toBe(200);
    expect(list.body.results[0].user).toMatchObject({
      total_spent_cents: expected.spent_cents,
      total_refunded_cents: expected.refunded_cents,
      net_spent_cents: expected.spent_cents - expected.refunded_cents,
    });
    const detail = await call(ctx, 'GET', `/v1/users/consultations/${list.body.results[0].id}/`, { token: p.access });
    expect(detail.status).toBe(200);
    expect(detail.body.user.total_spent_cents).toBe(expected.spent_cents);
    const summary = await call(ctx, 'GET', '/v1/users/referrals/me/', { token: referrer.access });
    expect(summary.status).toBe(200);
    expect(summary.body.gross_cents).toBe(3 * big + 1000);
    expect(summary.body.net_cents).toBe(3 * big + 1000 - 3 * (big - 1) - 100);
  });
});
