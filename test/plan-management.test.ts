// Plan management over HTTP (docs/plan-management.md): skip the next delivery, pause (and
// the restart-dose rule after a break), move the next delivery date, and ask the doctor for a dose
// change between renewals (the desk decides; the next renewal carries the dose). Every route is asked
// with another account's REAL plan id; two skips at once skip once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceTestClock, approveRenewalOfPeriod, callAsFresh, freshToken, WEIGHT_LOSS_RENEWAL_SAFETY } from './billing-fixtures.ts';
import { call, createTestContext, firstRow, grantGpSharing, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let doctor: Patient;
let admin: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
  admin = await newStaff(ctx, 'backoffice_admin');
});
afterAll(async () => ctx?.close());

const DAY = 86_400_000;
const as = (p: Patient, method: string, url: string, json?: unknown) => callAsFresh(ctx, p, method, url, json);
const plan = async (p: Patient, id: string) => (await as(p, 'GET', `/v1/users/subscriptions/${id}/`)).body;
const options = async (p: Patient) => (await as(p, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss')).body;
const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
const count = async (sqlText: string, params: unknown[]) => Number(firstRow(await ctx.db.query(sqlText, params)).n);

/** A patient with an active semaglutide plan at `dosage` (supplied 8 weeks at it) whose period ends `endsInDays` from now. */
async function withPlan(endsInDays: number, dosage = '1 mg', columns: Record<string, unknown> = {}) {
  const p = await seedPatient(ctx, { gender: '0', country_of_residence: 'DEU', date_of_birth: '1980-01-01' });
  // A weight-loss plan's patient names their own doctor and consents to the letters (docs/interoperability.md).
  await grantGpSharing(ctx, p.id);
  const now = ctx.deps.clock.now().getTime();
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days,
       started_at, current_period_start, current_period_end)
     values ($1, 'weight_loss', 'semaglutide', $5, 'active', 'sandbox', 21900, 'day', 28, 28, $2, $3, $4) returning id, current_period_end`,
    [p.id, new Date(now - 60 * DAY), new Date(now + endsInDays * DAY - 28 * DAY), new Date(now + endsInDays * DAY), dosage],
  ));
  await ctx.db.query(
    "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, subscription_id, decided_at) values ($1, 'weight_loss', 'approved', 'checkout', 'subscription', 28, 'semaglutide', $3, $2, $4)",
    [p.id, s.id, dosage, new Date(now - 60 * DAY)],
  );
  if (Object.keys(columns).length) {
    const keys = Object.keys(columns);
    await ctx.db.query(`update subscriptions set ${keys.map((k, i) => `${k} = $${i + 2}`).join(', ')} where id = $1`, [s.id, ...keys.map((k) => columns[k])]);
  }
  return { p, id: s.id as string, periodEnd: new Date(s.current_period_end as string) };
}

describe('another account’s plan', () => {
  it('every plan-management route answers 404 for another account’s real plan id (and for an unknown one)', async () => {
    const owner = await withPlan(20);
    const other = await seedPatient(ctx);
    for (const id of [owner.id, randomUUID()]) {
      for (const [method, path, json] of [
        ['POST', 'skip/', undefined],
        ['POST', 'pause/', {}],
        ['POST', 'unpause/', undefined],
        ['POST', 'delivery-date/', { date: day(new Date(owner.periodEnd.getTime() + 3 * DAY)) }],
        ['POST', 'dose-change-requests/', { dosage: '0.5 mg' }],
        ['GET', 'dose-change-requests/', undefined],
      ] as const) {
        const r = await as(other, method, `/v1/users/subscriptions/${id}/${path}`, json);
        expect(r.status, `${method} ${path}`).toBe(404);
      }
    }
    // Nothing changed on the owner's plan.
    expect(await plan(owner.p, owner.id)).toMatchObject({ status: 'active', delivery_skipped: false, paused_by_patient: false, next_delivery_at: owner.periodEnd.toISOString() });
    expect(await count('select count(*) as n from plan_dose_change_requests where subscription_id = $1', [owner.id])).toBe(0);
  });

  it('a patient cannot read or decide the desk’s dose-change requests (403)', async () => {
    const owner = await withPlan(20);
    const req = await as(owner.p, 'POST', `/v1/users/subscriptions/${owner.id}/dose-change-requests/`, { dosage: '0.5 mg' });
    expect(req.status).toBe(201);
    expect((await as(owner.p, 'GET', '/v1/clinician/dose-change-requests/')).status).toBe(403);
    expect((await as(owner.p, 'POST', `/v1/clinician/dose-change-requests/${req.body.id}/decide/`, { decision: 'approve' })).status).toBe(403);
    expect((await as(doctor, 'POST', `/v1/clinician/dose-change-requests/${randomUUID()}/decide/`, { decision: 'approve' })).status).toBe(404);
  });
});

describe('skip the next delivery', () => {
  it('moves the next cycle one cycle later: the open renewal is withdrawn, nothing is charged or ordered for the skipped cycle, the following one renews', async () => {
    const { p, id, periodEnd } = await withPlan(6);
    await ctx.deps.scheduler.runDue();
    const pendingId = (await options(p)).pending_consultation_id as string;
    expect(pendingId).toMatch(/^[0-9a-f-]{36}$/);

    const r = await as(p, 'POST', `/v1/users/subscriptions/${id}/skip/`);
    expect(r.status).toBe(200);
    expect(r.body.subscription).toMatchObject({ status: 'active', delivery_skipped: true, current_period_end: periodEnd.toISOString(), next_delivery_at: new Date(periodEnd.getTime() + 28 * DAY).toISOString() });
    // 28 days without semaglutide: more than two weekly doses missed, the restart is one step lower.
    expect(r.body.restart).toMatchObject({ current_dosage: '1 mg', resume_dosage: '0.5 mg', dose_lowered: true, supply_gap_days: 28, codes: ['SUPPLY_BREAK_STEP_DOWN'], last_day_at_current_dose: day(new Date(periodEnd.getTime() + 14 * DAY)) });
    const withdrawn = firstRow(await ctx.db.query('select status, renewal_period_end from consultations where id = $1', [pendingId]));
    expect(withdrawn).toMatchObject({ status: 'cancelled', renewal_period_end: null });
    expect(firstRow(await ctx.db.query('select patient_choice_status from consultations where id = $1', [pendingId])).patient_choice_status).toBe('expired');
    expect((await options(p)).mode).not.toBe('pending_choice');

    const again = await as(p, 'POST', `/v1/users/subscriptions/${id}/skip/`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_skipped');

    // The period ends: not charged, not paused as a missed renewal, no renewal yet.
    await advanceTestClock(ctx, admin, 8);
    expect(await plan(p, id)).toMatchObject({ status: 'active', delivery_skipped: true });
    expect(await count("select count(*) as n from payments where subscription_id = $1", [id])).toBe(0);
    expect(await count("select count(*) as n from orders where user_id = $1", [p.id])).toBe(0);
    expect(await count("select count(*) as n from consultations where subscription_id = $1 and origin = 'renewal' and status <> 'cancelled'", [id])).toBe(0);

    // Seven days before the new date the renewal opens; confirmed without a dose it resumes lower (the engine's restart rule).
    await advanceTestClock(ctx, admin, 14);
    expect((await options(p)).mode).not.toBe('pending_choice');
    await advanceTestClock(ctx, admin, 7);
    const o = await options(p);
    expect(o.mode).toBe('pending_choice');
    const up = await as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { consultation_id: o.pending_consultation_id, answers: WEIGHT_LOSS_RENEWAL_SAFETY, dosage: '1 mg' });
    expect(up.status).toBe(400);
    expect(up.body).toMatchObject({ code: 'dose_step_not_allowed', allowed_dosages: ['0.25 mg', '0.5 mg'] });
    const ok = await as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { consultation_id: o.pending_consultation_id, answers: WEIGHT_LOSS_RENEWAL_SAFETY });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ dosage: '0.5 mg', dose_change: { from: '1 mg', to: '0.5 mg', direction: 'down' } });
    const approve = await as(doctor, 'POST', `/v1/clinician/consultations/${o.pending_consultation_id}/approve/`, {});
    expect(approve.status).toBe(200);
    // The charge waits for the new date (5 days away), then starts the period there.
    await advanceTestClock(ctx, admin, 4);
    expect(await count("select count(*) as n from payments where subscription_id = $1 and status = 'succeeded'", [id])).toBe(0);
    await advanceTestClock(ctx, admin, 2);
    const after = await plan(p, id);
    expect(await count("select count(*) as n from payments where subscription_id = $1 and status = 'succeeded'", [id])).toBe(1);
    expect(after).toMatchObject({ status: 'active', delivery_skipped: false, dosage: '0.5 mg', current_period_start: new Date(periodEnd.getTime() + 28 * DAY).toISOString(), next_delivery_at: new Date(periodEnd.getTime() + 56 * DAY).toISOString() });
  });

  it('two skips at once skip one cycle: one 200, one 409 already_skipped', async () => {
    const { p, id, periodEnd } = await withPlan(20);
    const [a, b] = await Promise.all([as(p, 'POST', `/v1/users/subscriptions/${id}/skip/`), as(p, 'POST', `/v1/users/subscriptions/${id}/skip/`)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect([a.body.code, b.body.code]).toContain('already_skipped');
    expect((await plan(p, id)).next_delivery_at).toBe(new Date(periodEnd.getTime() + 28 * DAY).toISOString());
  });

  it('the same Idempotency-Key replays the first answer instead of a 409', async () => {
    const { p, id } = await withPlan(20);
    const token = await freshToken(ctx, p);
    const key = randomUUID();
    const first = await call(ctx, 'POST', `/v1/users/subscriptions/${id}/skip/`, { token, headers: { 'idempotency-key': key } });
    const replay = await call(ctx, 'POST', `/v1/users/subscriptions/${id}/skip/`, { token, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.subscription.next_delivery_at).toBe(first.body.subscription.next_delivery_at);
  });

  it('refuses ended, ending, rejected, already-approved and paused plans with codes', async () => {
    const ended = await withPlan(20, '1 mg', { status: 'canceled', canceled_at: new Date() });
    const ending = await withPlan(20, '1 mg', { cancel_at_period_end: true });
    const rejected = await withPlan(5);
    await ctx.db.query(
      "insert into consultations (user_id, category, plan, status, origin, subscription_id, renewal_period_end, treatment_id, dosage, supply_days, patient_choice_status, decided_at) select user_id, category, 'subscription', 'rejected', 'renewal', id, current_period_end, treatment_id, dosage, 28, 'confirmed', now() from subscriptions where id = $1",
      [rejected.id],
    );
    const approved = await withPlan(5);
    await approveRenewalOfPeriod(ctx, approved.id, ctx.deps.clock.now());
    const dueCard = await withPlan(20, '1 mg', { status: 'past_due' });
    for (const [x, code] of [
      [ended, 'subscription_not_active'],
      [ending, 'subscription_ending'],
      [rejected, 'renewal_rejected'],
      [approved, 'next_delivery_approved'],
      [dueCard, 'subscription_not_active'],
    ] as const) {
      for (const [path, json] of [['skip/', undefined], ['pause/', {}], ['delivery-date/', { date: day(new Date(x.periodEnd.getTime() + 2 * DAY)) }]] as const) {
        const r = await as(x.p, 'POST', `/v1/users/subscriptions/${x.id}/${path}`, json);
        expect(r.status, `${code} ${path}`).toBe(409);
        expect(r.body.code, `${code} ${path}`).toBe(code);
      }
    }
    const dose = await as(ended.p, 'POST', `/v1/users/subscriptions/${ended.id}/dose-change-requests/`, { dosage: '0.5 mg' });
    expect(dose.status).toBe(409);
    expect(dose.body.code).toBe('subscription_not_active');
  });
});

describe('pause', () => {
  it('for some cycles: paused now, nothing charged, resumes by itself before the date with the renewal open', async () => {
    const { p, id, periodEnd } = await withPlan(3, '0.5 mg');
    const r = await as(p, 'POST', `/v1/users/subscriptions/${id}/pause/`, { cycles: 1 });
    expect(r.status).toBe(200);
    const resumeAt = new Date(periodEnd.getTime() + 28 * DAY).toISOString();
    expect(r.body.subscription).toMatchObject({ status: 'paused', paused_by_patient: true, resumes_at: resumeAt, next_delivery_at: resumeAt, delivery_date_window: null });
    expect(r.body.restart).toMatchObject({ resume_dosage: '0.25 mg', dose_lowered: true, codes: ['SUPPLY_BREAK_STEP_DOWN'] });
    const twice = await as(p, 'POST', `/v1/users/subscriptions/${id}/pause/`, {});
    expect(twice.body.code).toBe('subscription_paused');
    expect((await as(p, 'POST', `/v1/users/subscriptions/${id}/skip/`)).body.code).toBe('subscription_paused');
    expect((await as(p, 'POST', `/v1/users/subscriptions/${id}/pause/`, { cycles: 7 })).status).toBe(400);
    // The journal stays open while the patient's own pause runs (it is still their treatment).
    expect((await as(p, 'GET', '/v1/users/journal/weight-entries/')).status).toBe(200);
    const stranger = await seedPatient(ctx);
    expect((await as(stranger, 'GET', '/v1/users/journal/weight-entries/')).status).toBe(403);

    await advanceTestClock(ctx, admin, 10);
    expect(await plan(p, id)).toMatchObject({ status: 'paused', paused_by_patient: true });
    expect(await count("select count(*) as n from payments where subscription_id = $1", [id])).toBe(0);
    expect(await count("select count(*) as n from consultations where subscription_id = $1 and origin = 'renewal'", [id])).toBe(0);
    // Seven days before the resume date it is active again and its renewal is open.
    await advanceTestClock(ctx, admin, 15);
    expect(await plan(p, id)).toMatchObject({ status: 'active', paused_by_patient: false, next_delivery_at: resumeAt });
    expect((await options(p)).mode).toBe('pending_choice');
  });

  it('until resumed: the restart after more than 28 days without doses is at the first step (the doctor prescribes it)', async () => {
    const { p, id, periodEnd } = await withPlan(2, '1 mg');
    const r = await as(p, 'POST', `/v1/users/subscriptions/${id}/pause/`, {});
    expect(r.status).toBe(200);
    expect(r.body.subscription).toMatchObject({ status: 'paused', resumes_at: null, next_delivery_at: null });
    expect(r.body.restart).toMatchObject({ at: null, resume_dosage: null, last_day_at_current_dose: day(new Date(periodEnd.getTime() + 14 * DAY)) });
    await advanceTestClock(ctx, admin, 40);
    expect((await plan(p, id)).status).toBe('paused');
    expect(await count("select count(*) as n from payments where subscription_id = $1", [id])).toBe(0);

    const back = await as(p, 'POST', `/v1/users/subscriptions/${id}/unpause/`);
    expect(back.status).toBe(200);
    expect(back.body.subscription).toMatchObject({ status: 'active', paused_by_patient: false });
    expect(back.body.restart).toMatchObject({ resume_dosage: '0.25 mg', dose_lowered: true, codes: ['SUPPLY_BREAK_RESTART_TITRATION'] });
    expect((await as(p, 'POST', `/v1/users/subscriptions/${id}/unpause/`)).body.code).toBe('subscription_not_paused');
    await advanceTestClock(ctx, admin, 0);
    const o = await options(p);
    expect(o.mode).toBe('pending_choice');
    expect(o.ladder).toMatchObject({ current: '1 mg', next: '0.25 mg' });
    const same = await as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { consultation_id: o.pending_consultation_id, answers: WEIGHT_LOSS_RENEWAL_SAFETY, dosage: '1 mg' });
    expect(same.status).toBe(400);
    expect(same.body).toMatchObject({ code: 'dose_step_not_allowed', reason_codes: ['SUPPLY_BREAK_RESTART_TITRATION'], allowed_dosages: ['0.25 mg'] });
  });
});

describe('pause and the other plan actions', () => {
  it('an early order does not end a patient’s pause; a skip before the pause ends with the unpause; postpone refuses a moved delivery', async () => {
    const { p, id, periodEnd } = await withPlan(8, '0.5 mg');
    expect((await as(p, 'POST', `/v1/users/subscriptions/${id}/skip/`)).status).toBe(200);
    const postpone = await as(p, 'POST', `/v1/users/subscriptions/${id}/postpone/`, { days: 3 });
    expect(postpone.status).toBe(409);
    expect(postpone.body.code).toBe('already_postponed');
    expect((await as(p, 'POST', `/v1/users/subscriptions/${id}/pause/`, {})).status).toBe(200);
    const early = await as(p, 'POST', `/v1/users/subscriptions/${id}/early-order/`);
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('subscription_paused');
    expect(await count("select count(*) as n from payments where subscription_id = $1", [id])).toBe(0);
    const back = await as(p, 'POST', `/v1/users/subscriptions/${id}/unpause/`);
    expect(back.body.subscription).toMatchObject({ status: 'active', delivery_skipped: false, paused_by_patient: false, next_delivery_at: periodEnd.toISOString() });
  });
});

describe('the next delivery date', () => {
  it('moves inside the window; outside it, or not a date, is a 400 on `date`', async () => {
    const { p, id, periodEnd } = await withPlan(20);
    const s = await plan(p, id);
    expect(s.delivery_date_window).toEqual({ earliest: day(new Date(periodEnd.getTime() - 10 * DAY)), latest: day(new Date(periodEnd.getTime() + 28 * DAY)) });
    for (const date of [day(new Date(periodEnd.getTime() - 11 * DAY)), day(new Date(periodEnd.getTime() + 29 * DAY))]) {
      const r = await as(p, 'POST', `/v1/users/subscriptions/${id}/delivery-date/`, { date });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(['date']);
    }
    expect(Object.keys((await as(p, 'POST', `/v1/users/subscriptions/${id}/delivery-date/`, { date: '2026-02-30' })).body)).toEqual(['date']);

    const later = day(new Date(periodEnd.getTime() + 10 * DAY));
    const r = await as(p, 'POST', `/v1/users/subscriptions/${id}/delivery-date/`, { date: later });
    expect(r.status).toBe(200);
    expect(day(r.body.subscription.next_delivery_at)).toBe(later);
    expect(r.body.subscription.current_period_end).toBe(periodEnd.toISOString());
    // Ten days: beyond the missed-dose window, no step up, still the current dose.
    expect(r.body.restart).toMatchObject({ resume_dosage: '1 mg', dose_lowered: false, codes: ['SUPPLY_BREAK_NO_STEP_UP'] });
    const earlier = day(new Date(periodEnd.getTime() - 5 * DAY));
    const back = await as(p, 'POST', `/v1/users/subscriptions/${id}/delivery-date/`, { date: earlier });
    expect(day(back.body.subscription.next_delivery_at)).toBe(earlier);
    expect(back.body.restart.codes).toEqual([]);
  });
});

describe('dose change between renewals', () => {
  it('goes to the desk; the doctor’s decision becomes the next renewal’s dose and the patient sees it', async () => {
    const { p, id } = await withPlan(12, '1 mg');
    const bad = await as(p, 'POST', `/v1/users/subscriptions/${id}/dose-change-requests/`, { dosage: '3 mg' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(['dosage']);
    expect(Object.keys((await as(p, 'POST', `/v1/users/subscriptions/${id}/dose-change-requests/`, { dosage: '1 mg' })).body)).toEqual(['dosage']);
    // Two steps up at once: the prescribing rule refuses it (one step at a time).
    const jump = await as(p, 'POST', `/v1/users/subscriptions/${id}/dose-change-requests/`, { dosage: '2.4 mg' });
    expect(jump.status).toBe(400);
    expect(jump.body).toMatchObject({ code: 'dose_step_not_allowed', allowed_dosages: ['0.25 mg', '0.5 mg', '1 mg', '1.7 mg'] });

    const req = await as(p, 'POST', `/v1/users/subscriptions/${id}/dose-change-requests/`, { dosage: '0.5 mg', note: 'Nausea most days.' });
    expect(req.status).toBe(201);
    expect(req.body).toMatchObject({ subscription_id: id, from_dosage: '1 mg', requested_dosage: '0.5 mg', note: 'Nausea most days.', status: 'pending', decided_at: null });
    const second = await as(p, 'POST', `/v1/users/subscriptions/${id}/dose-change-requests/`, { dosage: '0.25 mg' });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('dose_change_pending');
    // The note is sealed at rest.
    const stored = firstRow(await ctx.db.query('select note_enc from plan_dose_change_requests where id = $1', [req.body.id]));
    expect(String(stored.note_enc)).not.toContain('Nausea');
    // The request and its note are in the patient's data export, and in no other account's.
    const exported = await as(p, 'GET', '/v1/users/me/export/');
    expect(exported.body.plan_dose_change_requests).toEqual([expect.objectContaining({ id: req.body.id, requested_dosage: '0.5 mg', note: 'Nausea most days.' })]);
    const stranger = await withPlan(12, '1 mg');
    expect((await as(stranger.p, 'GET', '/v1/users/me/export/')).body.plan_dose_change_requests).toEqual([]);
    // Erasure takes a pending request off the desk (a decided one would stay with the prescribing record).
    const leaving = await withPlan(12, '1 mg');
    const pending = await as(leaving.p, 'POST', `/v1/users/subscriptions/${leaving.id}/dose-change-requests/`, { dosage: '0.5 mg', note: 'Leaving.' });
    expect(pending.status).toBe(201);
    // A seeded account has no password: it confirms with DELETE from a sign-in of the last 10 minutes (on the test clock).
    const token = await freshToken(ctx, leaving.p);
    await ctx.db.query('update refresh_families set created_at = $2 where user_id = $1', [leaving.p.id, ctx.deps.clock.now()]);
    expect((await call(ctx, 'DELETE', '/v1/users/me/', { token, json: { confirm: 'DELETE' } })).status).toBe(204);
    const deskAfter = await as(doctor, 'GET', '/v1/clinician/dose-change-requests/?limit=100');
    expect(deskAfter.body.results.map((x: { id: string }) => x.id)).not.toContain(pending.body.id);

    const queue = await as(doctor, 'GET', '/v1/clinician/dose-change-requests/?limit=100');
    expect(queue.status).toBe(200);
    const item = queue.body.results.find((x: { id: string }) => x.id === req.body.id);
    expect(item).toMatchObject({ user_id: p.id, category: 'weight_loss', requested_dosage: '0.5 mg', prescribing_check: { ok: true } });
    expect(await count("select count(*) as n from access_log where actor_id = $1 and resource_type = 'profile' and patient_id = $2", [doctor.id, p.id])).toBeGreaterThan(0);

    const decided = await as(doctor, 'POST', `/v1/clinician/dose-change-requests/${req.body.id}/decide/`, { decision: 'approve', note: 'Stay at 0.5 mg for four weeks.' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ status: 'approved', decided_dosage: '0.5 mg', decision_note: 'Stay at 0.5 mg for four weeks.' });
    expect((await as(doctor, 'POST', `/v1/clinician/dose-change-requests/${req.body.id}/decide/`, { decision: 'decline' })).body.code).toBe('dose_change_not_pending');
    const seen = await as(p, 'GET', `/v1/users/subscriptions/${id}/dose-change-requests/`);
    expect(seen.body[0]).toMatchObject({ id: req.body.id, status: 'approved', decided_dosage: '0.5 mg', decision_note: 'Stay at 0.5 mg for four weeks.' });
    expect(await plan(p, id)).toMatchObject({ dosage: '1 mg', next_cycle_dosage: '0.5 mg' });
    const { email } = firstRow(await ctx.db.query('select email from users where id = $1', [p.id]));
    expect(await count("select count(*) as n from mail_outbox where to_address = $1 and template = 'dose_change_decided'", [email])).toBe(1);

    // The renewal opens at the decided dose; confirmed without a dose it is the decided one.
    await advanceTestClock(ctx, admin, 6);
    const o = await options(p);
    expect(o.mode).toBe('pending_choice');
    expect((await plan(p, id)).next_cycle_dosage).toBeNull();
    const during = await as(p, 'POST', `/v1/users/subscriptions/${id}/dose-change-requests/`, { dosage: '0.25 mg' });
    expect(during.status).toBe(409);
    expect(during.body.code).toBe('renewal_open');
    const ok = await as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { consultation_id: o.pending_consultation_id, answers: WEIGHT_LOSS_RENEWAL_SAFETY });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ dosage: '0.5 mg', dose_change: { from: '1 mg', to: '0.5 mg', direction: 'down' } });
  });

  it('a declined request leaves the dose; two requests at once open one', async () => {
    const { p, id } = await withPlan(20, '1 mg');
    const [a, b] = await Promise.all([
      as(p, 'POST', `/v1/users/subscriptions/${id}/dose-change-requests/`, { dosage: '0.5 mg' }),
      as(p, 'POST', `/v1/users/subscriptions/${id}/dose-change-requests/`, { dosage: '0.5 mg' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const created = a.status === 201 ? a.body : b.body;
    const d = await as(doctor, 'POST', `/v1/clinician/dose-change-requests/${created.id}/decide/`, { decision: 'decline', note: 'Keep 1 mg; we talk at the renewal.' });
    expect(d.body).toMatchObject({ status: 'declined', decided_dosage: null });
    expect(await plan(p, id)).toMatchObject({ dosage: '1 mg', next_cycle_dosage: null });
  });
});
