// Switching treatment within a plan's category (docs/compliance.md): the request opens the plan's
// renewal on the new treatment at the engine's starting dose; the renewal confirm applies the new
// treatment's dose rules and the desk sees the treatment change for the doctor to decide.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAsFresh, WEIGHT_LOSS_RENEWAL_SAFETY } from './billing-fixtures.ts';
import { createTestContext, firstRow, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

const DAY = 86_400_000;
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

/** A patient on semaglutide 1 mg for 8 weeks, period ending in 20 days. */
async function onSemaglutide() {
  const p = await seedPatient(ctx, { gender: '0', country_of_residence: 'DEU', date_of_birth: '1980-01-01' });
  const now = ctx.deps.clock.now().getTime();
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days, started_at, current_period_start, current_period_end)
     values ($1, 'weight_loss', 'semaglutide', '1 mg', 'active', 'sandbox', 21900, 'day', 28, 28, $2, $3, $4) returning id`,
    [p.id, new Date(now - 60 * DAY), new Date(now - 8 * DAY), new Date(now + 20 * DAY)],
  ));
  await ctx.db.query(
    "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, subscription_id, decided_at) values ($1, 'weight_loss', 'approved', 'checkout', 'subscription', 28, 'semaglutide', '1 mg', $2, $3)",
    [p.id, s.id, new Date(now - 60 * DAY)],
  );
  return { p, id: s.id as string };
}
const as = (p: Patient, method: string, url: string, json?: unknown) => callAsFresh(ctx, p, method, url, json);

describe('switching treatment', () => {
  it('opens the renewal on the new treatment at its starting dose; the confirm keeps the start-dose rule; the desk sees the change', async () => {
    const { p, id } = await onSemaglutide();
    const res = await as(p, 'POST', `/v1/users/subscriptions/${id}/treatment-switch/`, { treatment_id: 'tirzepatide', reason: 'shortage' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ treatment_id: 'tirzepatide', dosage: '2.5 mg', next_step: 'confirm_renewal' });
    const options = await as(p, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss');
    expect(options.body.mode).toBe('pending_choice');
    expect(options.body.pending_consultation_id).toBe(res.body.consultation_id);
    // A higher strength of a medicine never supplied is refused by the dose rule.
    const high = await as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { consultation_id: res.body.consultation_id, treatment_id: 'tirzepatide', dosage: '7.5 mg', changed: false, answers: WEIGHT_LOSS_RENEWAL_SAFETY });
    expect(high.status).toBe(400);
    expect(high.body.code).toBe('dose_step_not_allowed');
    // Without a treatment, the confirm takes the requested one at its starting dose.
    const ok = await as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { consultation_id: res.body.consultation_id, changed: false, answers: WEIGHT_LOSS_RENEWAL_SAFETY });
    expect(ok.status, ok.text).toBe(200);
    const c = firstRow(await ctx.db.query('select treatment_id, dosage, status, patient_choice_status from consultations where id = $1', [res.body.consultation_id]));
    expect([c.treatment_id, c.dosage, c.status, c.patient_choice_status]).toEqual(['tirzepatide', '2.5 mg', 'pending_review', 'confirmed']);
    // The doctor's desk shows the change for the decision.
    const doctor = await newStaff(ctx, 'doctor');
    const desk = await as(doctor, 'GET', `/v1/clinician/consultations/${res.body.consultation_id}/`);
    expect(desk.status).toBe(200);
    expect(JSON.stringify(desk.body)).toContain('"treatment_change":{"from":"semaglutide","to":"tirzepatide"}');
    // Nothing about the plan changes before the doctor's approval.
    expect(firstRow(await ctx.db.query('select treatment_id from subscriptions where id = $1', [id])).treatment_id).toBe('semaglutide');
  });

  it('refuses the same or an unknown treatment, a second request for the period, and another account’s plan (404)', async () => {
    const { p, id } = await onSemaglutide();
    for (const treatment_id of ['semaglutide', 'finasteride', 'nope']) {
      const r = await as(p, 'POST', `/v1/users/subscriptions/${id}/treatment-switch/`, { treatment_id, reason: 'price' });
      expect(r.status).toBe(400);
      expect(r.body.treatment_id).toBeDefined();
    }
    const other = await seedPatient(ctx);
    for (const planId of [id, randomUUID()]) expect((await as(other, 'POST', `/v1/users/subscriptions/${planId}/treatment-switch/`, { treatment_id: 'tirzepatide', reason: 'price' })).status).toBe(404);
    // Two at once: one opens the renewal, the other is told to use it.
    const both = await Promise.all([0, 1].map(() => as(p, 'POST', `/v1/users/subscriptions/${id}/treatment-switch/`, { treatment_id: 'tirzepatide', reason: 'price' })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(both.find((r) => r.status === 409)!.body.code).toBe('treatment_switch_renewal_open');
  });
});
