// Table-driven tests of the pure eligibility engine: every rule of every category, the boundaries
// (BMI 27 and 30, age 18 and 65, 72 and 120 hours) and every red flag; plus property tests.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CATEGORY_SLUGS, currentVersion, getCategory, listCategories, renewalScreen, type Question } from '../src/modules/questionnaires/catalogue.ts';
import { answerMap, evaluate, evaluateAt, onlinePrescribingRefusal, redFlags, type AnswerItem, type EngineProfile } from '../src/modules/questionnaires/engine.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';

const NOW = new Date('2026-06-15T12:00:00Z');
const profile = (p: Partial<EngineProfile> = {}): EngineProfile => ({ date_of_birth: '1985-04-12', gender: '0', country_of_residence: 'DEU', ...p });

interface Case {
  name: string;
  changes?: AnswerItem[];
  profile?: Partial<EngineProfile>;
  outcome: 'eligible' | 'ineligible' | 'emergency';
  codes?: string[];
  treatments?: string[];
  cautions?: string[];
  /** Strength limits (rule code -> the only strengths left) among the reasons. */
  limits?: Record<string, string[]>;
  /** Rule codes that must not fire. */
  absent?: string[];
  alternative?: string;
}

const female = { gender: '1' as const };
const wlF = [v(3, 'pregnant_or_planning', false), v(3, 'oral_contraceptive', false)];
const hw = (height: number, weight: number, conditions: string[] = ['none']) => [v(2, 'height_cm', height), v(2, 'weight_kg', weight), m(2, 'weight_conditions', conditions)];

