// Signed prescriptions end to end (docs/prescriptions.md): the approval signs (PAdES B-B, checked by
// poppler's pdfsig and by our verification), the 2012/52/EU elements are in the PDF, verification
// refuses a changed byte, a revoked certificate and a cancelled (reissued) prescription, a
// prescription is dispensed once (parallel dispenses: exactly one wins), the CSC path against a fake
// provider on loopback, and STAFF_MFA=required signing only in a second-factor session.
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anotherInstance, call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { PRESCRIPTION_SELLER } from './support/prescription-fixtures.ts';
import { multipart, pdfPart } from './support/multipart.ts';
import { pdfText } from './support/pdf-text.ts';
import { paySandbox } from './billing-fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { getCategory } from '../src/modules/questionnaires/index.ts';
import { productTreatmentIds } from '../src/modules/fulfilment/products.ts';
import { revokeSigningIdentity, rotateSigningIdentity } from '../src/modules/signing/index.ts';
import { generateSandboxCa, issuePrescriberCertificate, newRsaKeyPem } from '../src/modules/signing/ca.ts';
import { CATEGORY_SLUGS } from '../src/lib/categories.ts';

const PDFSIG = '/usr/bin/pdfsig';
let ctx: TestContext;
let doctor: Patient;
let pharmacist: Patient;

beforeAll(async () => {
  ctx = await createTestContext(PRESCRIPTION_SELLER);
  doctor = await newStaff(ctx, 'doctor');
  pharmacist = await newStaff(ctx, 'pharmacist');
}, 60_000);
afterAll(async () => {
  await ctx?.close();
});

const patient = () =>
  seedPatient(ctx, {
    first_name: 'Zofia',
    last_name: 'Wójcik-Kowalska',
    date_of_birth: '1985-04-12',
    country_of_residence: 'DEU',
    gender: '0',
    locale: 'de',
    addresses: [{ street: 'Hauptstr. 1', postal_code: '10115', city: 'Berlin', country: 'DEU', is_default: true }],
  });

async function submit(c: { app: TestContext['app'] }, slug: string, data: unknown[], token: string) {
  expect((await call(c, 'PATCH', `/v1/users/questionnaires/${slug}/progress/`, { token, json: { data: await withPhotos(c, token, slug, data) } })).status).toBe(200);
  const sub = await call(c, 'POST', `/v1/users/questionnaires/${slug}/submit/`, { token });
  expect(sub.body.outcome, sub.text).toBe('eligible');
}

/** A patient with a consultation paid and waiting for the doctor. */
async function pendingConsultation(): Promise<{ p: Patient; consultationId: string }> {
  const p = await patient();
  await submit(ctx, 'hair_growth', FIXTURES.hair_growth.eligible, p.access);
  const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off' });
  return { p, consultationId: session.consultation_id };
}

async function approved(by = doctor, c: { app: TestContext['app'] } = ctx): Promise<{ p: Patient; rxId: string; orderId: string; pdf: Buffer }> {
  const { p, consultationId } = await pendingConsultation();
  const ok = await call(c, 'POST', `/v1/clinician/consultations/${consultationId}/approve/`, { token: by.access, json: {} });
  expect(ok.status, ok.text).toBe(200);
  const rx = (await call(ctx, 'GET', '/v1/users/prescriptions/', { token: p.access })).body.results[0];
  const orders = await call(ctx, 'GET', '/v1/users/orders/', { token: p.access });
  return { p, rxId: rx.id, orderId: orders.body[0].id, pdf: await download(p, rx.id) };
}

async function download(p: Patient, rxId: string): Promise<Buffer> {
  const res = await ctx.app.inject({ method: 'GET', url: `/v1/users/prescriptions/${rxId}/pdf/`, headers: { authorization: `Bearer ${p.access}` } });
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}

async function verify(pdf: Buffer, c: { app: TestContext['app'] } = ctx) {
  const body = multipart({}, pdfPart(pdf, 'prescription.pdf'));
  const res = await c.app.inject({ method: 'POST', url: '/v1/prescriptions/verify/', payload: body.payload, headers: body.headers });
  return { status: res.statusCode, body: res.json() };
}

