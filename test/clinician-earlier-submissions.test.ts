// "The doctor cannot see why a consultation was held": the clinician consultation detail
// lists the patient's earlier submissions of the category (the last 5 before this consultation's
// submission, newest first) with their outcome and the answers that changed since.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { paySandbox, staff } from './billing-fixtures.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await staff(ctx, 'doctor');
});
afterAll(async () => {
  await ctx?.close();
});

const patient = () => seedPatient(ctx, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' });
const wl = (kg: number) => withAnswers(FIXTURES.weight_loss.eligible, v(2, 'weight_kg', kg));

async function submit(p: Patient, slug: string, data: unknown[]) {
  const saved = await call(ctx, 'PATCH', `/v1/users/questionnaires/${slug}/progress/`, { token: p.access, json: { data: await withPhotos(ctx, p.access, slug, data) } });
  expect(saved.status, saved.text).toBe(200);
  const r = await call(ctx, 'POST', `/v1/users/questionnaires/${slug}/submit/`, { token: p.access });
  expect(r.status, r.text).toBe(200);
  return r.body as { id: string; outcome: string };
}

async function detail(consultationId: string) {
  const d = await call(ctx, 'GET', `/v1/clinician/consultations/${consultationId}/`, { token: doctor.access });
  expect(d.status, d.text).toBe(200);
  return d.body;
}

describe('earlier submissions on the clinician consultation detail', () => {
  it('not suitable at 62 kg, resubmitted at 105 kg and paid: the doctor sees the earlier submission with weight_kg 62 -> 105', async () => {
    const p = await patient();
    const first = await submit(p, 'weight_loss', wl(62));
    expect(first.outcome).toBe('ineligible');
    const second = await submit(p, 'weight_loss', wl(105));
    expect(second.outcome).toBe('held_for_review');
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
    const d = await detail(session.consultation_id);
    expect(d.questionnaire_submission.id).toBe(second.id);
    expect(d.earlier_submissions).toEqual([
      {
        id: first.id,
        outcome: 'ineligible',
        created_at: expect.any(String),
        version_id: expect.any(String),
        reason_codes: expect.any(Array),
        changed_answers: [{ question_key: 'weight_kg', before: 62, after: 105, deciding: true }],
      },
    ]);
    expect(d.earlier_submissions[0].reason_codes.length).toBeGreaterThan(0);
    expect(Date.parse(d.earlier_submissions[0].created_at)).toBeLessThanOrEqual(Date.parse(d.created_at));
  });

  it('the last 5, newest first; multiple choices compared by the options chosen; other categories and other patients left out', async () => {
    const p = await patient();
    const other = await patient();
    await submit(other, 'weight_loss', wl(61)); // another patient's: never shown
    await submit(p, 'hair_growth', FIXTURES.hair_growth.eligible); // another category: never shown
    const kgs = [60, 61, 62, 63, 64, 65];
    for (const kg of kgs) expect((await submit(p, 'weight_loss', wl(kg))).outcome).toBe('ineligible');
    // The last one also names a condition (a multiple choice).
    const last = withAnswers(wl(104), m(2, 'weight_conditions', ['prediabetes_or_type2']));
    const current = await submit(p, 'weight_loss', last);
    expect(current.outcome).not.toBe('ineligible');
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
    const d = await detail(session.consultation_id);
    const earlier = d.earlier_submissions as { outcome: string; changed_answers: { question_key: string; before: unknown; after: unknown }[] }[];
    expect(earlier).toHaveLength(5);
    expect(earlier.map((s) => s.changed_answers.find((c) => c.question_key === 'weight_kg')?.before)).toEqual([65, 64, 63, 62, 61]);
    for (const s of earlier) {
      expect(s.outcome).toBe('ineligible');
      expect(s.changed_answers).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ question_key: 'weight_kg', after: 104 }),
          expect.objectContaining({ question_key: 'weight_conditions', before: ['none'], after: ['prediabetes_or_type2'] }),
        ]),
      );
      expect(s.changed_answers).toHaveLength(2);
    }
  });

  it('a first submission has no earlier ones', async () => {
    const p = await patient();
    expect((await submit(p, 'weight_loss', wl(100))).outcome).toBe('eligible');
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
    expect((await detail(session.consultation_id)).earlier_submissions).toEqual([]);
  });
});
