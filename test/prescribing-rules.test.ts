// Over HTTP: interactions narrow the strengths sold at checkout and approved by the doctor;
// absolute contraindications are never overridden (409); an override records every rule it lifts;
// PrEP needs a known hepatitis B status and a kidney test within 12 months, at the start and at a
// renewal that declares a change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTokenPair } from '../src/modules/accounts/tokens.ts';
import type { AnswerItem } from '../src/modules/questionnaires/engine.ts';
import { paySandbox } from './billing-fixtures.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';
import { call, createTestContext, firstRow, grantGpSharing, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { toWorkingDayMorning } from './support/ec-clock.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  // Emergency contraception is sold for delivery only when it arrives in time: a fixed working-day morning.
  await toWorkingDayMorning(ctx);
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const DAY = 86_400_000;
const fresh = async (p: Patient) => (await issueTokenPair(ctx.deps, ctx.db, p.id)).access;
const as = async (p: Patient, method: string, url: string, json?: unknown) => call(ctx, method, url, { token: await fresh(p), json });
const checkout = (p: Patient, json: Record<string, unknown>) => as(p, 'POST', '/v1/users/checkout/', { plan: 'one_off', ...json });
const approve = (id: string, json: Record<string, unknown> = {}) => as(doctor, 'POST', `/v1/clinician/consultations/${id}/approve/`, json);
const desk = async (id: string) => (await as(doctor, 'GET', `/v1/clinician/consultations/${id}/`)).body;
const daysAgo = (n: number) => new Date(ctx.deps.clock.now().getTime() - n * DAY).toISOString().slice(0, 10);
/** A 40-character written reason: long enough for an override. */
const REASON_40 = 'Patient confirmed by phone, all reviewed';

async function submitted(category: keyof typeof FIXTURES, answers: AnswerItem[], gender: string = FIXTURES[category].gender) {
  const p = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender, locale: 'en' });
  await grantGpSharing(ctx, p.id); // weight loss needs it (docs/interoperability.md)
  const saved = await as(p, 'PATCH', `/v1/users/questionnaires/${category}/progress/`, { data: answers });
  expect(saved.status, saved.text).toBe(200);
  const sub = await as(p, 'POST', `/v1/users/questionnaires/${category}/submit/`);
  expect(sub.status, sub.text).toBeLessThan(300);
  return { p, submission: sub.body };
}

/** Pays a one-off consultation at an allowed strength (the doctor's approval is then asked for another). */
async function paid(p: Patient, category: string, treatment_id: string, dosage: string) {
  const { session } = await paySandbox(ctx, p, { category, plan: 'one_off', treatment_id, dosage });
  return session.consultation_id as string;
}

