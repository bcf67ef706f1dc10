import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { paySandbox, readyPatient, staff } from './billing-fixtures.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await staff(ctx, 'doctor');
});
afterAll(async () => {
  await ctx?.close();
});

async function paidConsultation(category = 'weight_loss', plan = 'one_off') {
  const p = await readyPatient(ctx, category);
  const { session } = await paySandbox(ctx, p, { category, plan });
  return { p, id: session.consultation_id as string };
}

describe('clinician permissions', () => {
  it('a patient token gets 403 permission_denied on every clinician route; no token 401', async () => {
    const { p, id } = await paidConsultation();
    const routes: [string, string, unknown?][] = [
      ['GET', '/v1/clinician/consultations/?status=pending_review'],
      ['GET', `/v1/clinician/consultations/${id}/`],
      ['POST', `/v1/clinician/consultations/${id}/approve/`, {}],
      ['POST', `/v1/clinician/consultations/${id}/reject/`, { decision_reason: 'x' }],
      ['POST', `/v1/clinician/consultations/${id}/request-information/`, { decision_reason: 'x' }],
    ];
    for (const [m, u, json] of routes) {
      const r = await call(ctx, m, u, { token: p.access, json });
      expect(r.status, u).toBe(403);
      expect(r.body).toEqual({ detail: expect.any(String), code: 'permission_denied' });
      expect((await call(ctx, m, u, { json })).status).toBe(401);
    }
    const c = firstRow(await ctx.db.query('select status from consultations where id = $1', [id]));
    expect(c.status).toBe('pending_review');
  });
});

