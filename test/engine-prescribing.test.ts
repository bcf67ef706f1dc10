// Table-driven tests of the pure prescribing rules (src/modules/questionnaires/prescribing.ts):
// titration from the first step, step-up timing, side effects, the breaks-in-supply thresholds at
// their boundaries, exclusions by the engine's result, and the renewal rule set; plus properties.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currentVersion, findTreatment, getCategory } from '../src/modules/questionnaires/catalogue.ts';
import { daysSince, evaluate, type AnswerItem, type EngineProfile } from '../src/modules/questionnaires/engine.ts';
import { prescribingFor, ruleFacts } from '../src/modules/questionnaires/prescribing-catalogue.ts';
import { enrichReasons } from '../src/modules/consultations/prescribing.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';
import { DAY_MS, NO_STEP_UP_MAX_DAYS, STEP_DOWN_MAX_DAYS, doseVerdict, exclusionCodes, lastDayAtCurrentDose, prescribingVerdict, renewalRuleSet, strengthLimits, type EngineVerdict, type SupplyHistory, type VerdictReason } from '../src/modules/questionnaires/prescribing.ts';

const NOW = new Date('2026-06-15T12:00:00Z');
const sema = findTreatment('weight_loss', 'semaglutide')!;
const tirz = findTreatment('weight_loss', 'tirzepatide')!;
const dapox = findTreatment('premature_ejaculation', 'dapoxetine')!;
const at = (days: number) => new Date(NOW.getTime() + days * DAY_MS);
/** On `dosage` since `onDays` before the supply ended, which was `gapDays` ago. */
const hist = (treatment_id: string, dosage: string, onDays: number, gapDays: number): SupplyHistory => ({
  treatment_id, dosage, dose_since: at(-gapDays - onDays), supplied_until: at(-gapDays),
});
const SEMA = { missedDoseDays: prescribingFor('weight_loss').titration.semaglutide!.missed_dose_days! };
const TIRZ = { missedDoseDays: prescribingFor('weight_loss').titration.tirzepatide!.missed_dose_days! };

describe('the titration facts come from the catalogue with their sources', () => {
  it('semaglutide 5 days [S1], tirzepatide 4 days [S2b]', () => {
    expect(prescribingFor('weight_loss').titration).toEqual({ semaglutide: { missed_dose_days: 5, source: 'S1' }, tirzepatide: { missed_dose_days: 4, source: 'S2b' } });
    expect(prescribingFor('premature_ejaculation').titration.dapoxetine).toMatchObject({ first_supply_strengths: ['30 mg'], source: expect.stringContaining('P1') });
  });
});