const CASES: Record<string, Case[]> = {
  weight_loss: [
    { name: 'baseline BMI 34.6', outcome: 'eligible', treatments: ['semaglutide', 'tirzepatide'] },
    { name: 'BMI exactly 30, no condition', changes: hw(200, 120), outcome: 'eligible' },
    { name: 'BMI 29.99, no condition', changes: hw(200, 119.96), outcome: 'ineligible', codes: ['BMI_27_TO_30_WITHOUT_CONDITION'] },
    { name: 'BMI exactly 27 with hypertension', changes: hw(200, 108, ['hypertension']), outcome: 'eligible' },
    { name: 'BMI exactly 27 with sleep apnoea', changes: hw(200, 108, ['sleep_apnoea']), outcome: 'eligible' },
    { name: 'BMI exactly 27 without condition', changes: hw(200, 108), outcome: 'ineligible', codes: ['BMI_27_TO_30_WITHOUT_CONDITION'] },
    { name: 'BMI 26.99 with a condition', changes: hw(200, 107.96, ['prediabetes_or_type2']), outcome: 'ineligible', codes: ['BMI_BELOW_27'] },
    { name: 'age 17', profile: { date_of_birth: '2008-06-16' }, outcome: 'ineligible', codes: ['UNDER_18'] },
    { name: 'age exactly 18', profile: { date_of_birth: '2008-06-15' }, outcome: 'eligible' },
    { name: 'hypersensitivity', changes: [v(3, 'glp1_allergy', true)], outcome: 'ineligible', codes: ['HYPERSENSITIVITY'] },
    { name: 'MTC/MEN2', changes: [v(3, 'mtc_or_men2', true)], outcome: 'ineligible', codes: ['MTC_OR_MEN2_HISTORY'] },
    { name: 'pancreatitis history', changes: [v(3, 'pancreatitis_history', true)], outcome: 'ineligible', codes: ['PANCREATITIS_HISTORY'] },
    { name: 'other GLP-1', changes: [v(3, 'other_glp1', true)], outcome: 'ineligible', codes: ['OTHER_GLP1'] },
    { name: 'insulin or sulfonylurea', changes: [v(3, 'insulin_or_sulfonylurea', true)], outcome: 'ineligible', codes: ['HYPOGLYCAEMIA_RISK'] },
    { name: 'eating disorder', changes: [v(3, 'eating_disorder', true)], outcome: 'ineligible', codes: ['EATING_DISORDER'] },
    { name: 'woman, pregnant', profile: female, changes: [...wlF, v(3, 'pregnant_or_planning', true)], outcome: 'ineligible', codes: ['PREGNANCY'] },
    { name: 'woman on the pill: tirzepatide caution', profile: female, changes: [...wlF, v(3, 'oral_contraceptive', true)], outcome: 'eligible', cautions: ['TIRZEPATIDE_ORAL_CONTRACEPTIVE'] },
    { name: 'man: pregnancy answer is ignored (hidden)', changes: [v(3, 'pregnant_or_planning', true)], outcome: 'eligible' },
    { name: 'pancreatitis symptoms', changes: [m(1, 'urgent_symptoms', ['pancreatitis_symptoms'])], outcome: 'emergency', codes: ['RED_FLAG_PANCREATITIS'] },
    { name: 'dehydration', changes: [m(1, 'urgent_symptoms', ['dehydration'])], outcome: 'emergency', codes: ['RED_FLAG_DEHYDRATION'] },
    // Version 3: a caution for the doctor from 75 years (S1 4.2: limited experience), not a refusal.
    { name: 'age exactly 75: caution', profile: { date_of_birth: '1951-06-15' }, outcome: 'eligible', treatments: ['semaglutide', 'tirzepatide'], cautions: ['GLP1_AGE_75_OR_OVER'] },
    { name: 'age 74: no age caution', profile: { date_of_birth: '1951-06-16' }, outcome: 'eligible', absent: ['GLP1_AGE_75_OR_OVER'] },
  ],
  hair_growth: [
    { name: 'man', outcome: 'eligible', treatments: ['finasteride', 'minoxidil'] },
    { name: 'woman: minoxidil only', profile: female, outcome: 'eligible', treatments: ['minoxidil'], codes: ['FINASTERIDE_NOT_FOR_WOMEN'] },
    { name: 'age 17', profile: { date_of_birth: '2008-06-16' }, outcome: 'ineligible', codes: ['UNDER_18'] },
    { name: 'age exactly 18', profile: { date_of_birth: '2008-06-15' }, outcome: 'eligible' },
    { name: 'patchy loss', changes: [v(2, 'hair_loss_pattern', 'sudden_or_patchy')], outcome: 'ineligible', codes: ['ATYPICAL_HAIR_LOSS'] },
    { name: 'scarring', changes: [v(2, 'hair_loss_pattern', 'scarring_or_inflamed')], outcome: 'ineligible', codes: ['ATYPICAL_HAIR_LOSS'] },
    { name: 'on a 5-ARI', changes: [v(2, 'bph_5ari', true)], outcome: 'eligible', treatments: ['minoxidil'], codes: ['ALREADY_ON_5ARI'] },
    { name: 'depression: caution', changes: [v(2, 'depression_history', true)], outcome: 'eligible', cautions: ['FINASTERIDE_MOOD'] },
    { name: 'PSA testing: caution', changes: [v(2, 'prostate_testing', true)], outcome: 'eligible', cautions: ['FINASTERIDE_PSA'] },
    { name: 'allergic to finasteride', changes: [m(2, 'hypersensitivity', ['finasteride'])], outcome: 'eligible', treatments: ['minoxidil'], codes: ['HYPERSENSITIVITY_FINASTERIDE'] },
    { name: 'allergic to minoxidil', changes: [m(2, 'hypersensitivity', ['minoxidil'])], outcome: 'eligible', treatments: ['finasteride'], codes: ['HYPERSENSITIVITY_MINOXIDIL'] },
    { name: 'allergic to both', changes: [m(2, 'hypersensitivity', ['finasteride', 'minoxidil'])], outcome: 'ineligible', codes: ['HYPERSENSITIVITY_FINASTERIDE', 'HYPERSENSITIVITY_MINOXIDIL'] },
    { name: 'woman, pregnant: no treatment', profile: female, changes: [v(2, 'pregnant_or_planning', true)], outcome: 'ineligible', codes: ['PREGNANCY'] },
    { name: 'woman, not pregnant: minoxidil', profile: female, changes: [v(2, 'pregnant_or_planning', false)], outcome: 'eligible', treatments: ['minoxidil'] },
    { name: 'man: pregnancy answer is ignored (hidden)', changes: [v(2, 'pregnant_or_planning', true)], outcome: 'eligible', absent: ['PREGNANCY'] },
    { name: 'man with a pregnant partner: caution', changes: [v(2, 'pregnant_contact', true)], outcome: 'eligible', cautions: ['FINASTERIDE_PREGNANT_CONTACT'] },
  ],
  sexual_health: [
    { name: 'man', outcome: 'eligible', treatments: ['sildenafil', 'tadalafil'] },
    { name: 'woman', profile: female, outcome: 'ineligible', codes: ['NOT_MALE'] },
    { name: 'age 17', profile: { date_of_birth: '2008-06-16' }, outcome: 'ineligible', codes: ['UNDER_18'] },
    { name: 'nitrates', changes: [v(2, 'nitrates', true)], outcome: 'ineligible', codes: ['NITRATES'] },
    { name: 'riociguat', changes: [v(2, 'riociguat', true)], outcome: 'ineligible', codes: ['RIOCIGUAT'] },
    ...['recent_heart_attack_or_stroke', 'unstable_angina_or_heart_failure', 'low_blood_pressure', 'severe_liver_impairment', 'naion_or_retinal_disease', 'uncontrolled_hypertension_or_arrhythmia'].map(
      (o): Case => ({ name: o, changes: [m(2, 'heart_conditions', [o])], outcome: 'ineligible', codes: ['CARDIOVASCULAR_CONTRAINDICATION'] }),
    ),
    { name: 'alpha-blockers: a first supply of sildenafil is 25 mg only', changes: [v(2, 'alpha_blockers', true)], outcome: 'eligible', treatments: ['sildenafil', 'tadalafil'], limits: { ALPHA_BLOCKER_START_25MG: ['25 mg'] } },
    { name: 'ritonavir or strong CYP3A4 inhibitor: sildenafil 25 mg only, no tadalafil', changes: [v(2, 'cyp3a4_inhibitors', true)], outcome: 'eligible', treatments: ['sildenafil'], codes: ['TADALAFIL_CYP3A4_INHIBITOR'], limits: { SILDENAFIL_25MG_CYP3A4_INHIBITOR: ['25 mg'] } },
    { name: 'severe renal impairment: sildenafil 25 mg start, no tadalafil', changes: [v(2, 'severe_kidney_impairment', true)], outcome: 'eligible', treatments: ['sildenafil'], codes: ['TADALAFIL_SEVERE_RENAL'], limits: { SILDENAFIL_25MG_SEVERE_RENAL: ['25 mg'] } },
    { name: 'alpha-blockers and allergic to sildenafil: no limit reported for an excluded treatment', changes: [v(2, 'alpha_blockers', true), m(2, 'hypersensitivity', ['sildenafil'])], outcome: 'eligible', treatments: ['tadalafil'], codes: ['HYPERSENSITIVITY_SILDENAFIL'] },
    { name: 'priapism risk or penile deformity: caution', changes: [v(2, 'priapism_risk_or_penile_deformity', true)], outcome: 'eligible', treatments: ['sildenafil', 'tadalafil'], cautions: ['PRIAPISM_RISK_OR_PENILE_DEFORMITY'] },
    { name: 'allergic to sildenafil', changes: [m(2, 'hypersensitivity', ['sildenafil'])], outcome: 'eligible', treatments: ['tadalafil'], codes: ['HYPERSENSITIVITY_SILDENAFIL'] },
    { name: 'allergic to tadalafil', changes: [m(2, 'hypersensitivity', ['tadalafil'])], outcome: 'eligible', treatments: ['sildenafil'], codes: ['HYPERSENSITIVITY_TADALAFIL'] },
    { name: 'ritonavir and allergic to sildenafil', changes: [v(2, 'cyp3a4_inhibitors', true), m(2, 'hypersensitivity', ['sildenafil'])], outcome: 'ineligible' },
    { name: 'priapism', changes: [m(1, 'urgent_symptoms', ['erection_over_4h'])], outcome: 'emergency', codes: ['RED_FLAG_PRIAPISM'] },
    { name: 'vision loss', changes: [m(1, 'urgent_symptoms', ['sudden_vision_or_hearing_loss'])], outcome: 'emergency', codes: ['RED_FLAG_SUDDEN_VISION_OR_HEARING_LOSS'] },
    { name: 'chest pain during sex', changes: [m(1, 'urgent_symptoms', ['chest_pain_during_sex'])], outcome: 'emergency', codes: ['RED_FLAG_CHEST_PAIN_DURING_SEX'] },
  ],
  premature_ejaculation: [
    { name: 'man 40', outcome: 'eligible', treatments: ['dapoxetine', 'lidocaine-prilocaine-spray'] },
    { name: 'age 64', profile: { date_of_birth: '1961-06-16' }, outcome: 'eligible', treatments: ['dapoxetine', 'lidocaine-prilocaine-spray'] },
    { name: 'age exactly 65: no dapoxetine', profile: { date_of_birth: '1961-06-15' }, outcome: 'eligible', treatments: ['lidocaine-prilocaine-spray'], codes: ['DAPOXETINE_AGE_65_PLUS'] },
    { name: 'age 17', profile: { date_of_birth: '2008-06-16' }, outcome: 'ineligible', codes: ['UNDER_18'] },
    { name: 'woman', profile: female, outcome: 'ineligible', codes: ['NOT_MALE'] },
    { name: 'criteria not met', changes: [v(2, 'diagnostic_criteria', false)], outcome: 'eligible', treatments: ['lidocaine-prilocaine-spray'], codes: ['DIAGNOSTIC_CRITERIA_NOT_MET'] },
    ...[
      'heart_disease', 'fainting_history', 'mania_or_severe_depression', 'serotonergic_drugs', 'strong_cyp3a4_inhibitors', 'liver_impairment',
      'ischaemic_heart_disease', 'av_block', 'maoi', 'thioridazine', 'linezolid',
    ].map(
      (o): Case => ({ name: o, changes: [m(2, 'contraindications', [o])], outcome: 'eligible', treatments: ['lidocaine-prilocaine-spray'], codes: ['DAPOXETINE_CONTRAINDICATION'] }),
    ),
    { name: 'anaesthetic allergy', changes: [v(2, 'local_anaesthetic_allergy', true)], outcome: 'eligible', treatments: ['dapoxetine'], codes: ['LOCAL_ANAESTHETIC_ALLERGY'] },
    { name: 'allergic to dapoxetine', changes: [m(2, 'hypersensitivity', ['dapoxetine'])], outcome: 'eligible', treatments: ['lidocaine-prilocaine-spray'], codes: ['HYPERSENSITIVITY_DAPOXETINE'] },
    { name: 'both excluded', changes: [v(2, 'local_anaesthetic_allergy', true), m(2, 'contraindications', ['serotonergic_drugs'])], outcome: 'ineligible', codes: ['DAPOXETINE_CONTRAINDICATION', 'LOCAL_ANAESTHETIC_ALLERGY'] },
    { name: 'fainting', changes: [m(1, 'urgent_symptoms', ['fainting'])], outcome: 'emergency', codes: ['RED_FLAG_FAINTING'] },
  ],
  chlamydia: [
    { name: 'woman not pregnant', profile: female, outcome: 'eligible', treatments: ['doxycycline', 'azithromycin'] },
    { name: 'man', changes: [], outcome: 'eligible' },
    { name: 'age 17', profile: { ...female, date_of_birth: '2008-06-16' }, outcome: 'ineligible', codes: ['UNDER_18'] },
    { name: 'no positive test', profile: female, changes: [v(2, 'positive_naat', false)], outcome: 'ineligible', codes: ['NO_POSITIVE_NAAT'] },
    { name: 'rectal', profile: female, changes: [v(2, 'rectal_positive', true)], outcome: 'ineligible', codes: ['RECTAL_LGV_TEST_NEEDED'] },
    { name: 'recurring', profile: female, changes: [v(2, 'recurring_symptoms', true)], outcome: 'ineligible', codes: ['RECURRING_SYMPTOMS'] },
    { name: 'pregnant: azithromycin', profile: female, changes: [v(2, 'pregnant', true)], outcome: 'eligible', treatments: ['azithromycin'], codes: ['DOXYCYCLINE_IN_PREGNANCY'], cautions: ['AZITHROMYCIN_IN_PREGNANCY'] },
    // Version 3: breastfeeding excludes doxycycline (SmPC 4.6); azithromycin stays, with a caution for the doctor.
    { name: 'breastfeeding: azithromycin', profile: female, changes: [v(2, 'breastfeeding', true)], outcome: 'eligible', treatments: ['azithromycin'], codes: ['DOXYCYCLINE_BREASTFEEDING'], cautions: ['AZITHROMYCIN_BREASTFEEDING'] },
    { name: 'breastfeeding and allergic to macrolides', profile: female, changes: [v(2, 'breastfeeding', true), m(2, 'hypersensitivity', ['azithromycin'])], outcome: 'ineligible', codes: ['DOXYCYCLINE_BREASTFEEDING', 'HYPERSENSITIVITY_AZITHROMYCIN'] },
    { name: 'man: the breastfeeding answer is ignored (hidden)', changes: [v(2, 'breastfeeding', true)], outcome: 'eligible', treatments: ['doxycycline', 'azithromycin'], absent: ['DOXYCYCLINE_BREASTFEEDING'] },
    { name: 'immunosuppressants: doxycycline', profile: female, changes: [v(2, 'immunosuppressants', true)], outcome: 'eligible', treatments: ['doxycycline'], codes: ['AZITHROMYCIN_INTERACTION'] },
    { name: 'pregnant with immunosuppressants', profile: female, changes: [v(2, 'pregnant', true), v(2, 'immunosuppressants', true)], outcome: 'ineligible' },
    { name: 'allergic to tetracyclines', profile: female, changes: [m(2, 'hypersensitivity', ['doxycycline'])], outcome: 'eligible', treatments: ['azithromycin'], codes: ['HYPERSENSITIVITY_DOXYCYCLINE'] },
    { name: 'allergic to macrolides', profile: female, changes: [m(2, 'hypersensitivity', ['azithromycin'])], outcome: 'eligible', treatments: ['doxycycline'], codes: ['HYPERSENSITIVITY_AZITHROMYCIN'] },
    { name: 'pregnant and allergic to macrolides', profile: female, changes: [v(2, 'pregnant', true), m(2, 'hypersensitivity', ['azithromycin'])], outcome: 'ineligible' },
    { name: 'PID signs', profile: female, changes: [m(1, 'urgent_symptoms', ['pelvic_pain_fever'])], outcome: 'emergency', codes: ['RED_FLAG_PID'] },
    { name: 'ectopic', profile: female, changes: [v(2, 'pregnant', true), m(1, 'urgent_symptoms', ['pelvic_pain_fever'])], outcome: 'emergency', codes: ['RED_FLAG_ECTOPIC'] },
    { name: 'testicular pain', changes: [m(1, 'urgent_symptoms', ['testicular_pain'])], outcome: 'emergency', codes: ['RED_FLAG_TESTICULAR_TORSION'] },
  ],
  urinary_tract_infection: [
    { name: 'woman 41', profile: female, outcome: 'eligible', treatments: ['nitrofurantoin', 'fosfomycin'] },
    { name: 'man', outcome: 'ineligible', codes: ['NOT_FEMALE'] },
    { name: 'age 64', profile: { ...female, date_of_birth: '1961-06-16' }, outcome: 'eligible' },
    { name: 'age exactly 65', profile: { ...female, date_of_birth: '1961-06-15' }, outcome: 'ineligible', codes: ['AGE_65_PLUS'] },
    { name: 'age exactly 18', profile: { ...female, date_of_birth: '2008-06-15' }, outcome: 'eligible' },
    { name: 'age 17', profile: { ...female, date_of_birth: '2008-06-16' }, outcome: 'ineligible', codes: ['UNDER_18'] },
    { name: 'pregnant', profile: female, changes: [v(2, 'pregnant', true)], outcome: 'ineligible', codes: ['PREGNANCY'] },
    ...['catheter', 'immunosuppression', 'urinary_tract_abnormality', 'recurrent_infection', 'no_improvement_48h', 'visible_blood'].map(
      (o): Case => ({ name: o, profile: female, changes: [m(2, 'exclusions', [o])], outcome: 'ineligible', codes: ['COMPLICATED_UTI'] }),
    ),
    ...[['dysuria', 'new_nocturia'], ['dysuria', 'cloudy_urine'], ['new_nocturia', 'cloudy_urine'], ['dysuria', 'suprapubic_pain'], ['dysuria', 'frequency_urgency']].map(
      (o): Case => ({ name: `diagnostic symptoms ${o.join(' + ')}`, profile: female, changes: [m(2, 'uti_symptoms', o)], outcome: 'eligible', treatments: ['nitrofurantoin', 'fosfomycin'] }),
    ),
    ...[['dysuria'], ['new_nocturia'], ['cloudy_urine'], ['frequency_urgency', 'suprapubic_pain'], ['none']].map(
      (o): Case => ({ name: `not diagnostic: ${o.join(' + ')}`, profile: female, changes: [m(2, 'uti_symptoms', o)], outcome: 'ineligible', codes: ['UTI_SYMPTOMS_NOT_DIAGNOSTIC'] }),
    ),
    { name: 'vaginal discharge or itch: another diagnosis', profile: female, changes: [v(2, 'vaginal_discharge_or_itch', true)], outcome: 'ineligible', codes: ['VAGINAL_SYMPTOMS_OTHER_DIAGNOSIS'] },
    { name: 'allergic to nitrofurantoin', profile: female, changes: [m(2, 'hypersensitivity', ['nitrofurantoin'])], outcome: 'eligible', treatments: ['fosfomycin'], codes: ['HYPERSENSITIVITY_NITROFURANTOIN'] },
    { name: 'allergic to fosfomycin', profile: female, changes: [m(2, 'hypersensitivity', ['fosfomycin'])], outcome: 'eligible', treatments: ['nitrofurantoin'], codes: ['HYPERSENSITIVITY_FOSFOMYCIN'] },
    { name: 'kidney function: fosfomycin', profile: female, changes: [v(2, 'kidney_disease', true)], outcome: 'eligible', treatments: ['fosfomycin'], codes: ['NITROFURANTOIN_KIDNEY_FUNCTION'] },
    // Version 3: the eGFR on the lab report decides whether the exclusion is absolute (below 45: U1, SmPC 4.3).
    { name: 'eGFR below 45: nitrofurantoin absolutely excluded', profile: female, changes: [v(2, 'kidney_disease', true), v(2, 'kidney_egfr', 'below_45')], outcome: 'eligible', treatments: ['fosfomycin'], codes: ['NITROFURANTOIN_KIDNEY_FUNCTION', 'NITROFURANTOIN_EGFR_BELOW_45'] },
    { name: 'eGFR 45 or more: the relative exclusion only', profile: female, changes: [v(2, 'kidney_disease', true), v(2, 'kidney_egfr', '45_or_more')], outcome: 'eligible', treatments: ['fosfomycin'], codes: ['NITROFURANTOIN_KIDNEY_FUNCTION'], absent: ['NITROFURANTOIN_EGFR_BELOW_45'] },
    { name: 'eGFR answer ignored without kidney disease (hidden question)', profile: female, changes: [v(2, 'kidney_egfr', 'below_45')], outcome: 'eligible', treatments: ['nitrofurantoin', 'fosfomycin'], absent: ['NITROFURANTOIN_EGFR_BELOW_45'] },
    { name: 'sepsis', profile: female, changes: [m(1, 'urgent_symptoms', ['sepsis_signs'])], outcome: 'emergency', codes: ['RED_FLAG_SEPSIS'] },
    { name: 'kidney infection', profile: female, changes: [m(1, 'urgent_symptoms', ['kidney_infection_signs'])], outcome: 'emergency', codes: ['RED_FLAG_KIDNEY_INFECTION'] },
  ],
  emergency_contraception: [
    { name: '24 h', profile: female, outcome: 'eligible', treatments: ['levonorgestrel', 'ulipristal'], cautions: ['COPPER_IUD_MOST_EFFECTIVE'] },
    { name: 'exactly 72 h: both', profile: female, changes: [v(2, 'hours_since_unprotected_sex', 72)], outcome: 'eligible', treatments: ['levonorgestrel', 'ulipristal'] },
    { name: '72.5 h: ulipristal only', profile: female, changes: [v(2, 'hours_since_unprotected_sex', 72.5)], outcome: 'eligible', treatments: ['ulipristal'], codes: ['LEVONORGESTREL_OVER_72_HOURS'] },
    { name: 'exactly 120 h: ulipristal', profile: female, changes: [v(2, 'hours_since_unprotected_sex', 120)], outcome: 'eligible', treatments: ['ulipristal'] },
    { name: '120.5 h', profile: female, changes: [v(2, 'hours_since_unprotected_sex', 120.5)], outcome: 'ineligible', codes: ['OVER_120_HOURS'] },
    { name: 'man', outcome: 'ineligible', codes: ['NOT_FEMALE'] },
    { name: 'age 17', profile: { ...female, date_of_birth: '2008-06-16' }, outcome: 'ineligible', codes: ['UNDER_18'] },
    { name: 'period late', profile: female, changes: [v(2, 'period_late', true)], outcome: 'ineligible', codes: ['POSSIBLE_PREGNANCY'] },
    { name: 'enzyme inducers', profile: female, changes: [v(2, 'enzyme_inducers', true)], outcome: 'eligible', treatments: ['levonorgestrel'], codes: ['ULIPRISTAL_ENZYME_INDUCERS'], limits: { LEVONORGESTREL_3MG_ENZYME_INDUCERS: ['3 mg'] } },
    { name: 'enzyme inducers after 72 h', profile: female, changes: [v(2, 'enzyme_inducers', true), v(2, 'hours_since_unprotected_sex', 80)], outcome: 'ineligible' },
    { name: 'severe asthma', profile: female, changes: [v(2, 'severe_asthma_oral_steroids', true)], outcome: 'eligible', treatments: ['levonorgestrel'], codes: ['ULIPRISTAL_SEVERE_ASTHMA'] },
    { name: 'severe liver impairment: copper IUD', profile: female, changes: [v(2, 'severe_liver_impairment', true)], outcome: 'ineligible', codes: ['SEVERE_LIVER_IMPAIRMENT'], alternative: 'copper_iud' },
    { name: 'ulipristal in 5 days', profile: female, changes: [v(2, 'ulipristal_last_5_days', true)], outcome: 'eligible', treatments: ['ulipristal'], codes: ['LEVONORGESTREL_AFTER_ULIPRISTAL'] },
    { name: 'ectopic history', profile: female, changes: [v(2, 'ectopic_or_salpingitis_history', true)], outcome: 'eligible', treatments: ['ulipristal'], codes: ['LEVONORGESTREL_ECTOPIC_HISTORY'] },
    { name: 'weight 71 kg (BMI 26.1): levonorgestrel 3 mg only', profile: female, changes: [v(2, 'weight_kg', 71)], outcome: 'eligible', treatments: ['levonorgestrel', 'ulipristal'], limits: { LEVONORGESTREL_WEIGHT_OVER_70KG_OR_BMI_OVER_26: ['3 mg'] } },
    { name: 'weight exactly 70 kg, BMI 25.7: no caution', profile: female, changes: [v(2, 'weight_kg', 70)], outcome: 'eligible', absent: ['LEVONORGESTREL_WEIGHT_OVER_70KG_OR_BMI_OVER_26'] },
    { name: '65 kg at 155 cm (BMI 27.1): levonorgestrel 3 mg only', profile: female, changes: [v(2, 'weight_kg', 65), v(2, 'height_cm', 155)], outcome: 'eligible', limits: { LEVONORGESTREL_WEIGHT_OVER_70KG_OR_BMI_OVER_26: ['3 mg'] } },
    { name: 'BMI exactly 26: no caution', profile: female, changes: [v(2, 'weight_kg', 65), v(2, 'height_cm', 158.113883008419)], outcome: 'eligible', absent: ['LEVONORGESTREL_WEIGHT_OVER_70KG_OR_BMI_OVER_26'] },
    { name: 'breastfeeding: ulipristal caution', profile: female, changes: [v(2, 'breastfeeding', true)], outcome: 'eligible', treatments: ['levonorgestrel', 'ulipristal'], cautions: ['ULIPRISTAL_BREASTFEEDING'] },
    { name: 'allergic to levonorgestrel', profile: female, changes: [m(2, 'hypersensitivity', ['levonorgestrel'])], outcome: 'eligible', treatments: ['ulipristal'], codes: ['HYPERSENSITIVITY_LEVONORGESTREL'] },
    { name: 'allergic to ulipristal', profile: female, changes: [m(2, 'hypersensitivity', ['ulipristal'])], outcome: 'eligible', treatments: ['levonorgestrel'], codes: ['HYPERSENSITIVITY_ULIPRISTAL'] },
    { name: 'no pill fits: copper IUD', profile: female, changes: [m(2, 'hypersensitivity', ['ulipristal']), v(2, 'hours_since_unprotected_sex', 90)], outcome: 'ineligible', codes: ['HYPERSENSITIVITY_ULIPRISTAL', 'LEVONORGESTREL_OVER_72_HOURS'], alternative: 'copper_iud' },
    { name: 'ectopic signs', profile: female, changes: [m(1, 'urgent_symptoms', ['pregnancy_pain_or_bleeding'])], outcome: 'emergency', codes: ['RED_FLAG_ECTOPIC'] },
    { name: 'assault', profile: female, changes: [m(1, 'urgent_symptoms', ['sexual_assault'])], outcome: 'emergency', codes: ['RED_FLAG_SEXUAL_ASSAULT'] },
  ],
  hiv_prep: [
    { name: 'negative test this week', outcome: 'eligible', treatments: ['emtricitabine-tenofovir'] },
    { name: 'age 17', profile: { date_of_birth: '2008-06-16' }, outcome: 'ineligible', codes: ['UNDER_18'] },
    { name: 'positive', changes: [v(2, 'hiv_test', 'positive')], outcome: 'ineligible', codes: ['HIV_POSITIVE'] },
    { name: 'older test', changes: [v(2, 'hiv_test', 'negative_older')], outcome: 'ineligible', codes: ['HIV_STATUS_UNKNOWN'] },
    { name: 'never tested', changes: [v(2, 'hiv_test', 'never_or_unknown')], outcome: 'ineligible', codes: ['HIV_STATUS_UNKNOWN'] },
    { name: 'kidney', changes: [v(2, 'kidney_disease', true)], outcome: 'ineligible', codes: ['KIDNEY_FUNCTION'] },
    { name: 'hep B not tested: test first', changes: [v(2, 'hbsag_result', 'not_tested_or_unknown')], outcome: 'ineligible', codes: ['HEPATITIS_B_NOT_CHECKED'], alternative: 'sexual_health_clinic' },
    { name: 'kidney test 366 days ago', changes: [v(2, 'last_renal_check_date', '2025-06-14')], outcome: 'ineligible', codes: ['RENAL_CHECK_OLDER_THAN_12_MONTHS'] },
    { name: 'kidney test exactly 365 days ago', changes: [v(2, 'last_renal_check_date', '2025-06-15')], outcome: 'eligible' },
    { name: 'kidney test result unknown', changes: [v(2, 'last_renal_check_result', 'not_known')], outcome: 'ineligible', codes: ['RENAL_CHECK_RESULT_UNKNOWN'] },
    { name: 'kidney test reduced', changes: [v(2, 'last_renal_check_result', 'reduced')], outcome: 'ineligible', codes: ['KIDNEY_FUNCTION'] },
    // Version 4: the HBsAg result needs its date; a baseline older than 12 months is refused (HV1, BHIVA/BASHH; conservative limit).
    { name: 'HBsAg test 366 days ago', changes: [v(2, 'hbsag_test_date', '2025-06-14')], outcome: 'ineligible', codes: ['HEPATITIS_B_TEST_OLDER_THAN_12_MONTHS'], alternative: 'sexual_health_clinic' },
    { name: 'HBsAg test exactly 365 days ago', changes: [v(2, 'hbsag_test_date', '2025-06-15')], outcome: 'eligible', absent: ['HEPATITIS_B_TEST_OLDER_THAN_12_MONTHS'] },
    { name: 'HBsAg positive: specialist', changes: [v(2, 'hbsag_result', 'positive')], outcome: 'ineligible', codes: ['HEPATITIS_B_POSITIVE'], alternative: 'hepatitis_b_specialist' },
    { name: 'allergic to emtricitabine/tenofovir', changes: [m(2, 'hypersensitivity', ['emtricitabine-tenofovir'])], outcome: 'ineligible', codes: ['HYPERSENSITIVITY_EMTRICITABINE_TENOFOVIR'] },
    { name: 'NSAIDs: caution', changes: [v(2, 'nephrotoxic_drugs', true)], outcome: 'eligible', cautions: ['NEPHROTOXIC_DRUGS'] },
    { name: 'acute HIV signs', changes: [m(1, 'urgent_symptoms', ['acute_hiv_symptoms'])], outcome: 'emergency', codes: ['RED_FLAG_ACUTE_HIV'] },
    { name: 'exposure in 72 h: PEP', changes: [m(1, 'urgent_symptoms', ['exposure_last_72h'])], outcome: 'emergency', codes: ['RED_FLAG_PEP_NEEDED'] },
  ],
};

