// The codes the FHIR patient summary uses (docs/interoperability.md): code systems, LOINC codes of
// the IPS sections and vital signs, WHO ATC codes of the catalogue's medicines with their route and
// a structured timing, and the SNOMED CT codes of the questionnaire answers that name a condition or
// an allergy. A medicine or answer without a code here goes out as text only (never a guessed code).
import type { Timing } from '@medplum/fhirtypes';

export const SYSTEM = {
  loinc: 'http://loinc.org',
  snomed: 'http://snomed.info/sct',
  atc: 'http://www.whocc.no/atc',
  ucum: 'http://unitsofmeasure.org',
  observationCategory: 'http://terminology.hl7.org/CodeSystem/observation-category',
  conditionClinical: 'http://terminology.hl7.org/CodeSystem/condition-clinical',
  conditionVerification: 'http://terminology.hl7.org/CodeSystem/condition-ver-status',
  conditionCategory: 'http://terminology.hl7.org/CodeSystem/condition-category',
  allergyClinical: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical',
  allergyVerification: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification',
  actCode: 'http://terminology.hl7.org/CodeSystem/v3-ActCode',
  listEmptyReason: 'http://terminology.hl7.org/CodeSystem/list-empty-reason',
  rfc3986: 'urn:ietf:rfc:3986',
} as const;

/** LOINC: the IPS document and its sections, and the vital signs observed. */
export const LOINC = {
  patientSummary: { code: '60591-5', display: 'Patient summary Document' },
  medications: { code: '10160-0', display: 'History of Medication use Narrative' },
  allergies: { code: '48765-2', display: 'Allergies and adverse reactions Document' },
  problems: { code: '11450-4', display: 'Problem list - Reported' },
  pastIllness: { code: '11348-0', display: 'History of Past illness Narrative' },
  vitalSigns: { code: '8716-3', display: 'Vital signs' },
  encounters: { code: '46240-8', display: 'History of Hospitalizations+Outpatient visits Narrative' },
  bodyWeight: { code: '29463-7', display: 'Body weight' },
  bodyHeight: { code: '8302-2', display: 'Body height' },
  bmi: { code: '39156-5', display: 'Body mass index (BMI) [Ratio]' },
} as const;

/** SNOMED CT routes of administration. */
const ROUTE = {
  oral: { code: '26643006', display: 'Oral route' },
  subcutaneous: { code: '34206005', display: 'Subcutaneous route' },
  topical: { code: '6064005', display: 'Topical route' },
} as const;

export interface MedicineCode {
  atc: { code: string; display: string };
  route: { code: string; display: string };
  /** The regimen as a FHIR Timing where it has a fixed shape; `asNeeded` for on-demand medicines. */
  timing?: Timing['repeat'];
  asNeeded?: boolean;
}

const daily = (times: number, days?: number): Timing['repeat'] => ({ frequency: times, period: 1, periodUnit: 'd', ...(days ? { boundsDuration: { value: days, unit: 'd', system: SYSTEM.ucum, code: 'd' } } : {}) });
const once: Timing['repeat'] = { count: 1 };

/**
 * The catalogue's treatments (treatment_id of catalogue/prescription-products.json) with their WHO
 * ATC code (the substance or combination level), route and regimen (the products' SmPC 4.2, as the
 * regimen texts of prescription-products.json say).
 */
