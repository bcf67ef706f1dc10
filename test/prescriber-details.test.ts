// The prescriber's details and the desks' view of a signature (docs/prescriptions.md): a doctor sees
// what their prescriptions and certificate name and may change only the telephone; the back office's
// change of qualification or licence (CLI) rotates the signing identity so the next certificate names
// them; the doctor's and the pharmacist's view of a prescription show who signed, with which
// certificate, and whether it verifies (revoked: not), logged in the patient's access log.
import { randomUUID, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.ts';
import { revokeSigningIdentity } from '../src/modules/signing/index.ts';
import { paySandbox } from './billing-fixtures.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { withPhotos } from './support/photo-answers.ts';

let ctx: TestContext;
let doctor: Patient;
let pharmacist: Patient;

beforeAll(async () => {
  ctx = await createTestContext({ SELLER_NAME: 'Praxis Nord GmbH', SELLER_ADDRESS: 'Friedrichstraße 10|10117 Berlin', SELLER_VAT_ID: 'DE123456789', SELLER_COUNTRY: 'DEU', SELLER_PHONE: '+4930123456' });
  doctor = await newStaff(ctx, 'doctor');
  pharmacist = await newStaff(ctx, 'pharmacist');
}, 60_000);
afterAll(async () => {
  await ctx?.close();
});

async function approved(by: Patient): Promise<{ p: Patient; rxId: string; orderId: string }> {
  const p = await seedPatient(ctx, { first_name: 'Zofia', last_name: 'Wójcik', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', addresses: [{ street: 'Hauptstr. 1', postal_code: '10115', city: 'Berlin', country: 'DEU', is_default: true }] });
  expect((await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access, json: { data: await withPhotos(ctx, p.access, 'hair_growth', FIXTURES.hair_growth.eligible) } })).status).toBe(200);
  expect((await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token: p.access })).body.outcome).toBe('eligible');
  const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off' });
  const ok = await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: by.access, json: {} });
  expect(ok.status, ok.text).toBe(200);
  const rx = (await call(ctx, 'GET', '/v1/users/prescriptions/', { token: p.access })).body.results[0];
  const orders = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
  return { p, rxId: rx.id, orderId: orders.body[0].id };
}

describe('prescriber details', () => {
  it('the doctor sees them; may change the telephone (E.164) but not qualification or licence', async () => {
    const doc = await newStaff(ctx, 'doctor');
    const first = await call(ctx, 'GET', '/v1/clinician/prescriber/', { token: doc.access });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ first_name: 'Staff', licence_number: 'LANR-123456789', qualification: 'Medical doctor (physician)', qualification_is_default: true, phone: null, phone_printed: '+4930123456', certificate: null });

    const changed = await call(ctx, 'PATCH', '/v1/clinician/prescriber/', { token: doc.access, json: { phone: '+49 30 9876543' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ phone: '+49309876543', phone_printed: '+49309876543' });

    const bad = await call(ctx, 'PATCH', '/v1/clinician/prescriber/', { token: doc.access, json: { phone: '12345' } });
    expect(bad.status).toBe(400);
    expect(bad.body.phone).toBeDefined();
    const qualification = await call(ctx, 'PATCH', '/v1/clinician/prescriber/', { token: doc.access, json: { phone: null, qualification: 'Surgeon' } });
    expect(qualification.status).toBe(400);
    const licence = await call(ctx, 'PATCH', '/v1/clinician/prescriber/', { token: doc.access, json: { licence_number: 'X' } });
    expect(licence.status).toBe(400);
    expect((await call(ctx, 'GET', '/v1/clinician/prescriber/', { token: doc.access })).body).toMatchObject({ qualification: 'Medical doctor (physician)', licence_number: 'LANR-123456789', phone: '+49309876543' });

    const cleared = await call(ctx, 'PATCH', '/v1/clinician/prescriber/', { token: doc.access, json: { phone: '' } });
    expect(cleared.body).toMatchObject({ phone: null, phone_printed: '+4930123456' });
  });

  it('is a doctor’s: a patient or a pharmacist is refused', async () => {
    const p = await seedPatient(ctx);
    expect((await call(ctx, 'GET', '/v1/clinician/prescriber/', { token: p.access })).status).toBe(403);
    expect((await call(ctx, 'PATCH', '/v1/clinician/prescriber/', { token: pharmacist.access, json: { phone: '+4930111111' } })).status).toBe(403);
  });

  it('the back office changes qualification and licence (CLI): the identity rotates, the next certificate names them', async () => {
    const doc = await newStaff(ctx, 'doctor');
    await approved(doc);
    const before = (await call(ctx, 'GET', '/v1/clinician/prescriber/', { token: doc.access })).body;
    expect(before.certificate).toMatchObject({ status: 'active', provider: 'sandbox' });
    expect(before.certificate.subject).toContain('Medical doctor (physician)');

    expect((await runCli(['set-prescriber', '--email', doc.email], {}, { deps: ctx.deps })).code).toBe(2);
    const r = await runCli(['set-prescriber', '--email', doc.email, '--qualification', 'Fachärztin für Dermatologie', '--license', 'LANR-999'], {}, { deps: ctx.deps });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('rotated');
    expect((await runCli(['set-prescriber', '--email', 'nobody@example.org', '--license', 'X'], {}, { deps: ctx.deps })).code).toBe(1);

    const after = (await call(ctx, 'GET', '/v1/clinician/prescriber/', { token: doc.access })).body;
    expect(after).toMatchObject({ qualification: 'Fachärztin für Dermatologie', qualification_is_default: false, licence_number: 'LANR-999', certificate: null });

    const next = await approved(doc);
    const view = await call(ctx, 'GET', `/v1/clinician/prescriptions/${next.rxId}/`, { token: doc.access });
    expect(view.status, view.text).toBe(200);
    expect(view.body.signature).toMatchObject({ qualification: 'Fachärztin für Dermatologie', licence_number: 'LANR-999' });
    expect(view.body.signature.certificate.sha256).not.toBe(before.certificate.sha256);
    const pem = await ctx.db.query<{ certificate_pem: string }>('select certificate_pem from prescriber_signing_identities where certificate_sha256 = $1', [view.body.signature.certificate.sha256]);
    expect(new X509Certificate(pem[0]!.certificate_pem).subject).toContain('title=Fachärztin für Dermatologie');
  });
});

