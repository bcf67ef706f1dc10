// The FHIR patient summary (GET /v1/users/me/export/?format=fhir, docs/interoperability.md): a FHIR
// R4 Bundle of type `document` after the International Patient Summary, validated offline against
// the R4 structure definitions (@medplum/core's validator, 0 errors), with the account's own
// prescriptions, answers, weights and consultations, and nothing of another account.
import { validateResource } from '@medplum/core';
import type { AllergyIntolerance, Bundle, Composition, Condition, Encounter, MedicationRequest, Observation, Patient as FhirPatient, Practitioner, Resource } from '@medplum/fhirtypes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPatientSummary } from '../src/modules/interop/fhir.ts';
import { paySandbox } from './billing-fixtures.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { indexFhirDefinitions } from './support/fhir.ts';
import { DocumentChecker, publishedDocuments } from './support/openapi.ts';

let ctx: TestContext;
let doctor: Patient;
let checker: DocumentChecker;
beforeAll(async () => {
  indexFhirDefinitions();
  ctx = await createTestContext();
  checker = new DocumentChecker((await publishedDocuments(ctx)).all);
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

/** Validates the bundle and each of its resources; answers the error issues (none expected). */
export function fhirErrors(bundle: Bundle): string[] {
  const errors: string[] = [];
  for (const r of [bundle, ...(bundle.entry ?? []).map((e) => e.resource as Resource)]) {
    try {
      const issues = validateResource(r);
      errors.push(...issues.filter((i) => i.severity === 'error' || i.severity === 'fatal').map((i) => `${r.resourceType}: ${i.diagnostics ?? i.details?.text}`));
    } catch (err) {
      const outcome = (err as { outcome?: { issue?: { severity: string; diagnostics?: string; details?: { text?: string }; expression?: string[] }[] } }).outcome;
      if (!outcome) throw err;
      errors.push(...(outcome.issue ?? []).filter((i) => i.severity === 'error' || i.severity === 'fatal').map((i) => `${r.resourceType} ${i.expression?.join(',') ?? ''}: ${i.details?.text ?? i.diagnostics}`));
    }
  }
  return errors;
}

const of = <T extends Resource>(b: Bundle, type: T['resourceType']) => (b.entry ?? []).map((e) => e.resource as Resource).filter((r): r is T => r.resourceType === type);

/** A weight-loss patient: high blood pressure, a GLP-1 allergy answer is no, approved semaglutide, a journal weight. */
async function treatedPatient(tag: string, changes: ReturnType<typeof v>[] = []) {
  const p = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '1', locale: 'de', first_name: `Fhir${tag}`, last_name: 'Patient' });
  const answers = withAnswers(FIXTURES.weight_loss.eligible, m(2, 'weight_conditions', ['hypertension', 'sleep_apnoea']), v(3, 'pregnant_or_planning', false), v(3, 'oral_contraceptive', false), ...changes);
  expect((await call(ctx, 'PATCH', '/v1/users/questionnaires/weight_loss/progress/', { token: p.access, json: { data: answers } })).status).toBe(200);
  const sub = await call(ctx, 'POST', '/v1/users/questionnaires/weight_loss/submit/', { token: p.access });
  expect(sub.status, sub.text).toBeLessThan(300);
  const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
  // No GP on the profile (the summary's Practitioners are the service's doctors only): the doctor writes why.
  const approved = await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: { gp_sharing_override_reason: 'No regular doctor; monitored by this service at each renewal.' } });
  expect(approved.status, approved.text).toBe(200);
  expect((await call(ctx, 'POST', '/v1/users/journal/weight-entries/', { token: p.access, json: { weight_kg: 92.4, logged_on: '2026-11-01' } })).status).toBe(201);
  return { p, consultationId: session.consultation_id as string };
}

async function fhirExport(p: Patient) {
  const res = await ctx.app.inject({ method: 'GET', url: '/v1/users/me/export/?format=fhir', headers: { authorization: `Bearer ${p.access}` } });
  checker.check('GET', '/v1/users/me/export/?format=fhir', { status: res.statusCode, body: undefined, text: res.body, headers: res.headers as Record<string, string> });
  return res;
}

