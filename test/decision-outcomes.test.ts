// The doctor's decision drives what follows it: a rejected or expired review gives the
// money back and ends the plan its checkout opened; an unconfirmed renewal cannot be approved; the
// plan carries what was approved; the recurring charge waits for an approved renewal and, after an
// outage, charges once. Everything through HTTP, on the sandbox provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceTestClock, callAsFresh, paySandbox, readyPatient, WEIGHT_LOSS_RENEWAL_SAFETY } from './billing-fixtures.ts';
import { createTestContext, newStaff, type Patient, type TestContext, firstRow } from './support/harness.ts';

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
const approve = (id: string, json: Record<string, unknown> = {}) => as(doctor, 'POST', `/v1/clinician/consultations/${id}/approve/`, json);
const reject = (id: string) => as(doctor, 'POST', `/v1/clinician/consultations/${id}/reject/`, { decision_reason: 'Not suitable: see the note in your messages.' });
const options = async (p: Patient) => (await as(p, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss')).body;
const confirm = (p: Patient, json: Record<string, unknown>) => as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', json);
const advance = (days: number) => advanceTestClock(ctx, admin, days);
async function ledger(userId: string) {
  return firstRow(
    await ctx.db.query(
      `select (select count(*)::int from payments where user_id = $1 and status = 'succeeded') as succeeded,
              (select count(*)::int from payments where user_id = $1 and status = 'refunded') as refunded,
              (select coalesce(sum(refunded_amount_cents), 0)::int from payments where user_id = $1) as refunded_cents,
              (select count(*)::int from orders where user_id = $1) as orders`,
      [userId],
    ),
  );
}

/** A weight-loss patient who paid for a plan (semaglutide 0.25 mg) and waits for the doctor. */
async function paidPlan(locale = 'de') {
  const p = await readyPatient(ctx, 'weight_loss', 'eligible', { gender: '0', locale });
  const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'subscription', treatment_id: 'semaglutide', dosage: '0.25 mg' });
  return { p, consultationId: session.consultation_id as string, subscriptionId: session.subscription_id as string, paymentId: session.payment_id as string };
}

describe('a rejected first consultation gives the money back and ends its plan', () => {
  it('hair loss plan, rejected: payment refunded in full, plan canceled and never charged, no order, mail in the patient’s locale', async () => {
    const p = await readyPatient(ctx, 'hair_growth', 'eligible', { gender: '0', locale: 'de' });
    const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'subscription' });
    await ctx.flushMail();
    ctx.mails.length = 0;
    const r = await reject(session.consultation_id);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('rejected');

    const pay = (await as(p, 'GET', '/v1/users/payments/')).body.results[0];
    expect(pay).toMatchObject({ status: 'refunded', net_amount_cents: 0 });
    expect(pay.refunded_amount_cents).toBe(pay.amount_cents);
    const plan = (await as(p, 'GET', `/v1/users/subscriptions/${session.subscription_id}/`)).body;
    expect(plan.status).toBe('canceled');
    expect(plan.canceled_at).toBeTruthy();
    expect((await as(p, 'GET', '/v1/users/orders/')).body).toEqual([]);
    const c = (await as(p, 'GET', `/v1/users/consultations/${session.consultation_id}/`)).body;
    expect(c.status).toBe('rejected');

    await ctx.flushMail();
    const mine = ctx.mails.filter((m) => m.to === p.email);
    expect(mine.some((m) => /vollständig erstattet/.test(m.text))).toBe(true);
    expect(mine.some((m) => /Erstattung|erstattet/i.test(m.subject))).toBe(true); // the refund receipt
    for (const m of mine) expect(m.text).not.toMatch(/minoxidil|finasteride/i);

    // A month later nothing was charged again and nothing renews.
    await advance(35);
    expect(await ledger(p.id)).toMatchObject({ succeeded: 0, refunded: 1, orders: 0 });
    expect((await options(p)).mode).not.toBe('pending_choice');
  });

  it('a retried rejection refunds nothing twice: the second answers 409 and the ledger is unchanged', async () => {
    const { p, consultationId } = await paidPlan();
    const [a, b] = await Promise.all([reject(consultationId), reject(consultationId)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const again = await reject(consultationId);
    expect(again.status).toBe(409);
    const l = await ledger(p.id);
    expect(l.refunded).toBe(1);
    const pay = firstRow(await ctx.db.query('select amount_cents, refunded_amount_cents, refund from payments where user_id = $1', [p.id]));
    expect(pay.refunded_amount_cents).toBe(pay.amount_cents);
    expect(pay.refund.refunds).toHaveLength(1);
  });

  it('a one-off consultation rejected is refunded; an approved one is not', async () => {
    const p = await readyPatient(ctx, 'weight_loss', 'eligible', { gender: '0' });
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
    expect((await reject(session.consultation_id)).status).toBe(200);
    expect(await ledger(p.id)).toMatchObject({ succeeded: 0, refunded: 1, orders: 0 });

    const q = await readyPatient(ctx, 'weight_loss', 'eligible', { gender: '0' });
    const paid = await paySandbox(ctx, q, { category: 'weight_loss', plan: 'one_off' });
    expect((await approve(paid.session.consultation_id)).status).toBe(200);
    expect(await ledger(q.id)).toMatchObject({ succeeded: 1, refunded: 0, orders: 1 });
  });
});

