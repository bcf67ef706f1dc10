// Over HTTP: the engine's verdict binds checkout, the doctor's approval and every renewal
// (treatments the engine excluded, titration from the first step, breaks in supply, red flags and
// contraindications at renewal, PrEP tests, the review desk's renewal view).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTokenPair } from '../src/modules/accounts/tokens.ts';
import type { AnswerItem } from '../src/modules/questionnaires/engine.ts';
import { paySandbox, readyPatient, WEIGHT_LOSS_RENEWAL_SAFETY } from './billing-fixtures.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';
import { call, createTestContext, newStaff, grantGpSharing, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';
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
const confirm = (p: Patient, json: Record<string, unknown>) => as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', json);
const daysAgo = (n: number) => new Date(ctx.deps.clock.now().getTime() - n * DAY).toISOString().slice(0, 10);

/** A patient who answered and submitted the category's questionnaire through HTTP. */
async function submitted(category: keyof typeof FIXTURES, answers: AnswerItem[], gender: string = FIXTURES[category].gender) {
  const p = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender, locale: 'en' });
  await grantGpSharing(ctx, p.id);
  const saved = await as(p, 'PATCH', `/v1/users/questionnaires/${category}/progress/`, { data: answers });
  expect(saved.status, saved.text).toBe(200);
  const sub = await as(p, 'POST', `/v1/users/questionnaires/${category}/submit/`);
  expect(sub.status, sub.text).toBeLessThan(300);
  return { p, submission: sub.body };
}

describe('checkout sells only what the engine allowed', () => {
  it('premature ejaculation with serotonergic drugs: dapoxetine 60 mg is refused, the spray is sold', async () => {
    const { p, submission } = await submitted('premature_ejaculation', withAnswers(FIXTURES.premature_ejaculation.eligible, m(2, 'contraindications', ['serotonergic_drugs'])));
    expect(submission.outcome).toBe('eligible');
    const r = await checkout(p, { category: 'premature_ejaculation', treatment_id: 'dapoxetine', dosage: '60 mg' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error_name: 'TREATMENT_NOT_ALLOWED', category: 'premature_ejaculation', treatment_id: 'dapoxetine', reason_codes: ['DAPOXETINE_CONTRAINDICATION'] });
    expect(r.body.message).toContain('DAPOXETINE_CONTRAINDICATION');
    expect(r.body.allowed_treatments).toEqual(['lidocaine-prilocaine-spray']);
    // Without the exclusion, dapoxetine starts at 30 mg [P1].
    const { p: other } = await submitted('premature_ejaculation', FIXTURES.premature_ejaculation.eligible);
    expect((await checkout(other, { category: 'premature_ejaculation', treatment_id: 'dapoxetine', dosage: '60 mg' })).body).toMatchObject({ error_name: 'DOSAGE_NOT_ALLOWED', reason_codes: ['FIRST_SUPPLY_STARTING_DOSE'], allowed_dosages: ['30 mg'] });
    expect((await checkout(other, { category: 'premature_ejaculation', treatment_id: 'dapoxetine' })).body).toMatchObject({ treatment_id: 'dapoxetine', dosage: '30 mg' });
    // Without a choice, the allowed treatment is picked.
    const ok = await checkout(p, { category: 'premature_ejaculation' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.treatment_id).toBe('lidocaine-prilocaine-spray');
  });

  it('chlamydia in pregnancy: doxycycline is refused, azithromycin is sold', async () => {
    const { p } = await submitted('chlamydia', withAnswers(FIXTURES.chlamydia.eligible, v(2, 'pregnant', true)), '1');
    const r = await checkout(p, { category: 'chlamydia', treatment_id: 'doxycycline' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error_name: 'TREATMENT_NOT_ALLOWED', reason_codes: ['DOXYCYCLINE_IN_PREGNANCY'] });
    expect((await checkout(p, { category: 'chlamydia', treatment_id: 'azithromycin' })).status).toBe(200);
  });

  it('emergency contraception at 74 hours: levonorgestrel is refused, ulipristal is sold (and still arrives in time)', async () => {
    const { p } = await submitted('emergency_contraception', withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'hours_since_unprotected_sex', 74)), '1');
    const r = await checkout(p, { category: 'emergency_contraception', treatment_id: 'levonorgestrel', dosage: '1.5 mg' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error_name: 'TREATMENT_NOT_ALLOWED', reason_codes: ['LEVONORGESTREL_OVER_72_HOURS'] });
    expect((await checkout(p, { category: 'emergency_contraception', treatment_id: 'ulipristal' })).status).toBe(200);
  });

  it('titrated medicines start at the bottom of the ladder: a first order of tirzepatide 15 mg or semaglutide 2.4 mg is refused', async () => {
    const { p } = await submitted('weight_loss', FIXTURES.weight_loss.eligible);
    const tirz = await checkout(p, { category: 'weight_loss', plan: 'subscription', treatment_id: 'tirzepatide', dosage: '15 mg' });
    expect(tirz.status).toBe(400);
    expect(tirz.body).toMatchObject({ error_name: 'DOSAGE_NOT_ALLOWED', treatment_id: 'tirzepatide', dosage: '15 mg', reason_codes: ['TITRATION_STARTS_AT_FIRST_STEP'], allowed_dosages: ['2.5 mg'] });
    const sema = await checkout(p, { category: 'weight_loss', treatment_id: 'semaglutide', dosage: '2.4 mg' });
    expect(sema.body).toMatchObject({ error_name: 'DOSAGE_NOT_ALLOWED', reason_codes: ['TITRATION_STARTS_AT_FIRST_STEP'], allowed_dosages: ['0.25 mg'] });
    const ok = await checkout(p, { category: 'weight_loss', plan: 'subscription', treatment_id: 'tirzepatide' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.dosage).toBe('2.5 mg');
  });
});