describe('doseVerdict', () => {
  const cases: { name: string; t: typeof sema; h: SupplyHistory | null; opts?: object; allowed: string[]; resume: string; codes: string[] }[] = [
    { name: 'first supply: first step only', t: sema, h: null, allowed: ['0.25 mg'], resume: '0.25 mg', codes: ['TITRATION_STARTS_AT_FIRST_STEP'] },
    { name: 'first supply of tirzepatide', t: tirz, h: null, allowed: ['2.5 mg'], resume: '2.5 mg', codes: ['TITRATION_STARTS_AT_FIRST_STEP'] },
    { name: 'history of another drug counts as none (a switch)', t: tirz, h: hist('semaglutide', '1 mg', 84, 0), allowed: ['2.5 mg'], resume: '2.5 mg', codes: ['TITRATION_STARTS_AT_FIRST_STEP'] },
    { name: '4 weeks at 0.25, no gap: one step up', t: sema, h: hist('semaglutide', '0.25 mg', 28, 0), opts: SEMA, allowed: ['0.25 mg', '0.5 mg'], resume: '0.25 mg', codes: [] },
    { name: '27 days at 0.25: too early', t: sema, h: hist('semaglutide', '0.25 mg', 27, 0), opts: SEMA, allowed: ['0.25 mg'], resume: '0.25 mg', codes: ['STEP_UP_TOO_EARLY'] },
    { name: 'side effects: no step up', t: sema, h: hist('semaglutide', '0.5 mg', 28, 0), opts: { ...SEMA, sideEffects: true }, allowed: ['0.25 mg', '0.5 mg'], resume: '0.5 mg', codes: ['STEP_UP_WITH_SIDE_EFFECTS'] },
    { name: 'top of the ladder: held', t: sema, h: hist('semaglutide', '2.4 mg', 200, 0), opts: SEMA, allowed: sema.dosage_ladder!, resume: '2.4 mg', codes: [] },
    { name: 'semaglutide 5 days late: still a late dose', t: sema, h: hist('semaglutide', '0.5 mg', 28, 5), opts: SEMA, allowed: ['0.25 mg', '0.5 mg', '1 mg'], resume: '0.5 mg', codes: [] },
    { name: 'semaglutide 6 days late: skipped, no step up', t: sema, h: hist('semaglutide', '0.5 mg', 28, 6), opts: SEMA, allowed: ['0.25 mg', '0.5 mg'], resume: '0.5 mg', codes: ['SUPPLY_BREAK_NO_STEP_UP'] },
    { name: 'tirzepatide 4 days late: still a late dose', t: tirz, h: hist('tirzepatide', '5 mg', 28, 4), opts: TIRZ, allowed: ['2.5 mg', '5 mg', '7.5 mg'], resume: '5 mg', codes: [] },
    { name: 'tirzepatide 5 days late: no step up', t: tirz, h: hist('tirzepatide', '5 mg', 28, 5), opts: TIRZ, allowed: ['2.5 mg', '5 mg'], resume: '5 mg', codes: ['SUPPLY_BREAK_NO_STEP_UP'] },
    { name: `${NO_STEP_UP_MAX_DAYS} days: no step up`, t: sema, h: hist('semaglutide', '1 mg', 28, NO_STEP_UP_MAX_DAYS), opts: SEMA, allowed: ['0.25 mg', '0.5 mg', '1 mg'], resume: '1 mg', codes: ['SUPPLY_BREAK_NO_STEP_UP'] },
    { name: `${NO_STEP_UP_MAX_DAYS + 1} days: one step lower`, t: sema, h: hist('semaglutide', '1 mg', 28, NO_STEP_UP_MAX_DAYS + 1), opts: SEMA, allowed: ['0.25 mg', '0.5 mg'], resume: '0.5 mg', codes: ['SUPPLY_BREAK_STEP_DOWN'] },
    { name: `${STEP_DOWN_MAX_DAYS} days: one step lower`, t: sema, h: hist('semaglutide', '1 mg', 28, STEP_DOWN_MAX_DAYS), opts: SEMA, allowed: ['0.25 mg', '0.5 mg'], resume: '0.5 mg', codes: ['SUPPLY_BREAK_STEP_DOWN'] },
    { name: 'one step lower never goes below the first step', t: sema, h: hist('semaglutide', '0.25 mg', 28, 20), opts: SEMA, allowed: ['0.25 mg'], resume: '0.25 mg', codes: ['SUPPLY_BREAK_STEP_DOWN'] },
    { name: `${STEP_DOWN_MAX_DAYS + 1} days: restart`, t: sema, h: hist('semaglutide', '1.7 mg', 28, STEP_DOWN_MAX_DAYS + 1), opts: SEMA, allowed: ['0.25 mg'], resume: '0.25 mg', codes: ['SUPPLY_BREAK_RESTART_TITRATION'] },
    { name: 'the issue: 9 weeks paused at 0.25 mg', t: sema, h: hist('semaglutide', '0.25 mg', 56, 63), opts: SEMA, allowed: ['0.25 mg'], resume: '0.25 mg', codes: ['SUPPLY_BREAK_RESTART_TITRATION'] },
    { name: 'no window in the catalogue: any gap stops the step up', t: sema, h: hist('semaglutide', '0.25 mg', 28, 1), allowed: ['0.25 mg'], resume: '0.25 mg', codes: ['SUPPLY_BREAK_NO_STEP_UP'] },
    { name: 'not titrated: every strength', t: dapox, h: null, allowed: ['30 mg', '60 mg'], resume: '30 mg', codes: [] },
    { name: 'dapoxetine first supply: 30 mg [P1]', t: dapox, h: null, opts: { firstSupplyStrengths: prescribingFor('premature_ejaculation').titration.dapoxetine!.first_supply_strengths }, allowed: ['30 mg'], resume: '30 mg', codes: ['FIRST_SUPPLY_STARTING_DOSE'] },
    { name: 'dapoxetine after a supply: 30 or 60 mg', t: dapox, h: hist('dapoxetine', '30 mg', 30, 10), opts: { firstSupplyStrengths: ['30 mg'] }, allowed: ['30 mg', '60 mg'], resume: '30 mg', codes: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = doseVerdict(c.t, c.h, NOW, c.opts);
      expect({ allowed: d.allowed, resume: d.resume, codes: d.codes }).toEqual({ allowed: c.allowed, resume: c.resume, codes: c.codes });
      expect(d.explanation.length).toBe(d.titrated || d.codes.length ? 1 : 0);
    });
  }

  it('property: never more than one step above the current dose, never above it after a break, first step always allowed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 120 }), fc.boolean(), (i, onDays, gap, side) => {
        const ladder = sema.dosage_ladder!;
        const d = doseVerdict(sema, hist('semaglutide', ladder[i]!, onDays, gap), NOW, { ...SEMA, sideEffects: side });
        const max = d.allowed.length - 1;
        expect(d.allowed[0]).toBe(ladder[0]);
        expect(max).toBeLessThanOrEqual(i + 1);
        if (gap > SEMA.missedDoseDays || side || onDays < 28) expect(max).toBeLessThanOrEqual(i);
        if (gap > NO_STEP_UP_MAX_DAYS) expect(max).toBeLessThan(Math.max(i, 1));
        expect(d.allowed).toContain(d.resume);
      }),
    );
  });
});