const GENERAL = [
  ['chest_pain', 'RED_FLAG_CHEST_PAIN'],
  ['breathing_difficulty', 'RED_FLAG_BREATHING'],
  ['severe_allergic_reaction', 'RED_FLAG_ANAPHYLAXIS'],
  ['suicidal_thoughts', 'RED_FLAG_SUICIDAL_THOUGHTS'],
] as const;

const covered = new Map<string, Set<string>>();

describe.each(CATEGORY_SLUGS.map((s) => [s]))('%s', (slug) => {
  const version = currentVersion(slug)!;
  const fx = FIXTURES[slug as keyof typeof FIXTURES];
  const baseFor = (p: Partial<EngineProfile> | undefined) => (slug === 'weight_loss' && p?.gender === '1' ? [...fx.eligible, ...wlF] : fx.eligible);
  const cases: Case[] = [
    ...(CASES[slug] ?? []),
    ...['ESP', 'FRA'].map((country): Case => ({ name: `resident of ${country}`, profile: { gender: fx.gender, country_of_residence: country }, outcome: 'ineligible', codes: ['COUNTRY_NO_ONLINE_PRESCRIBING'] })),
    ...GENERAL.map(([o, code]): Case => ({ name: `general red flag ${o}`, profile: { gender: fx.gender }, changes: [m(1, 'urgent_symptoms', [o])], outcome: 'emergency', codes: [code] })),
  ];
  it.each(cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const prof = profile(c.profile);
    const answers = withAnswers(baseFor(c.profile), ...(c.changes ?? []));
    const out = evaluate(version, prof, answers, NOW);
    expect(out.outcome, JSON.stringify(out.reasons)).toBe(c.outcome);
    const fired = [...out.reasons, ...out.cautions].map((r) => r.code);
    for (const code of c.codes ?? []) expect(out.reasons.map((r) => r.code)).toContain(code);
    for (const code of c.cautions ?? []) expect(out.cautions.map((r) => r.code)).toContain(code);
    const limits = out.reasons.filter((r) => r.kind === 'limit_strengths');
    expect(Object.fromEntries(limits.map((r) => [r.code, version.rules.find((x) => x.code === r.code)?.strengths]))).toEqual(c.limits ?? {});
    for (const r of limits) expect(r.message).toMatch(/ mg\)$/);
    if (c.treatments) expect(out.treatments).toEqual(c.treatments);
    for (const code of c.absent ?? []) expect(fired).not.toContain(code);
    if (c.alternative) expect(out.alternative?.code).toBe(c.alternative);
    if (out.outcome !== 'eligible') expect(out.treatments).toEqual([]);
    if (out.outcome === 'emergency') {
      expect(out.emergency?.number).toBe('112');
      expect(out.next_step).toBe('emergency_services');
      expect(redFlags(version, prof, answers, NOW)).toEqual(out.reasons.map((r) => r.code));
    }
    if (out.outcome === 'ineligible') {
      expect(out.alternative?.message).toBeTruthy();
      expect(out.deciding_keys.length).toBeGreaterThan(0);
    }
    for (const r of out.reasons) expect(r.source).toBeTruthy();
    const set = covered.get(slug) ?? new Set<string>();
    fired.forEach((f) => set.add(f));
    covered.set(slug, set);
  });
  it('the table covers every rule of the category', () => {
    const missing = version.rules.map((r) => r.code).filter((code) => !covered.get(slug)?.has(code));
    expect(missing).toEqual([]);
  });
});