describe("the doctor's approval is bound by the engine unless overridden with a written reason", () => {
  it('an excluded treatment needs an override, recorded with the doctor and shown on the consultation', async () => {
    // A relative exclusion (serotonergic drugs with dapoxetine are absolute, see prescribing-rules.test.ts).
    const { p } = await submitted('premature_ejaculation', withAnswers(FIXTURES.premature_ejaculation.eligible, v(2, 'diagnostic_criteria', false)));
    const { session } = await paySandbox(ctx, p, { category: 'premature_ejaculation', plan: 'one_off' });
    const id = session.consultation_id as string;
    expect((await desk(id)).prescribing_check).toMatchObject({ ok: true, allowed_treatments: ['lidocaine-prilocaine-spray'] });
    const refused = await approve(id, { treatment_id: 'dapoxetine', dosage: '60 mg' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'override_required', reason_codes: ['DIAGNOSTIC_CRITERIA_NOT_MET'], allowed_treatments: ['lidocaine-prilocaine-spray'] });
    const tooShort = await approve(id, { treatment_id: 'dapoxetine', dosage: '60 mg', override_reason: 'ok' });
    expect(tooShort.status).toBe(400);
    expect(tooShort.body.override_reason).toBeDefined();
    expect((await desk(id)).status).toBe('pending_review');
    const reason = 'Criteria confirmed on a video call: latency under a minute for over a year, marked distress.';
    const ok = await approve(id, { treatment_id: 'dapoxetine', dosage: '30 mg', override_reason: reason });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ status: 'approved', treatment_id: 'dapoxetine', dosage: '30 mg' });
    expect(ok.body.prescribing_override).toMatchObject({ doctor_id: doctor.id, treatment_id: 'dapoxetine', dosage: '30 mg', reason, reason_codes: ['DIAGNOSTIC_CRITERIA_NOT_MET'] });
    const [row] = await ctx.db.query('select doctor_id, reason from prescribing_overrides where consultation_id = $1', [id]);
    expect(row).toEqual({ doctor_id: doctor.id, reason });
    const audit = firstRow(await ctx.db.query("select details from audit_log where subject_id = $1 and action = 'consultation.approved'", [id]));
    expect(audit.details).toMatchObject({ basis: 'override', override_codes: ['DIAGNOSTIC_CRITERIA_NOT_MET'] });
  });

  it('a plain approve {} approves only what the engine allowed: tirzepatide 15 mg as a first order is refused', async () => {
    const p = await readyPatient(ctx, 'weight_loss');
    const sub = firstRow(await ctx.db.query("select id from questionnaire_submissions where user_id = $1", [p.id]));
    const c = firstRow(await ctx.db.query(
      "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, questionnaire_submission_id) values ($1, 'weight_loss', 'pending_review', 'checkout', 'one_off', 28, 'tirzepatide', '15 mg', $2) returning id",
      [p.id, sub.id],
    ));
    expect((await desk(c.id)).prescribing_check).toMatchObject({ ok: false, reason_codes: ['TITRATION_STARTS_AT_FIRST_STEP'], allowed_dosages: ['2.5 mg'] });
    const plain = await approve(c.id);
    expect(plain.status).toBe(400);
    expect(plain.body).toMatchObject({ code: 'override_required', reason_codes: ['TITRATION_STARTS_AT_FIRST_STEP'], allowed_dosages: ['2.5 mg'] });
    const ok = await approve(c.id, { dosage: '2.5 mg' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ dosage: '2.5 mg', prescribing_override: null });
  });
});

