// The FHIR R4 patient summary (docs/interoperability.md): a Bundle of type `document` shaped after
// the International Patient Summary (IPS): a Composition with the IPS sections (medications,
// allergies, problems, past illness, vital signs, encounters), the Patient, the service as the
// authoring Organization, the prescribing doctors, a MedicationRequest per prescription, Conditions
// and AllergyIntolerances from the coded questionnaire answers, body weight / height / BMI
// Observations from the questionnaires and the journal, and the consultations as Encounters.
// Pure: it builds from the records handed to it (service.ts reads them for one account).
import { createHash } from 'node:crypto';
import type {
  AllergyIntolerance,
  Bundle,
  BundleEntry,
  CodeableConcept,
  Composition,
  CompositionSection,
  Condition,
  Dosage,
  Encounter,
  MedicationRequest,
  Observation,
  Organization,
  Patient,
  Practitioner,
  Reference,
  Resource,
} from '@medplum/fhirtypes';
import { ALLERGY_ANSWERS, CONDITION_ANSWERS, LOINC, SYSTEM, medicineFor, type CodedAnswer } from './codes.ts';

export interface SummaryAnswer {
  question_key: string;
  value?: unknown;
  values?: Record<string, unknown> | null;
}

export interface SummaryInput {
  now: Date;
  /** The service's public base URL (identifier systems) and its name (the authoring organisation). */
  baseUrl: string;
  serviceName: string;
  profile: {
    id: string;
    email: string;
    first_name: string;
    last_name: string;
    date_of_birth: string | null;
    gender: string | null;
    country_of_residence: string | null;
    locale: string | null;
    city?: string | null;
    postal_code?: string | null;
    /** The patient's own doctor (profile extension). */
    gp?: { name: string; practice: string; address: string; email: string } | null;
  };
  consultations: {
    id: string;
    status: string;
    category: string;
    created_at: string;
    decided_at?: string | null;
    decision_reason?: string | null;
    doctor?: { id: string; first_name: string; last_name: string; doctor_license_number?: string | null } | null;
    form_snapshot?: SummaryAnswer[] | null;
    questionnaire_submission?: { submitted_at?: string | null } | null;
  }[];
  prescriptions: {
    id: string;
    consultation_id: string;
    category: string;
    treatment_id: string;
    treatment_name: string;
    dosage: string;
    instructions: string;
    supply_days: number | null;
    issued_at: string;
    valid_until: string | null;
    doctor: { id: string; first_name: string; last_name: string; doctor_license_number: string | null };
  }[];
  weights: { id: string; weight_kg: number; logged_on: string; verified_at?: string | null }[];
}

/** A stable UUID for a resource derived from a record (the same record gives the same id in each export). */
export function derivedId(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('|')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const urn = (id: string) => `urn:uuid:${id}`;
const ref = <T extends Resource>(r: T, display?: string): Reference<T> => ({ reference: urn(r.id!), ...(display ? { display } : {}) });
const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** FHIR narrative: XHTML in a div. */
const narrative = (lines: string[]) => ({
  status: 'generated' as const,
  div: `<div xmlns="http://www.w3.org/1999/xhtml">${lines.length ? `<ul>${lines.map((l) => `<li>${escapeXml(l)}</li>`).join('')}</ul>` : '<p>None recorded.</p>'}</div>`,
});
const ucum = (value: number, unit: string) => ({ value, unit, system: SYSTEM.ucum, code: unit });
const round1 = (n: number) => Math.round(n * 10) / 10;
const GENDER: Record<string, Patient['gender']> = { '0': 'male', '1': 'female', '2': 'other', '3': 'unknown' };
const CATEGORY_LABEL: Record<string, string> = {
  weight_loss: 'Weight management',
  hair_growth: 'Hair loss',
  sexual_health: 'Erectile dysfunction',
  premature_ejaculation: 'Premature ejaculation',
  chlamydia: 'Chlamydia',
  urinary_tract_infection: 'Urinary tract infection',
  emergency_contraception: 'Emergency contraception',
  hiv_prep: 'HIV pre-exposure prophylaxis',
};
export const categoryLabel = (c: string) => CATEGORY_LABEL[c] ?? c;

/** The answers of one questionnaire that say yes: boolean keys, and `key.option` for each chosen option. */
function yesAnswers(answers: SummaryAnswer[]): string[] {
  const out: string[] = [];
  for (const a of answers) {
    if (a.value === true) out.push(a.question_key);
    if (a.values && typeof a.values === 'object') {
      for (const [option, chosen] of Object.entries(a.values)) if (chosen === true || chosen === 1) out.push(`${a.question_key}.${option}`);
    }
  }
  return out;
}
const numberAnswer = (answers: SummaryAnswer[], key: string): number | null => {
  const a = answers.find((x) => x.question_key === key);
  const v = typeof a?.value === 'number' ? a.value : typeof a?.values?.value === 'number' ? a.values.value : null;
  return v !== null && Number.isFinite(v) && v > 0 ? v : null;
};

/** A dose like "0.25 mg" or "100 mg" as a UCUM quantity; other forms ("5%", "1 g then ...") stay text. */
function doseQuantity(dosage: string) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(mg|g|mcg|µg|ml|mL)\s*$/.exec(dosage);
  if (!m) return undefined;
  const unit = m[2] === 'µg' ? 'ug' : m[2] === 'mcg' ? 'ug' : m[2] === 'ml' ? 'mL' : m[2]!;
  return ucum(Number(m[1]), unit);
}

