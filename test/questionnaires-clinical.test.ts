// HTTP tests on the questionnaire side: anti-gaming (profile fields that show or hide
// questions, removed exclusions, red flags raised on drafts), residents of Spain and France refused
// before any health answer is stored, the version 2 catalogue gaps end to end, and emergency
// contraception first in the review queue with its hours re-checked at approval.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decrypt } from '../src/lib/crypto.ts';
import { call, createTestContext, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { paySandbox, staff } from './billing-fixtures.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';
import { toWorkingDayMorning } from './support/ec-clock.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  // Emergency contraception is sold for delivery only when it arrives in time: a fixed working-day morning.
  await toWorkingDayMorning(ctx);
  doctor = await staff(ctx, 'doctor');
});
afterAll(async () => {
  await ctx?.close();
});

const patient = async (columns: Record<string, unknown> = {}) =>
  seedPatient(ctx, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', ...columns });

async function save(slug: string, data: unknown[], token: string) {
  return call(ctx, 'PATCH', `/v1/users/questionnaires/${slug}/progress/`, { token, json: { data } });
}
async function submitWith(slug: string, data: unknown[], token: string) {
  const saved = await save(slug, await withPhotos(ctx, token, slug, data), token);
  expect(saved.status, saved.text).toBe(200);
  return call(ctx, 'POST', `/v1/users/questionnaires/${slug}/submit/`, { token });
}
const profilePatch = (token: string, json: Record<string, unknown>) => call(ctx, 'PATCH', '/v1/users/profile/me/', { token, json });

describe('anti-gaming: profile fields that decide which questions are shown', () => {
  const pregnant = [...FIXTURES.weight_loss.eligible, v(3, 'pregnant_or_planning', true), v(3, 'oral_contraceptive', false)];

  it('a pregnant woman who changes her gender to hide the pregnancy question is held for review', async () => {
    const p = await patient({ gender: '1' });
    const no = await submitWith('weight_loss', pregnant, p.access);
    expect(no.body.outcome, no.text).toBe('ineligible');
    expect(no.body.reasons.map((r: any) => r.code)).toEqual(['PREGNANCY']);
    expect((await profilePatch(p.access, { gender: '0' })).status).toBe(200);
    // The same answers: the pregnancy answer is now hidden, so the rules would say eligible.
    const again = await submitWith('weight_loss', pregnant, p.access);
    expect(again.body.outcome, again.text).toBe('held_for_review');
    const row = firstRow(await ctx.db.query('select result from questionnaire_submissions where id = $1', [again.body.id]));
    expect(row.result.changed_deciding_keys).toContain('profile.gender');
  });

  it('the same with the pregnancy answer dropped from the draft', async () => {
    const p = await patient({ gender: '1' });
    expect((await submitWith('weight_loss', pregnant, p.access)).body.outcome).toBe('ineligible');
    await profilePatch(p.access, { gender: '0' });
    const again = await submitWith('weight_loss', FIXTURES.weight_loss.eligible, p.access);
    expect(again.body.outcome).toBe('held_for_review');
  });

  it('a date of birth moved after an age refusal is held for review', async () => {
    const p = await patient({ gender: '1', date_of_birth: '1955-01-01' });
    const no = await submitWith('urinary_tract_infection', FIXTURES.urinary_tract_infection.eligible, p.access);
    expect(no.body.reasons.map((r: any) => r.code)).toEqual(['AGE_65_PLUS']);
    expect((await profilePatch(p.access, { date_of_birth: '1990-01-01' })).status).toBe(200);
    const again = await submitWith('urinary_tract_infection', FIXTURES.urinary_tract_infection.eligible, p.access);
    expect(again.body.outcome).toBe('held_for_review');
  });

  it('a country change after any refusal is a deciding change too (never softened)', async () => {
    const p = await patient({ country_of_residence: 'DEU' });
    expect((await submitWith('hair_growth', FIXTURES.hair_growth.ineligible, p.access)).body.outcome).toBe('ineligible');
    expect((await profilePatch(p.access, { country_of_residence: 'AUT' })).status).toBe(200);
    // An eligible answer set is held, naming the country among the changes.
    const again = await submitWith('hair_growth', FIXTURES.hair_growth.eligible, p.access);
    expect(again.body.outcome).toBe('held_for_review');
    const row = firstRow(await ctx.db.query('select result from questionnaire_submissions where id = $1', [again.body.id]));
    expect(row.result.changed_deciding_keys).toEqual(expect.arrayContaining(['hair_loss_pattern', 'profile.country_of_residence']));
    // Back to the refused answers in the new country: still ineligible.
    expect((await submitWith('hair_growth', FIXTURES.hair_growth.ineligible, p.access)).body.outcome).toBe('ineligible');
  });

  it('an unchanged profile and unchanged answers stay eligible', async () => {
    const p = await patient();
    expect((await submitWith('weight_loss', FIXTURES.weight_loss.eligible, p.access)).body.outcome).toBe('eligible');
    expect((await submitWith('weight_loss', FIXTURES.weight_loss.eligible, p.access)).body.outcome).toBe('eligible');
  });
});

describe('anti-gaming: removing the answer that excluded a treatment', () => {
  it('serotonergic drugs excluded dapoxetine; withdrawing the answer brings dapoxetine back only through a doctor', async () => {
    const p = await patient();
    const first = await submitWith('premature_ejaculation', withAnswers(FIXTURES.premature_ejaculation.eligible, m(2, 'contraindications', ['serotonergic_drugs'])), p.access);
    expect(first.body.outcome).toBe('eligible');
    expect(first.body.treatments.map((t: any) => t.treatment_id)).toEqual(['lidocaine-prilocaine-spray']);
    const again = await submitWith('premature_ejaculation', FIXTURES.premature_ejaculation.eligible, p.access);
    expect(again.body.outcome, again.text).toBe('held_for_review');
    expect(again.body.message).toMatch(/doctor/i);
    const row = firstRow(await ctx.db.query('select result from questionnaire_submissions where id = $1', [again.body.id]));
    expect(row.result.changed_deciding_keys).toContain('contraindications');
    // A third submission with the same answers is still held (the exclusion is not forgotten).
    expect((await submitWith('premature_ejaculation', FIXTURES.premature_ejaculation.eligible, p.access)).body.outcome).toBe('held_for_review');
  });

  it('an exclusion that stays in place does not hold an eligible resubmission', async () => {
    const p = await patient({ gender: '1' });
    const pregnant = withAnswers(FIXTURES.chlamydia.eligible, v(2, 'pregnant', true));
    expect((await submitWith('chlamydia', pregnant, p.access)).body.treatments.map((t: any) => t.treatment_id)).toEqual(['azithromycin']);
    const same = await submitWith('chlamydia', withAnswers(pregnant, v(2, 'recurring_symptoms', false)), p.access);
    expect(same.body.outcome).toBe('eligible');
  });
});

describe('anti-gaming: red flags raised on a draft', () => {
  it('a red flag ticked on a draft and unticked before submitting holds the submission', async () => {
    const p = await patient();
    const flagged = await save('sexual_health', withAnswers(FIXTURES.sexual_health.eligible, m(1, 'urgent_symptoms', ['chest_pain_during_sex'])), p.access);
    expect(flagged.body.emergency.codes).toEqual(['RED_FLAG_CHEST_PAIN_DURING_SEX']);
    const res = await submitWith('sexual_health', FIXTURES.sexual_health.eligible, p.access);
    expect(res.status).toBe(200);
    expect(res.body.outcome, res.text).toBe('held_for_review');
    expect(res.body.next_step).toBe('checkout');
    expect(res.body.message).toMatch(/may need medical attention/);
    const row = firstRow(await ctx.db.query('select result from questionnaire_submissions where id = $1', [res.body.id]));
    expect(row.result.draft_red_flags).toEqual(['RED_FLAG_CHEST_PAIN_DURING_SEX']);
    expect(row.result.changed_deciding_keys).toEqual(['urgent_symptoms']);
    const flags = await ctx.db.query('select code, times from questionnaire_draft_red_flags where user_id = $1', [p.id]);
    expect(flags).toEqual([{ code: 'RED_FLAG_CHEST_PAIN_DURING_SEX', times: 1 }]);
  });

  it('the record is per category and outlives the draft', async () => {
    const p = await patient();
    await save('hair_growth', [m(1, 'urgent_symptoms', ['suicidal_thoughts'])], p.access);
    expect((await submitWith('premature_ejaculation', FIXTURES.premature_ejaculation.eligible, p.access)).body.outcome).toBe('eligible');
    expect((await submitWith('hair_growth', FIXTURES.hair_growth.eligible, p.access)).body.outcome).toBe('held_for_review');
    expect((await submitWith('hair_growth', FIXTURES.hair_growth.eligible, p.access)).body.outcome).toBe('held_for_review');
  });

  it('a draft without red flags records nothing', async () => {
    const p = await patient();
    expect((await submitWith('hair_growth', FIXTURES.hair_growth.eligible, p.access)).body.outcome).toBe('eligible');
    const flags = await ctx.db.query('select 1 from questionnaire_draft_red_flags where user_id = $1', [p.id]);
    expect(flags).toEqual([]);
  });
});

describe('Spain and France: refused before any health answer is stored', () => {
  for (const country of ['ESP', 'FRA']) {
    it(`${country}: the first progress save and submit are refused for legal reasons; nothing is stored`, async () => {
      const p = await patient({ country_of_residence: country });
      const res = await save('hair_growth', FIXTURES.hair_growth.eligible, p.access);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error_name: 'SERVICE_NOT_AVAILABLE_IN_COUNTRY', country, reasons: [{ code: 'COUNTRY_NO_ONLINE_PRESCRIBING', source: country === 'ESP' ? 'K5' : 'K6' }] });
      expect(res.body.message).toMatch(/legal reasons/);
      expect(res.body.message).not.toMatch(/safely/);
      // Answers are sealed at rest: a stored draft is opened with the data keys to see what it holds.
      const drafts = await ctx.db.query('select data, data_enc from questionnaire_drafts where user_id = $1', [p.id]);
      expect(drafts.map((d) => d.data ?? JSON.parse(decrypt(ctx.deps.secrets.documentKeys, d.data_enc))).filter((d) => JSON.stringify(d) !== '[]')).toEqual([]);
      const sub = await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token: p.access });
      expect(sub.status).toBe(400);
      expect(sub.body.error_name).toBe('SERVICE_NOT_AVAILABLE_IN_COUNTRY');
      expect((await ctx.db.query('select 1 from questionnaire_submissions where user_id = $1', [p.id]))).toEqual([]);
    });
  }

  it('the refusal is localised', async () => {
    const p = await patient({ country_of_residence: 'ESP' });
    const res = await call(ctx, 'PATCH', '/v1/users/questionnaires/weight_loss/progress/?locale=es', { token: p.access, json: { data: [] } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/motivos legales/);
  });

  it('the profile accepts Spain and France (emergency numbers stay); a draft saved before moving cannot be submitted or paid', async () => {
    const p = await patient({ country_of_residence: 'DEU' });
    const ok = await submitWith('hiv_prep', FIXTURES.hiv_prep.eligible, p.access);
    expect(ok.body.outcome).toBe('eligible');
    expect((await save('hair_growth', FIXTURES.hair_growth.eligible, p.access)).status).toBe(200);
    const moved = await profilePatch(p.access, { country_of_residence: 'FRA' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.country_of_residence).toBe('FRA');
    const sub = await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token: p.access });
    expect(sub.body.error_name).toBe('SERVICE_NOT_AVAILABLE_IN_COUNTRY');
    const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'hiv_prep', plan: 'one_off' } });
    expect(co.status).toBe(400);
    expect(co.body.error_name).toBe('SERVICE_NOT_AVAILABLE_IN_COUNTRY');
  });

  it('other countries are not affected', async () => {
    const p = await patient({ country_of_residence: 'NOR' });
    expect((await submitWith('hair_growth', FIXTURES.hair_growth.eligible, p.access)).body.outcome).toBe('eligible');
  });
});