// ---------------------------------------------------------------- renewals

const WL_SAFETY = WEIGHT_LOSS_RENEWAL_SAFETY;
const answer = (list: typeof WL_SAFETY, key: string, values: Record<string, unknown>) => [...list.filter((a) => a.question_key !== key), { question_key: key, values }];

/**
 * A plan with its approved first supply and a renewal waiting for the patient's choice. The period
 * ends `endsInDays` from now (negative: it ended that long ago, and the plan is paused).
 */
async function renewal(o: { category?: string; treatment?: string; dosage?: string; endsInDays: number; onDoseDays?: number }) {
  const category = o.category ?? 'weight_loss';
  const treatment = o.treatment ?? 'semaglutide';
  const dosage = o.dosage ?? '0.25 mg';
  const p = await seedPatient(ctx, { gender: '0', country_of_residence: 'DEU', date_of_birth: '1980-01-01' });
  await grantGpSharing(ctx, p.id); // a weight-loss plan's patient names their GP and consents (docs/interoperability.md)
  const now = ctx.deps.clock.now().getTime();
  const end = new Date(now + o.endsInDays * DAY);
  const start = new Date(end.getTime() - (o.onDoseDays ?? 28) * DAY);
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days, started_at, current_period_start, current_period_end, paused_at)
     values ($1, $2, $3, $4, $5, 'sandbox', 21900, 'day', 28, 28, $6, $7, $8, $9) returning id`,
    [p.id, category, treatment, dosage, o.endsInDays < 0 ? 'paused' : 'active', start, new Date(end.getTime() - 28 * DAY), end, o.endsInDays < 0 ? end : null],
  ));
  await ctx.db.query(
    "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, subscription_id, decided_at) values ($1, $2, 'approved', 'checkout', 'subscription', 28, $3, $4, $5, $6)",
    [p.id, category, treatment, dosage, s.id, start],
  );
  const c = firstRow(await ctx.db.query(
    `insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, subscription_id, patient_choice_status, renewal_details, renewal_period_end, form_snapshot)
     values ($1, $2, 'pending_review', 'renewal', 'subscription', 28, $3, $4, $5, 'pending', $6::jsonb, $7, '[]'::jsonb) returning id`,
    [p.id, category, treatment, dosage, s.id, JSON.stringify({ period_end: end.toISOString() }), end],
  ));
  return { p, id: c.id as string, subscriptionId: s.id as string };
}

describe('titration at renewal: breaks in supply and a change of drug', () => {
  it('a plan paused for 9 weeks does not step up 0.25 -> 0.5 mg: titration restarts at the first step', async () => {
    const { p, id } = await renewal({ endsInDays: -63, onDoseDays: 56 });
    // Renewal options offer no step up either.
    expect((await as(p, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss')).body.ladder).toMatchObject({ current: '0.25 mg', next: '0.25 mg' });
    const up = await confirm(p, { consultation_id: id, answers: WL_SAFETY, dosage: '0.5 mg' });
    expect(up.status).toBe(400);
    expect(up.body).toMatchObject({ code: 'dose_step_not_allowed', reason_codes: ['SUPPLY_BREAK_RESTART_TITRATION'], allowed_dosages: ['0.25 mg'] });
    const same = await confirm(p, { consultation_id: id, answers: WL_SAFETY });
    expect(same.status, same.text).toBe(200);
    expect(same.body).toMatchObject({ dosage: '0.25 mg', dose_change: null });
  });

  it('after 3 weeks without supply the dose resumes one step lower; 9 weeks at 1 mg restart at 0.25 mg', async () => {
    const three = await renewal({ dosage: '1 mg', endsInDays: -21, onDoseDays: 56 });
    expect((await as(three.p, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss')).body.ladder).toMatchObject({ current: '1 mg', next: '0.5 mg' });
    const keep = await confirm(three.p, { consultation_id: three.id, answers: WL_SAFETY, dosage: '1 mg' });
    expect(keep.body).toMatchObject({ code: 'dose_step_not_allowed', reason_codes: ['SUPPLY_BREAK_STEP_DOWN'], allowed_dosages: ['0.25 mg', '0.5 mg'] });
    const resumed = await confirm(three.p, { consultation_id: three.id, answers: WL_SAFETY });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body).toMatchObject({ dosage: '0.5 mg', dose_change: { from: '1 mg', to: '0.5 mg', direction: 'down' } });
    // The doctor's approval re-checks the same rule.
    expect((await approve(three.id, { dosage: '1 mg' })).body).toMatchObject({ code: 'override_required', reason_codes: ['SUPPLY_BREAK_STEP_DOWN'] });
    const nine = await renewal({ dosage: '1 mg', endsInDays: -63, onDoseDays: 56 });
    expect((await confirm(nine.p, { consultation_id: nine.id, answers: WL_SAFETY })).body).toMatchObject({ dosage: '0.25 mg' });
  });

  it('a dose taken late within the missed-dose window (semaglutide 5 days) still allows the step up; 10 days do not', async () => {
    const late = await renewal({ endsInDays: -4, onDoseDays: 28 });
    expect((await confirm(late.p, { consultation_id: late.id, answers: WL_SAFETY, dosage: '0.5 mg' })).status).toBe(200);
    const skipped = await renewal({ endsInDays: -10, onDoseDays: 28 });
    expect((await confirm(skipped.p, { consultation_id: skipped.id, answers: WL_SAFETY, dosage: '0.5 mg' })).body).toMatchObject({ reason_codes: ['SUPPLY_BREAK_NO_STEP_UP'] });
  });

  it('a switch of drug starts the new drug at its first step', async () => {
    const { p, id } = await renewal({ dosage: '1 mg', endsInDays: 5, onDoseDays: 84 });
    const high = await confirm(p, { consultation_id: id, answers: WL_SAFETY, treatment_id: 'tirzepatide', dosage: '5 mg' });
    expect(high.status).toBe(400);
    expect(high.body).toMatchObject({ code: 'dose_step_not_allowed', reason_codes: ['TITRATION_STARTS_AT_FIRST_STEP'], allowed_dosages: ['2.5 mg'] });
    const ok = await confirm(p, { consultation_id: id, answers: WL_SAFETY, treatment_id: 'tirzepatide' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ treatment_id: 'tirzepatide', dosage: '2.5 mg', treatment_change: { from: 'semaglutide', to: 'tirzepatide' } });
  });
});

describe('the renewal confirm runs the engine over the renewal answers', () => {
  it('a red flag returns the emergency notice and confirms nothing; the doctor sees it was raised', async () => {
    const { p, id } = await renewal({ endsInDays: 5 });
    for (const flag of ['chest_pain', 'breathing_difficulty', 'severe_allergic_reaction', 'suicidal_thoughts', 'pancreatitis_symptoms']) {
      // Even with other answers missing.
      const r = await confirm(p, { consultation_id: id, answers: [{ question_key: 'urgent_symptoms', values: { [flag]: 1 } }] });
      expect(r.status, flag).toBe(400);
      expect(r.body.code).toBe('renewal_emergency');
      expect(r.body.emergency).toMatchObject({ number: '112' });
      expect(r.body.reason_codes.length).toBe(1);
    }
    const c = firstRow(await ctx.db.query('select patient_choice_status from consultations where id = $1', [id]));
    expect(c.patient_choice_status).toBe('pending');
    expect((await desk(id)).renewal.red_flags).toHaveLength(5);
  });

  it('contraindications are 400 renewal_answer_ineligible with the reason codes', async () => {
    const { p, id } = await renewal({ endsInDays: 5 });
    const cases: [string, string][] = [
      ['pancreatitis_history', 'PANCREATITIS_HISTORY'],
      ['other_glp1', 'OTHER_GLP1'],
      ['glp1_allergy', 'HYPERSENSITIVITY'],
      ['mtc_or_men2', 'MTC_OR_MEN2_HISTORY'],
      ['insulin_or_sulfonylurea', 'HYPOGLYCAEMIA_RISK'],
    ];
    for (const [key, code] of cases) {
      const r = await confirm(p, { consultation_id: id, answers: answer(WL_SAFETY, key, { value: 1 }) });
      expect(r.status, key).toBe(400);
      expect(r.body).toMatchObject({ code: 'renewal_answer_ineligible', question_key: key, reason_codes: [code] });
    }
  });

  it('answers are type-checked against the renewal screen', async () => {
    const { p, id } = await renewal({ endsInDays: 5 });
    const bad = [
      answer(WL_SAFETY, 'significant_side_effects', { value: 'banana' }),
      answer(WL_SAFETY, 'current_weight_kg', { value: 'heavy' }),
      answer(WL_SAFETY, 'current_weight_kg', { value: 9000 }),
      answer(WL_SAFETY, 'urgent_symptoms', { teleportation: 1 }),
      answer(WL_SAFETY, 'urgent_symptoms', { none: 1, chest_pain: 0, breathing_difficulty: 'maybe' }),
      [...WL_SAFETY, { question_key: 'favourite_colour', values: { value: 1 } }],
    ];
    for (const answers of bad) {
      const r = await confirm(p, { consultation_id: id, answers });
      expect(r.status, JSON.stringify(answers.at(-1))).toBe(400);
      expect(r.body.code).toBe('invalid_renewal_answers');
      expect(Object.keys(r.body.errors)).toEqual([answers.at(-1)!.question_key]);
    }
  });

  it('PrEP: no renewal without a negative HIV test in the last 3 months and a recent renal check; the dates and results are recorded', async () => {
    const { p, id } = await renewal({ category: 'hiv_prep', treatment: 'emtricitabine-tenofovir', dosage: '200/245 mg', endsInDays: 5 });
    const base = [
      { question_key: 'significant_side_effects', values: { value: 0 } },
      { question_key: 'new_medication', values: { value: 0 } },
      { question_key: 'urgent_symptoms', values: { none: 1 } },
    ];
    const missing = await confirm(p, { consultation_id: id, answers: base });
    expect(missing.body.code).toBe('renewal_answers_required');
    expect(missing.body.missing_keys.sort()).toEqual(['last_hiv_test_date', 'last_hiv_test_result', 'last_renal_check_date', 'last_renal_check_result']);
    const tests = (hivDays: number, hiv: string, renalDays: number, renal: string) => [
      ...base,
      { question_key: 'last_hiv_test_date', values: { value: daysAgo(hivDays) } },
      { question_key: 'last_hiv_test_result', values: { value: hiv } },
      { question_key: 'last_renal_check_date', values: { value: daysAgo(renalDays) } },
      { question_key: 'last_renal_check_result', values: { [renal]: 1 } },
    ];
    const refusals: [ReturnType<typeof tests>, string][] = [
      [tests(91, 'negative', 30, 'normal'), 'HIV_TEST_OLDER_THAN_3_MONTHS'],
      [tests(20, 'positive', 30, 'normal'), 'HIV_POSITIVE'],
      [tests(20, 'awaiting_result', 30, 'normal'), 'HIV_TEST_RESULT_PENDING'],
      [tests(20, 'negative', 30, 'reduced'), 'KIDNEY_FUNCTION'],
      [tests(20, 'negative', 30, 'not_known'), 'RENAL_CHECK_RESULT_UNKNOWN'],
      [tests(20, 'negative', 400, 'normal'), 'RENAL_CHECK_OLDER_THAN_12_MONTHS'],
    ];
    for (const [answers, code] of refusals) {
      const r = await confirm(p, { consultation_id: id, answers });
      expect(r.status, code).toBe(400);
      expect(r.body, code).toMatchObject({ code: 'renewal_answer_ineligible', reason_codes: [code] });
    }
    const future = await confirm(p, { consultation_id: id, answers: tests(-3, 'negative', 30, 'normal') });
    expect(future.body).toMatchObject({ code: 'invalid_renewal_answers', errors: { last_hiv_test_date: [expect.stringContaining('future')] } });
    const ok = await confirm(p, { consultation_id: id, answers: tests(90, 'negative', 365, 'normal') });
    expect(ok.status, ok.text).toBe(200);
    const d = await desk(id);
    expect(d.form_snapshot).toContainEqual({ step_id: 111, question_key: 'last_hiv_test_date', value: daysAgo(90) });
    expect(d.form_snapshot).toContainEqual({ step_id: 111, question_key: 'last_renal_check_result', value: 'normal' });
  });
});

describe('the review desk shows a renewal with the patient’s choice, the weight and the engine’s explanation', () => {
  it('choice, change note, journal weight and trend, explanation, real step ids', async () => {
    const { p, id } = await renewal({ endsInDays: 5, onDoseDays: 28 });
    for (const [days, kg] of [[80, 104.5], [40, 101], [2, 98.2]] as const) {
      await ctx.db.query('insert into weight_entries (user_id, weight_kg, logged_on) values ($1, $2, $3)', [p.id, kg, daysAgo(days)]);
    }
    const r = await confirm(p, { consultation_id: id, answers: WL_SAFETY, dosage: '0.5 mg', changed: false, change_note: 'Nausea has settled, ready for the next step.' });
    expect(r.status, r.text).toBe(200);
    const d = await desk(id);
    expect(d.renewal.choice).toMatchObject({
      treatment_id: 'semaglutide', dosage: '0.5 mg', changed: false, change_note: 'Nausea has settled, ready for the next step.',
      dose_change: { from: '0.25 mg', to: '0.5 mg', direction: 'up' }, treatment_change: null, answers: WL_SAFETY,
    });
    expect(d.renewal.latest_weight).toEqual({ weight_kg: 98.2, logged_on: daysAgo(2) });
    expect(d.renewal.weight_trend).toMatchObject({ from: { weight_kg: 104.5 }, entries: 3, days: 78, change_kg: -6.3 });
    expect(d.renewal.verdict).toMatchObject({ outcome: 'eligible', allowed_dosages: ['0.25 mg', '0.5 mg'], dose_codes: [] });
    expect(d.renewal.verdict.explanation.join(' ')).toContain('one step up');
    expect(d.form_snapshot).toContainEqual({ step_id: 101, question_key: 'current_weight_kg', value: 96 });
    expect(d.form_snapshot).toContainEqual({ step_id: 110, question_key: 'urgent_symptoms', values: { none: true } });
    expect(d.form_snapshot.every((a: any) => a.step_id > 0)).toBe(true);
    expect(d.prescribing_check).toMatchObject({ ok: true });
  });
});
