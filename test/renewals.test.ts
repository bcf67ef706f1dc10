// Renewals over HTTP: every mode and blocked code of renewal options, every confirm outcome (with the
// concurrent confirm), and two full cycles of a weight-loss plan driven by the sandbox test clock.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceTestClock, callAsFresh, freshToken, paySandbox, readyPatient, WEIGHT_LOSS_RENEWAL_SAFETY } from './billing-fixtures.ts';
import { call, createTestContext, newStaff, grantGpSharing, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';

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
const fresh = (p: Patient) => freshToken(ctx, p);
const options = async (p: Patient, category = 'weight_loss') => (await call(ctx, 'GET', `/v1/users/subscriptions/renewal-options/?category=${category}`, { token: await fresh(p) })).body;
const advance = (days: number) => advanceTestClock(ctx, admin, days);
const as = (p: Patient, method: string, url: string, json?: unknown) => callAsFresh(ctx, p, method, url, json);
// The weight-loss renewal screen: the version's safety step, then the red flags and contraindications.
const SAFETY = WEIGHT_LOSS_RENEWAL_SAFETY;
const confirm = async (p: Patient, json: Record<string, unknown>) => as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', json);

/** A patient with an active weight-loss plan whose period ends `endsInDays` from now (SQL seed). */
async function withPlan(endsInDays: number, columns: Record<string, unknown> = {}) {
  const p = await seedPatient(ctx, { gender: '0', country_of_residence: 'DEU', date_of_birth: '1980-01-01' });
  // A weight-loss plan's patient names their own doctor and consents to the letters (docs/interoperability.md).
  await grantGpSharing(ctx, p.id);
  const now = ctx.deps.clock.now().getTime();
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days,
       started_at, current_period_start, current_period_end)
     values ($1, 'weight_loss', 'semaglutide', '0.25 mg', 'active', 'sandbox', 21900, 'day', 28, 28, $2, $3, $4) returning id`,
    [p.id, new Date(now - 60 * DAY), new Date(now + endsInDays * DAY - 28 * DAY), new Date(now + endsInDays * DAY)],
  ));
  // The plan's first supply, approved by a doctor when it started.
  await ctx.db.query(
    "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, subscription_id, decided_at) values ($1, 'weight_loss', 'approved', 'checkout', 'subscription', 28, 'semaglutide', '0.25 mg', $2, $3)",
    [p.id, s.id, new Date(now - 60 * DAY)],
  );
  if (Object.keys(columns).length) {
    const keys = Object.keys(columns);
    await ctx.db.query(`update subscriptions set ${keys.map((k, i) => `${k} = $${i + 2}`).join(', ')} where id = $1`, [s.id, ...keys.map((k) => columns[k])]);
  }
  return { p, subscriptionId: s.id as string };
}

describe('renewal options', () => {
  it('needs a known category', async () => {
    const p = await seedPatient(ctx);
    const unknown = await call(ctx, 'GET', '/v1/users/subscriptions/renewal-options/?category=astrology', { token: p.access });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('invalid_category');
    expect((await call(ctx, 'GET', '/v1/users/subscriptions/renewal-options/', { token: p.access })).body.code).toBe('invalid_category');
  });

  it('blocked no_prior_treatment for a patient without treatment, and no price', async () => {
    const o = await options(await seedPatient(ctx));
    expect(o).toMatchObject({ mode: 'blocked', blocked_code: 'no_prior_treatment', subscription: null, current: null, price: null, plan: 'one_off' });
    expect(o.required_steps[0].questions.map((q: any) => q.question_key)).toContain('current_weight_kg');
  });

  it('express_reorder for a one-off patient with a recent approval, with the category default price (a plan for weight loss)', async () => {
    const p = await seedPatient(ctx);
    await ctx.db.query(
      "insert into consultations (user_id, category, status, plan, supply_days, treatment_id, dosage, decided_at) values ($1, 'weight_loss', 'approved', 'one_off', 28, 'tirzepatide', '5 mg', $2)",
      [p.id, new Date(ctx.deps.clock.now().getTime() - 30 * DAY)],
    );
    const o = await options(p);
    expect(o).toMatchObject({ mode: 'express_reorder', blocked_code: null, current: { treatment_id: 'tirzepatide', dosage: '5 mg', source: 'consultation' } });
    expect(o.express).toMatchObject({ treatment_id: 'tirzepatide', dosage: '5 mg' });
    expect(o.price).toMatchObject({ plan: 'subscription', amount_cents: 26900, cycle_days: 28, supply_days: 28 });
    expect(o.ladder).toEqual({ dosages: ['2.5 mg', '5 mg', '7.5 mg', '10 mg', '12.5 mg', '15 mg'], current: '5 mg', next: '7.5 mg', held_at_max: false });
    expect(o.alternatives.map((a: any) => a.treatment_id)).toEqual(['semaglutide']);
    const hair = await seedPatient(ctx);
    await ctx.db.query(
      "insert into consultations (user_id, category, status, plan, supply_days, treatment_id, dosage, decided_at) values ($1, 'chlamydia', 'approved', 'one_off', 7, 'doxycycline', '100 mg', $2)",
      [hair.id, ctx.deps.clock.now()],
    );
    const chl = await options(hair, 'chlamydia');
    expect(chl.price.plan).toBe('one_off');
  });

  it('early_order_period_unavailable far from the period end, with early_order_locked_until', async () => {
    const { p } = await withPlan(20);
    const o = await options(p);
    expect(o).toMatchObject({ mode: 'blocked', blocked_code: 'early_order_period_unavailable', plan: 'subscription' });
    expect(new Date(o.period.early_order_locked_until).getTime()).toBe(new Date(o.period.current_period_end).getTime() - 10 * DAY);
    expect(o.subscription).toMatchObject({ early_order_locked: true, status: 'active', cycle_days: 28, price_cents: 21900 });
    expect(o.price).toMatchObject({ amount_cents: 21900, plan: 'subscription', supply_days: 28 });
    expect(o.ladder).toMatchObject({ current: '0.25 mg', next: '0.5 mg', held_at_max: false });
  });

  it('early_order inside the window; an early order advances the period once (then early_order_period_already_advanced)', async () => {
    const { p, subscriptionId } = await withPlan(9);
    expect((await options(p)).mode).toBe('early_order');
    const before = (await options(p)).period.current_period_end;
    const r = await call(ctx, 'POST', `/v1/users/subscriptions/${subscriptionId}/early-order/`, { token: p.access });
    expect(r.status).toBe(200);
    expect(new Date(r.body.subscription.current_period_end).getTime()).toBe(new Date(before).getTime() + 28 * DAY);
    const pay = (await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).body.results[0];
    expect(pay).toMatchObject({ billing_reason: 'early_order', is_recurring: true, status: 'succeeded' });
    // The order review is open, then the period is marked advanced once the doctor decides.
    expect((await options(p)).blocked_code).toBe('early_order_pending_review');
    await call(ctx, 'POST', `/v1/clinician/consultations/${r.body.consultation_id}/approve/`, { token: doctor.access, json: {} });
    expect((await options(p)).blocked_code).toBe('early_order_period_already_advanced');
    const again = await call(ctx, 'POST', `/v1/users/subscriptions/${subscriptionId}/early-order/`, { token: p.access });
    expect(again.status).toBe(409);
  });

  it('early_order_pending_review, early_order_subscription_ending, subscription_payment_required', async () => {
    const review = await withPlan(9);
    await ctx.db.query("insert into consultations (user_id, category, status, plan) values ($1, 'weight_loss', 'pending_review', 'subscription')", [review.p.id]);
    expect((await options(review.p)).blocked_code).toBe('early_order_pending_review');
    const ending = await withPlan(9, { cancel_at_period_end: true });
    expect((await options(ending.p)).blocked_code).toBe('early_order_subscription_ending');
    const due = await withPlan(9, { status: 'past_due' });
    expect((await options(due.p)).blocked_code).toBe('subscription_payment_required');
  });

  it('pending_choice once the renewal window opens, with the pending consultation id', async () => {
    const { p } = await withPlan(6);
    await ctx.deps.scheduler.runDue();
    const o = await options(p);
    expect(o.mode).toBe('pending_choice');
    expect(o.pending_consultation_id).toMatch(/^[0-9a-f-]{36}$/);
    await ctx.deps.scheduler.runDue();
    const { n } = firstRow(await ctx.db.query("select count(*)::int as n from consultations where user_id = $1 and origin = 'renewal'", [p.id]));
    expect(n).toBe(1);
    // Not yet in the doctors' queue: the patient has not chosen.
    const queue = await call(ctx, 'GET', '/v1/clinician/consultations/?status=pending_review&limit=100', { token: doctor.access });
    expect(queue.body.results.map((c: any) => c.id)).not.toContain(o.pending_consultation_id);
  });
});

describe('confirming the renewal choice', () => {
  async function pending() {
    const plan = await withPlan(6);
    await ctx.deps.scheduler.runDue();
    return { ...plan, consultationId: (await options(plan.p)).pending_consultation_id as string };
  }

  it('answers 404 {} for a consultation that is not the caller’s', async () => {
    const a = await pending();
    const b = await seedPatient(ctx);
    for (const id of [a.consultationId, randomUUID()]) {
      const r = await confirm(b, { consultation_id: id, answers: SAFETY });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({});
    }
  });

  it('lists missing safety answers, refuses ineligible answers and unknown variants', async () => {
    const { p, consultationId } = await pending();
    const missing = await confirm(p, { consultation_id: consultationId, answers: [] });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('renewal_answers_required');
    expect(missing.body.missing_keys.sort()).toEqual(SAFETY.map((a) => a.question_key).sort());
    const changed = await confirm(p, { consultation_id: consultationId, answers: SAFETY, changed: true });
    // Spec 4.4 outcome 1: the safety answers stay valid; only the review's keys are missing.
    expect(changed.status).toBe(400);
    expect(changed.body.code).toBe('renewal_answers_required');
    expect(changed.body.missing_keys.length).toBeGreaterThan(0);
    for (const a of SAFETY) expect(changed.body.missing_keys).not.toContain(a.question_key);
    const variant = await confirm(p, { consultation_id: consultationId, answers: SAFETY, dosage: '3 mg' });
    expect(variant.body.code).toBe('invalid_treatment_variant');
    const skip = await confirm(p, { consultation_id: consultationId, answers: SAFETY, dosage: '1 mg' });
    expect(skip.body.code).toBe('dose_step_not_allowed');
    const sideEffects = await confirm(p, { consultation_id: consultationId, answers: SAFETY.map((a) => (a.question_key === 'significant_side_effects' ? { ...a, values: { value: 1 } } : a)), dosage: '0.5 mg' });
    expect(sideEffects.body.code).toBe('dose_step_not_allowed');
    const woman = await seedPatient(ctx, { gender: '1' });
    await ctx.db.query("update subscriptions set user_id = $1 where user_id = $2", [woman.id, p.id]);
    await ctx.db.query("update consultations set user_id = $1 where id = $2", [woman.id, consultationId]);
    const preg = await confirm(woman, { consultation_id: consultationId, answers: SAFETY });
    // Women are asked breastfeeding too (GLP1_BREASTFEEDING, absolute: Wegovy/Mounjaro SmPC 4.6).
    expect(preg.body).toMatchObject({ code: 'renewal_answers_required', missing_keys: ['pregnant_or_planning', 'breastfeeding'] });
    const inel = await confirm(woman, { consultation_id: consultationId, answers: [...SAFETY, { question_key: 'pregnant_or_planning', values: { value: 1 } }, { question_key: 'breastfeeding', values: { value: 0 } }] });
    expect(inel.status).toBe(400);
    expect(inel.body).toMatchObject({ code: 'renewal_answer_ineligible', question_key: 'pregnant_or_planning' });
  });

  it('accepts a recent journal weight instead of the screen’s weight answer', async () => {
    const { p, consultationId } = await pending();
    await ctx.db.query('insert into weight_entries (user_id, weight_kg, logged_on) values ($1, 95, $2)', [p.id, ctx.deps.clock.now().toISOString().slice(0, 10)]);
    const r = await confirm(p, { consultation_id: consultationId, answers: SAFETY.filter((a) => a.question_key !== 'current_weight_kg') });
    expect(r.status).toBe(200);
  });

  it('two concurrent confirms: exactly one 200 and one 409 patient_choice_not_pending', async () => {
    const { p, consultationId } = await pending();
    const [a, b] = await Promise.all([confirm(p, { consultation_id: consultationId, answers: SAFETY }), confirm(p, { consultation_id: consultationId, answers: SAFETY })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const ok = a.status === 200 ? a : b;
    const conflict = a.status === 409 ? a : b;
    expect(ok.body).toEqual({
      consultation_id: consultationId,
      patient_choice_status: 'confirmed',
      treatment_id: 'semaglutide',
      dosage: '0.25 mg',
      dose_change: null,
      treatment_change: null,
      renewal_screen_completed: true,
    });
    expect(conflict.body).toEqual({ code: 'patient_choice_not_pending', patient_choice_status: 'confirmed' });
  });
});

describe('two cycles of a weight-loss plan through HTTP', () => {
  it('pays, gets approved, renews with a step up, is charged and ordered; a failed charge pauses nothing and recovers', async () => {
    const p = await readyPatient(ctx, 'weight_loss', 'eligible', { gender: '0', locale: 'en' });
    await paySandbox(ctx, p, { category: 'weight_loss', plan: 'subscription', treatment_id: 'semaglutide', dosage: '0.25 mg' });
    const first = (await as(p, 'GET', '/v1/users/consultations/')).body.results[0];
    expect((await as(doctor, 'POST', `/v1/clinician/consultations/${first.id}/approve/`, { treatment_id: 'semaglutide', dosage: '0.25 mg' })).status).toBe(200);
    const sub = (await as(p, 'GET', '/v1/users/subscriptions/')).body.results[0];
    expect(sub).toMatchObject({ status: 'active', treatment_id: 'semaglutide', cycle_days: 28 });

    // Cycle 1: the renewal opens 7 days before the period ends; a blocked early order meanwhile.
    await advance(10);
    expect((await options(p)).blocked_code).toBe('early_order_period_unavailable');
    await advance(11);
    const opts = await options(p);
    expect(opts.mode).toBe('pending_choice');
    const step = await confirm(p, { consultation_id: opts.pending_consultation_id, answers: SAFETY, dosage: '0.5 mg' });
    expect(step.status).toBe(200);
    expect(step.body.dose_change).toEqual({ from: '0.25 mg', to: '0.5 mg', direction: 'up' });
    expect((await as(doctor, 'POST', `/v1/clinician/consultations/${opts.pending_consultation_id}/approve/`, {})).status).toBe(200);
    await advance(7);
    let payments = (await as(p, 'GET', '/v1/users/payments/')).body.results;
    expect(payments).toHaveLength(2);
    expect(payments[0]).toMatchObject({ is_recurring: true, billing_reason: 'subscription_cycle', status: 'succeeded', amount_cents: sub.price_cents });
    expect((await as(p, 'GET', '/v1/users/orders/')).body).toHaveLength(2);
    const afterCycle1 = (await as(p, 'GET', `/v1/users/subscriptions/${sub.id}/`)).body;
    expect(new Date(afterCycle1.current_period_end).getTime()).toBe(new Date(sub.current_period_end).getTime() + 28 * DAY);
    expect((await options(p)).current).toMatchObject({ dosage: '0.5 mg', source: 'subscription' });

    // Cycle 2: the card starts failing; the charge fails, the plan is past due, then recovers.
    await advance(21);
    const opts2 = await options(p);
    expect(opts2.mode).toBe('pending_choice');
    expect((await confirm(p, { consultation_id: opts2.pending_consultation_id, answers: SAFETY })).status).toBe(200);
    await as(doctor, 'POST', `/v1/clinician/consultations/${opts2.pending_consultation_id}/approve/`, {});
    await ctx.db.query("update subscriptions set payment_method_last4 = '0341' where id = $1", [sub.id]);
    await advance(7);
    payments = (await as(p, 'GET', '/v1/users/payments/')).body.results;
    expect(payments[0]).toMatchObject({ status: 'failed', failure_code: expect.any(String) });
    expect((await options(p)).blocked_code).toBe('subscription_payment_required');
    // The patient replaces the card in the sandbox billing portal; the next run retries the charge.
    const portal = await as(p, 'POST', '/v1/users/billing-portal/', {});
    expect(portal.body.provider).toBe('sandbox');
    const portalPath = new URL(portal.body.url).pathname;
    const portalPage = await call(ctx, 'GET', portalPath);
    expect(portalPage.text, portalPage.text).toContain('ending 0341');
    const replaced = await call(ctx, 'POST', `${portalPath}card/`, { payload: `subscription_id=${sub.id}&card_number=4242424242424242`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(replaced.status).toBe(303);
    expect((await call(ctx, 'GET', '/sandbox/portal/not-a-token/')).status).toBe(404);
    await ctx.deps.scheduler.runDue();
    payments = (await as(p, 'GET', '/v1/users/payments/')).body.results;
    expect(payments[0]).toMatchObject({ status: 'succeeded', is_recurring: true });
    expect((await as(p, 'GET', `/v1/users/subscriptions/${sub.id}/`)).body.status).toBe('active');
    expect((await as(p, 'GET', '/v1/users/orders/')).body).toHaveLength(3);
  });

  it('defers the charge and pauses a plan whose renewal was not confirmed, and reminds the patient', async () => {
    const { p, subscriptionId } = await withPlan(6);
    await ctx.deps.scheduler.runDue();
    await ctx.deps.clock.advance(7 * DAY);
    await ctx.deps.scheduler.runDue();
    const s = (await as(p, 'GET', `/v1/users/subscriptions/${subscriptionId}/`)).body;
    expect(s.status).toBe('paused');
    expect((await as(p, 'GET', '/v1/users/payments/')).body.count).toBe(0);
    await ctx.flushMail();
    expect(ctx.mails.filter((m) => m.to === p.email).map((m) => m.subject).sort()).toEqual(['Your next treatment period: please confirm', 'Your treatment plan is paused']);
    // Confirming later resumes the plan; the charge follows the doctor's approval.
    const id = (await options(p)).pending_consultation_id;
    expect((await confirm(p, { consultation_id: id, answers: SAFETY })).status).toBe(200);
    expect((await as(p, 'GET', `/v1/users/subscriptions/${subscriptionId}/`)).body.status).toBe('active');
    await as(doctor, 'POST', `/v1/clinician/consultations/${id}/approve/`, {});
    await ctx.deps.scheduler.runDue();
    expect((await as(p, 'GET', '/v1/users/payments/')).body.results[0]).toMatchObject({ status: 'succeeded' });
  });
});

describe('plan management and the test clock', () => {
  it('cancels at period end and resumes; another account’s plan is 404', async () => {
    const { p, subscriptionId } = await withPlan(20);
    const c = await as(p, 'POST', `/v1/users/subscriptions/${subscriptionId}/cancel/`);
    expect(c.body.cancel_at_period_end).toBe(true);
    const r = await as(p, 'POST', `/v1/users/subscriptions/${subscriptionId}/resume/`);
    expect(r.body.cancel_at_period_end).toBe(false);
    const before = (await as(p, 'GET', `/v1/users/subscriptions/${subscriptionId}/`)).body.current_period_end;
    const moved = await as(p, 'POST', `/v1/users/subscriptions/${subscriptionId}/postpone/`, { days: 14 });
    expect(new Date(moved.body.current_period_end).getTime()).toBe(new Date(before).getTime() + 14 * DAY);
    expect((await as(p, 'POST', `/v1/users/subscriptions/${subscriptionId}/postpone/`, { days: 1 })).body.code).toBe('already_postponed');
    expect((await as(p, 'POST', `/v1/users/subscriptions/${subscriptionId}/postpone/`, { days: 15 })).status).toBe(400);
    // Another account asks for this plan's real id on every route: the answer a missing id gets.
    const other = await seedPatient(ctx);
    const missing = await call(ctx, 'GET', `/v1/users/subscriptions/${randomUUID()}/`, { token: other.access });
    expect(missing.status).toBe(404);
    for (const r of [
      await call(ctx, 'GET', `/v1/users/subscriptions/${subscriptionId}/`, { token: other.access }),
      await as(other, 'POST', `/v1/users/subscriptions/${subscriptionId}/postpone/`, { days: 1 }),
      await as(other, 'POST', `/v1/users/subscriptions/${subscriptionId}/cancel/`),
      await as(other, 'POST', `/v1/users/subscriptions/${subscriptionId}/resume/`),
      await as(other, 'POST', `/v1/users/subscriptions/${subscriptionId}/early-order/`),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual(missing.body);
    }
    expect((await as(other, 'GET', '/v1/users/subscriptions/')).body.count).toBe(0);
    // Untouched: still the owner's, not cancelled, postponed once.
    expect((await as(p, 'GET', `/v1/users/subscriptions/${subscriptionId}/`)).body).toMatchObject({ cancel_at_period_end: false, current_period_end: moved.body.current_period_end });
  });

  it('the test clock is for the back office only', async () => {
    const p = await seedPatient(ctx);
    expect((await as(p, 'POST', '/v1/backoffice/test-clock/advance/', { days: 1 })).status).toBe(403);
    expect((await as(doctor, 'POST', '/v1/backoffice/test-clock/advance/', { days: 1 })).status).toBe(403);
    const t = await as(admin, 'GET', '/v1/backoffice/test-clock/');
    expect(t.status).toBe(200);
    expect(t.body.offset_seconds).toBeGreaterThan(0);
  });
});
