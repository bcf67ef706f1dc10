// Over HTTP: the version 3 catalogue rules on the questionnaire submit, checkout and
// renewal confirm paths (chlamydia breastfeeding and pregnancy, the GLP-1 caution from 75, the
// eating-disorder screen and BMI floor at a weight-loss renewal), and an interaction strength limit
// enforced at a renewal (sildenafil with ritonavir: the prescribing catalogue's renewal screen asks
// the interactions at every renewal).
import { decrypt } from '../src/lib/crypto.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAsFresh, paySandbox, WEIGHT_LOSS_RENEWAL_SAFETY } from './billing-fixtures.ts';
import { FIXTURES, v, withAnswers } from './questionnaires.fixtures.ts';
import type { AnswerItem } from '../src/modules/questionnaires/engine.ts';
import { createTestContext, firstRow, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const DAY = 86_400_000;
const as = (p: Patient, method: string, url: string, json?: unknown) => callAsFresh(ctx, p, method, url, json);
const codes = (list: { code: string }[]) => list.map((r) => r.code);
const ids = (list: { treatment_id: string }[]) => list.map((t) => t.treatment_id);

async function submitted(p: Patient, category: string, answers: AnswerItem[]) {
  const saved = await as(p, 'PATCH', `/v1/users/questionnaires/${category}/progress/`, { data: answers });
  expect(saved.status, saved.text).toBe(200);
  const sub = await as(p, 'POST', `/v1/users/questionnaires/${category}/submit/`);
  expect(sub.status, sub.text).toBeLessThan(300);
  return sub.body;
}
const patient = (columns: Record<string, unknown> = {}) => seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', locale: 'en', ...columns });

describe('chlamydia version 3: breastfeeding and pregnancy', () => {
  it('breastfeeding: doxycycline is not offered or sold (SmPC 4.6), azithromycin is, with a caution for the doctor', async () => {
    const p = await patient({ gender: '1' });
    const sub = await submitted(p, 'chlamydia', withAnswers(FIXTURES.chlamydia.eligible, v(2, 'breastfeeding', true)));
    expect(sub.outcome).toBe('eligible');
    expect(ids(sub.treatments)).toEqual(['azithromycin']);
    expect(codes(sub.reasons)).toContain('DOXYCYCLINE_BREASTFEEDING');
    expect(codes(sub.cautions)).toContain('AZITHROMYCIN_BREASTFEEDING');
    const doxy = await as(p, 'POST', '/v1/users/checkout/', { category: 'chlamydia', plan: 'one_off', treatment_id: 'doxycycline', dosage: '100 mg' });
    expect(doxy.status, doxy.text).toBe(400);
    expect(doxy.body.error_name).toBe('TREATMENT_NOT_ALLOWED');
    const azi = await as(p, 'POST', '/v1/users/checkout/', { category: 'chlamydia', plan: 'one_off', treatment_id: 'azithromycin', dosage: '500 mg' });
    expect(azi.status, azi.text).toBe(200);
  });

  it('the breastfeeding question is required for women and hidden for men', async () => {
    const woman = await patient({ gender: '1' });
    const missing = FIXTURES.chlamydia.eligible.filter((a) => a.question_key !== 'breastfeeding');
    expect((await as(woman, 'PATCH', '/v1/users/questionnaires/chlamydia/progress/', { data: missing })).status).toBe(200);
    const refused = await as(woman, 'POST', '/v1/users/questionnaires/chlamydia/submit/');
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('breastfeeding');
    const man = await patient({ gender: '0' });
    const sub = await submitted(man, 'chlamydia', withAnswers(missing));
    expect(sub.outcome).toBe('eligible');
    expect(ids(sub.treatments)).toEqual(['doxycycline', 'azithromycin']);
  });

  it('pregnancy: azithromycin, the pregnancy option (C1, C2), with a caution; doxycycline stays excluded', async () => {
    const p = await patient({ gender: '1' });
    const sub = await submitted(p, 'chlamydia', withAnswers(FIXTURES.chlamydia.eligible, v(2, 'pregnant', true)));
    expect(ids(sub.treatments)).toEqual(['azithromycin']);
    expect(codes(sub.reasons)).toContain('DOXYCYCLINE_IN_PREGNANCY');
    expect(codes(sub.cautions)).toContain('AZITHROMYCIN_IN_PREGNANCY');
  });
});

describe('weight loss version 3: GLP-1 from 75 years is a caution, not a refusal (S1 4.2)', () => {
  it('a 76-year-old is eligible with the caution; a 60-year-old has none', async () => {
    const old = await patient({ date_of_birth: '1950-01-01' });
    const sub = await submitted(old, 'weight_loss', FIXTURES.weight_loss.eligible);
    expect(sub.outcome).toBe('eligible');
    expect(ids(sub.treatments)).toEqual(['semaglutide', 'tirzepatide']);
    expect(codes(sub.cautions)).toContain('GLP1_AGE_75_OR_OVER');
    const younger = await submitted(await patient({ date_of_birth: '1966-01-01' }), 'weight_loss', FIXTURES.weight_loss.eligible);
    expect(codes(younger.cautions)).not.toContain('GLP1_AGE_75_OR_OVER');
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
  return { p, consultationId: options.pending_consultation_id as string, requiredKeys: (options.required_steps as { questions: { question_key: string }[] }[]).flatMap((st) => st.questions.map((q) => q.question_key)) };
}
const confirm = (p: Patient, json: Record<string, unknown>) => as(p, 'POST', '/v1/users/subscriptions/pending-choice/confirm/', { changed: false, change_note: '', ...json });
const answer = (list: typeof WEIGHT_LOSS_RENEWAL_SAFETY, key: string, value: number) => list.map((a) => (a.question_key === key ? { question_key: key, values: { value } } : a));

describe('weight-loss renewal: the eating-disorder screen and the BMI floor (version 3)', () => {
  it('asks about eating-disorder signs at every renewal; signs stop the renewal (S7, S7b)', async () => {
    const { p, consultationId, requiredKeys } = await pendingRenewal('weight_loss', 'semaglutide', '0.25 mg');
    expect(requiredKeys).toContain('eating_disorder_signs');
    const missing = await confirm(p, { consultation_id: consultationId, answers: WEIGHT_LOSS_RENEWAL_SAFETY.filter((a) => a.question_key !== 'eating_disorder_signs') });
    expect(missing.body).toMatchObject({ code: 'renewal_answers_required', missing_keys: ['eating_disorder_signs'] });
    const r = await confirm(p, { consultation_id: consultationId, answers: answer(WEIGHT_LOSS_RENEWAL_SAFETY, 'eating_disorder_signs', 1) });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ code: 'renewal_answer_ineligible', question_key: 'eating_disorder_signs', reason_codes: ['EATING_DISORDER_AT_RENEWAL'] });
    expect(r.body.reasons[0].source).toMatch(/S7/);
    // Nothing was confirmed: the clean screen still goes through.
    expect((await confirm(p, { consultation_id: consultationId, answers: WEIGHT_LOSS_RENEWAL_SAFETY })).status).toBe(200);
  });

  it('a current weight under BMI 18.5 (height of the latest submission) stops the renewal; 18.5 and above continues', async () => {
    const { p, consultationId } = await pendingRenewal('weight_loss', 'semaglutide', '0.25 mg');
    // The start questionnaire gave 170 cm (and 100 kg).
    await submitted(p, 'weight_loss', FIXTURES.weight_loss.eligible);
    const low = await confirm(p, { consultation_id: consultationId, answers: answer(WEIGHT_LOSS_RENEWAL_SAFETY, 'current_weight_kg', 53) });
    expect(low.status, low.text).toBe(400);
    expect(low.body).toMatchObject({ code: 'renewal_answer_ineligible', question_key: 'current_weight_kg', reason_codes: ['BMI_BELOW_18_5_AT_RENEWAL'] });
    const ok = await confirm(p, { consultation_id: consultationId, answers: answer(WEIGHT_LOSS_RENEWAL_SAFETY, 'current_weight_kg', 54) });
    expect(ok.status, ok.text).toBe(200);
  });

  it('a recent journal weight under the floor stops the renewal too when the screen gives no weight', async () => {
    const { p, consultationId } = await pendingRenewal('weight_loss', 'semaglutide', '0.25 mg');
    await submitted(p, 'weight_loss', FIXTURES.weight_loss.eligible);
    await ctx.db.query('insert into weight_entries (user_id, weight_kg, logged_on) values ($1, 50, $2)', [p.id, ctx.deps.clock.now().toISOString().slice(0, 10)]);
    const r = await confirm(p, { consultation_id: consultationId, answers: WEIGHT_LOSS_RENEWAL_SAFETY.filter((a) => a.question_key !== 'current_weight_kg') });
    expect(r.status, r.text).toBe(400);
    expect(r.body.reason_codes).toEqual(['BMI_BELOW_18_5_AT_RENEWAL']);
  });

  it('75 and over: the renewal is confirmed with the caution recorded for the doctor', async () => {
    const { p, consultationId } = await pendingRenewal('weight_loss', 'semaglutide', '0.25 mg', { date_of_birth: '1948-03-01' });
    const r = await confirm(p, { consultation_id: consultationId, answers: WEIGHT_LOSS_RENEWAL_SAFETY });
    expect(r.status, r.text).toBe(200);
    // Renewal details are sealed at rest (docs/privacy.md, "Encryption at rest").
    const row = firstRow(await ctx.db.query('select renewal_details_enc from consultations where id = $1', [consultationId]));
    const details = JSON.parse(decrypt(ctx.deps.secrets.documentKeys, row.renewal_details_enc));
    expect(codes(details.verdict.cautions)).toContain('GLP1_AGE_75_OR_OVER');
  });

  it('another account’s renewal (its real id) is 404 {} and stays pending', async () => {
    const a = await pendingRenewal('weight_loss', 'semaglutide', '0.25 mg');
    const b = await patient();
    const r = await confirm(b, { consultation_id: a.consultationId, answers: WEIGHT_LOSS_RENEWAL_SAFETY });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({});
    const row = firstRow(await ctx.db.query('select patient_choice_status from consultations where id = $1', [a.consultationId]));
    expect(row.patient_choice_status).toBe('pending');
  });
});

describe('an interaction strength limit is enforced at renewal: sildenafil with ritonavir (E2)', () => {
  const SCREEN = [
    { question_key: 'significant_side_effects', values: { value: 0 } as Record<string, unknown> },
    { question_key: 'new_medication', values: { value: 1 } as Record<string, unknown> },
    { question_key: 'nitrates', values: { value: 0 } as Record<string, unknown> },
    { question_key: 'riociguat', values: { value: 0 } as Record<string, unknown> },
    { question_key: 'cyp3a4_inhibitors', values: { value: 1 } as Record<string, unknown> },
    { question_key: 'alpha_blockers', values: { value: 0 } as Record<string, unknown> },
    // Every PDE5 renewal also asks the urgent symptoms and heart events since the last order (E1, E3).
    { question_key: 'urgent_symptoms', values: { none: 1 } as Record<string, unknown> },
    { question_key: 'cardiovascular_events_since_last_order', values: { none: 1 } as Record<string, unknown> },
  ];

  it('the renewal screen asks the interactions; 50 mg (the current dose) and 100 mg are refused, 25 mg is confirmed', async () => {
    const { p, consultationId, requiredKeys } = await pendingRenewal('sexual_health', 'sildenafil', '50 mg');
    expect(requiredKeys).toEqual(expect.arrayContaining(['nitrates', 'riociguat', 'cyp3a4_inhibitors', 'alpha_blockers']));
    const unanswered = await confirm(p, { consultation_id: consultationId, answers: SCREEN.filter((a) => a.question_key !== 'cyp3a4_inhibitors') });
    expect(unanswered.body).toMatchObject({ code: 'renewal_answers_required', missing_keys: ['cyp3a4_inhibitors'] });
    for (const dosage of [undefined, '50 mg', '100 mg']) {
      const r = await confirm(p, { consultation_id: consultationId, answers: SCREEN, ...(dosage ? { dosage } : {}) });
      expect(r.status, `${dosage} ${r.text}`).toBe(400);
      expect(r.body).toMatchObject({ code: 'dose_step_not_allowed', treatment_id: 'sildenafil', allowed_dosages: ['25 mg'] });
      expect(r.body.reason_codes).toContain('SILDENAFIL_25MG_CYP3A4_INHIBITOR');
    }
    // Tadalafil is excluded with ritonavir (TADALAFIL_CYP3A4_INHIBITOR).
    const tada = await confirm(p, { consultation_id: consultationId, answers: SCREEN, treatment_id: 'tadalafil', dosage: '10 mg' });
    expect(tada.body).toMatchObject({ code: 'renewal_answer_ineligible', reason_codes: ['TADALAFIL_CYP3A4_INHIBITOR'], allowed_treatments: ['sildenafil'] });
    const ok = await confirm(p, { consultation_id: consultationId, answers: SCREEN, dosage: '25 mg' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ treatment_id: 'sildenafil', dosage: '25 mg', dose_change: { from: '50 mg', to: '25 mg', direction: 'down' } });
  });

  it('without an interaction the current 50 mg continues; nitrates end the renewal (absolute, E1)', async () => {
    const { p, consultationId } = await pendingRenewal('sexual_health', 'sildenafil', '50 mg');
    const nitrates = await confirm(p, { consultation_id: consultationId, answers: answer(answer(SCREEN, 'cyp3a4_inhibitors', 0), 'nitrates', 1) });
    expect(nitrates.body).toMatchObject({ code: 'renewal_answer_ineligible', question_key: 'nitrates', reason_codes: ['NITRATES'] });
    const ok = await confirm(p, { consultation_id: consultationId, answers: answer(SCREEN, 'cyp3a4_inhibitors', 0) });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ treatment_id: 'sildenafil', dosage: '50 mg', dose_change: null });
  });

  it('checkout refuses the same strength for a patient on ritonavir (the path the renewal mirrors)', async () => {
    const p = await patient();
    await submitted(p, 'sexual_health', withAnswers(FIXTURES.sexual_health.eligible, v(2, 'cyp3a4_inhibitors', true)));
    const r = await as(p, 'POST', '/v1/users/checkout/', { category: 'sexual_health', plan: 'one_off', treatment_id: 'sildenafil', dosage: '50 mg' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error_name: 'DOSAGE_NOT_ALLOWED', allowed_dosages: ['25 mg'] });
    const { session } = await paySandbox(ctx, p, { category: 'sexual_health', plan: 'one_off', treatment_id: 'sildenafil', dosage: '25 mg' });
    expect(session.consultation_id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
