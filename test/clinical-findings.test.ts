// The clinical findings on the third safety review, over HTTP: absolute contraindications that no
// override lifts (a weight-loss medicine in pregnancy or breastfeeding, two GLP-1 medicines,
// nitrofurantoin below an eGFR of 45), the cardiovascular questions and urgent symptoms at every
// PDE5/dapoxetine renewal, a weight from the current cycle at a weight-loss renewal, PrEP's dated
// hepatitis B test and eGFR, and the prescription's instructions from the catalogue's posology.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerItem } from '../src/modules/questionnaires/engine.ts';
import { callAsFresh, paySandbox } from './billing-fixtures.ts';
import { FIXTURES, v, withAnswers } from './questionnaires.fixtures.ts';
import { createTestContext, firstRow, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const as = (p: Patient, method: string, url: string, json?: unknown) => callAsFresh(ctx, p, method, url, json);
const approve = (id: string, json: Record<string, unknown> = {}) => as(doctor, 'POST', `/v1/clinician/consultations/${id}/approve/`, json);
const desk = async (id: string) => (await as(doctor, 'GET', `/v1/clinician/consultations/${id}/`)).body;
const REASON = 'Discussed on the phone with the patient and her GP today.';
const patient = (columns: Record<string, unknown> = {}) => seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', locale: 'en', ...columns });

async function submitted(p: Patient, category: string, answers: AnswerItem[]) {
  const saved = await as(p, 'PATCH', `/v1/users/questionnaires/${category}/progress/`, { data: answers });
  expect(saved.status, saved.text).toBe(200);
  const sub = await as(p, 'POST', `/v1/users/questionnaires/${category}/submit/`);
  expect(sub.status, sub.text).toBeLessThan(300);
  return sub.body;
}

/** A consultation waiting for the doctor on an ineligible submission (as a covered or legacy one could be). */
async function consultationOn(p: Patient, category: string, submissionId: string, treatment: string, dosage: string) {
  return firstRow(await ctx.db.query(
    "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, questionnaire_submission_id) values ($1, $2, 'pending_review', 'checkout', 'one_off', 28, $3, $4, $5) returning id",
    [p.id, category, treatment, dosage, submissionId],
  )).id as string;
}

describe('absolute contraindications: the override path refuses them (409)', () => {
  for (const [name, change, code] of [
    ['pregnancy, breastfeeding or a planned pregnancy on a weight-loss medicine', v(3, 'pregnant_or_planning', true), 'PREGNANCY'],
    ['another GLP-1 medicine already taken', v(3, 'other_glp1', true), 'OTHER_GLP1'],
  ] as const) {
    it(`${name}: ${code} is never lifted, for either GLP-1 medicine`, async () => {
      const p = await patient({ gender: '1' });
      const sub = await submitted(p, 'weight_loss', withAnswers(withAnswers(FIXTURES.weight_loss.eligible, v(3, 'pregnant_or_planning', false), v(3, 'oral_contraceptive', false)), change));
      expect(sub.outcome).toBe('ineligible');
      const id = await consultationOn(p, 'weight_loss', sub.id, 'semaglutide', '0.25 mg');
      expect((await desk(id)).prescribing_check).toMatchObject({ ok: false, absolute_codes: [code] });
      for (const t of [{ treatment_id: 'semaglutide', dosage: '0.25 mg' }, { treatment_id: 'tirzepatide', dosage: '2.5 mg' }]) {
        const r = await approve(id, { ...t, override_reason: REASON });
        expect(r.status, r.text).toBe(409);
        expect(r.body).toMatchObject({ code: 'absolute_contraindication', reason_codes: [code] });
      }
      expect(await ctx.db.query('select id from prescriptions where consultation_id = $1', [id])).toEqual([]);
    });
  }

  it('nitrofurantoin with an eGFR below 45 (lab report): 409 with a reason; 45 or more stays a relative exclusion a doctor may lift', async () => {
    const low = await patient({ gender: '1' });
    const sub = await submitted(low, 'urinary_tract_infection', withAnswers(FIXTURES.urinary_tract_infection.eligible, v(2, 'kidney_disease', true), v(2, 'kidney_egfr', 'below_45')));
    expect(sub.outcome).toBe('eligible');
    expect(sub.treatments.map((t: { treatment_id: string }) => t.treatment_id)).toEqual(['fosfomycin']);
    const { session } = await paySandbox(ctx, low, { category: 'urinary_tract_infection', plan: 'one_off', treatment_id: 'fosfomycin', dosage: '3 g' });
    const refused = await approve(session.consultation_id, { treatment_id: 'nitrofurantoin', dosage: '100 mg', override_reason: REASON });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ code: 'absolute_contraindication', reason_codes: ['NITROFURANTOIN_EGFR_BELOW_45'] });

    const mid = await patient({ gender: '1' });
    await submitted(mid, 'urinary_tract_infection', withAnswers(FIXTURES.urinary_tract_infection.eligible, v(2, 'kidney_disease', true), v(2, 'kidney_egfr', '45_or_more')));
    const paid = await paySandbox(ctx, mid, { category: 'urinary_tract_infection', plan: 'one_off', treatment_id: 'fosfomycin', dosage: '3 g' });
    const lifted = await approve(paid.session.consultation_id, { treatment_id: 'nitrofurantoin', dosage: '100 mg', override_reason: REASON });
    expect(lifted.status, lifted.text).toBe(200);
    expect(lifted.body.prescribing_override).toMatchObject({ reason_codes: ['NITROFURANTOIN_KIDNEY_FUNCTION'] });
  });

  it('the eGFR question appears only with reduced kidney function and is then required', async () => {
    const p = await patient({ gender: '1' });
    await as(p, 'PATCH', '/v1/users/questionnaires/urinary_tract_infection/progress/', { data: withAnswers(FIXTURES.urinary_tract_infection.eligible, v(2, 'kidney_disease', true)) });
    const r = await as(p, 'POST', '/v1/users/questionnaires/urinary_tract_infection/submit/');
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('kidney_egfr');
  });
});
