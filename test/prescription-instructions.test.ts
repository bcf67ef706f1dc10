// Every prescription's instructions come from the catalogue's posology (catalogue/prescribing/<slug>.json
// `instructions`), with a line for every fired rule that limits or conditions the dose: the walk covers
// every treatment and strength of the catalogue and every strength limit (the class of interaction and
// starting-dose limits), and over HTTP the approval prints them on the prescription, its PDF and the order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentVersion, listCategories } from '../src/modules/questionnaires/catalogue.ts';
import { checkInstructions, prescribingFor, prescriptionInstructions } from '../src/modules/questionnaires/prescribing-catalogue.ts';
import { callAsFresh, paySandbox } from './billing-fixtures.ts';
import { FIXTURES, v, withAnswers } from './questionnaires.fixtures.ts';
import { createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { pdfText } from './support/pdf-text.ts';
import { toWorkingDayMorning } from './support/ec-clock.ts';

describe('the catalogue walk: every treatment and strength, every rule with an instruction', () => {
  for (const c of listCategories()) {
    for (const t of c.treatments) {
      for (const strength of t.strengths) {
        it(`${c.slug} ${t.treatment_id} ${strength}: a posology, never empty, with its source`, () => {
          const out = prescriptionInstructions(c.slug, t.treatment_id, strength, []);
          expect(out.text.trim().length).toBeGreaterThan(40);
          expect(out.text).not.toContain('{dosage}');
          expect(out.lines).toHaveLength(1);
          expect(out.lines[0]!.source.length).toBeGreaterThan(1);
          // The strength is named where the posology is per strength or uses {dosage}.
          const p = prescribingFor(c.slug).instructions.posology[t.treatment_id]!;
          if (p.strengths?.[strength] || p.default?.includes('{dosage}')) expect(out.text).toContain(strength);
        });
      }
    }
  }

  const ruleSets = listCategories().map((c) => {
    const version = currentVersion(c.slug)!;
    return { c, rules: [...version.rules, ...(version.renewal.rules ?? []), ...prescribingFor(c.slug).renewal.rules] };
  });

  it('every strength limit of the current catalogue (interactions, starting doses) prints its limit', () => {
    const limits = ruleSets.flatMap(({ c, rules }) => rules.filter((r) => r.kind === 'limit_strengths').map((r) => ({ slug: c.slug, r })));
    expect(limits.length).toBeGreaterThanOrEqual(5);
    for (const { slug, r } of limits) {
      for (const t of r.treatments ?? []) {
        for (const s of r.strengths ?? []) {
          const out = prescriptionInstructions(slug, t, s, [r.code]);
          const line = out.lines.find((l) => l.rule === r.code);
          expect(line, `${slug} ${r.code}`).toBeDefined();
          expect(line!.text).toContain(s);
          expect(line!.source).toBeTruthy();
        }
      }
    }
  });

  it('every instruction rule names a rule of its category and only adds to the treatments it names', () => {
    for (const { c, rules } of ruleSets) {
      const codes = new Set(rules.map((r) => r.code));
      for (const [code, line] of Object.entries(prescribingFor(c.slug).instructions.rules)) {
        expect(codes.has(code), `${c.slug} ${code}`).toBe(true);
        for (const t of c.treatments) {
          const out = prescriptionInstructions(c.slug, t.treatment_id, t.strengths[0]!, [code]);
          expect(out.lines.some((l) => l.rule === code), `${c.slug} ${code} ${t.treatment_id}`).toBe(line.treatments.includes(t.treatment_id));
        }
      }
    }
  });

  it('sildenafil with ritonavir or cobicistat: 25 mg, at most one dose in 48 hours (Viagra SmPC 4.2, 4.5)', () => {
    const out = prescriptionInstructions('sexual_health', 'sildenafil', '25 mg', ['SILDENAFIL_25MG_CYP3A4_INHIBITOR']);
    expect(out.text).toMatch(/at most one 25 mg dose in 48 hours/);
    expect(out.lines[1]!.source).toMatch(/E2/);
    expect(prescriptionInstructions('sexual_health', 'sildenafil', '50 mg', []).text).not.toMatch(/48 hours/);
  });

  it('an unknown treatment or strength throws instead of printing nothing', () => {
    expect(() => prescriptionInstructions('sexual_health', 'sildenafil', '75 mg', [])).toThrow(/posology/);
    expect(() => prescriptionInstructions('sexual_health', 'vardenafil', '10 mg', [])).toThrow(/posology/);
  });

  it('the loader refuses a catalogue without a posology for a strength, or a strength limit without its instruction', () => {
    const treatments = [{ treatment_id: 'x', strengths: ['1 mg', '2 mg'] }];
    const limit = { code: 'X_LIMIT', kind: 'limit_strengths' as const, source: 'S', when: { answer: 'a', eq: true }, treatments: ['x'], strengths: ['1 mg'] };
    expect(checkInstructions({ posology: { x: { strengths: { '1 mg': 'Take one 1 mg tablet a day with water.' }, source: 'S' } }, rules: {} }, treatments, [limit])).toEqual([
      'instructions: no posology for x 2 mg',
      'instructions: the strength limit X_LIMIT has no instruction',
    ]);
    const ok = { posology: { x: { default: 'Take one {dosage} tablet a day with water.', source: 'S' } }, rules: { X_LIMIT: { treatments: ['x'], text: 'Because of it: at most 1 mg a day.', source: 'S' } } };
    expect(checkInstructions(ok, treatments, [limit])).toEqual([]);
    expect(checkInstructions({ ...ok, rules: { X_LIMIT: { treatments: ['x'], text: 'Because of it: a lower dose only.', source: 'S' } } }, treatments, [limit])).toEqual(['instructions: X_LIMIT does not name 1 mg']);
  });
});

describe('over HTTP: the approval prints the instructions on the prescription, its PDF and the order', () => {
  let ctx: TestContext;
  let doctor: Patient;
  beforeAll(async () => {
    ctx = await createTestContext();
    // Emergency contraception is sold for delivery only when it arrives in time: a fixed working-day morning.
    await toWorkingDayMorning(ctx);
    doctor = await newStaff(ctx, 'doctor');
  });
  afterAll(async () => ctx?.close());

  it('sildenafil 25 mg for a patient on ritonavir: posology, the 48-hour limit and the doctor’s note', async () => {
    const p = await seedPatient(ctx, { date_of_birth: '1970-02-02', country_of_residence: 'DEU', gender: '0', locale: 'en' });
    expect((await callAsFresh(ctx, p, 'PATCH', '/v1/users/questionnaires/sexual_health/progress/', { data: withAnswers(FIXTURES.sexual_health.eligible, v(2, 'cyp3a4_inhibitors', true)) })).status).toBe(200);
    expect((await callAsFresh(ctx, p, 'POST', '/v1/users/questionnaires/sexual_health/submit/')).status).toBeLessThan(300);
    const { session } = await paySandbox(ctx, p, { category: 'sexual_health', plan: 'one_off', treatment_id: 'sildenafil', dosage: '25 mg' });
    const ok = await callAsFresh(ctx, doctor, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { instructions: 'Review with your HIV clinic at the next visit.' });
    expect(ok.status, ok.text).toBe(200);

    const rx = (await callAsFresh(ctx, p, 'GET', '/v1/users/prescriptions/')).body.results[0];
    expect(rx.instructions).toBe(`${prescriptionInstructions('sexual_health', 'sildenafil', '25 mg', ['SILDENAFIL_25MG_CYP3A4_INHIBITOR']).text}\nReview with your HIV clinic at the next visit.`);
    expect(rx.instructions).toMatch(/at most one 25 mg dose in 48 hours/);

    const order = (await callAsFresh(ctx, p, 'GET', '/v1/users/orders/')).body[0];
    expect(order.items[0]).toMatchObject({ treatment_id: 'sildenafil', dosage: '25 mg', instructions: rx.instructions });

    const res = await ctx.app.inject({ method: 'GET', url: `/v1/users/prescriptions/${rx.id}/pdf/`, headers: { authorization: `Bearer ${p.access}` } });
    expect(res.statusCode).toBe(200);
    const text = (await pdfText(res.rawPayload)).replace(/\s+/g, ' ');
    expect(text).toContain('at most one 25 mg dose in 48 hours');
    expect(text).toContain('Take one 25 mg tablet about 1 hour before sexual activity');
  });

  it('without a doctor’s note the instructions are the catalogue’s, never empty (levonorgestrel 3 mg at 90 kg)', async () => {
    const p = await seedPatient(ctx, { date_of_birth: '1990-02-02', country_of_residence: 'DEU', gender: '1', locale: 'en' });
    await callAsFresh(ctx, p, 'PATCH', '/v1/users/questionnaires/emergency_contraception/progress/', { data: withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'weight_kg', 90)) });
    expect((await callAsFresh(ctx, p, 'POST', '/v1/users/questionnaires/emergency_contraception/submit/')).status).toBeLessThan(300);
    const { session } = await paySandbox(ctx, p, { category: 'emergency_contraception', plan: 'one_off', treatment_id: 'levonorgestrel', dosage: '3 mg' });
    const ok = await callAsFresh(ctx, doctor, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, {});
    expect(ok.status, ok.text).toBe(200);
    const rx = (await callAsFresh(ctx, p, 'GET', '/v1/users/prescriptions/')).body.results[0];
    expect(rx.instructions).toBe(prescriptionInstructions('emergency_contraception', 'levonorgestrel', '3 mg', ['LEVONORGESTREL_WEIGHT_OVER_70KG_OR_BMI_OVER_26']).text);
    expect(rx.instructions).toMatch(/two 1\.5 mg tablets together/);
  });
});