describe('interactions narrow the strengths: checkout', () => {
  it('sildenafil with ritonavir: 50 and 100 mg are refused, 25 mg is sold (E2)', async () => {
    const { p, submission } = await submitted('sexual_health', withAnswers(FIXTURES.sexual_health.eligible, v(2, 'cyp3a4_inhibitors', true)));
    expect(submission.reasons).toContainEqual(expect.objectContaining({ code: 'SILDENAFIL_25MG_CYP3A4_INHIBITOR', kind: 'limit_strengths', message: expect.stringContaining('25 mg') }));
    for (const dosage of ['50 mg', '100 mg']) {
      const r = await checkout(p, { category: 'sexual_health', treatment_id: 'sildenafil', dosage });
      expect(r.status, dosage).toBe(400);
      expect(r.body).toMatchObject({ error_name: 'DOSAGE_NOT_ALLOWED', treatment_id: 'sildenafil', dosage, allowed_dosages: ['25 mg'] });
      // 100 mg is above the first-supply strengths too.
      expect(r.body.reason_codes).toEqual(dosage === '50 mg' ? ['SILDENAFIL_25MG_CYP3A4_INHIBITOR'] : ['SILDENAFIL_25MG_CYP3A4_INHIBITOR', 'FIRST_SUPPLY_STARTING_DOSE']);
    }
    const ok = await checkout(p, { category: 'sexual_health', treatment_id: 'sildenafil', dosage: '25 mg' });
    expect(ok.status, ok.text).toBe(200);
  });

  it('sildenafil with an alpha-blocker: a first order of 50 mg is refused, 25 mg is sold (E2)', async () => {
    const { p } = await submitted('sexual_health', withAnswers(FIXTURES.sexual_health.eligible, v(2, 'alpha_blockers', true)));
    const r = await checkout(p, { category: 'sexual_health', treatment_id: 'sildenafil', dosage: '50 mg' });
    expect(r.body).toMatchObject({ error_name: 'DOSAGE_NOT_ALLOWED', reason_codes: ['ALPHA_BLOCKER_START_25MG'], allowed_dosages: ['25 mg'] });
    expect((await checkout(p, { category: 'sexual_health', treatment_id: 'sildenafil', dosage: '25 mg' })).status).toBe(200);
    // Without the interaction 50 mg is sold.
    const { p: other } = await submitted('sexual_health', FIXTURES.sexual_health.eligible);
    expect((await checkout(other, { category: 'sexual_health', treatment_id: 'sildenafil', dosage: '50 mg' })).status).toBe(200);
  });

  it('levonorgestrel 1.5 mg with enzyme inducers, or at 90 kg, is refused; 3 mg is sold (FSRH, EC3b)', async () => {
    for (const change of [v(2, 'enzyme_inducers', true), v(2, 'weight_kg', 90)]) {
      const { p } = await submitted('emergency_contraception', withAnswers(FIXTURES.emergency_contraception.eligible, change));
      const r = await checkout(p, { category: 'emergency_contraception', treatment_id: 'levonorgestrel', dosage: '1.5 mg' });
      expect(r.status, change.question_key).toBe(400);
      expect(r.body).toMatchObject({ error_name: 'DOSAGE_NOT_ALLOWED', allowed_dosages: ['3 mg'] });
      expect((await checkout(p, { category: 'emergency_contraception', treatment_id: 'levonorgestrel', dosage: '3 mg' })).status).toBe(200);
    }
    const { p: light } = await submitted('emergency_contraception', FIXTURES.emergency_contraception.eligible);
    expect((await checkout(light, { category: 'emergency_contraception', treatment_id: 'levonorgestrel', dosage: '1.5 mg' })).status).toBe(200);
  });
});

describe('interactions narrow the strengths: the doctor’s approval', () => {
  it('sildenafil 50 mg for a patient on ritonavir needs an override; the desk shows why', async () => {
    const { p } = await submitted('sexual_health', withAnswers(FIXTURES.sexual_health.eligible, v(2, 'cyp3a4_inhibitors', true)));
    const id = await paid(p, 'sexual_health', 'sildenafil', '25 mg');
    expect((await desk(id)).prescribing_check).toMatchObject({ ok: true, allowed_dosages: ['25 mg'], absolute_codes: [] });
    const r = await approve(id, { dosage: '50 mg' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'override_required', reason_codes: ['SILDENAFIL_25MG_CYP3A4_INHIBITOR'], allowed_dosages: ['25 mg'] });
    expect((await approve(id, { dosage: '25 mg' })).body).toMatchObject({ status: 'approved', dosage: '25 mg', prescribing_override: null });
  });

  it('levonorgestrel 1.5 mg at 90 kg: the approval refuses it without an override', async () => {
    const { p } = await submitted('emergency_contraception', withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'weight_kg', 90)));
    const id = await paid(p, 'emergency_contraception', 'levonorgestrel', '3 mg');
    const r = await approve(id, { dosage: '1.5 mg' });
    expect(r.body).toMatchObject({ code: 'override_required', reason_codes: ['LEVONORGESTREL_WEIGHT_OVER_70KG_OR_BMI_OVER_26'], allowed_dosages: ['3 mg'] });
    expect((await approve(id, {})).body).toMatchObject({ status: 'approved', dosage: '3 mg' });
  });
});

