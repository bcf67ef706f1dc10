// Answer sets per category: an eligible baseline, an ineligible variant and an emergency variant.
import type { AnswerItem } from '../src/modules/questionnaires/engine.ts';

export const v = (step_id: number, question_key: string, value: string | number | boolean): AnswerItem => ({ step_id, question_key, value });
export const m = (step_id: number, question_key: string, options: string[]): AnswerItem => ({ step_id, question_key, values: Object.fromEntries(options.map((o) => [o, true])) });
export const none = m(1, 'urgent_symptoms', ['none']);

/** Replaces (or adds) answers by question_key. */
export const withAnswers = (base: AnswerItem[], ...changes: AnswerItem[]) => [
  ...base.filter((a) => !changes.some((c) => c.question_key === a.question_key)),
  ...changes,
];

export interface CategoryFixture {
  gender: '0' | '1';
  eligible: AnswerItem[];
  ineligible: AnswerItem[];
  emergency: AnswerItem[];
}

const wl = [none, v(2, 'height_cm', 170), v(2, 'weight_kg', 100), m(2, 'weight_conditions', ['none']), v(3, 'mtc_or_men2', false), v(3, 'glp1_allergy', false), v(3, 'pancreatitis_history', false), v(3, 'other_glp1', false), v(3, 'insulin_or_sulfonylurea', false), v(3, 'eating_disorder', false)];
/** Version 2: every product asks for hypersensitivity (SmPC 4.3). */
const noAllergy = m(2, 'hypersensitivity', ['none']);
const hair = [none, v(2, 'hair_loss_pattern', 'gradual'), v(2, 'bph_5ari', false), v(2, 'depression_history', false), v(2, 'prostate_testing', false), noAllergy, v(2, 'pregnant_contact', false)];
const ed = [none, v(2, 'nitrates', false), v(2, 'riociguat', false), m(2, 'heart_conditions', ['none']), v(2, 'alpha_blockers', false), v(2, 'cyp3a4_inhibitors', false), v(2, 'severe_kidney_impairment', false), v(2, 'priapism_risk_or_penile_deformity', false), noAllergy];
const pe = [none, v(2, 'diagnostic_criteria', true), m(2, 'contraindications', ['none']), v(2, 'local_anaesthetic_allergy', false), noAllergy];
const chl = [none, v(2, 'positive_naat', true), v(2, 'rectal_positive', false), v(2, 'pregnant', false), v(2, 'breastfeeding', false), v(2, 'recurring_symptoms', false), v(2, 'immunosuppressants', false), noAllergy];
const uti = [none, m(2, 'uti_symptoms', ['dysuria', 'frequency_urgency']), v(2, 'vaginal_discharge_or_itch', false), v(2, 'pregnant', false), m(2, 'exclusions', ['none']), v(2, 'kidney_disease', false), noAllergy];
const ec = [none, v(2, 'hours_since_unprotected_sex', 24), v(2, 'period_late', false), v(2, 'enzyme_inducers', false), v(2, 'severe_asthma_oral_steroids', false), v(2, 'severe_liver_impairment', false), v(2, 'ulipristal_last_5_days', false), v(2, 'ectopic_or_salpingitis_history', false), v(2, 'height_cm', 165), v(2, 'weight_kg', 60), v(2, 'breastfeeding', false), noAllergy];
/** Version 3: a kidney test within 12 months (EACS, BHIVA): 30 days before today; version 4 dates the hepatitis B test too. */
export const RECENT_RENAL_CHECK = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
const prep = [none, v(2, 'hiv_test', 'negative_within_7_days'), v(2, 'kidney_disease', false), v(2, 'last_renal_check_date', RECENT_RENAL_CHECK), v(2, 'last_renal_check_result', 'normal'), v(2, 'hbsag_result', 'negative'), v(2, 'hbsag_test_date', RECENT_RENAL_CHECK), v(2, 'nephrotoxic_drugs', false), noAllergy];

export const FIXTURES = {
  weight_loss: { gender: '0', eligible: wl, ineligible: withAnswers(wl, v(3, 'pancreatitis_history', true)), emergency: withAnswers(wl, m(1, 'urgent_symptoms', ['pancreatitis_symptoms'])) },
  hair_growth: { gender: '0', eligible: hair, ineligible: withAnswers(hair, v(2, 'hair_loss_pattern', 'sudden_or_patchy')), emergency: withAnswers(hair, m(1, 'urgent_symptoms', ['suicidal_thoughts'])) },
  sexual_health: { gender: '0', eligible: ed, ineligible: withAnswers(ed, v(2, 'nitrates', true)), emergency: withAnswers(ed, m(1, 'urgent_symptoms', ['erection_over_4h'])) },
  premature_ejaculation: { gender: '0', eligible: pe, ineligible: withAnswers(pe, m(2, 'contraindications', ['fainting_history']), v(2, 'local_anaesthetic_allergy', true)), emergency: withAnswers(pe, m(1, 'urgent_symptoms', ['fainting'])) },
  chlamydia: { gender: '1', eligible: chl, ineligible: withAnswers(chl, v(2, 'positive_naat', false)), emergency: withAnswers(chl, m(1, 'urgent_symptoms', ['pelvic_pain_fever'])) },
  urinary_tract_infection: { gender: '1', eligible: uti, ineligible: withAnswers(uti, v(2, 'pregnant', true)), emergency: withAnswers(uti, m(1, 'urgent_symptoms', ['sepsis_signs'])) },
  emergency_contraception: { gender: '1', eligible: ec, ineligible: withAnswers(ec, v(2, 'hours_since_unprotected_sex', 121)), emergency: withAnswers(ec, m(1, 'urgent_symptoms', ['pregnancy_pain_or_bleeding'])) },
  hiv_prep: { gender: '0', eligible: prep, ineligible: withAnswers(prep, v(2, 'hiv_test', 'positive')), emergency: withAnswers(prep, m(1, 'urgent_symptoms', ['exposure_last_72h'])) },
} satisfies Record<string, CategoryFixture>;