describe("the desks' view of a prescription's signature", () => {
  it('the doctor sees who signed, qualification, when, the certificate and that it verifies; revoked: it does not', async () => {
    const doc = await newStaff(ctx, 'doctor');
    const { p, rxId } = await approved(doc);
    const view = await call(ctx, 'GET', `/v1/clinician/prescriptions/${rxId}/`, { token: doc.access });
    expect(view.status, view.text).toBe(200);
    expect(view.body).toMatchObject({
      id: rxId,
      status: 'active',
      patient: { first_name: 'Zofia', last_name: 'Wójcik', date_of_birth: '1985-04-12' },
      signature: { level: 'B-B', signer: 'Staff doctor', qualification: 'Medical doctor (physician)', licence_number: 'LANR-123456789', certificate: { status: 'active', provider: 'sandbox' } },
      verification: { valid: true, reason: null, prescription_id: rxId, status: 'active' },
      dispensing: { status: 'not_dispensed', dispensed_count: 0 },
    });
    expect(view.body.signature.certificate.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(view.body.verification.certificate_sha256).toBe(view.body.signature.certificate.sha256);
    const logged = await ctx.db.query('select actor_role, resource_type, patient_id from access_log where resource_id = $1 and actor_id = $2', [rxId, doc.id]);
    expect(logged).toContainEqual({ actor_role: 'doctor', resource_type: 'prescription', patient_id: p.id });

    await revokeSigningIdentity(ctx.deps, doc.email, 'lost laptop');
    const revoked = await call(ctx, 'GET', `/v1/clinician/prescriptions/${rxId}/`, { token: doc.access });
    expect(revoked.body.signature.certificate.status).toBe('revoked');
    expect(revoked.body.verification).toMatchObject({ valid: false, reason: 'certificate_revoked' });
  });

  it('the pharmacist looks it up by its code, records the dispensing once, and sees it dispensed', async () => {
    const { rxId, orderId } = await approved(doctor);
    const before = await call(ctx, 'GET', `/v1/pharmacy/prescriptions/${rxId}/`, { token: pharmacist.access });
    expect(before.status, before.text).toBe(200);
    expect(before.body.verification).toMatchObject({ valid: true, status: 'active' });
    expect(before.body.orders_to_dispense).toEqual([expect.objectContaining({ id: orderId, attempt: 1 })]);

    const both = await Promise.all([1, 2].map(() => call(ctx, 'POST', `/v1/pharmacy/orders/${orderId}/dispense/`, { token: pharmacist.access, json: { batch: 'LOT-1', expiry: '2027-06-30' } })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);

    const after = await call(ctx, 'GET', `/v1/pharmacy/prescriptions/${rxId}/`, { token: pharmacist.access });
    expect(after.body.verification).toMatchObject({ valid: true, status: 'dispensed' });
    expect(after.body.dispensing).toMatchObject({ status: 'dispensed', dispensed_count: 1 });
    expect(after.body.orders_to_dispense).toEqual([]);
  });

  it('an unknown code is 404, and each desk is its own role’s', async () => {
    const { p, rxId } = await approved(doctor);
    expect((await call(ctx, 'GET', `/v1/pharmacy/prescriptions/${randomUUID()}/`, { token: pharmacist.access })).status).toBe(404);
    expect((await call(ctx, 'GET', `/v1/clinician/prescriptions/${randomUUID()}/`, { token: doctor.access })).status).toBe(404);
    expect((await call(ctx, 'GET', `/v1/pharmacy/prescriptions/${rxId}/`, { token: doctor.access })).status).toBe(403);
    expect((await call(ctx, 'GET', `/v1/clinician/prescriptions/${rxId}/`, { token: pharmacist.access })).status).toBe(403);
    // Another patient's token reaches neither desk; the patient's own route is theirs only.
    const other = await seedPatient(ctx);
    expect((await call(ctx, 'GET', `/v1/clinician/prescriptions/${rxId}/`, { token: p.access })).status).toBe(403);
    expect((await call(ctx, 'GET', `/v1/users/prescriptions/${rxId}/`, { token: other.access })).status).toBe(404);
  });
});