describe('prescribingVerdict and exclusions', () => {
  const pe = { outcome: 'eligible', treatments: ['lidocaine-prilocaine-spray'], reasons: [{ code: 'DAPOXETINE_CONTRAINDICATION', kind: 'exclude_treatment' as const, treatments: ['dapoxetine'] }] };
  it('an excluded treatment is refused with the engine codes that excluded it', () => {
    const v = prescribingVerdict({ engine: pe, treatment: dapox, dosage: '60 mg', history: null, now: NOW });
    expect(v).toMatchObject({ ok: false, refused: 'treatment', codes: ['DAPOXETINE_CONTRAINDICATION'], allowed_treatments: ['lidocaine-prilocaine-spray'] });
  });
  it('cautions do not name a refusal; an unexplained absence is TREATMENT_NOT_ALLOWED', () => {
    expect(exclusionCodes({ outcome: 'eligible', treatments: [], reasons: [{ code: 'X', kind: 'caution', treatments: ['dapoxetine'] }] }, 'dapoxetine')).toEqual(['TREATMENT_NOT_ALLOWED']);
    expect(exclusionCodes({ outcome: 'ineligible', treatments: [], reasons: [{ code: 'UNDER_18', kind: 'ineligible', treatments: [] }] }, 'dapoxetine')).toEqual(['UNDER_18']);
  });
  it('an allowed treatment above the allowed dose is a dosage refusal with the titration code', () => {
    const v = prescribingVerdict({ engine: { outcome: 'eligible', treatments: ['semaglutide', 'tirzepatide'], reasons: [] }, treatment: tirz, dosage: '15 mg', history: null, now: NOW });
    expect(v).toMatchObject({ ok: false, refused: 'dosage', codes: ['TITRATION_STARTS_AT_FIRST_STEP'], allowed_dosages: ['2.5 mg'] });
    expect(prescribingVerdict({ engine: { outcome: 'eligible', treatments: ['tirzepatide'], reasons: [] }, treatment: tirz, dosage: '2.5 mg', history: null, now: NOW }).ok).toBe(true);
  });
});