export function buildPatientSummary(input: SummaryInput): Bundle {
  const now = input.now.toISOString();
  const p = input.profile;
  const entries: Resource[] = [];

  const organization: Organization = {
    resourceType: 'Organization',
    id: derivedId('organization', input.baseUrl),
    name: input.serviceName,
    telecom: [{ system: 'url', value: input.baseUrl }],
  };
  const name = [{ family: p.last_name || undefined, given: p.first_name ? [p.first_name] : undefined, text: `${p.first_name} ${p.last_name}`.trim() || undefined }];
  const patient: Patient = {
    resourceType: 'Patient',
    id: p.id,
    identifier: [{ system: `${input.baseUrl}/patients`, value: p.id }],
    name: name[0]!.text ? name : undefined,
    telecom: p.email ? [{ system: 'email', value: p.email }] : undefined,
    gender: p.gender ? GENDER[p.gender] : undefined,
    birthDate: p.date_of_birth || undefined,
    address: p.country_of_residence ? [{ country: p.country_of_residence, city: p.city || undefined, postalCode: p.postal_code || undefined }] : undefined,
    communication: p.locale ? [{ language: { coding: [{ system: 'urn:ietf:bcp:47', code: p.locale }] }, preferred: true }] : undefined,
  };
  const subject: Reference<Patient> = ref(patient, name[0]!.text);
  // The patient's own doctor, as the patient gave it.
  const gp: Practitioner | undefined = p.gp
    ? {
        resourceType: 'Practitioner',
        id: derivedId('gp', p.id),
        name: [{ text: p.gp.name }],
        telecom: [{ system: 'email', value: p.gp.email }],
        address: p.gp.address || p.gp.practice ? [{ text: [p.gp.practice, p.gp.address].filter(Boolean).join(', ') }] : undefined,
      }
    : undefined;
  if (gp) patient.generalPractitioner = [ref(gp, p.gp!.name)];

  // The prescribing and reviewing doctors.
  const practitioners = new Map<string, Practitioner>();
  const practitioner = (d: { id: string; first_name: string; last_name: string; doctor_license_number?: string | null }) => {
    let pr = practitioners.get(d.id);
    if (!pr) {
      pr = {
        resourceType: 'Practitioner',
        id: d.id,
        name: [{ family: d.last_name || undefined, given: d.first_name ? [d.first_name] : undefined, prefix: ['Dr.'] }],
        identifier: d.doctor_license_number ? [{ system: `${input.baseUrl}/doctor-licences`, value: d.doctor_license_number }] : undefined,
      };
      practitioners.set(d.id, pr);
    }
    return ref(pr, `Dr. ${d.first_name} ${d.last_name}`.trim());
  };

  // Consultations as Encounters (a remote review: class VR, virtual).
  const encounters = new Map<string, Encounter>();
  for (const c of input.consultations) {
    const status: Encounter['status'] = ['approved', 'rejected', 'refunded', 'expired'].includes(c.status)
      ? 'finished'
      : c.status === 'cancelled'
        ? 'cancelled'
        : c.status === 'pending_payment' || c.status === 'draft'
          ? 'planned'
          : 'in-progress';
    const e: Encounter = {
      resourceType: 'Encounter',
      id: c.id,
      status,
      class: { system: SYSTEM.actCode, code: 'VR', display: 'virtual' },
      subject,
      period: { start: c.created_at, ...(c.decided_at && status === 'finished' ? { end: c.decided_at } : {}) },
      reasonCode: [{ text: categoryLabel(c.category) }],
      participant: c.doctor ? [{ individual: practitioner(c.doctor) }] : undefined,
      serviceProvider: ref(organization, input.serviceName),
    };
    encounters.set(c.id, e);
  }

  // Prescriptions.
  const medications: MedicationRequest[] = input.prescriptions.map((rx) => {
    const med = medicineFor(rx.treatment_id, rx.dosage);
    const code: CodeableConcept = {
      text: `${rx.treatment_name} ${rx.dosage}`.trim(),
      coding: med ? [{ system: SYSTEM.atc, code: med.atc.code, display: med.atc.display }] : undefined,
    };
    const dose = doseQuantity(rx.dosage);
    const dosage: Dosage = {
      text: rx.instructions || `${rx.treatment_name} ${rx.dosage}`,
      route: med ? { coding: [{ system: SYSTEM.snomed, code: med.route.code, display: med.route.display }] } : undefined,
      timing: med?.timing ? { repeat: med.timing } : undefined,
      asNeededBoolean: med?.asNeeded ? true : undefined,
      doseAndRate: dose ? [{ doseQuantity: dose }] : undefined,
    };
    const active = !rx.valid_until || rx.valid_until > now;
    const encounter = encounters.get(rx.consultation_id);
    return {
      resourceType: 'MedicationRequest',
      id: rx.id,
      status: active ? 'active' : 'completed',
      intent: 'order',
      medicationCodeableConcept: code,
      subject,
      encounter: encounter ? ref(encounter) : undefined,
      authoredOn: rx.issued_at,
      requester: practitioner(rx.doctor),
      reasonCode: [{ text: categoryLabel(rx.category) }],
      dosageInstruction: [dosage],
      dispenseRequest: {
        validityPeriod: { start: rx.issued_at, ...(rx.valid_until ? { end: rx.valid_until } : {}) },
        ...(rx.supply_days ? { expectedSupplyDuration: { value: rx.supply_days, unit: 'd', system: SYSTEM.ucum, code: 'd' } } : {}),
      },
    };
  });

  // Conditions, allergies and body measurements from the questionnaires (each consultation's form).
  const conditions = new Map<string, Condition>();
  const allergies = new Map<string, AllergyIntolerance>();
  const observations: Observation[] = [];
  const coded = (a: CodedAnswer): CodeableConcept => ({ text: a.text, coding: a.code ? [a.code] : undefined });
  const vital = (id: string, code: { code: string; display: string }, value: ReturnType<typeof ucum>, at: string, encounter?: Encounter, note?: string): Observation => ({
    resourceType: 'Observation',
    id,
    status: 'final',
    category: [{ coding: [{ system: SYSTEM.observationCategory, code: 'vital-signs', display: 'Vital Signs' }] }],
    code: { coding: [{ system: SYSTEM.loinc, ...code }], text: code.display },
    subject,
    encounter: encounter ? ref(encounter) : undefined,
    effectiveDateTime: at,
    valueQuantity: value,
    note: note ? [{ text: note }] : undefined,
  });
  for (const c of input.consultations) {
    const answers = Array.isArray(c.form_snapshot) ? c.form_snapshot : [];
    if (!answers.length) continue;
    const at = c.questionnaire_submission?.submitted_at ?? c.created_at;
    const encounter = encounters.get(c.id);
    for (const key of yesAnswers(answers)) {
      const cond = CONDITION_ANSWERS[key];
      if (cond && !conditions.has(key)) {
        conditions.set(key, {
          resourceType: 'Condition',
          id: derivedId('condition', p.id, key),
          clinicalStatus: cond.history ? undefined : { coding: [{ system: SYSTEM.conditionClinical, code: 'active' }] },
          verificationStatus: { coding: [{ system: SYSTEM.conditionVerification, code: 'unconfirmed' }] },
          category: [{ coding: [{ system: SYSTEM.conditionCategory, code: cond.history ? 'encounter-diagnosis' : 'problem-list-item' }] }],
          code: coded(cond),
          subject,
          encounter: encounter ? ref(encounter) : undefined,
          recordedDate: at,
          note: [{ text: cond.history ? 'Reported by the patient in a questionnaire as ever having had it; whether it is current was not asked.' : 'Reported by the patient in a questionnaire.' }],
        });
      }
      const allergy = ALLERGY_ANSWERS[key];
      if (allergy && !allergies.has(key)) {
        allergies.set(key, {
          resourceType: 'AllergyIntolerance',
          id: derivedId('allergy', p.id, key),
          clinicalStatus: { coding: [{ system: SYSTEM.allergyClinical, code: 'active' }] },
          verificationStatus: { coding: [{ system: SYSTEM.allergyVerification, code: 'unconfirmed' }] },
          category: ['medication'],
          code: coded(allergy),
          patient: subject,
          recordedDate: at,
          note: [{ text: 'Reported by the patient in a questionnaire (an allergic reaction to this medicine or its ingredients).' }],
        });
      }
    }
    const weight = numberAnswer(answers, 'weight_kg');
    const height = numberAnswer(answers, 'height_cm');
    const said = 'Reported by the patient in a questionnaire.';
    if (weight) observations.push(vital(derivedId('weight', c.id), LOINC.bodyWeight, ucum(weight, 'kg'), at, encounter, said));
    if (height) observations.push(vital(derivedId('height', c.id), LOINC.bodyHeight, ucum(height, 'cm'), at, encounter, said));
    if (weight && height) observations.push(vital(derivedId('bmi', c.id), LOINC.bmi, ucum(round1(weight / (height / 100) ** 2), 'kg/m2'), at, encounter, 'Calculated from the weight and height of the same questionnaire.'));
  }
  for (const w of input.weights) {
    observations.push(vital(w.id, LOINC.bodyWeight, ucum(w.weight_kg, 'kg'), w.logged_on, undefined, w.verified_at ? 'Logged in the patient’s journal; verified by a photo on the scales.' : 'Logged by the patient in their journal.'));
  }

  // The Composition and its sections.
  const section = (
    code: { code: string; display: string },
    title: string,
    resources: Resource[],
    lines: string[],
    required = false,
  ): CompositionSection | undefined => {
    if (!resources.length && !required) return undefined;
    return {
      title,
      code: { coding: [{ system: SYSTEM.loinc, ...code }] },
      text: narrative(lines),
      entry: resources.length ? resources.map((r) => ref(r)) : undefined,
      emptyReason: resources.length ? undefined : { coding: [{ system: SYSTEM.listEmptyReason, code: 'nilknown', display: 'Nil Known' }] },
    };
  };
  const current = [...conditions.values()].filter((c) => c.clinicalStatus);
  const past = [...conditions.values()].filter((c) => !c.clinicalStatus);
  const obsLine = (o: Observation) => `${o.code.text}: ${o.valueQuantity?.value} ${o.valueQuantity?.unit} (${String(o.effectiveDateTime).slice(0, 10)})`;
  const sections = [
    section(LOINC.medications, 'Medication summary', medications, medications.map((m) => `${m.medicationCodeableConcept?.text}: ${m.dosageInstruction?.[0]?.text ?? ''} (issued ${m.authoredOn?.slice(0, 10)}, ${m.status})`), true),
    section(LOINC.allergies, 'Allergies and intolerances', [...allergies.values()], [...allergies.values()].map((a) => `${a.code?.text} (patient-reported)`), true),
    section(LOINC.problems, 'Problem list', current, current.map((c) => `${c.code?.text} (patient-reported)`), true),
    section(LOINC.pastIllness, 'History of past illness', past, past.map((c) => `${c.code?.text} (patient-reported history)`)),
    section(LOINC.vitalSigns, 'Vital signs', observations, observations.map(obsLine)),
    section(LOINC.encounters, 'Consultations', [...encounters.values()], [...encounters.values()].map((e) => `${e.reasonCode?.[0]?.text}: ${e.status} (${e.period?.start?.slice(0, 10)})`)),
  ].filter((s): s is CompositionSection => !!s);

  const composition: Composition = {
    resourceType: 'Composition',
    id: derivedId('composition', p.id, now),
    status: 'final',
    type: { coding: [{ system: SYSTEM.loinc, ...LOINC.patientSummary }] },
    subject,
    date: now,
    author: [ref(organization, input.serviceName)],
    title: `Patient summary of ${name[0]!.text ?? p.id}`,
    confidentiality: 'N',
    custodian: ref(organization, input.serviceName),
    section: sections,
  };

  entries.push(composition, patient, organization, ...(gp ? [gp] : []), ...practitioners.values(), ...medications, ...allergies.values(), ...conditions.values(), ...observations, ...encounters.values());
  const entry: BundleEntry[] = entries.map((r) => ({ fullUrl: urn((r as { id: string }).id), resource: r }));
  return {
    resourceType: 'Bundle',
    id: derivedId('bundle', p.id, now),
    identifier: { system: SYSTEM.rfc3986, value: urn(derivedId('bundle-identifier', p.id, now)) },
    type: 'document',
    timestamp: now,
    entry: JSON.parse(JSON.stringify(entry)) as BundleEntry[],
  };
}

/** The summary's sections with their narrative lines, and all of it as plain text (the connector's `get_health_summary`). */
export function summarySections(bundle: Bundle): { title: string; sections: { title: string; loinc: string; items: string[] }[]; text: string } {
  const composition = bundle.entry?.[0]?.resource as Composition | undefined;
  const unescape = (l: string) => l.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const sections = (composition?.section ?? []).map((s) => ({
    title: s.title ?? '',
    loinc: s.code?.coding?.[0]?.code ?? '',
    items: [...(s.text?.div ?? '').matchAll(/<li>(.*?)<\/li>/g)].map((m) => unescape(m[1]!)),
  }));
  const title = composition?.title ?? 'Patient summary';
  const text = [title, `Generated ${bundle.timestamp ?? ''}`, ...sections.flatMap((s) => ['', `${s.title}:`, ...(s.items.length ? s.items.map((l) => `- ${l}`) : ['- None recorded.'])])].join('\n');
  return { title, sections, text };
}