export const MEDICINES: Readonly<Record<string, MedicineCode>> = {
  doxycycline: { atc: { code: 'J01AA02', display: 'doxycycline' }, route: ROUTE.oral, timing: daily(2, 7) },
  azithromycin: { atc: { code: 'J01FA10', display: 'azithromycin' }, route: ROUTE.oral, timing: daily(1, 3) },
  levonorgestrel: { atc: { code: 'G03AD01', display: 'levonorgestrel' }, route: ROUTE.oral, timing: once },
  ulipristal: { atc: { code: 'G03AD02', display: 'ulipristal' }, route: ROUTE.oral, timing: once },
  finasteride: { atc: { code: 'D11AX10', display: 'finasteride' }, route: ROUTE.oral, timing: daily(1) },
  minoxidil: { atc: { code: 'D11AX01', display: 'minoxidil' }, route: ROUTE.topical, timing: daily(2) },
  'emtricitabine-tenofovir': { atc: { code: 'J05AR03', display: 'tenofovir disoproxil and emtricitabine' }, route: ROUTE.oral, timing: daily(1) },
  dapoxetine: { atc: { code: 'G04BX14', display: 'dapoxetine' }, route: ROUTE.oral, asNeeded: true },
  'lidocaine-prilocaine-spray': { atc: { code: 'N01BB20', display: 'combinations' }, route: ROUTE.topical, asNeeded: true },
  sildenafil: { atc: { code: 'G04BE03', display: 'sildenafil' }, route: ROUTE.oral, asNeeded: true },
  tadalafil: { atc: { code: 'G04BE08', display: 'tadalafil' }, route: ROUTE.oral, asNeeded: true },
  nitrofurantoin: { atc: { code: 'J01XE01', display: 'nitrofurantoin' }, route: ROUTE.oral, timing: daily(2, 3) },
  fosfomycin: { atc: { code: 'J01XX01', display: 'fosfomycin' }, route: ROUTE.oral, timing: once },
  semaglutide: { atc: { code: 'A10BJ06', display: 'semaglutide' }, route: ROUTE.subcutaneous, timing: { frequency: 1, period: 1, periodUnit: 'wk' } },
  tirzepatide: { atc: { code: 'A10BX16', display: 'tirzepatide' }, route: ROUTE.subcutaneous, timing: { frequency: 1, period: 1, periodUnit: 'wk' } },
};

/** Tadalafil 5 mg is the daily regimen (prescription-products.json); other strengths are on demand. */
export function medicineFor(treatmentId: string, dosage: string): MedicineCode | undefined {
  const m = MEDICINES[treatmentId];
  if (m && treatmentId === 'tadalafil' && /^5\s*mg$/i.test(dosage.trim())) return { ...m, asNeeded: false, timing: daily(1) };
  return m;
}

export interface CodedAnswer {
  text: string;
  code?: { system: string; code: string; display: string };
  /** `history`: the question asked whether it ever happened (IPS "History of past illness"). */
  history?: boolean;
}

const sct = (code: string, display: string) => ({ system: SYSTEM.snomed, code, display });
const atc = (code: string, display: string) => ({ system: SYSTEM.atc, code, display });

/**
 * Conditions the questionnaires ask about: a yes to a boolean question (key alone) or a chosen
 * option of a multiple choice (`key.option`). Only what the patient says they have (or had); the
 * family-history question (`mtc_or_men2`) and medicines taken are not conditions of the patient.
 */