describe('engine details', () => {
  it('localises explanations and uses the country’s emergency number', () => {
    const v1 = currentVersion('weight_loss')!;
    const out = evaluate(v1, profile({ country_of_residence: 'GBR' }), FIXTURES.weight_loss.emergency, NOW, 'de');
    expect(out.emergency?.number).toBe('999');
    expect(out.emergency?.message).toMatch(/999/);
    expect(out.emergency?.message).toMatch(/Notaufnahme/);
    // The red flags that fired are the notice's codes; the alternative is the emergency services (mutation testing found both unasserted).
    expect(out).toMatchObject({ outcome: 'emergency', next_step: 'emergency_services', treatments: [], cautions: [], alternative: { code: 'emergency_services', message: expect.stringMatching(/\S/) } });
    expect(out.reasons.length).toBeGreaterThan(0);
    expect(out.emergency?.codes).toEqual(out.reasons.map((r) => r.code));
    const no = evaluate(v1, profile(), FIXTURES.weight_loss.ineligible, NOW, 'fr');
    expect(no.reasons[0]?.message).toMatch(/réponses/);
  });
  it('computes BMI exactly', () => {
    const out = evaluate(currentVersion('weight_loss')!, profile(), withAnswers(FIXTURES.weight_loss.eligible, ...hw(175, 91.875)), NOW);
    expect(out.bmi).toBe(30);
    expect(out.outcome).toBe('eligible');
  });
});