describe('the renewal rule set', () => {
  const profile: EngineProfile = { date_of_birth: '1985-04-12', gender: '0', country_of_residence: 'DEU' };
  const wl = currentVersion('weight_loss')!;
  const set = (changed: boolean) => renewalRuleSet(wl, prescribingFor('weight_loss').renewal, changed);
  const base = [
    { step_id: 101, question_key: 'current_weight_kg', value: 70 },
    { step_id: 101, question_key: 'significant_side_effects', value: false },
    { step_id: 101, question_key: 'new_medication', value: false },
    { step_id: 110, question_key: 'urgent_symptoms', values: { none: true } },
    { step_id: 111, question_key: 'glp1_allergy', value: false },
    { step_id: 111, question_key: 'pancreatitis_history', value: false },
    { step_id: 111, question_key: 'other_glp1', value: false },
    { step_id: 111, question_key: 'mtc_or_men2', value: false },
    { step_id: 111, question_key: 'insulin_or_sulfonylurea', value: false },
  ];
  const run = (answers: typeof base, changed = false) => evaluate(set(changed) as any, profile, answers, NOW);
  const cases: [string, (typeof base)[number], string, string][] = [
    ['chest pain', { step_id: 110, question_key: 'urgent_symptoms', values: { chest_pain: true } } as any, 'emergency', 'RED_FLAG_CHEST_PAIN'],
    ['pancreatitis symptoms', { step_id: 110, question_key: 'urgent_symptoms', values: { pancreatitis_symptoms: true } } as any, 'emergency', 'RED_FLAG_PANCREATITIS'],
    ['pancreatitis', { step_id: 111, question_key: 'pancreatitis_history', value: true }, 'ineligible', 'PANCREATITIS_HISTORY'],
    ['other GLP-1', { step_id: 111, question_key: 'other_glp1', value: true }, 'ineligible', 'OTHER_GLP1'],
    ['allergy', { step_id: 111, question_key: 'glp1_allergy', value: true }, 'ineligible', 'HYPERSENSITIVITY'],
    ['MTC/MEN2', { step_id: 111, question_key: 'mtc_or_men2', value: true }, 'ineligible', 'MTC_OR_MEN2_HISTORY'],
  ];
  for (const [name, change, outcome, code] of cases) {
    it(`${name}: ${outcome} ${code}`, () => {
      const r = run([...base.filter((a) => a.question_key !== change.question_key), change]);
      expect(r.outcome).toBe(outcome);
      expect(r.reasons.map((x) => x.code)).toEqual([code]);
    });
  }
  it('a clean screen is eligible; a weight that would be BMI < 27 does not end a treatment at renewal', () => {
    expect(run(base).outcome).toBe('eligible');
    const review = [...base, { step_id: 2, question_key: 'height_cm', value: 180 }, { step_id: 2, question_key: 'weight_kg', value: 70 }];
    // The starting thresholds (27/30) are left out; only version 3's floor at renewal reads the BMI.
    expect(set(true).rules.filter((r) => JSON.stringify(r.when).includes('bmi')).map((r) => r.code)).toEqual(['BMI_BELOW_18_5_AT_RENEWAL']);
    expect(run(review, true).outcome).toBe('eligible');
  });
  it('a key asked by both screens is one question (the safety step)', () => {
    const keys = set(true).steps.flatMap((s) => s.questions.map((q) => q.question_key));
    expect(keys.filter((k) => k === 'urgent_symptoms')).toHaveLength(1);
    expect(new Set(keys).size).toBe(keys.length);
  });
  it("the version's renewal rules and the prescribing catalogue's combine: one code on two questions stays twice, an identical rule once", () => {
    const hg = currentVersion('hair_growth')!;
    const mood = { code: 'RED_FLAG_SUICIDAL_THOUGHTS', kind: 'red_flag' as const, source: 'H2', when: { answer: 'mood_changes', eq: 'suicidal_thoughts' } };
    const extra = prescribingFor('hair_growth').renewal;
    const combined = renewalRuleSet({ ...hg, renewal: { ...hg.renewal, rules: [mood, extra.rules[0]] } } as any, extra, false);
    expect(combined.rules.filter((r) => r.code === 'RED_FLAG_SUICIDAL_THOUGHTS')).toHaveLength(2);
    expect(combined.rules.filter((r) => r.code === extra.rules[0]?.code)).toHaveLength(1);
  });
  it('without a declared change only the safety screen is asked; with one, the rest of the questionnaire, without empty steps', () => {
    const safetyKeys = [...wl.renewal.safety_steps, ...prescribingFor('weight_loss').renewal.steps].flatMap((s) => s.questions.map((q) => q.question_key));
    expect(set(false).steps.flatMap((s) => s.questions.map((q) => q.question_key))).toEqual(safetyKeys);
    const review = set(true).steps.slice(set(false).steps.length);
    const expected = wl.steps.flatMap((s) => s.questions.map((q) => q.question_key)).filter((k) => !safetyKeys.includes(k));
    expect(expected.length).toBeGreaterThan(0);
    expect(review.flatMap((s) => s.questions.map((q) => q.question_key))).toEqual(expected);
    expect(review.every((s) => s.questions.length > 0)).toBe(true);
  });
  it("with a declared change the version's rules apply too, except those on the BMI", () => {
    const own = (changed: boolean) => set(changed).rules.map((r) => r.code);
    const bmiRules = wl.rules.filter((r) => JSON.stringify(r.when).includes('"computed":"bmi"')).map((r) => r.code);
    const others = wl.rules.filter((r) => !bmiRules.includes(r.code)).map((r) => r.code);
    expect(bmiRules).toEqual(expect.arrayContaining(['BMI_BELOW_27']));
    expect(own(true)).toEqual(expect.arrayContaining(others));
    for (const code of bmiRules) expect(own(true)).not.toContain(code);
    expect(others.filter((c) => !own(false).includes(c)).length).toBeGreaterThan(0);
    // A version without renewal rules of its own: the prescribing catalogue's only.
    const bare = renewalRuleSet({ ...wl, renewal: { ...wl.renewal, rules: undefined } }, prescribingFor('weight_loss').renewal, false);
    expect(bare.rules.map((r) => r.code)).toEqual(prescribingFor('weight_loss').renewal.rules.map((r) => r.code));
  });
  it('days_since counts whole days to the evaluation date', () => {
    expect(daysSince('2026-03-17', NOW)).toBe(90);
    expect(daysSince('2026-06-15', NOW)).toBe(0);
    expect(daysSince('not a date', NOW)).toBeNull();
  });
});

