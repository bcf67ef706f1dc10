// The clinical findings on the third safety review, over HTTP: absolute contraindications that no
// override lifts (a weight-loss medicine in pregnancy or breastfeeding, two GLP-1 medicines,
// nitrofurantoin below an eGFR of 45), the cardiovascular questions and urgent symptoms at every
// PDE5/dapoxetine renewal, a weight from the current cycle at a weight-loss renewal, PrEP's dated
// hepatitis B test and eGFR, and the prescription's instructions from the catalogue's posology.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerItem } from '../src/modules/questionnaires/engine.ts';
import { callAsFresh, paySandbox } from './billing-fixtures.ts';
import { FIXTURES, v, withAnswers } from './questionnaires.fixtures.ts';
import { createTestContext, firstRow, grantGpSharing, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

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
// Weight-loss patients name their own doctor and consent to the letters (docs/interoperability.md).
async function patient(columns: Record<string, unknown> = {}) {
  const p = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', locale: 'en', ...columns });
  await grantGpSharing(ctx, p.id);
  return p;
}

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

/** A patient with an active plan whose renewal window is open (SQL seed, as in renewals.test.ts), and its pending renewal. */
async function pendingRenewal(category: string, treatment: string, dosage: string, columns: Record<string, unknown> = {}) {
  const p = await patient(columns);
  const now = ctx.deps.clock.now().getTime();
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days,
       started_at, current_period_start, current_period_end)
     values ($1, $2, $3, $4, 'active', 'sandbox', 21900, 'day', 28, 28, $5, $6, $7) returning id`,
    [p.id, category, treatment, dosage, new Date(now - 60 * DAY), new Date(now - 22 * DAY), new Date(now + 6 * DAY)],
  ));
  await ctx.db.query(
    "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, subscription_id, decided_at) values ($1, $2, 'approved', 'checkout', 'subscription', 28, $3, $4, $5, $6)",
    [p.id, category, treatment, dosage, s.id, new Date(now - 60 * DAY)],
  );
  await ctx.deps.scheduler.runDue();
  const options = (await as(p, 'GET', `/v1/users/subscriptions/renewal-options/?category=${category}`)).body;
  expect(options.mode).toBe('pending_choice');
  const steps = options.required_steps as { title: string; questions: { question_key: string; required: boolean }[] }[];
  return { p, subscriptionId: s.id as string, consultationId: options.pending_consultation_id as string, steps, requiredKeys: steps.flatMap((st) => st.questions.map((q) => q.question_key)), options };
}
const DAY = 86_400_000;
type ScreenAnswer = { question_key: string; values: Record<string, unknown> };
const yesNo = (key: string, yes: boolean): ScreenAnswer => ({ question_key: key, values: { value: yes ? 1 : 0 } });
const picked = (key: string, ...options: string[]): ScreenAnswer => ({ question_key: key, values: Object.fromEntries(options.map((o) => [o, 1])) });
const replace = (list: ScreenAnswer[], ...changes: ScreenAnswer[]) => [...list.filter((a) => !changes.some((c) => c.question_key === a.question_key)), ...changes];
const confirm = (p: Patient, json: Record<string, unknown>) => as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { changed: false, change_note: '', ...json });

describe('PDE5 and dapoxetine renewals: heart events since the last order and the urgent symptoms, at every renewal', () => {
  const PDE5 = [
    yesNo('significant_side_effects', false), yesNo('new_medication', false), yesNo('nitrates', false), yesNo('riociguat', false), yesNo('cyp3a4_inhibitors', false), yesNo('alpha_blockers', false),
    picked('urgent_symptoms', 'none'), picked('cardiovascular_events_since_last_order', 'none'),
  ];

  it('the renewal screen asks both; neither may be skipped', async () => {
    const { p, consultationId, requiredKeys, steps } = await pendingRenewal('sexual_health', 'sildenafil', '50 mg');
    expect(requiredKeys).toEqual(expect.arrayContaining(['urgent_symptoms', 'cardiovascular_events_since_last_order']));
    const cv = steps.flatMap((s) => s.questions).find((q) => q.question_key === 'cardiovascular_events_since_last_order')!;
    expect(cv.required).toBe(true);
    const r = await confirm(p, { consultation_id: consultationId, answers: PDE5.filter((a) => !['urgent_symptoms', 'cardiovascular_events_since_last_order'].includes(a.question_key)) });
    expect(r.body).toMatchObject({ code: 'renewal_answers_required', missing_keys: expect.arrayContaining(['urgent_symptoms', 'cardiovascular_events_since_last_order']) });
  });

  for (const [option, code] of [['heart_attack', 'HEART_ATTACK_OR_STROKE_SINCE_LAST_ORDER'], ['stroke', 'HEART_ATTACK_OR_STROKE_SINCE_LAST_ORDER'], ['chest_pain_on_exertion', 'CARDIAC_SYMPTOMS_SINCE_LAST_ORDER'], ['fainting', 'CARDIAC_SYMPTOMS_SINCE_LAST_ORDER']] as const) {
    it(`${option} since the last order refers to a doctor (${code}); nothing is confirmed`, async () => {
      const { p, consultationId } = await pendingRenewal('sexual_health', 'tadalafil', '10 mg');
      const r = await confirm(p, { consultation_id: consultationId, answers: replace(PDE5, picked('cardiovascular_events_since_last_order', option)) });
      expect(r.status, r.text).toBe(400);
      expect(r.body).toMatchObject({ code: 'renewal_answer_ineligible', question_key: 'cardiovascular_events_since_last_order', reason_codes: [code] });
      const row = firstRow(await ctx.db.query('select patient_choice_status from consultations where id = $1', [consultationId]));
      expect(row.patient_choice_status).toBe('pending');
    });
  }

  it('an urgent symptom at the renewal gives the emergency notice (the questionnaire’s red flags)', async () => {
    const { p, consultationId } = await pendingRenewal('sexual_health', 'sildenafil', '50 mg');
    for (const [option, code] of [['chest_pain_during_sex', 'RED_FLAG_CHEST_PAIN_DURING_SEX'], ['erection_over_4h', 'RED_FLAG_PRIAPISM'], ['sudden_vision_or_hearing_loss', 'RED_FLAG_SUDDEN_VISION_OR_HEARING_LOSS']]) {
      const r = await confirm(p, { consultation_id: consultationId, answers: replace(PDE5, picked('urgent_symptoms', option!)) });
      expect(r.status, r.text).toBe(400);
      expect(r.body).toMatchObject({ code: 'renewal_emergency', reason_codes: [code], emergency: { number: '112' } });
    }
    const ok = await confirm(p, { consultation_id: consultationId, answers: PDE5 });
    expect(ok.status, ok.text).toBe(200);
  });

  it('a heart attack since the last order cannot be overridden by the doctor (SmPC 4.3)', async () => {
    const { ruleFacts } = await import('../src/modules/questionnaires/prescribing-catalogue.ts');
    expect(ruleFacts('sexual_health', 'HEART_ATTACK_OR_STROKE_SINCE_LAST_ORDER')).toMatchObject({ kind: 'ineligible', absolute: true });
    expect(ruleFacts('sexual_health', 'CARDIAC_SYMPTOMS_SINCE_LAST_ORDER')).toMatchObject({ kind: 'ineligible', absolute: false });
    expect(ruleFacts('premature_ejaculation', 'DAPOXETINE_CARDIAC_EVENT_SINCE_LAST_ORDER')).toMatchObject({ kind: 'exclude_treatment', absolute: true });
  });

  it('dapoxetine: fainting since the last order ends dapoxetine; the spray may continue', async () => {
    const { p, consultationId, requiredKeys } = await pendingRenewal('premature_ejaculation', 'dapoxetine', '30 mg');
    expect(requiredKeys).toEqual(expect.arrayContaining(['urgent_symptoms', 'cardiovascular_events_since_last_order']));
    const base = [yesNo('significant_side_effects', false), yesNo('new_medication', false), picked('urgent_symptoms', 'none')];
    const r = await confirm(p, { consultation_id: consultationId, answers: [...base, picked('cardiovascular_events_since_last_order', 'fainting')] });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ code: 'renewal_answer_ineligible', reason_codes: ['DAPOXETINE_CARDIAC_EVENT_SINCE_LAST_ORDER'], allowed_treatments: ['lidocaine-prilocaine-spray'] });
    const fainting = await confirm(p, { consultation_id: consultationId, answers: [...base.slice(0, 2), picked('urgent_symptoms', 'fainting'), picked('cardiovascular_events_since_last_order', 'none')] });
    expect(fainting.body).toMatchObject({ code: 'renewal_emergency', reason_codes: ['RED_FLAG_FAINTING'] });
    const ok = await confirm(p, { consultation_id: consultationId, answers: [...base, picked('cardiovascular_events_since_last_order', 'none')] });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('weight-loss renewals: a weight from the current cycle', () => {
  const SCREEN: ScreenAnswer[] = [
    yesNo('significant_side_effects', false), yesNo('new_medication', false), picked('urgent_symptoms', 'none'), yesNo('glp1_allergy', false), yesNo('pancreatitis_history', false),
    yesNo('other_glp1', false), yesNo('mtc_or_men2', false), yesNo('insulin_or_sulfonylurea', false), yesNo('eating_disorder_signs', false),
  ];
  const dayOffset = (n: number) => new Date(ctx.deps.clock.now().getTime() + n * DAY).toISOString().slice(0, 10);
  const logWeight = (p: Patient, kg: number, on: string) => ctx.db.query('insert into weight_entries (user_id, weight_kg, logged_on) values ($1, $2, $3)', [p.id, kg, on]);

  it('a journal weight from before this cycle is not used: the form is not prefilled and the renewal asks for the weight', async () => {
    const { p, consultationId, options } = await pendingRenewal('weight_loss', 'semaglutide', '0.25 mg');
    // The current period began 22 days ago (pendingRenewal): 23 days ago is the previous cycle.
    await logWeight(p, 95, dayOffset(-23));
    const again = (await as(p, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss')).body;
    expect(again.reusable_prefill.map((a: { question_key: string }) => a.question_key)).not.toContain('current_weight_kg');
    expect(options.required_steps[0].questions[0]).toMatchObject({ question_key: 'current_weight_kg', required: true });
    const r = await confirm(p, { consultation_id: consultationId, answers: SCREEN });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ code: 'renewal_answers_required', missing_keys: ['current_weight_kg'] });
    const ok = await confirm(p, { consultation_id: consultationId, answers: [...SCREEN, { question_key: 'current_weight_kg', values: { value: 93 } }] });
    expect(ok.status, ok.text).toBe(200);
  });

  it('a journal weight of this cycle is prefilled and used when the screen gives none; it is recorded with its date', async () => {
    const { p, consultationId } = await pendingRenewal('weight_loss', 'semaglutide', '0.25 mg');
    await logWeight(p, 91.5, dayOffset(-22));
    const o = (await as(p, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss')).body;
    expect(o.reusable_prefill).toContainEqual({ question_key: 'current_weight_kg', value: 91.5 });
    const ok = await confirm(p, { consultation_id: consultationId, answers: SCREEN });
    expect(ok.status, ok.text).toBe(200);
    const { decrypt } = await import('../src/lib/crypto.ts');
    const row = firstRow(await ctx.db.query('select renewal_details_enc from consultations where id = $1', [consultationId]));
    expect(JSON.parse(decrypt(ctx.deps.secrets.documentKeys, row.renewal_details_enc)).current_weight).toEqual({ weight_kg: 91.5, source: 'journal', on: dayOffset(-22) });
  });

  it('breastfeeding at a renewal ends a weight-loss medicine (absolute); the question is not asked of men', async () => {
    const woman = await pendingRenewal('weight_loss', 'tirzepatide', '2.5 mg', { gender: '1' });
    const keys = woman.steps.flatMap((s) => s.questions.map((q) => q.question_key));
    expect(keys).toContain('breastfeeding');
    const base = [...SCREEN, yesNo('pregnant_or_planning', false), { question_key: 'current_weight_kg', values: { value: 90 } }];
    const missing = await confirm(woman.p, { consultation_id: woman.consultationId, answers: base });
    expect(missing.body).toMatchObject({ code: 'renewal_answers_required', missing_keys: ['breastfeeding'] });
    const r = await confirm(woman.p, { consultation_id: woman.consultationId, answers: [...base, yesNo('breastfeeding', true)] });
    expect(r.body).toMatchObject({ code: 'renewal_answer_ineligible', question_key: 'breastfeeding', reason_codes: ['GLP1_BREASTFEEDING'] });
    const man = await pendingRenewal('weight_loss', 'tirzepatide', '2.5 mg');
    expect((await confirm(man.p, { consultation_id: man.consultationId, answers: [...SCREEN, { question_key: 'current_weight_kg', values: { value: 90 } }] })).status).toBe(200);
  });
});

describe('PrEP at the start: a dated hepatitis B test and the eGFR of the lab report (EACS, BHIVA/BASHH)', () => {
  const daysAgo = (n: number) => new Date(ctx.deps.clock.now().getTime() - n * DAY).toISOString().slice(0, 10);
  const prep = FIXTURES.hiv_prep.eligible;

  it('a negative HBsAg needs its date; one older than 12 months is refused with a referral; 365 days is accepted', async () => {
    const undated = await patient();
    await as(undated, 'PATCH', '/v1/users/questionnaires/hiv_prep/progress/', { data: prep.filter((a) => a.question_key !== 'hbsag_test_date') });
    const r = await as(undated, 'POST', '/v1/users/questionnaires/hiv_prep/submit/');
    expect(r.status).toBe(400);
    expect(r.body.missing_answers).toEqual(['hbsag_test_date']);

    const old = await submitted(await patient(), 'hiv_prep', withAnswers(prep, v(2, 'hbsag_test_date', daysAgo(366))));
    expect(old).toMatchObject({ outcome: 'ineligible', alternative: { code: 'sexual_health_clinic' } });
    expect(old.reasons.map((x: { code: string }) => x.code)).toEqual(['HEPATITIS_B_TEST_OLDER_THAN_12_MONTHS']);
    const p = await patient();
    expect((await submitted(p, 'hiv_prep', withAnswers(prep, v(2, 'hbsag_test_date', daysAgo(365))))).outcome).toBe('eligible');
    expect((await as(p, 'POST', '/v1/users/checkout/', { category: 'hiv_prep', plan: 'one_off' })).status).toBe(200);
  });

  it('the kidney question reads like a lab report (eGFR, 60 or more); below 60 or unknown is refused', async () => {
    const schema = (await as(await patient(), 'GET', '/v1/users/questionnaires/hiv_prep/schema/?locale=en')).body;
    const q = schema.steps.flatMap((s: { questions: unknown[] }) => s.questions).find((x: { question_key: string }) => x.question_key === 'last_renal_check_result');
    expect(q.text).toMatch(/eGFR/);
    expect(q.options.map((o: { label: string }) => o.label)).toEqual([expect.stringMatching(/^60 or more/), 'Below 60', 'I do not know the result']);
    for (const [value, code] of [['reduced', 'KIDNEY_FUNCTION'], ['not_known', 'RENAL_CHECK_RESULT_UNKNOWN']] as const) {
      const sub = await submitted(await patient(), 'hiv_prep', withAnswers(prep, v(2, 'last_renal_check_result', value)));
      expect(sub.outcome, value).toBe('ineligible');
      expect(sub.reasons.map((x: { code: string }) => x.code)).toEqual([code]);
    }
  });
});