describe('the FHIR patient summary', () => {
  it('is an IPS document bundle of the account’s records that validates with 0 errors, and holds nothing of another account', async () => {
    const a = await treatedPatient('Alpha');
    const b = await treatedPatient('Bravo', [v(3, 'pancreatitis_history', false)]);
    const res = await fhirExport(a.p);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/fhir\+json/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="patient-summary-\d{4}-\d{2}-\d{2}\.json"$/);
    const bundle = JSON.parse(res.body) as Bundle;
    expect(fhirErrors(bundle)).toEqual([]);
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'document', identifier: { system: 'urn:ietf:rfc:3986' } });

    // The Composition comes first, with the IPS sections and their LOINC codes.
    const composition = bundle.entry![0]!.resource as Composition;
    expect(composition.resourceType).toBe('Composition');
    expect(composition.type.coding).toEqual([{ system: 'http://loinc.org', code: '60591-5', display: 'Patient summary Document' }]);
    const sections = Object.fromEntries(composition.section!.map((s) => [s.code!.coding![0]!.code, s]));
    expect(Object.keys(sections).sort()).toEqual(['10160-0', '11450-4', '46240-8', '48765-2', '8716-3'].sort());
    // Every reference of the document resolves inside it.
    const fullUrls = new Set(bundle.entry!.map((e) => e.fullUrl));
    const refs = [...JSON.stringify(bundle).matchAll(/"reference":"([^"]+)"/g)].map((x) => x[1]);
    expect(refs.length).toBeGreaterThan(10);
    for (const r of refs) expect(fullUrls.has(r), r).toBe(true);

    const patient = of(bundle, 'Patient');
    expect(patient).toEqual([expect.objectContaining({ id: a.p.id, gender: 'female', birthDate: '1985-04-12', name: [expect.objectContaining({ family: 'Patient', given: ['FhirAlpha'] })] })]);

    // The prescription: ATC-coded semaglutide, dosage as text and structured (0.25 mg, weekly, subcutaneous).
    const [rx] = of<MedicationRequest>(bundle, 'MedicationRequest');
    expect(of(bundle, 'MedicationRequest')).toHaveLength(1);
    expect(rx!.medicationCodeableConcept!.coding).toEqual([{ system: 'http://www.whocc.no/atc', code: 'A10BJ06', display: 'semaglutide' }]);
    expect(rx!.status).toBe('active');
    expect(rx!.encounter).toEqual({ reference: `urn:uuid:${a.consultationId}` });
    const dose = rx!.dosageInstruction![0]!;
    expect(dose.text).toMatch(/^Inject 0\.25 mg/);
    expect(dose.doseAndRate![0]!.doseQuantity).toEqual({ value: 0.25, unit: 'mg', system: 'http://unitsofmeasure.org', code: 'mg' });
    expect(dose.timing!.repeat).toEqual({ frequency: 1, period: 1, periodUnit: 'wk' });
    expect(dose.route!.coding![0]!.code).toBe('34206005');
    expect(sections['10160-0']!.entry).toEqual([{ reference: `urn:uuid:${rx!.id}` }]);

    // Conditions from the coded answers (SNOMED CT); no allergy answered: the section says nil known.
    const conditions = of<Condition>(bundle, 'Condition');
    expect(conditions.map((c) => c.code!.coding?.[0]?.code).sort()).toEqual(['38341003', '73430006']);
    expect(conditions.every((c) => c.clinicalStatus?.coding?.[0]?.code === 'active' && c.verificationStatus?.coding?.[0]?.code === 'unconfirmed')).toBe(true);
    expect(of(bundle, 'AllergyIntolerance')).toEqual([]);
    expect(sections['48765-2']!.emptyReason!.coding![0]!.code).toBe('nilknown');

    // Weight and height of the questionnaire, their BMI, and the journal's weight (LOINC, UCUM).
    const obs = of<Observation>(bundle, 'Observation').map((o) => [o.code.coding![0]!.code, o.valueQuantity!.value, o.valueQuantity!.code]);
    expect(obs.sort()).toEqual(
      [
        ['29463-7', 100, 'kg'],
        ['8302-2', 170, 'cm'],
        ['39156-5', 34.6, 'kg/m2'],
        ['29463-7', 92.4, 'kg'],
      ].sort(),
    );
    // The consultation as a finished virtual Encounter with its doctor.
    const encounters = of<Encounter>(bundle, 'Encounter');
    expect(encounters).toEqual([expect.objectContaining({ id: a.consultationId, status: 'finished', class: expect.objectContaining({ code: 'VR' }) })]);
    expect(of(bundle, 'Practitioner').map((x) => x.id)).toEqual([doctor.id]);

    // Nothing of the other account.
    for (const needle of [b.p.id, b.p.email, 'FhirBravo', b.consultationId]) expect(res.body, needle).not.toContain(needle);
  });

  it('codes allergies and past illness from the answers, and refuses an unknown format without spending the budget', async () => {
    const c = await treatedPatient('Charlie', [v(3, 'eating_disorder', false)]);
    // A second, ineligible-free answer set is not needed: the builder is pure, and reads any answers.
    const bundle = buildPatientSummary({
      now: new Date('2026-12-01T10:00:00Z'),
      baseUrl: 'https://api.example.org',
      serviceName: 'Example service',
      profile: { id: c.p.id, email: 'x@example.org', first_name: 'X', last_name: 'Y', date_of_birth: '1990-01-01', gender: '3', country_of_residence: 'FRA', locale: 'fr', gp: { name: 'Dr. Martin', practice: '', address: '', email: 'martin@example.org' } },
      consultations: [
        {
          id: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
          status: 'pending_review',
          category: 'chlamydia',
          created_at: '2026-11-30T10:00:00Z',
          form_snapshot: [
            { question_key: 'hypersensitivity', values: { azithromycin: true, none: false } },
            { question_key: 'glp1_allergy', value: true },
            { question_key: 'pancreatitis_history', value: true },
            { question_key: 'kidney_disease', value: false },
          ],
        },
      ],
      prescriptions: [],
      weights: [],
    });
    expect(fhirErrors(bundle)).toEqual([]);
    const allergies = of<AllergyIntolerance>(bundle, 'AllergyIntolerance');
    expect(allergies.map((x) => x.code!.coding![0]!.code).sort()).toEqual(['A10BJ', 'J01FA']);
    const conditions = of<Condition>(bundle, 'Condition');
    expect(conditions.map((x) => [x.code!.coding![0]!.code, x.clinicalStatus ?? null])).toEqual([['75694006', null]]);
    const composition = bundle.entry![0]!.resource as Composition;
    const codes = composition.section!.map((s) => s.code!.coding![0]!.code);
    expect(codes).toEqual(['10160-0', '48765-2', '11450-4', '11348-0', '46240-8']);
    expect(composition.section![0]!.emptyReason!.coding![0]!.code).toBe('nilknown');
    expect(of<Encounter>(bundle, 'Encounter')[0]!.status).toBe('in-progress');
    // The patient's own doctor as generalPractitioner.
    const [patient] = of<FhirPatient>(bundle, 'Patient');
    expect(of<Practitioner>(bundle, 'Practitioner').map((x) => [`urn:uuid:${x.id}`, x.name?.[0]?.text])).toEqual([[patient!.generalPractitioner![0]!.reference, 'Dr. Martin']]);

    // An unknown format is 400 {format} and spends nothing: the budget's exports all still answer.
    const bad = await checker.call(ctx, 'GET', '/v1/users/me/export/?format=hl7', { token: c.p.access });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ format: ['Use json, zip or fhir.'] });
    for (let i = 0; i < 5; i++) expect((await fhirExport(c.p)).statusCode).toBe(200);
    const over = await fhirExport(c.p);
    expect(over.statusCode).toBe(429);
  });
});