describe('an unanswered information request expires after 14 days', () => {
  it('refunded, plan canceled, patient mailed; a request answered in time or younger stays', async () => {
    const { p, consultationId, subscriptionId } = await paidPlan('en');
    const young = await paidPlan('en');
    expect((await as(doctor, 'POST', `/v1/clinician/consultations/${consultationId}/request-information/`, { decision_reason: 'Please send a photo of the scalp.' })).status).toBe(200);
    await advance(13);
    expect((await as(doctor, 'POST', `/v1/clinician/consultations/${young.consultationId}/request-information/`, { decision_reason: 'Which dose did you use before?' })).status).toBe(200);
    expect((await as(p, 'GET', `/v1/users/consultations/${consultationId}/`)).body.status).toBe('needs_information');
    await advance(2);
    const c = (await as(p, 'GET', `/v1/users/consultations/${consultationId}/`)).body;
    expect(c.status).toBe('refunded');
    expect(await ledger(p.id)).toMatchObject({ succeeded: 0, refunded: 1, orders: 0 });
    expect((await as(p, 'GET', `/v1/users/subscriptions/${subscriptionId}/`)).body.status).toBe('canceled');
    await ctx.flushMail();
    expect(ctx.mails.some((m) => m.to === p.email && m.subject === 'Your consultation has been closed')).toBe(true);
    // Asked two days ago: untouched.
    expect((await as(young.p, 'GET', `/v1/users/consultations/${young.consultationId}/`)).body.status).toBe('needs_information');
    expect(await ledger(young.p.id)).toMatchObject({ succeeded: 1, refunded: 0 });
  });
});

/** A plan whose first supply was approved and whose renewal is open, waiting for the patient. */
async function planWithOpenRenewal() {
  const { p, consultationId, subscriptionId } = await paidPlan('en');
  expect((await approve(consultationId)).status).toBe(200);
  await advance(22);
  const o = await options(p);
  expect(o.mode).toBe('pending_choice');
  return { p, subscriptionId, renewalId: o.pending_consultation_id as string };
}