describe('anti-gaming keys', () => {
  it('a rule on a question shown only for some genders is decided by the gender too', () => {
    const out = evaluate(currentVersion('weight_loss')!, profile(female), [...FIXTURES.weight_loss.eligible, ...wlF, v(3, 'pregnant_or_planning', true)], NOW);
    expect(out.outcome).toBe('ineligible');
    expect(out.deciding_keys).toEqual(expect.arrayContaining(['pregnant_or_planning', 'profile.gender']));
  });
  it('an excluded treatment names the answers that excluded it', () => {
    const out = evaluate(currentVersion('premature_ejaculation')!, profile(), withAnswers(FIXTURES.premature_ejaculation.eligible, m(2, 'contraindications', ['serotonergic_drugs'])), NOW);
    expect(out.outcome).toBe('eligible');
    expect(out.deciding_keys).toEqual(['contraindications']);
  });
});

describe('time windows re-checked later (emergency contraception)', () => {
  const version = currentVersion('emergency_contraception')!;
  const at60 = withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'hours_since_unprotected_sex', 60));
  const answeredAt = new Date('2026-06-15T00:00:00Z');
  const hoursLater = (h: number) => new Date(answeredAt.getTime() + h * 3_600_000);
  it.each([
    [0, 'eligible', ['levonorgestrel', 'ulipristal']],
    [12, 'eligible', ['levonorgestrel', 'ulipristal']],
    [12.5, 'eligible', ['ulipristal']],
    [60, 'eligible', ['ulipristal']],
    [60.5, 'ineligible', []],
  ])('answered at 60 h, %s h later: %s', (h, outcome, treatments) => {
    const out = evaluateAt(version, profile(female), at60, answeredAt, hoursLater(h as number));
    expect(out.outcome).toBe(outcome);
    expect(out.treatments).toEqual(treatments);
  });
  it('answers that do not elapse are not moved', () => {
    const wl = currentVersion('weight_loss')!;
    const out = evaluateAt(wl, profile(), FIXTURES.weight_loss.eligible, answeredAt, hoursLater(5000));
    expect(out.bmi).toBe(evaluate(wl, profile(), FIXTURES.weight_loss.eligible, NOW).bmi);
  });
});