describe('catalogue version 2 end to end', () => {
  it('the schema asks the new questions; the allergy question names each product', async () => {
    const uti = await call(ctx, 'GET', '/v1/users/questionnaires/urinary_tract_infection/schema/');
    expect(uti.body.version_number).toBe(3); // version 3: the eGFR of the lab report
    const keys = uti.body.steps.flatMap((s: any) => s.questions.map((q: any) => q.question_key));
    expect(keys).toEqual(expect.arrayContaining(['uti_symptoms', 'vaginal_discharge_or_itch', 'hypersensitivity']));
    const prep = await call(ctx, 'GET', '/v1/users/questionnaires/hiv_prep/schema/?locale=de');
    const hbsag = prep.body.steps.flatMap((s: any) => s.questions).find((q: any) => q.question_key === 'hbsag_result');
    expect(hbsag.text).toMatch(/HBsAg/);
    for (const slug of ['hair_growth', 'sexual_health', 'premature_ejaculation', 'chlamydia', 'urinary_tract_infection', 'emergency_contraception', 'hiv_prep']) {
      const s = await call(ctx, 'GET', `/v1/users/questionnaires/${slug}/schema/`);
      const allergy = s.body.steps.flatMap((x: any) => x.questions).find((q: any) => q.question_key === 'hypersensitivity');
      expect(allergy, slug).toBeTruthy();
      expect(allergy.options.map((o: any) => o.value)).toEqual(expect.arrayContaining([...s.body.treatments.map((t: any) => t.treatment_id).filter((t: string) => t !== 'lidocaine-prilocaine-spray'), 'none']));
      expect(JSON.stringify(s.body)).not.toMatch(/elapses/);
    }
  });

  it('UTI: without diagnostic symptoms, or with vaginal discharge, the patient is referred', async () => {
    const p = await patient({ gender: '1' });
    const one = await submitWith('urinary_tract_infection', withAnswers(FIXTURES.urinary_tract_infection.eligible, m(2, 'uti_symptoms', ['dysuria'])), p.access);
    expect(one.body.outcome).toBe('ineligible');
    expect(one.body.reasons.map((r: any) => r.code)).toEqual(['UTI_SYMPTOMS_NOT_DIAGNOSTIC']);
    const q = await patient({ gender: '1' });
    const vag = await submitWith('urinary_tract_infection', withAnswers(FIXTURES.urinary_tract_infection.eligible, v(2, 'vaginal_discharge_or_itch', true)), q.access);
    expect(vag.body.reasons.map((r: any) => r.code)).toEqual(['VAGINAL_SYMPTOMS_OTHER_DIAGNOSIS']);
  });

  it('PrEP: a positive HBsAg goes to a specialist', async () => {
    const p = await patient();
    const res = await submitWith('hiv_prep', withAnswers(FIXTURES.hiv_prep.eligible, v(2, 'hbsag_result', 'positive')), p.access);
    expect(res.body.outcome).toBe('ineligible');
    expect(res.body.reasons.map((r: any) => r.code)).toEqual(['HEPATITIS_B_POSITIVE']);
    expect(res.body.alternative.code).toBe('hepatitis_b_specialist');
    expect(res.body.alternative.message).toMatch(/specialist/);
  });

  it('emergency contraception: the explanation names the copper IUD, ulipristal and 3 mg levonorgestrel', async () => {
    const p = await patient({ gender: '1' });
    const res = await submitWith('emergency_contraception', withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'weight_kg', 80)), p.access);
    expect(res.body.outcome).toBe('eligible');
    // Version 3: the weight rule is a strength limit (a reason), the copper IUD a caution.
    const text = [...res.body.reasons, ...res.body.cautions].map((c: any) => c.message).join(' ');
    expect(res.body.reasons).toContainEqual(expect.objectContaining({ code: 'LEVONORGESTREL_WEIGHT_OVER_70KG_OR_BMI_OVER_26', kind: 'limit_strengths' }));
    expect(text).toMatch(/copper IUD/);
    expect(text).toMatch(/ulipristal, a 3 mg levonorgestrel dose or a copper IUD/);
    const q = await patient({ gender: '1' });
    const none = await submitWith('emergency_contraception', withAnswers(FIXTURES.emergency_contraception.eligible, m(2, 'hypersensitivity', ['levonorgestrel', 'ulipristal'])), q.access);
    expect(none.body.outcome).toBe('ineligible');
    expect(none.body.alternative.code).toBe('copper_iud');
  });

  it('a draft of version 1 is moved to version 2 on the next save', async () => {
    const p = await patient();
    const schema = await call(ctx, 'GET', '/v1/users/questionnaires/hair_growth/schema/');
    await save('hair_growth', [m(1, 'urgent_symptoms', ['none'])], p.access);
    await ctx.db.query("update questionnaire_drafts set version_id = '9a0e6c1b-3f42-4d8a-8b1e-5c7d2f1a0b02' where user_id = $1", [p.id]);
    const old = await call(ctx, 'GET', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access });
    expect(old.body.progress.version).toBe('9a0e6c1b-3f42-4d8a-8b1e-5c7d2f1a0b02');
    const saved = await save('hair_growth', FIXTURES.hair_growth.eligible, p.access);
    expect(saved.body.progress.version).toBe(schema.body.version);
  });
});