describe('approving a renewal needs the patient’s confirmed choice', () => {
  it('a pending renewal: parallel approvals all answer 409 patient_choice_not_confirmed, nothing changes', async () => {
    const { p, renewalId } = await planWithOpenRenewal();
    const before = await ledger(p.id);
    const answers = await Promise.all(Array.from({ length: 5 }, () => approve(renewalId, { override_reason: 'Long-standing patient, stable on this dose for months.' })));
    for (const a of answers) {
      expect(a.status).toBe(409);
      expect(a.body).toMatchObject({ code: 'patient_choice_not_confirmed', patient_choice_status: 'pending' });
    }
    expect(await ledger(p.id)).toEqual(before);
    const c = firstRow(await ctx.db.query('select status, patient_choice_status from consultations where id = $1', [renewalId]));
    expect(c).toEqual({ status: 'pending_review', patient_choice_status: 'pending' });
    expect(await ctx.db.query('select 1 from prescribing_overrides where consultation_id = $1', [renewalId])).toHaveLength(0);
  });

  it('a renewal refused for chest pain, then confirmed: shown with its red flag, approved only with a reason that records it', async () => {
    const { p, renewalId } = await planWithOpenRenewal();
    const chest = WEIGHT_LOSS_RENEWAL_SAFETY.map((a) => (a.question_key === 'urgent_symptoms' ? { question_key: 'urgent_symptoms', values: { chest_pain: 1 } } : a));
    const refused = await confirm(p, { consultation_id: renewalId, answers: chest, changed: false, change_note: '' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('renewal_emergency');
    expect((await approve(renewalId)).body.code).toBe('patient_choice_not_confirmed');

    expect((await confirm(p, { consultation_id: renewalId, answers: WEIGHT_LOSS_RENEWAL_SAFETY, changed: false, change_note: '' })).status).toBe(200);
    const desk = (await as(doctor, 'GET', `/v1/clinician/consultations/${renewalId}/`)).body;
    expect(desk.renewal.red_flags.length).toBeGreaterThan(0);
    const plain = await approve(renewalId);
    expect(plain.status).toBe(400);
    expect(plain.body.code).toBe('override_required');
    expect(plain.body.reason_codes.some((c: string) => c.startsWith('RED_FLAG_'))).toBe(true);
    const withReason = await approve(renewalId, { override_reason: 'Chest pain was reviewed by her GP last week: musculoskeletal, ECG normal.' });
    expect(withReason.status).toBe(200);
    expect(withReason.body.prescribing_override.reason_codes.some((c: string) => c.startsWith('RED_FLAG_'))).toBe(true);
  });
});

describe('the plan carries what was approved', () => {
  it('a first approval at another treatment and dose: the plan shows them and the renewal starts there', async () => {
    const { p, consultationId, subscriptionId } = await paidPlan('en');
    const before = (await as(p, 'GET', '/v1/users/subscriptions/')).body.results[0];
    expect(before).toMatchObject({ treatment_id: 'semaglutide', dosage: '0.25 mg' });
    expect((await approve(consultationId, { treatment_id: 'tirzepatide', dosage: '2.5 mg' })).status).toBe(200);
    const after = (await as(p, 'GET', '/v1/users/subscriptions/')).body.results[0];
    expect(after).toMatchObject({ id: subscriptionId, treatment_id: 'tirzepatide', dosage: '2.5 mg' });
    await advance(22);
    const o = await options(p);
    expect(o.current).toMatchObject({ treatment_id: 'tirzepatide', dosage: '2.5 mg', source: 'subscription' });
    expect(o.ladder.current).toBe('2.5 mg');
  });
});

describe('recurring charges follow an approved renewal', () => {
  it('after a 51-day outage: nothing charged silently, the renewal opens, one charge after approval, the new period starts then, titration restarts', async () => {
    const { p, consultationId, subscriptionId } = await paidPlan('en');
    expect((await approve(consultationId)).status).toBe(200);
    // The scheduler was down: the clock jumps 51 days at once, then every job runs.
    await ctx.deps.clock.advance(51 * DAY);
    await ctx.deps.scheduler.runDue();
    await ctx.deps.scheduler.runDue();
    expect(await ledger(p.id)).toMatchObject({ succeeded: 1, orders: 1 });
    const paused = (await as(p, 'GET', `/v1/users/subscriptions/${subscriptionId}/`)).body;
    expect(paused.status).toBe('paused');

    const o = await options(p);
    expect(o.mode).toBe('pending_choice');
    // 23 days without supply: no step up (the titration rule sees the break).
    const up = await confirm(p, { consultation_id: o.pending_consultation_id, answers: WEIGHT_LOSS_RENEWAL_SAFETY, changed: false, change_note: '', dosage: '0.5 mg' });
    expect(up.status).toBe(400);
    expect(up.body.code).toBe('dose_step_not_allowed');
    expect((await confirm(p, { consultation_id: o.pending_consultation_id, answers: WEIGHT_LOSS_RENEWAL_SAFETY, changed: false, change_note: '' })).status).toBe(200);
    // Read before the approval: it signs the prescription (a doctor's first signature makes their key),
    // which can take longer than the tolerance below on a loaded machine.
    const approvedAt = ctx.deps.clock.now().getTime();
    expect((await approve(o.pending_consultation_id)).status).toBe(200);
    await ctx.deps.scheduler.runDue();
    await ctx.deps.scheduler.runDue();
    expect(await ledger(p.id)).toMatchObject({ succeeded: 2, orders: 2 });
    const plan = (await as(p, 'GET', `/v1/users/subscriptions/${subscriptionId}/`)).body;
    expect(plan.status).toBe('active');
    expect(new Date(plan.current_period_start).getTime()).toBeGreaterThanOrEqual(approvedAt - 1000);
    expect(new Date(plan.current_period_end).getTime() - new Date(plan.current_period_start).getTime()).toBe(28 * DAY);
  });

  it('a period whose renewal is pending, held or rejected is never charged', async () => {
    const { p, renewalId } = await planWithOpenRenewal();
    await advance(8);
    expect(await ledger(p.id)).toMatchObject({ succeeded: 1 });
    expect((await confirm(p, { consultation_id: renewalId, answers: WEIGHT_LOSS_RENEWAL_SAFETY, changed: false, change_note: '' })).status).toBe(200);
    await ctx.deps.scheduler.runDue();
    expect(await ledger(p.id)).toMatchObject({ succeeded: 1 });
    expect((await reject(renewalId)).status).toBe(200);
    await ctx.deps.scheduler.runDue();
    expect(await ledger(p.id)).toMatchObject({ succeeded: 1, refunded: 0 });
  });
});