describe('absolute contraindications cannot be overridden', () => {
  it('dapoxetine 60 mg for a patient on an MAOI is 409 even with a 40-character reason; nothing is issued', async () => {
    expect(REASON_40.length).toBe(40);
    const { p } = await submitted('premature_ejaculation', withAnswers(FIXTURES.premature_ejaculation.eligible, m(2, 'contraindications', ['maoi'])));
    const id = await paid(p, 'premature_ejaculation', 'lidocaine-prilocaine-spray', '150 mg/ml + 50 mg/ml');
    expect((await desk(id)).prescribing_check.absolute_codes).toEqual([]);
    for (const body of [{ treatment_id: 'dapoxetine', dosage: '60 mg', override_reason: REASON_40 }, { treatment_id: 'dapoxetine', dosage: '30 mg', override_reason: REASON_40 }, { treatment_id: 'dapoxetine', dosage: '30 mg' }]) {
      const r = await approve(id, body);
      expect(r.status, JSON.stringify(body)).toBe(409);
      expect(r.body).toMatchObject({ error: expect.stringContaining('absolute contraindication'), code: 'absolute_contraindication', reason_codes: ['DAPOXETINE_CONTRAINDICATION'], treatment_id: 'dapoxetine', allowed_treatments: ['lidocaine-prilocaine-spray'] });
    }
    const d = await desk(id);
    expect(d.status).toBe('pending_review');
    expect(d.prescribing_override).toBeNull();
    expect(await ctx.db.query('select id from prescriptions where consultation_id = $1', [id])).toEqual([]);
    expect((await approve(id, {})).body).toMatchObject({ status: 'approved', treatment_id: 'lidocaine-prilocaine-spray' });
  });

  it('nitrates with a PDE5 inhibitor: a consultation on an ineligible result is 409 for every treatment', async () => {
    const { p, submission } = await submitted('sexual_health', withAnswers(FIXTURES.sexual_health.eligible, v(2, 'nitrates', true)));
    expect(submission.outcome).toBe('ineligible');
    const c = firstRow(await ctx.db.query(
      "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, questionnaire_submission_id) values ($1, 'sexual_health', 'pending_review', 'checkout', 'one_off', 30, 'sildenafil', '25 mg', $2) returning id",
      [p.id, submission.id],
    ));
    expect((await desk(c.id)).prescribing_check).toMatchObject({ ok: false, absolute_codes: ['NITRATES'] });
    for (const t of [{ treatment_id: 'sildenafil', dosage: '25 mg' }, { treatment_id: 'tadalafil', dosage: '10 mg' }]) {
      const r = await approve(c.id, { ...t, override_reason: 'Nitrate spray not used for two years, cardiologist agrees.' });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'absolute_contraindication', reason_codes: ['NITRATES'] });
    }
  });
});

describe('an override records every rule it lifts', () => {
  it('dapoxetine 60 mg without the diagnostic criteria: the exclusion and the starting dose', async () => {
    const { p } = await submitted('premature_ejaculation', withAnswers(FIXTURES.premature_ejaculation.eligible, v(2, 'diagnostic_criteria', false)));
    const id = await paid(p, 'premature_ejaculation', 'lidocaine-prilocaine-spray', '150 mg/ml + 50 mg/ml');
    const reason = 'Criteria met on a video consultation; 30 mg was tolerated before abroad.';
    const ok = await approve(id, { treatment_id: 'dapoxetine', dosage: '60 mg', override_reason: reason });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.prescribing_override).toMatchObject({ reason, reason_codes: ['DIAGNOSTIC_CRITERIA_NOT_MET', 'FIRST_SUPPLY_STARTING_DOSE'] });
    const audit = firstRow(await ctx.db.query("select details from audit_log where subject_id = $1 and action = 'consultation.approved'", [id]));
    expect(audit.details).toMatchObject({ basis: 'override', override_codes: ['DIAGNOSTIC_CRITERIA_NOT_MET', 'FIRST_SUPPLY_STARTING_DOSE'] });
  });

  it('semaglutide 2.4 mg as a first order: the start-dose rule is recorded', async () => {
    const { p } = await submitted('weight_loss', FIXTURES.weight_loss.eligible);
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off', treatment_id: 'semaglutide' });
    const id = session.consultation_id as string;
    const ok = await approve(id, { dosage: '2.4 mg', override_reason: 'Established on 2.4 mg with another provider, pen seen.' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.prescribing_override.reason_codes).toEqual(['TITRATION_STARTS_AT_FIRST_STEP']);
  });

  it('an approval within the verdict records its basis in the audit log', async () => {
    const { p } = await submitted('sexual_health', FIXTURES.sexual_health.eligible);
    const id = await paid(p, 'sexual_health', 'sildenafil', '50 mg');
    expect((await approve(id, {})).status).toBe(200);
    const audit = firstRow(await ctx.db.query("select details from audit_log where subject_id = $1 and action = 'consultation.approved'", [id]));
    expect(audit.details.basis).toBe('engine_verdict');
  });
});