describe('renewal rules (version 2: finasteride and mood)', () => {
  const v2 = currentVersion('hair_growth')!;
  const set = { category: 'hair_growth', steps: v2.renewal.safety_steps, rules: v2.renewal.rules ?? [] };
  const base = [v(101, 'significant_side_effects', false), v(101, 'new_medication', false)];
  it.each([
    ['no_change', 'eligible', ['finasteride', 'minoxidil'], []],
    ['low_mood_or_depression', 'eligible', ['minoxidil'], ['FINASTERIDE_MOOD_CHANGE']],
    ['suicidal_thoughts', 'emergency', [], ['FINASTERIDE_SUICIDAL_THOUGHTS']],
  ])('finasteride renewal, mood %s: %s', (mood, outcome, treatments, codes) => {
    const out = evaluate(set, profile(), [...base, v(101, 'mood_changes', mood)], NOW);
    expect(out.outcome).toBe(outcome);
    expect(out.treatments).toEqual(treatments);
    expect(out.reasons.map((r) => r.code)).toEqual(codes);
  });
  it('the renewal screen asks the mood question first; categories without renewal rules are eligible', () => {
    expect(renewalScreen('hair_growth')!.safety_steps[0]?.questions[0]?.question_key).toBe('mood_changes');
    const wl = currentVersion('weight_loss')!;
    expect(evaluate({ category: 'weight_loss', steps: wl.renewal.safety_steps, rules: wl.renewal.rules ?? [] }, profile(), [], NOW).outcome).toBe('eligible');
  });
});