// Interactions narrow the strengths; absolute contraindications; every rule an override lifts.
describe('strength limits and absolute contraindications', () => {
  const man: EngineProfile = { date_of_birth: '1985-04-12', gender: '0', country_of_residence: 'DEU' };
  const woman: EngineProfile = { ...man, gender: '1' };
  const sild = findTreatment('sexual_health', 'sildenafil')!;
  const lng = findTreatment('emergency_contraception', 'levonorgestrel')!;
  const engineOf = (slug: string, profile: EngineProfile, answers: AnswerItem[]) => {
    const out = evaluate(currentVersion(slug)!, profile, answers, NOW);
    return enrichReasons(slug, { outcome: out.outcome, treatments: out.treatments, reasons: [...out.reasons, ...out.cautions] });
  };
  const ed = (...changes: AnswerItem[]) => engineOf('sexual_health', man, withAnswers(FIXTURES.sexual_health.eligible, ...changes));
  const sildOpts = { firstSupplyStrengths: prescribingFor('sexual_health').titration.sildenafil!.first_supply_strengths };

  it('sildenafil with ritonavir: 25 mg only, first supply or not [E2]', () => {
    const engine = ed(v(2, 'cyp3a4_inhibitors', true));
    for (const history of [null, { treatment_id: 'sildenafil', dosage: '50 mg', dose_since: at(-60), supplied_until: at(-30) }]) {
      const v50 = prescribingVerdict({ engine, treatment: sild, dosage: '50 mg', history, now: NOW, options: sildOpts });
      expect(v50).toMatchObject({ ok: false, refused: 'dosage', codes: ['SILDENAFIL_25MG_CYP3A4_INHIBITOR'], allowed_dosages: ['25 mg'], absolute_codes: [] });
      expect(prescribingVerdict({ engine, treatment: sild, dosage: '100 mg', history, now: NOW, options: sildOpts }).ok).toBe(false);
      expect(prescribingVerdict({ engine, treatment: sild, dosage: '25 mg', history, now: NOW, options: sildOpts }).ok).toBe(true);
    }
  });

  it('sildenafil with an alpha-blocker: a first supply at 25 mg; after one, the usual strengths [E2]', () => {
    const engine = ed(v(2, 'alpha_blockers', true));
    expect(prescribingVerdict({ engine, treatment: sild, dosage: '50 mg', history: null, now: NOW, options: sildOpts })).toMatchObject({ ok: false, codes: ['ALPHA_BLOCKER_START_25MG'], allowed_dosages: ['25 mg'] });
    const after = { treatment_id: 'sildenafil', dosage: '25 mg', dose_since: at(-40), supplied_until: at(-10) };
    expect(prescribingVerdict({ engine, treatment: sild, dosage: '50 mg', history: after, now: NOW, options: sildOpts }).ok).toBe(true);
    // Without the interaction a first supply may be 50 mg.
    expect(prescribingVerdict({ engine: ed(), treatment: sild, dosage: '50 mg', history: null, now: NOW, options: sildOpts }).ok).toBe(true);
  });

  it('levonorgestrel with enzyme inducers or above 70 kg / BMI 26: 3 mg only (FSRH, EC3, EC3b)', () => {
    const ec = (...changes: AnswerItem[]) => engineOf('emergency_contraception', woman, withAnswers(FIXTURES.emergency_contraception.eligible, ...changes));
    for (const engine of [ec(v(2, 'enzyme_inducers', true)), ec(v(2, 'weight_kg', 90)), ec(v(2, 'weight_kg', 68), v(2, 'height_cm', 158))]) {
      expect(prescribingVerdict({ engine, treatment: lng, dosage: '1.5 mg', history: null, now: NOW })).toMatchObject({ ok: false, refused: 'dosage', allowed_dosages: ['3 mg'] });
      expect(prescribingVerdict({ engine, treatment: lng, dosage: '3 mg', history: null, now: NOW }).ok).toBe(true);
    }
    expect(prescribingVerdict({ engine: ec(), treatment: lng, dosage: '1.5 mg', history: null, now: NOW }).ok).toBe(true);
  });

  it('a caution stored by version 2 binds as today’s strength limit', () => {
    const v2 = getCategory('sexual_health')!.versions.find((x) => x.number === 2)!;
    const out = evaluate(v2, man, withAnswers(FIXTURES.sexual_health.eligible, v(2, 'cyp3a4_inhibitors', true)), NOW);
    expect(out.cautions.map((r) => r.code)).toContain('SILDENAFIL_25MG_CYP3A4_INHIBITOR');
    const engine = enrichReasons('sexual_health', { outcome: out.outcome, treatments: out.treatments, reasons: [...out.reasons, ...out.cautions] });
    expect(prescribingVerdict({ engine, treatment: sild, dosage: '50 mg', history: null, now: NOW, options: sildOpts }).codes).toEqual(['SILDENAFIL_25MG_CYP3A4_INHIBITOR']);
  });

  it('absolute: nitrates, riociguat, MAOI or SSRI with dapoxetine, finasteride for women, MTC/MEN2; relative: the others', () => {
    const cases: [string, EngineProfile, AnswerItem[], string, string, string][] = [
      ['sexual_health', man, [v(2, 'nitrates', true)], 'sildenafil', '50 mg', 'NITRATES'],
      ['sexual_health', man, [v(2, 'riociguat', true)], 'tadalafil', '10 mg', 'RIOCIGUAT'],
      ['premature_ejaculation', man, [m(2, 'contraindications', ['maoi'])], 'dapoxetine', '60 mg', 'DAPOXETINE_CONTRAINDICATION'],
      ['premature_ejaculation', man, [m(2, 'contraindications', ['serotonergic_drugs'])], 'dapoxetine', '30 mg', 'DAPOXETINE_CONTRAINDICATION'],
      ['hair_growth', woman, [v(2, 'pregnant_or_planning', false)], 'finasteride', '1 mg', 'FINASTERIDE_NOT_FOR_WOMEN'],
      ['weight_loss', man, [v(3, 'mtc_or_men2', true)], 'semaglutide', '0.25 mg', 'MTC_OR_MEN2_HISTORY'],
      ['chlamydia', woman, [v(2, 'pregnant', true)], 'doxycycline', '100 mg', 'DOXYCYCLINE_IN_PREGNANCY'],
      ['hiv_prep', man, [v(2, 'hiv_test', 'positive')], 'emtricitabine-tenofovir', '200/245 mg', 'HIV_POSITIVE'],
    ];
    for (const [slug, profile, changes, treatmentId, dosage, code] of cases) {
      const engine = engineOf(slug, profile, withAnswers(FIXTURES[slug as keyof typeof FIXTURES].eligible, ...changes));
      const verdict = prescribingVerdict({ engine, treatment: findTreatment(slug, treatmentId)!, dosage, history: null, now: NOW, options: { firstSupplyStrengths: prescribingFor(slug).titration[treatmentId]?.first_supply_strengths } });
      expect(verdict.absolute_codes, `${slug} ${code}`).toEqual([code]);
    }
    // Relative: an exclusion a doctor may lift with a written reason.
    const relative = engineOf('premature_ejaculation', man, withAnswers(FIXTURES.premature_ejaculation.eligible, v(2, 'diagnostic_criteria', false)));
    const v60 = prescribingVerdict({ engine: relative, treatment: dapox, dosage: '60 mg', history: null, now: NOW, options: { firstSupplyStrengths: ['30 mg'] } });
    expect(v60).toMatchObject({ ok: false, refused: 'treatment', codes: ['DIAGNOSTIC_CRITERIA_NOT_MET'], absolute_codes: [] });
    // Every rule the override lifts: the exclusion and the starting dose.
    expect(v60.override_codes).toEqual(['DIAGNOSTIC_CRITERIA_NOT_MET', 'FIRST_SUPPLY_STARTING_DOSE']);
  });

  it('every absolute code of the prescribing catalogue names an exclusion rule with its source', () => {
    for (const slug of ['sexual_health', 'premature_ejaculation', 'hair_growth', 'weight_loss', 'chlamydia', 'urinary_tract_infection', 'emergency_contraception', 'hiv_prep']) {
      const absolute = prescribingFor(slug).absolute;
      expect(Object.keys(absolute).length, slug).toBeGreaterThan(0);
      for (const [code, source] of Object.entries(absolute)) {
        expect(source.length).toBeGreaterThan(2);
        expect(ruleFacts(slug, code), `${slug} ${code}`).toMatchObject({ absolute: true, kind: expect.stringMatching(/^(ineligible|exclude_treatment)$/) });
      }
    }
  });
});