function pdfsig(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'rx-'));
  writeFileSync(join(dir, 'rx.pdf'), pdf);
  try {
    return execFileSync(PDFSIG, [join(dir, 'rx.pdf')], { encoding: 'utf8' });
  } catch (err) {
    // pdfsig exits non-zero for an invalid signature; its report is still on stdout.
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

describe('the approval signs the prescription', () => {
  it('PAdES B-B: detail shows the signature, pdfsig and our verification find it valid, the CA issued the certificate', async () => {
    const { p, rxId, pdf } = await approved();
    const detail = await call(ctx, 'GET', `/v1/users/prescriptions/${rxId}/`, { token: p.access });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body).toMatchObject({
      id: rxId,
      status: 'active',
      signature: { level: 'B-B', signer: 'Staff doctor', signed_at: expect.any(String), certificate_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      dispensing: { status: 'not_dispensed', pharmacy: null, dispensed_at: null, dispensings_allowed: 1, dispensed_count: 0 },
    });
    // Another account: 404 like a missing id.
    const other = await patient();
    expect((await call(ctx, 'GET', `/v1/users/prescriptions/${rxId}/`, { token: other.access })).status).toBe(404);
    expect((await call(ctx, 'GET', `/v1/users/prescriptions/00000000-0000-4000-8000-000000000000/`, { token: p.access })).status).toBe(404);

    const text = pdf.toString('latin1');
    expect(text).toContain('/SubFilter /ETSI.CAdES.detached');
    const v = await verify(pdf);
    expect(v.status).toBe(200);
    expect(v.body).toEqual({
      valid: true,
      reason: null,
      prescription_id: rxId,
      signer: 'Staff doctor',
      signed_at: detail.body.signature.signed_at,
      status: 'active',
      certificate_sha256: detail.body.signature.certificate_sha256,
      dispensing: { dispensings_allowed: 1, dispensed_count: 0, repeats_left: 0, repeat_interval_days: null, next_dispensing_from: null },
    });

    // The published root issued the signer's certificate.
    const ca = await ctx.app.inject({ method: 'GET', url: '/v1/prescriptions/ca/' });
    expect(ca.statusCode).toBe(200);
    expect(ca.headers['content-type']).toContain('application/x-pem-file');
    const root = new X509Certificate(ca.body);
    const signer = new X509Certificate(firstRowOf(await ctx.db.query<{ certificate_pem: string }>('select certificate_pem from prescriber_signing_identities where certificate_sha256 = $1', [detail.body.signature.certificate_sha256])).certificate_pem);
    expect(signer.verify(root.publicKey)).toBe(true);
    expect(signer.subject).toContain('serialNumber=LANR-123456789');
    expect(signer.subject).toContain('title=Medical doctor (physician)');
    // The key is sealed at rest, never a PEM in the row.
    const stored = firstRowOf(await ctx.db.query<{ private_key_sealed: string }>('select private_key_sealed from prescriber_signing_identities where certificate_sha256 = $1', [detail.body.signature.certificate_sha256]));
    expect(stored.private_key_sealed).toMatch(/^v2\./);
    expect(stored.private_key_sealed).not.toContain('PRIVATE KEY');

    if (!existsSync(PDFSIG)) {
      console.warn(`SKIPPED pdfsig check: ${PDFSIG} is absent (install poppler-utils)`);
      return;
    }
    const report = pdfsig(pdf);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Total document signed');
  }, 60_000);

  it('a changed byte is refused, by us (content_changed, naming the prescription) and by pdfsig', async () => {
    const { rxId, pdf } = await approved();
    const changed = Buffer.from(pdf);
    const at = changed.indexOf(Buffer.from('Staff'));
    expect(at).toBeGreaterThan(0);
    changed[at] = 'X'.charCodeAt(0);
    const v = await verify(changed);
    expect(v.body).toMatchObject({ valid: false, reason: 'content_changed', prescription_id: rxId });
    // Bytes appended after signing (a new revision) are not covered either.
    expect((await verify(Buffer.concat([pdf, Buffer.from('\n% appended\n')]))).body).toMatchObject({ valid: false, reason: 'content_changed' });
    // Not a PDF, not signed, no file.
    expect((await verify(Buffer.from('hello'))).body).toMatchObject({ valid: false, reason: 'not_a_pdf' });
    expect((await verify(Buffer.from('%PDF-1.7\n%%EOF\n'))).body).toMatchObject({ valid: false, reason: 'not_signed' });
    const none = multipart({ note: 'x' });
    const res = await ctx.app.inject({ method: 'POST', url: '/v1/prescriptions/verify/', payload: none.payload, headers: none.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('file');
    if (existsSync(PDFSIG)) expect(pdfsig(changed)).not.toContain('Signature is Valid.');
  }, 60_000);

  it('a certificate that is not a prescriber\'s here is unknown', async () => {
    // A prescription re-signed with a look-alike certificate from another CA.
    const { pdf } = await approved();
    const { signPdf } = await import('../src/modules/signing/pades.ts');
    const { sign } = await import('node:crypto');
    const ca = generateSandboxCa('Somebody Else', new Date());
    const keys = newRsaKeyPem();
    const cert = issuePrescriberCertificate(ca, { givenName: 'Staff', surname: 'doctor', qualification: 'Medical doctor', licenceNumber: 'LANR-123456789', email: 'x@example.org', organisation: 'Praxis Nord GmbH' }, keys.publicKeyPem, new Date());
    // Strip our signature by signing the unsigned original again is not possible from the signed file; sign a fresh document instead.
    const unsigned = pdf.subarray(0, pdf.indexOf(Buffer.from('%%EOF')) + 5);
    const forged = await signPdf(Buffer.from(unsigned), { certificatePem: cert.certificatePem, chainPem: [ca.certificatePem], sign: (der) => Promise.resolve(sign('sha256', der, keys.privateKeyPem)) }, { name: 'Staff doctor', reason: 'x', location: 'Germany', contactInfo: 'x' }, new Date());
    expect((await verify(forged.pdf)).body).toMatchObject({ valid: false, reason: 'unknown_certificate' });
  }, 60_000);

  it('carries every element of the Implementing Directive 2012/52/EU annex', async () => {
    const { pdf, rxId } = await approved();
    const text = (await pdfText(pdf)).replace(/\s+/g, ' ');
    for (const element of [
      'Surname: Wójcik-Kowalska', // patient, written out
      'First name(s): Zofia',
      'Date of birth: 1985-04-12',
      'Date of issue: ',
      'Prescribing doctor: Staff doctor',
      'Professional qualification: Medical doctor (physician)',
      'E-mail: ',
      'Telephone: +4930123456',
      'Work address: Praxis Nord GmbH, Friedrichstraße 10, 10117 Berlin',
      'Country: Germany',
      'Signature: advanced electronic signature of Staff doctor',
      'Common name (INN): finasteride',
      'Pharmaceutical form: film-coated tablet',
      'Strength: 1 mg',
      'Quantity: 30 tablets',
      'Dosage instructions: 1 mg by mouth once daily',
    ]) {
      expect(text, element).toContain(element);
    }
    // No brand for a product the annex does not require one for.
    expect(text).not.toContain('Brand name');
    // The printed link opens the web app's public verify page naming this prescription, not the API.
    expect(text).toContain(`${ctx.deps.config.WEB_APP_URL}/verify?code=${rxId}`);
    expect(text).not.toContain('/v1/prescriptions/verify/');
    expect(text).toContain('Dispensings: once (no repeats)');
  }, 60_000);

  it('every treatment of the catalogue has its 2012/52/EU product entry', () => {
    const ids = CATEGORY_SLUGS.flatMap((slug) => getCategory(slug)?.treatments.map((t) => t.treatment_id) ?? []);
    expect(ids.length).toBeGreaterThan(10);
    for (const id of ids) expect(productTreatmentIds(), id).toContain(id);
  });
});

const firstRowOf = <T>(rows: T[]): T => {
  const [row] = rows;
  if (!row) throw new Error('no row');
  return row;
};

describe('dispensing', () => {
  it('two pharmacists dispensing at once: exactly one succeeds, the other 409 already_dispensed; the patient sees where and when; verify says dispensed', async () => {
    const { p, rxId, orderId, pdf } = await approved();
    const second = await newStaff(ctx, 'pharmacist');
    const [a, b] = await Promise.all([
      call(ctx, 'POST', `/v1/pharmacy/orders/${orderId}/dispense/`, { token: pharmacist.access, json: { batch: 'LOT-1', expiry: '2027-06-30' } }),
      call(ctx, 'POST', `/v1/pharmacy/orders/${orderId}/dispense/`, { token: second.access, json: { batch: 'LOT-2', expiry: '2027-06-30' } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((a.status === 409 ? a : b).body).toMatchObject({ code: 'already_dispensed', detail: expect.any(String) });
    expect(firstRowOf(await ctx.db.query<{ n: number }>('select count(*)::int as n from prescription_dispensings where prescription_id = $1', [rxId])).n).toBe(1);
    const again = await call(ctx, 'POST', `/v1/pharmacy/orders/${orderId}/dispense/`, { token: pharmacist.access, json: { batch: 'LOT-3', expiry: '2027-06-30' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_dispensed');
    const detail = await call(ctx, 'GET', `/v1/users/prescriptions/${rxId}/`, { token: p.access });
    expect(detail.body.dispensing).toMatchObject({ status: 'dispensed', pharmacy: { id: null, name: 'Praxis Nord GmbH' }, dispensed_at: expect.any(String), dispensed_count: 1 });
    expect((await verify(pdf)).body).toMatchObject({ valid: true, status: 'dispensed' });
    // The desk shows who signed.
    const desk = await call(ctx, 'GET', `/v1/pharmacy/orders/${orderId}/`, { token: pharmacist.access });
    expect(desk.body.prescription.signature).toMatchObject({ signer: 'Staff doctor', level: 'B-B' });
  }, 60_000);
});

describe('reissue and revocation', () => {
  it('a reissue cancels the original (verify: prescription_cancelled) and signs a new one; its order moves to the new one', async () => {
    const { p, rxId, orderId, pdf } = await approved();
    const asked = await call(ctx, 'POST', `/v1/users/prescriptions/${rxId}/reissue-requests/`, { token: p.access, json: { reason: 'Lost it.' } });
    expect(asked.status, asked.text).toBe(201);
    const ok = await call(ctx, 'POST', `/v1/clinician/reissue-requests/${asked.body.id}/approve/`, { token: doctor.access, json: {} });
    expect(ok.status, ok.text).toBe(200);
    const newId = ok.body.new_prescription_id as string;
    expect((await verify(pdf)).body).toMatchObject({ valid: false, reason: 'prescription_cancelled', prescription_id: rxId, status: 'cancelled' });
    expect((await call(ctx, 'GET', `/v1/users/prescriptions/${rxId}/`, { token: p.access })).body).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });
    const fresh = await download(p, newId);
    expect((await verify(fresh)).body).toMatchObject({ valid: true, prescription_id: newId, status: 'active' });
    const desk = await call(ctx, 'GET', `/v1/pharmacy/orders/${orderId}/`, { token: pharmacist.access });
    expect(desk.body.prescription.id).toBe(newId);
  }, 60_000);

  it('revoked certificates fail verification; rotation keeps old signatures valid; the CLI commands work on a signed-in doctor', async () => {
    const doc = await newStaff(ctx, 'doctor');
    const first = await approved(doc);
    const r1 = await rotateSigningIdentity(ctx.deps, doc.email);
    expect(r1).toEqual({ found: true, retired: 1 });
    const second = await approved(doc);
    const sha = async (x: { p: Patient; rxId: string }) => (await call(ctx, 'GET', `/v1/users/prescriptions/${x.rxId}/`, { token: x.p.access })).body.signature.certificate_sha256 as string;
    expect(await sha(first)).not.toBe(await sha(second));
    expect((await verify(first.pdf)).body.valid).toBe(true);
    expect(await revokeSigningIdentity(ctx.deps, doc.email, 'key compromised')).toEqual({ found: true, revoked: 2 });
    expect((await verify(first.pdf)).body).toMatchObject({ valid: false, reason: 'certificate_revoked', prescription_id: first.rxId });
    expect((await verify(second.pdf)).body).toMatchObject({ valid: false, reason: 'certificate_revoked' });
    // The doctor's session goes on; the next approval is signed with a new identity.
    const third = await approved(doc);
    expect((await verify(third.pdf)).body.valid).toBe(true);
    expect(await revokeSigningIdentity(ctx.deps, 'nobody@example.org', 'x')).toEqual({ found: false, revoked: 0 });
  }, 90_000);
});

describe('STAFF_MFA=required', () => {
  it('a doctor session without the second factor cannot sign (the session itself is refused, nothing issued); one that passed it can', async () => {
    const strict = await anotherInstance(ctx, { STAFF_MFA: 'required', SELLER_NAME: 'Praxis Nord GmbH', SELLER_ADDRESS: 'Friedrichstraße 10|10117 Berlin', SELLER_VAT_ID: 'DE123456789', SELLER_COUNTRY: 'DEU', SELLER_PHONE: '+4930123456' });
    try {
      const { consultationId } = await pendingConsultation();
      const refused = await call(strict, 'POST', `/v1/clinician/consultations/${consultationId}/approve/`, { token: doctor.access, json: {} });
      // A staff session that did not pass the second factor is refused on every request under
      // STAFF_MFA=required (401 before the route runs); the signer's own 403 check stays behind it.
      expect(refused.status, refused.text).toBe(401);
      expect(refused.body.code).toBe('token_not_valid');
      expect(firstRowOf(await ctx.db.query<{ n: number }>('select count(*)::int as n from prescriptions where consultation_id = $1', [consultationId])).n).toBe(0);
      // The same doctor in a session whose sign-in passed the second factor.
      const { issueTokenPair } = await import('../src/modules/accounts/tokens.ts');
      const pair = await issueTokenPair(strict.deps, ctx.db, doctor.id, { secondFactor: true });
      const ok = await call(strict, 'POST', `/v1/clinician/consultations/${consultationId}/approve/`, { token: pair.access, json: {} });
      expect(ok.status, ok.text).toBe(200);
    } finally {
      await strict.close();
    }
  }, 60_000);
});

// ---------------------------------------------------------------- a fake CSC provider on loopback

interface FakeCsc {
  url: string;
  calls: string[];
  close(): Promise<void>;
  failSigning: boolean;
}

async function fakeCsc(): Promise<FakeCsc> {
  const ca = generateSandboxCa('Fake QTSP', new Date());
  const keys = newRsaKeyPem();
  const cert = issuePrescriberCertificate(ca, { givenName: 'Remote', surname: 'Signer', qualification: 'Medical doctor', licenceNumber: 'LANR-999', email: 'remote@example.org', organisation: 'Fake QTSP' }, keys.publicKeyPem, new Date());
  const b64 = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const state: FakeCsc = { url: '', calls: [], close: async () => undefined, failSigning: false };
  const sads = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const path = (req.url ?? '').replace('/csc/v2/', '');
      state.calls.push(path);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path === 'oauth2/token') {
        const form = new URLSearchParams(raw);
        if (form.get('grant_type') !== 'client_credentials' || form.get('client_secret') !== 'csc-secret') return send(400, { error: 'invalid_client' });
        return send(200, { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 });
      }
      if (req.headers.authorization !== 'Bearer at-1') return send(401, { error: 'invalid_token' });
      const body = JSON.parse(raw || '{}') as Record<string, any>;
      if (path === 'credentials/list') return send(200, { credentialIDs: body.userID ? ['cred-1'] : [] });
      if (path === 'credentials/info') return send(200, { key: { status: 'enabled', algo: ['1.2.840.113549.1.1.1'], len: 3072 }, cert: { status: 'valid', certificates: [b64(cert.certificatePem), b64(ca.certificatePem)] }, authMode: 'explicit', SCAL: '2' });
      if (path === 'credentials/authorize') {
        const sad = `sad-${sads.size + 1}`;
        sads.set(sad, body.hashes[0]);
        return send(200, { SAD: sad });
      }
      if (path === 'signatures/signHash') {
        if (state.failSigning) return send(500, { error: 'server_error' });
        if (sads.get(body.SAD) !== body.hashes[0]) return send(400, { error: 'invalid_request', error_description: 'SAD does not cover this hash' });
        const key = forge.pki.privateKeyFromPem(keys.privateKeyPem);
        const md = { algorithm: 'sha256', digest: () => forge.util.createBuffer(Buffer.from(body.hashes[0], 'base64').toString('binary')) };
        return send(200, { signatures: [Buffer.from(key.sign(md as unknown as forge.md.MessageDigest), 'binary').toString('base64')] });
      }
      return send(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/csc/v2`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}

describe('PRESCRIPTION_SIGNER=csc', () => {
  it('signs through oauth2/token, credentials/list, info, authorize and signatures/signHash; verification accepts it; a failing provider is 503 and nothing is issued', async () => {
    const csc = await fakeCsc();
    const remote = await anotherInstance(ctx, {
      PRESCRIPTION_SIGNER: 'csc',
      CSC_BASE_URL: csc.url,
      CSC_CLIENT_ID: 'pts',
      CSC_CLIENT_SECRET: 'csc-secret',
      SELLER_NAME: 'Praxis Nord GmbH',
      SELLER_ADDRESS: 'Friedrichstraße 10|10117 Berlin',
      SELLER_VAT_ID: 'DE123456789',
      SELLER_COUNTRY: 'DEU',
      SELLER_PHONE: '+4930123456',
    });
    try {
      const doc = await newStaff(ctx, 'doctor');
      const { p, rxId, pdf } = await approved(doc, remote);
      expect(csc.calls).toEqual(['oauth2/token', 'credentials/list', 'credentials/info', 'credentials/authorize', 'signatures/signHash']);
      const v = await verify(pdf, remote);
      expect(v.body).toMatchObject({ valid: true, prescription_id: rxId });
      const detail = await call(ctx, 'GET', `/v1/users/prescriptions/${rxId}/`, { token: p.access });
      expect(detail.body.signature.certificate_sha256).toBe(createHash('sha256').update(new X509Certificate(firstRowOf(await ctx.db.query<{ certificate_pem: string }>("select certificate_pem from prescriber_signing_identities where provider = 'csc' and doctor_id = $1", [doc.id])).certificate_pem).raw).digest('hex'));
      if (existsSync(PDFSIG)) expect(pdfsig(pdf)).toContain('Signature is Valid.');
      // The CA route has no sandbox root to publish with a remote provider.
      expect((await remote.app.inject({ method: 'GET', url: '/v1/prescriptions/ca/' })).statusCode).toBe(404);
      // The provider fails: 503, the consultation stays pending, no prescription.
      csc.failSigning = true;
      const { consultationId } = await pendingConsultation();
      const failed = await call(remote, 'POST', `/v1/clinician/consultations/${consultationId}/approve/`, { token: doc.access, json: {} });
      expect(failed.status, failed.text).toBe(503);
      expect(failed.body.code).toBe('signing_unavailable');
      expect(firstRowOf(await ctx.db.query<{ n: number }>('select count(*)::int as n from prescriptions where consultation_id = $1', [consultationId])).n).toBe(0);
    } finally {
      await remote.close();
      await csc.close();
    }
  }, 90_000);
});