describe('weight-loss renewal rules (version 3)', () => {
  const wl = currentVersion('weight_loss')!;
  const set = { category: 'weight_loss', steps: wl.renewal.safety_steps, rules: wl.renewal.rules ?? [] };
  const screen = [v(101, 'current_weight_kg', 60), v(101, 'significant_side_effects', false), v(101, 'new_medication', false), v(101, 'eating_disorder_signs', false)];
  it('eating-disorder signs stop the renewal (S7, S7b)', () => {
    const out = evaluate(set, profile(), withAnswers(screen, v(101, 'eating_disorder_signs', true)), NOW);
    expect(out.outcome).toBe('ineligible');
    expect(out.reasons.map((r) => r.code)).toEqual(['EATING_DISORDER_AT_RENEWAL']);
    expect(out.deciding_keys).toEqual(['eating_disorder_signs']);
    expect(evaluate(set, profile(), screen, NOW).outcome).toBe('eligible');
  });
  it.each([
    [170, 53.4, 'ineligible'], // BMI 18.48
    [170, 53.465, 'eligible'], // BMI 18.5 exactly
    [170, 60, 'eligible'],
  ])('BMI floor: height %d cm from the profile, current weight %d kg: %s', (height, weight, outcome) => {
    const out = evaluate(set, profile({ height_cm: height }), withAnswers(screen, v(101, 'current_weight_kg', weight)), NOW);
    expect(out.outcome).toBe(outcome);
    if (outcome === 'ineligible') {
      expect(out.reasons.map((r) => r.code)).toEqual(['BMI_BELOW_18_5_AT_RENEWAL']);
      expect(out.deciding_keys).toEqual(['current_weight_kg']);
    }
  });
  it('the BMI floor uses a profile weight (a recent journal entry) when the screen has none, and needs a height', () => {
    const noWeight = screen.filter((a) => a.question_key !== 'current_weight_kg');
    expect(evaluate(set, profile({ height_cm: 170, weight_kg: 50 }), noWeight, NOW).reasons.map((r) => r.code)).toEqual(['BMI_BELOW_18_5_AT_RENEWAL']);
    expect(evaluate(set, profile({ height_cm: null, weight_kg: 50 }), noWeight, NOW).outcome).toBe('eligible');
    // An answered weight wins over the profile's.
    expect(evaluate(set, profile({ height_cm: 170, weight_kg: 50 }), screen, NOW).outcome).toBe('eligible');
  });
  it('75 and over: a caution at renewal too, not a refusal', () => {
    const out = evaluate(set, profile({ date_of_birth: '1950-01-01' }), screen, NOW);
    expect(out.outcome).toBe('eligible');
    expect(out.cautions.map((r) => r.code)).toEqual(['GLP1_AGE_75_OR_OVER']);
  });
});

describe('countries without online prescribing', () => {
  it('Spain (K5) and France (K6) are refused; others are not', () => {
    expect(onlinePrescribingRefusal('ESP')).toEqual({ code: 'COUNTRY_NO_ONLINE_PRESCRIBING', country: 'ESP', source: 'K5' });
    expect(onlinePrescribingRefusal('FRA')?.source).toBe('K6');
    for (const c of ['DEU', 'GBR', 'IRL', 'NOR', null]) expect(onlinePrescribingRefusal(c)).toBeNull();
  });
});

describe('published versions stay loaded', () => {
  it('version 1 still evaluates its own answers after a later version is current', () => {
    const v1 = getCategory('hiv_prep')!.versions.find((x) => x.number === 1)!;
    expect(currentVersion('hiv_prep')!.number).toBe(4);
    const answers = [m(1, 'urgent_symptoms', ['none']), v(2, 'hiv_test', 'negative_within_7_days'), v(2, 'kidney_disease', false), v(2, 'hepatitis_b_tested', true), v(2, 'nephrotoxic_drugs', false)];
    expect(evaluate(v1, profile(), answers, NOW).outcome).toBe('eligible');
  });
});