export const CONDITION_ANSWERS: Readonly<Record<string, CodedAnswer>> = {
  'weight_conditions.prediabetes_or_type2': { text: 'Prediabetes or type 2 diabetes' },
  'weight_conditions.hypertension': { text: 'High blood pressure', code: sct('38341003', 'Hypertensive disorder, systemic arterial') },
  'weight_conditions.dyslipidaemia': { text: 'Dyslipidaemia', code: sct('370992007', 'Dyslipidemia') },
  'weight_conditions.sleep_apnoea': { text: 'Sleep apnoea', code: sct('73430006', 'Sleep apnea') },
  'weight_conditions.cardiovascular_disease': { text: 'Cardiovascular disease', code: sct('49601007', 'Disorder of cardiovascular system') },
  'heart_conditions.recent_heart_attack_or_stroke': { text: 'Recent heart attack or stroke' },
  'heart_conditions.unstable_angina_or_heart_failure': { text: 'Unstable angina or heart failure' },
  'heart_conditions.low_blood_pressure': { text: 'Low blood pressure', code: sct('45007003', 'Low blood pressure') },
  'heart_conditions.severe_liver_impairment': { text: 'Severe liver impairment', code: sct('235856003', 'Disorder of liver') },
  'heart_conditions.naion_or_retinal_disease': { text: 'NAION or degenerative retinal disease' },
  'contraindications.heart_disease': { text: 'Heart disease', code: sct('56265001', 'Heart disease') },
  'contraindications.fainting_history': { text: 'Fainting (syncope)', code: sct('271594007', 'Syncope'), history: true },
  'contraindications.mania_or_severe_depression': { text: 'Mania or severe depression' },
  'contraindications.liver_impairment': { text: 'Liver impairment', code: sct('235856003', 'Disorder of liver') },
  kidney_disease: { text: 'Kidney disease', code: sct('90708001', 'Kidney disease') },
  severe_kidney_impairment: { text: 'Severe kidney impairment', code: sct('90708001', 'Kidney disease') },
  severe_liver_impairment: { text: 'Severe liver disease', code: sct('235856003', 'Disorder of liver') },
  severe_asthma_oral_steroids: { text: 'Severe asthma treated with steroid tablets', code: sct('195967001', 'Asthma') },
  pancreatitis_history: { text: 'Pancreatitis', code: sct('75694006', 'Pancreatitis'), history: true },
  eating_disorder: { text: 'Eating disorder', code: sct('72366004', 'Eating disorder'), history: true },
  depression_history: { text: 'Depression or low mood', code: sct('35489007', 'Depressive disorder'), history: true },
  ectopic_or_salpingitis_history: { text: 'Ectopic pregnancy or salpingitis', history: true },
};

/**
 * Allergies the questionnaires ask about, coded by the substance (class) in WHO ATC: a yes to a
 * boolean question, or a medicine named in `hypersensitivity` (its option is the treatment id).
 */
export const ALLERGY_ANSWERS: Readonly<Record<string, CodedAnswer>> = {
  glp1_allergy: { text: 'GLP-1 receptor agonists (semaglutide, tirzepatide or similar)', code: atc('A10BJ', 'Glucagon-like peptide-1 (GLP-1) analogues') },
  local_anaesthetic_allergy: { text: 'Local anaesthetics (the patient or their partner)', code: atc('N01B', 'ANESTHETICS, LOCAL') },
  'hypersensitivity.doxycycline': { text: 'Doxycycline or other tetracyclines', code: atc('J01AA', 'Tetracyclines') },
  'hypersensitivity.azithromycin': { text: 'Azithromycin or other macrolide antibiotics', code: atc('J01FA', 'Macrolides') },
  'hypersensitivity.levonorgestrel': { text: 'Levonorgestrel', code: atc('G03AD01', 'levonorgestrel') },
  'hypersensitivity.ulipristal': { text: 'Ulipristal acetate', code: atc('G03AD02', 'ulipristal') },
  'hypersensitivity.finasteride': { text: 'Finasteride', code: atc('D11AX10', 'finasteride') },
  'hypersensitivity.minoxidil': { text: 'Minoxidil', code: atc('D11AX01', 'minoxidil') },
  'hypersensitivity.emtricitabine-tenofovir': { text: 'Emtricitabine or tenofovir', code: atc('J05AR03', 'tenofovir disoproxil and emtricitabine') },
  'hypersensitivity.dapoxetine': { text: 'Dapoxetine', code: atc('G04BX14', 'dapoxetine') },
  'hypersensitivity.sildenafil': { text: 'Sildenafil', code: atc('G04BE03', 'sildenafil') },
  'hypersensitivity.tadalafil': { text: 'Tadalafil', code: atc('G04BE08', 'tadalafil') },
  'hypersensitivity.nitrofurantoin': { text: 'Nitrofurantoin', code: atc('J01XE01', 'nitrofurantoin') },
  'hypersensitivity.fosfomycin': { text: 'Fosfomycin', code: atc('J01XX01', 'fosfomycin') },
};