describe('emergency contraception at the review desk', () => {
  async function ecConsultation(hours: number, treatment: string) {
    const p = await patient({ gender: '1' });
    const sub = await submitWith('emergency_contraception', withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'hours_since_unprotected_sex', hours)), p.access);
    expect(sub.body.outcome).toBe('eligible');
    const { session } = await paySandbox(ctx, p, { category: 'emergency_contraception', plan: 'one_off', treatment_id: treatment });
    return { p, submissionId: sub.body.id as string, id: session.consultation_id as string };
  }

  it('comes first in the review queue, ahead of older consultations', async () => {
    const other = await patient();
    await submitWith('hair_growth', FIXTURES.hair_growth.eligible, other.access);
    const { session } = await paySandbox(ctx, other, { category: 'hair_growth', plan: 'one_off' });
    const ec = await ecConsultation(10, 'levonorgestrel');
    const queue = await call(ctx, 'GET', '/v1/clinician/consultations/?status=pending_review&limit=100', { token: doctor.access });
    expect(queue.status).toBe(200);
    const ids = queue.body.results.map((c: any) => c.id);
    expect(ids.indexOf(ec.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(ec.id)).toBeLessThan(ids.indexOf(session.consultation_id));
    expect(queue.body.results[0].category).toBe('emergency_contraception');
  });

  it('the hours are re-checked at approval: levonorgestrel after 72 h is refused, ulipristal still fits', async () => {
    // Bought while delivery still arrives in time (checkout refuses a late one: test/ec-delivery.test.ts).
    const { id, submissionId } = await ecConsultation(10, 'levonorgestrel');
    // The doctor reaches it 63 hours after the submission: 73 hours since unprotected sex.
    await ctx.db.query("update questionnaire_submissions set created_at = created_at - interval '63 hours' where id = $1", [submissionId]);
    const late = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: { treatment_id: 'levonorgestrel' } });
    expect(late.status, late.text).toBe(400);
    expect(late.body).toMatchObject({ error_name: 'TREATMENT_WINDOW_PASSED', treatment_id: 'levonorgestrel', reason_codes: ['LEVONORGESTREL_OVER_72_HOURS'], allowed_treatments: ['ulipristal'] });
    const c = firstRow(await ctx.db.query('select status from consultations where id = $1', [id]));
    expect(c.status).toBe('pending_review');
    const ok = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: { treatment_id: 'ulipristal', dosage: '30 mg' } });
    expect(ok.status, ok.text).toBe(200);
  });

  it('within the window the approval goes through', async () => {
    const { id, submissionId } = await ecConsultation(24, 'levonorgestrel');
    await ctx.db.query("update questionnaire_submissions set created_at = created_at - interval '10 hours' where id = $1", [submissionId]);
    const ok = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: { treatment_id: 'levonorgestrel', dosage: '1.5 mg' } });
    expect(ok.status, ok.text).toBe(200);
  });

  it('after 120 h nothing is approved', async () => {
    const { id, submissionId } = await ecConsultation(10, 'ulipristal');
    await ctx.db.query("update questionnaire_submissions set created_at = created_at - interval '111 hours' where id = $1", [submissionId]);
    const late = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: { treatment_id: 'ulipristal' } });
    expect(late.status).toBe(400);
    expect(late.body.reason_codes).toEqual(['OVER_120_HOURS']);
    expect(late.body.allowed_treatments).toEqual([]);
  });
});