// ------------------------------------------------------------------ property tests

function arbAnswer(step_id: number, q: Question): fc.Arbitrary<AnswerItem> {
  const base = { step_id, question_key: q.question_key };
  switch (q.type) {
    case 'boolean':
      return fc.boolean().map((value) => ({ ...base, value }));
    case 'single_choice':
      return fc.constantFrom(...q.options!.map((o) => o.value)).map((value) => ({ ...base, value }));
    case 'multiple_choice':
      return fc.subarray(q.options!.map((o) => o.value)).map((sel) => ({ ...base, values: Object.fromEntries(sel.map((s) => [s, true])) }));
    case 'number':
      return fc.double({ min: q.min ?? 0, max: q.max ?? 1000, noNaN: true }).map((value) => ({ ...base, value }));
    default:
      return fc.string().map((value) => ({ ...base, value }));
  }
}
const junk: fc.Arbitrary<AnswerItem> = fc.record({
  step_id: fc.integer({ min: -5, max: 200 }),
  question_key: fc.oneof(fc.string(), fc.constantFrom('height_cm', 'weight_kg', 'urgent_symptoms', 'hours_since_unprotected_sex')),
  value: fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null)) as fc.Arbitrary<any>,
  values: fc.option(fc.dictionary(fc.string(), fc.anything()), { nil: undefined }) as fc.Arbitrary<any>,
});
const arbProfile: fc.Arbitrary<EngineProfile> = fc.record({
  date_of_birth: fc.option(fc.date({ min: new Date('1920-01-01'), max: new Date('2026-06-15'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)), { nil: null }),
  gender: fc.option(fc.constantFrom('0', '1', '2', '3'), { nil: null }),
  country_of_residence: fc.option(fc.constantFrom('DEU', 'GBR', 'IRL', 'FRA', 'XXX'), { nil: null }),
});

const yes = (x: unknown) => x === true;
const picks = (...opts: string[]) => (x: unknown) => Array.isArray(x) && x.some((o) => opts.includes(o));
const RED = picks('chest_pain', 'breathing_difficulty', 'severe_allergic_reaction', 'suicidal_thoughts');
const CONTRAINDICATIONS: Record<string, [string, (x: unknown) => boolean][]> = {
  weight_loss: [['urgent_symptoms', RED], ['glp1_allergy', yes], ['mtc_or_men2', yes], ['pancreatitis_history', yes], ['other_glp1', yes], ['height_cm', () => false]],
  hair_growth: [['urgent_symptoms', RED], ['hair_loss_pattern', (x) => x !== 'gradual']],
  sexual_health: [['urgent_symptoms', RED], ['nitrates', yes], ['riociguat', yes], ['heart_conditions', picks('recent_heart_attack_or_stroke', 'low_blood_pressure')]],
  premature_ejaculation: [['urgent_symptoms', picks('fainting', 'chest_pain')]],
  chlamydia: [['urgent_symptoms', RED], ['positive_naat', (x) => x === false]],
  urinary_tract_infection: [
    ['urgent_symptoms', picks('sepsis_signs', 'chest_pain')], ['pregnant', yes], ['exclusions', picks('catheter', 'visible_blood')], ['vaginal_discharge_or_itch', yes],
    ['uti_symptoms', (x) => Array.isArray(x) && !x.includes('dysuria') && !(x.includes('new_nocturia') && x.includes('cloudy_urine'))],
  ],
  emergency_contraception: [['urgent_symptoms', RED], ['hours_since_unprotected_sex', (x) => typeof x === 'number' && x > 120], ['period_late', yes]],
  hiv_prep: [['urgent_symptoms', RED], ['hiv_test', (x) => x === 'positive' || x === 'never_or_unknown'], ['kidney_disease', yes], ['hbsag_result', (x) => x === 'positive'], ['hypersensitivity', picks('emtricitabine-tenofovir')]],
};

describe('property: random answers', () => {
  for (const c of listCategories()) {
    const version = currentVersion(c.slug)!;
    const questions = version.steps.flatMap((s) => s.questions.map((q) => arbAnswer(s.step_id, q)));
    const answers = fc.tuple(...questions.map((a) => fc.option(a, { nil: undefined })), fc.array(junk, { maxLength: 3 })).map((xs) => {
      const list = xs.slice(0, -1).filter(Boolean) as AnswerItem[];
      return [...list, ...(xs[xs.length - 1] as AnswerItem[])];
    });
    it(`${c.slug}: never crashes, never eligible with a contraindication or red flag`, () => {
      fc.assert(
        fc.property(arbProfile, answers, (prof, ans) => {
          const out = evaluate(version, prof, ans, NOW);
          expect(['eligible', 'ineligible', 'emergency']).toContain(out.outcome);
          const hardFired = out.reasons.filter((r) => r.kind === 'red_flag' || r.kind === 'ineligible');
          if (out.outcome === 'eligible') {
            expect(hardFired).toEqual([]);
            // No allowed treatment is excluded by a fired rule.
            for (const r of out.reasons) if (r.kind !== 'limit_strengths') for (const t of r.treatments) expect(out.treatments).not.toContain(t);
            // A strength limit is reported only for a treatment still allowed.
            for (const r of out.reasons) if (r.kind === 'limit_strengths') expect(r.treatments.some((t) => out.treatments.includes(t))).toBe(true);
            expect(out.treatments.length).toBeGreaterThan(0);
          }
          // Independent of the rule data: known contraindications never give eligible.
          const given = answerMap(version, ans);
          for (const [key, bad] of CONTRAINDICATIONS[c.slug] ?? []) {
            if (given.has(key) && bad(given.get(key))) expect(out.outcome, key).not.toBe('eligible');
          }
          if (prof.date_of_birth && out.age !== null && out.age < 18) expect(out.outcome).not.toBe('eligible');
          // A red flag anywhere in the answers always means emergency.
          if (redFlags(version, prof, ans, NOW).length) expect(out.outcome).toBe('emergency');
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('explanations', () => {
  it("name the treatments a rule concerns, in the message's language", () => {
    const out = evaluate(currentVersion('hair_growth')!, profile({ gender: '1' }), FIXTURES.hair_growth.eligible, NOW, 'it');
    expect(out.reasons[0]?.message).toMatch(/Finasteride 1 mg compresse/);
    expect(out.reasons[0]?.message).toMatch(/trattamenti/);
    const de = evaluate(currentVersion('hair_growth')!, profile({ gender: '1' }), FIXTURES.hair_growth.eligible, NOW, 'de');
    expect(de.reasons[0]?.message).toMatch(/\(Finasterid 1 mg Tabletten\)/);
  });
});