describe('PrEP: a known hepatitis B status and a kidney test within 12 months', () => {
  const prep = FIXTURES.hiv_prep.eligible;
  it('the questionnaire refuses an unknown HBV status, a kidney test older than 12 months or of unknown result', async () => {
    const cases: [AnswerItem[], string][] = [
      [[v(2, 'hbsag_result', 'not_tested_or_unknown')], 'HEPATITIS_B_NOT_CHECKED'],
      [[v(2, 'last_renal_check_date', daysAgo(366))], 'RENAL_CHECK_OLDER_THAN_12_MONTHS'],
      [[v(2, 'last_renal_check_result', 'not_known')], 'RENAL_CHECK_RESULT_UNKNOWN'],
      [[v(2, 'last_renal_check_result', 'reduced')], 'KIDNEY_FUNCTION'],
    ];
    for (const [changes, code] of cases) {
      const { p, submission } = await submitted('hiv_prep', withAnswers(prep, ...changes));
      expect(submission.outcome, code).toBe('ineligible');
      expect(submission.reasons.map((r: { code: string }) => r.code)).toContain(code);
      expect((await checkout(p, { category: 'hiv_prep' })).body).toMatchObject({ error_name: 'SUBMISSION_NOT_ELIGIBLE' });
    }
    const { submission } = await submitted('hiv_prep', withAnswers(prep, v(2, 'last_renal_check_date', daysAgo(365))));
    expect(submission.outcome).toBe('eligible');
  });

  it('a kidney test date in the future is a field error', async () => {
    const p = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', locale: 'en' });
    const r = await as(p, 'PATCH', '/v1/users/questionnaires/hiv_prep/progress/', { data: withAnswers(prep, v(2, 'last_renal_check_date', daysAgo(-3))) });
    expect(r.status).toBe(400);
    expect(Object.values(r.body).flat()).toEqual([expect.stringMatching(/^last_renal_check_date: The date cannot be in the future/)]);
  });
});

describe('the audit log is append-only in the database', () => {
  it('UPDATE, DELETE and TRUNCATE are refused; INSERT still works', async () => {
    const { p } = await submitted('sexual_health', FIXTURES.sexual_health.eligible);
    const id = await paid(p, 'sexual_health', 'sildenafil', '25 mg');
    expect((await approve(id, {})).status).toBe(200);
    const row = firstRow(await ctx.db.query("select id, details from audit_log where subject_id = $1 and action = 'consultation.approved'", [id]));
    for (const sql of ["update audit_log set details = '{}'::jsonb where id = $1", 'delete from audit_log where id = $1']) {
      await expect(ctx.db.query(sql, [row.id]), sql).rejects.toThrow(/append-only/);
    }
    await expect(ctx.db.query('truncate audit_log')).rejects.toThrow(/append-only/);
    expect(firstRow(await ctx.db.query('select details from audit_log where id = $1', [row.id])).details).toEqual(row.details);
  });
});