// Mutation testing of prescribing.ts (docs/testing.md) found these parts of the rules unasserted: the
// figures a verdict reports, the texts a doctor reads, the defaults, and the edges of the filters.
describe('doseVerdict: what the verdict reports, and its defaults', () => {
  it('reports the gap and the whole weeks at the dose; a supply still running is a gap of 0', () => {
    expect(doseVerdict(sema, hist('semaglutide', '0.5 mg', 35, 6), NOW, SEMA)).toMatchObject({ titrated: true, supply_gap_days: 6, weeks_on_dose: 5 });
    const running: SupplyHistory = { treatment_id: 'semaglutide', dosage: '0.5 mg', dose_since: at(-30), supplied_until: at(3) };
    expect(doseVerdict(sema, running, NOW, SEMA)).toMatchObject({ supply_gap_days: 0, weeks_on_dose: 4, codes: [], allowed: ['0.25 mg', '0.5 mg', '1 mg'] });
    // A first supply has neither figure.
    expect(doseVerdict(sema, null, NOW, SEMA)).toMatchObject({ supply_gap_days: null, weeks_on_dose: null });
  });

  it('a dose started minutes after the supply began still counts its 4 weeks (whole days first)', () => {
    const h: SupplyHistory = { treatment_id: 'semaglutide', dosage: '0.25 mg', dose_since: new Date(at(-28).getTime() + 5 * 60_000), supplied_until: at(0) };
    expect(doseVerdict(sema, h, NOW, SEMA)).toMatchObject({ weeks_on_dose: 4, codes: [], allowed: ['0.25 mg', '0.5 mg'] });
  });

  it('a dose not on the ladder counts as the first step; a gap of minutes is no gap', () => {
    expect(doseVerdict(sema, hist('semaglutide', '9 mg', 28, 0), NOW, SEMA)).toMatchObject({ allowed: ['0.25 mg', '0.5 mg'], resume: '0.25 mg' });
    const h: SupplyHistory = { treatment_id: 'semaglutide', dosage: '0.25 mg', dose_since: at(-28), supplied_until: new Date(NOW.getTime() - 60_000) };
    expect(doseVerdict(sema, h, NOW)).toMatchObject({ supply_gap_days: 0, codes: [] });
  });

  it('min_weeks_per_step from the catalogue, 4 when it gives none', () => {
    const slow = { ...sema, min_weeks_per_step: 8 };
    expect(doseVerdict(slow, hist('semaglutide', '0.25 mg', 49, 0), NOW, SEMA).codes).toEqual(['STEP_UP_TOO_EARLY']);
    expect(doseVerdict(slow, hist('semaglutide', '0.25 mg', 56, 0), NOW, SEMA).codes).toEqual([]);
    const unset = { ...sema, min_weeks_per_step: null };
    expect(doseVerdict(unset, hist('semaglutide', '0.25 mg', 27, 0), NOW, SEMA)).toMatchObject({ codes: ['STEP_UP_TOO_EARLY'], explanation: [expect.stringContaining('at least 4 weeks')] });
    expect(doseVerdict(unset, hist('semaglutide', '0.25 mg', 28, 0), NOW, SEMA).codes).toEqual([]);
  });

  it('explains each decision in words the doctor reads', () => {
    const explain = (h: SupplyHistory | null, opts: object = SEMA) => doseVerdict(sema, h, NOW, opts).explanation;
    expect(explain(null)).toEqual(['semaglutide: a first supply starts at the first step of the ladder (0.25 mg).']);
    expect(explain(hist('semaglutide', '1.7 mg', 28, 29))).toEqual(['1.7 mg supplied for 4 week(s), 29 day(s) without supply: more than 28 days without supply, titration restarts at 0.25 mg.']);
    expect(explain(hist('semaglutide', '1 mg', 28, 15))).toEqual(['1 mg supplied for 4 week(s), 15 day(s) without supply: more than 14 days without supply, resume one step lower (0.5 mg).']);
    expect(explain(hist('semaglutide', '1 mg', 28, 6))).toEqual(['1 mg supplied for 4 week(s), 6 day(s) without supply: more than the 5-day missed-dose window, no step up now.']);
    expect(explain(hist('semaglutide', '2.4 mg', 28, 0))).toEqual(['2.4 mg supplied for 4 week(s), 0 day(s) without supply: at the top of the ladder.']);
    expect(explain(hist('semaglutide', '1 mg', 21, 0))).toEqual(['1 mg supplied for 3 week(s), 0 day(s) without supply: a step up needs at least 4 weeks at the current dose.']);
    expect(explain(hist('semaglutide', '1 mg', 28, 0), { ...SEMA, sideEffects: true })).toEqual(['1 mg supplied for 4 week(s), 0 day(s) without supply: significant side effects, no step up (stay or step down).']);
    expect(explain(hist('semaglutide', '1 mg', 28, 0))).toEqual(['1 mg supplied for 4 week(s), 0 day(s) without supply: one step up (1.7 mg) is allowed.']);
    expect(doseVerdict(dapox, null, NOW, { firstSupplyStrengths: ['30 mg'] }).explanation).toEqual(['dapoxetine: a first supply starts at 30 mg.']);
    expect(doseVerdict(dapox, null, NOW, { firstSupplyStrengths: ['30 mg', '60 mg'] }).explanation).toEqual(['dapoxetine: a first supply starts at 30 mg or 60 mg.']);
  });

  it('a medicine without a ladder: a supply of another treatment is still a first supply; the last dose is resumed', () => {
    const first = { firstSupplyStrengths: ['30 mg'] };
    expect(doseVerdict(dapox, hist('lidocaine-prilocaine-spray', '60 mg', 30, 0), NOW, first)).toMatchObject({ titrated: false, allowed: ['30 mg'], codes: ['FIRST_SUPPLY_STARTING_DOSE'] });
    expect(doseVerdict(dapox, hist('dapoxetine', '60 mg', 30, 0), NOW, first)).toMatchObject({ titrated: false, allowed: ['30 mg', '60 mg'], resume: '60 mg', codes: [], supply_gap_days: null, weeks_on_dose: null });
    // A dose no longer among the strengths resumes at the first.
    expect(doseVerdict(dapox, hist('dapoxetine', '90 mg', 30, 0), NOW, first).resume).toBe('30 mg');
    // An empty first-supply list is no restriction.
    expect(doseVerdict(dapox, null, NOW, { firstSupplyStrengths: [] })).toMatchObject({ allowed: ['30 mg', '60 mg'], codes: [] });
  });

  it('an empty strength list is an error, not an undefined dose', () => {
    expect(() => doseVerdict({ ...dapox, strengths: [] }, null, NOW)).toThrow('no dose at 0 of []');
  });
  it('a planned break may resume at the current dose for 14 days after the supply ends', () => {
    expect(lastDayAtCurrentDose(NOW).toISOString()).toBe('2026-06-29T12:00:00.000Z');
  });
});