describe('review desk', () => {
  it('queue, detail with submission and eligibility, approve creates prescription and order, mails the patient', async () => {
    const { p, id } = await paidConsultation();
    const q = await call(ctx, 'GET', '/v1/clinician/consultations/?status=pending_review&limit=100', { token: doctor.access });
    expect(q.status).toBe(200);
    expect(q.body.results.map((c: any) => c.id)).toContain(id);
    expect(q.body.results.every((c: any) => c.status === 'pending_review')).toBe(true);
    const bad = await call(ctx, 'GET', '/v1/clinician/consultations/?status=bogus', { token: doctor.access });
    expect(bad.status).toBe(400);

    const d = await call(ctx, 'GET', `/v1/clinician/consultations/${id}/`, { token: doctor.access });
    expect(d.status).toBe(200);
    expect(d.body.questionnaire_submission).toMatchObject({ outcome: 'eligible', eligibility: { bmi: 32.4 } });
    expect(d.body.treatment_options.length).toBeGreaterThan(0);
    const t = d.body.treatment_options[0];

    const wrongTreatment = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: { treatment_id: 'finasteride' } });
    expect(wrongTreatment.status).toBe(400);
    expect(wrongTreatment.body.treatment_id).toBeDefined();
    const wrongDose = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: { treatment_id: t.id, dosage: '999 mg' } });
    expect(wrongDose.status).toBe(400);
    expect(wrongDose.body.dosage).toBeDefined();

    await ctx.flushMail(); // the payment receipt of the checkout goes out first
    const mailsBefore = ctx.mails.length;
    const dose = t.dosages[1] ?? t.dosages[0];
    // A first supply above the first ladder step needs the doctor's written override (docs/consultations.md).
    const override = dose === t.dosages[0] ? {} : { override_reason: 'Already established on this dose elsewhere; letter from the GP seen.' };
    const ok = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: { treatment_id: t.id, dosage: dose, note: 'Start low, review in 4 weeks.', ...override } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'approved', dosage: dose, treatment_id: t.id, decision_reason: 'Start low, review in 4 weeks.' });
    expect(ok.body.doctor).toMatchObject({ id: doctor.id, email: doctor.email });
    expect(ok.body.decided_at).toBeTruthy();
    expect(ok.body.prescriptions).toHaveLength(1);

    const again = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: {} });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invalid_status_transition');

    const orders = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
    expect(orders.body).toHaveLength(1);
    expect(orders.body[0]).toMatchObject({ status: 'awaiting_fulfilment', consultation_id: id, items: [{ treatment_id: t.id, dosage: dose, quantity: 1, supply_days: 28 }] });
    const rx = await call(ctx, 'GET', '/v1/users/prescriptions/', { token: p.access });
    expect(rx.body.count).toBe(1);
    expect(rx.body.results[0]).toMatchObject({ treatment_id: t.id, dosage: dose, supply_days: 28 });
    const pdf = await call(ctx, 'GET', `/v1/users/prescriptions/${rx.body.results[0].id}/pdf/`, { token: p.access });
    expect(pdf.status).toBe(200);
    expect(pdf.text.startsWith('%PDF')).toBe(true);
    const other = await seedPatient(ctx);
    expect((await call(ctx, 'GET', `/v1/users/prescriptions/${rx.body.results[0].id}/pdf/`, { token: other.access })).status).toBe(404);

    const cons = await call(ctx, 'GET', `/v1/users/consultations/${id}/`, { token: p.access });
    expect(cons.body.user.last_prescription_at).toBeTruthy();

    await ctx.flushMail();
    const mail = ctx.mails.slice(mailsBefore).find((m) => m.to === p.email);
    expect(mail).toBeDefined();
    // German locale, no health details.
    expect(mail!.subject).toBe('Ihre Konsultation wurde geprüft');
    expect(mail!.text).not.toContain(dose);
    expect(mail!.text).not.toContain(t.id);
    const log = firstRow(await ctx.db.query("select * from audit_log where subject_id = $1 and action = 'consultation.approved'", [id]));
    expect(log.actor_id).toBe(doctor.id);
  });

  it('reject needs a reason; request-information then approve; unknown id 404', async () => {
    const a = await paidConsultation('hair_growth');
    const noReason = await call(ctx, 'POST', `/v1/clinician/consultations/${a.id}/reject/`, { token: doctor.access, json: {} });
    expect(noReason.status).toBe(400);
    expect(noReason.body.decision_reason).toBeDefined();
    const rej = await call(ctx, 'POST', `/v1/clinician/consultations/${a.id}/reject/`, { token: doctor.access, json: { decision_reason: 'Contraindicated with current medication.' } });
    expect(rej.status).toBe(200);
    expect(rej.body).toMatchObject({ status: 'rejected', decision_reason: 'Contraindicated with current medication.' });
    expect((await call(ctx, 'POST', `/v1/clinician/consultations/${a.id}/approve/`, { token: doctor.access, json: {} })).status).toBe(409);

    const b = await paidConsultation('hair_growth');
    const info = await call(ctx, 'POST', `/v1/clinician/consultations/${b.id}/request-information/`, { token: doctor.access, json: { decision_reason: 'Please upload a photo.' } });
    expect(info.status).toBe(200);
    expect(info.body.status).toBe('needs_information');
    const ok = await call(ctx, 'POST', `/v1/clinician/consultations/${b.id}/approve/`, { token: doctor.access, json: {} });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('approved');
    expect(ok.body.supply_days).toBe(30);

    expect((await call(ctx, 'POST', `/v1/clinician/consultations/${randomUUID()}/reject/`, { token: doctor.access, json: { decision_reason: 'x' } })).status).toBe(404);
    expect((await call(ctx, 'GET', `/v1/clinician/consultations/${randomUUID()}/`, { token: doctor.access })).status).toBe(404);
  });

  it("the patient's reply to a needs_information consultation puts it back in the queue (pending_review); other accounts' stay", async () => {
    const a = await paidConsultation('hair_growth');
    const other = await paidConsultation('hair_growth');
    for (const c of [a, other]) {
      const info = await call(ctx, 'POST', `/v1/clinician/consultations/${c.id}/request-information/`, { token: doctor.access, json: { decision_reason: 'Please send a photo.' } });
      expect(info.body.status).toBe('needs_information');
    }
    const thread = (await call(ctx, 'GET', '/v1/users/conversations/', { token: a.p.access })).body.results[0].id as string;
    const sent = await call(ctx, 'POST', `/v1/users/conversations/${thread}/messages/`, { token: a.p.access, json: { content: 'Here is the answer.' } });
    expect(sent.status).toBeLessThan(300);
    const mine = await call(ctx, 'GET', `/v1/users/consultations/${a.id}/`, { token: a.p.access });
    expect(mine.body.status).toBe('pending_review');
    // Only the writer's consultations move: another patient's stays with the doctor's question.
    expect((await call(ctx, 'GET', `/v1/users/consultations/${other.id}/`, { token: other.p.access })).body.status).toBe('needs_information');
    const queue = await call(ctx, 'GET', '/v1/clinician/consultations/?status=pending_review&limit=100', { token: doctor.access });
    expect(queue.body.results.map((r: { id: string }) => r.id)).toContain(a.id);
    // A second message changes nothing (pending_review is not needs_information).
    await call(ctx, 'POST', `/v1/users/conversations/${thread}/messages/`, { token: a.p.access, json: { content: 'And one more thing.' } });
    expect((await call(ctx, 'GET', `/v1/users/consultations/${a.id}/`, { token: a.p.access })).body.status).toBe('pending_review');
  });

  it('parallel approvals create one prescription and one order', async () => {
    const { id } = await paidConsultation();
    const rs = await Promise.all(Array.from({ length: 6 }, () => call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: {} })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409)).toHaveLength(5);
    const { n } = firstRow(await ctx.db.query('select count(*)::int as n from orders where consultation_id = $1', [id]));
    expect(n).toBe(1);
  });
});