describe('prescribingVerdict: every layer, with its texts', () => {
  const eng = (reasons: VerdictReason[], treatments = ['sildenafil', 'tadalafil']): EngineVerdict => ({ outcome: 'eligible', treatments, reasons });
  const sild = findTreatment('sexual_health', 'sildenafil')!;
  const limit = (code: string, strengths: string[], extra: Partial<VerdictReason> = {}): VerdictReason => ({ code, kind: 'limit_strengths', treatments: ['sildenafil'], strengths, ...extra });
  const verdict = (engine: EngineVerdict, dosage: string, history: SupplyHistory | null = null) => prescribingVerdict({ engine, treatment: sild, dosage, history, now: NOW });

  it('two limits: only the strengths within both are allowed; each limit broken is named once', () => {
    const engine = eng([limit('A', ['25 mg', '50 mg']), limit('B', ['25 mg']), limit('B', ['25 mg'])]);
    const r = verdict(engine, '50 mg');
    expect(r).toMatchObject({ ok: false, refused: 'dosage', codes: ['B'], override_codes: ['B'], absolute_codes: [], allowed_dosages: ['25 mg'] });
    expect(new Set(r.explanation)).toEqual(new Set(['sildenafil: only 25 mg (B).']));
    expect(verdict(engine, '100 mg')).toMatchObject({ codes: ['A', 'B'], override_codes: ['A', 'B'] });
    expect(verdict(engine, '100 mg').explanation[0]).toBe('sildenafil: only 25 mg or 50 mg (A).');
    expect(verdict(engine, '25 mg')).toMatchObject({ ok: true, refused: null, codes: [], override_codes: [], absolute_codes: [], allowed_dosages: ['25 mg'], allowed_treatments: ['sildenafil', 'tadalafil'], explanation: [] });
  });

  it('limits that do not bind: another treatment, no strengths, a first-supply limit after a supply', () => {
    const after = hist('sildenafil', '50 mg', 30, 0);
    const engine = eng([
      { code: 'OTHER', kind: 'limit_strengths', treatments: ['tadalafil'], strengths: ['5 mg'] },
      { code: 'NO_LIST', kind: 'limit_strengths', treatments: ['sildenafil'], strengths: [] },
      { code: 'NO_STRENGTHS', kind: 'limit_strengths', treatments: ['sildenafil'] },
      { code: 'NO_TREATMENTS', kind: 'limit_strengths', strengths: ['25 mg'] } as VerdictReason,
      { code: 'CAUTION', kind: 'caution', treatments: ['sildenafil'], strengths: ['25 mg'] },
      limit('START', ['25 mg'], { first_supply_only: true }),
    ]);
    expect(strengthLimits(engine, 'sildenafil', after)).toEqual([]);
    expect(verdict(engine, '50 mg', after)).toMatchObject({ ok: true, allowed_dosages: ['25 mg', '50 mg', '100 mg'] });
    // A supply of another treatment does not lift the starting limit.
    expect(strengthLimits(engine, 'sildenafil', hist('tadalafil', '5 mg', 30, 0)).map((r) => r.code)).toEqual(['START']);
    expect(verdict(engine, '50 mg').codes).toEqual(['START']);
  });

  it('exclusions: rules naming the treatment or none; another treatment’s exclusion does not refuse it', () => {
    const reasons: VerdictReason[] = [
      { code: 'NOT_ME', kind: 'exclude_treatment', treatments: ['tadalafil'] },
      { code: 'ME', kind: 'exclude_treatment', treatments: ['sildenafil'] },
      { code: 'ME', kind: 'exclude_treatment', treatments: ['sildenafil'], absolute: true },
      { code: 'EVERYONE', kind: 'ineligible', treatments: [] },
      { code: 'LIMIT', kind: 'limit_strengths', treatments: ['sildenafil'], strengths: ['25 mg'], absolute: true },
    ];
    expect(exclusionCodes(eng(reasons, ['tadalafil']), 'sildenafil')).toEqual(['ME', 'EVERYONE']);
    expect(exclusionCodes(eng(reasons, ['sildenafil']), 'sildenafil')).toEqual([]);
    expect(exclusionCodes(eng([reasons[0]!], ['sildenafil']), 'tadalafil')).toEqual(['NOT_ME']);
    expect(exclusionCodes(eng([reasons[0]!], []), 'sildenafil')).toEqual(['TREATMENT_NOT_ALLOWED']);
    // A reason stored without its treatments list (older results) concerns every treatment.
    expect(exclusionCodes(eng([{ code: 'STORED', kind: 'ineligible' } as VerdictReason], []), 'sildenafil')).toEqual(['STORED']);
    const r = verdict(eng(reasons, []), '50 mg');
    // The limit's code is among what an override would lift, and it is absolute.
    expect(r).toMatchObject({ ok: false, refused: 'treatment', codes: ['ME', 'EVERYONE'], override_codes: ['ME', 'EVERYONE', 'LIMIT'], absolute_codes: ['ME', 'LIMIT'], allowed_treatments: [], allowed_dosages: [], dose: null });
    expect(r.explanation).toEqual(['sildenafil is not allowed by the eligibility result (ME, EVERYONE).']);
  });

  it('a dose refusal without a titration code is DOSAGE_NOT_ALLOWED; its explanation is the limits, then the dose', () => {
    const r = verdict(eng([]), '75 mg', hist('sildenafil', '50 mg', 30, 0));
    expect(r).toMatchObject({ ok: false, refused: 'dosage', codes: ['DOSAGE_NOT_ALLOWED'], override_codes: ['DOSAGE_NOT_ALLOWED'], dose: { allowed: ['25 mg', '50 mg', '100 mg'] } });
    const t = prescribingVerdict({ engine: eng([{ code: 'L', kind: 'limit_strengths', treatments: ['tirzepatide'], strengths: ['2.5 mg'] }], ['tirzepatide']), treatment: tirz, dosage: '5 mg', history: null, now: NOW });
    expect(t).toMatchObject({ codes: ['L', 'TITRATION_STARTS_AT_FIRST_STEP'], allowed_dosages: ['2.5 mg'] });
    expect(t.explanation).toEqual(['tirzepatide: only 2.5 mg (L).', 'tirzepatide: a first supply starts at the first step of the ladder (2.5 mg).']);
  });
});
