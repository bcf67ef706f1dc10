// PAdES B-T (docs/prescriptions.md): with SIGNING_TSA_URL the prescription's signature carries an
// RFC 3161 signature timestamp (id-aa-signatureTimeStampToken) over its signature value: from the
// built-in sandbox TSA, or from an authority over HTTP (here a loopback TSA). The token names our
// hash, is signed by a timeStamping certificate the sandbox CA issued, pdfsig and our verification
// still find the signature valid; an authority that fails or answers for another request leaves the
// signature at B-B and the prescription is still issued.
import { execFileSync } from 'node:child_process';
import { createHash, createVerify, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cmsFromContents } from '../src/modules/signing/pades.ts';
import { issueTsaCertificate, sandboxTimestampResponse, timestampQuery, TimestampError, tokenFromResponse } from '../src/modules/signing/tsa.ts';
import { generateSandboxCa } from '../src/modules/signing/ca.ts';
import { paySandbox } from './billing-fixtures.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { anotherInstance, call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { multipart, pdfPart } from './support/multipart.ts';
import { withPhotos } from './support/photo-answers.ts';

const { asn1 } = forge;
type Node = forge.asn1.Asn1;
const kids = (n: Node | undefined): Node[] => (n && Array.isArray(n.value) ? (n.value as Node[]) : []);
const raw = (n: Node | undefined) => Buffer.from(n && typeof n.value === 'string' ? n.value : '', 'binary');
const oidOf = (n: Node | undefined) => asn1.derToOid(raw(n).toString('binary'));
const der = (n: Node) => Buffer.from(asn1.toDer(n).getBytes(), 'binary');
const SELLER = { SELLER_NAME: 'Praxis Nord GmbH', SELLER_ADDRESS: 'Friedrichstraße 10|10117 Berlin', SELLER_VAT_ID: 'DE123456789', SELLER_COUNTRY: 'DEU', SELLER_PHONE: '+4930123456' };
const PDFSIG = '/usr/bin/pdfsig';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext({ ...SELLER, SIGNING_TSA_URL: 'sandbox' });
  doctor = await newStaff(ctx, 'doctor');
}, 60_000);
afterAll(async () => ctx?.close());

async function approvedOn(c: { app: TestContext['app'] }): Promise<{ p: Patient; rxId: string; pdf: Buffer; level: string }> {
  const p = await seedPatient(ctx, { first_name: 'Zofia', last_name: 'Wójcik', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', addresses: [{ street: 'Hauptstr. 1', postal_code: '10115', city: 'Berlin', country: 'DEU', is_default: true }] });
  expect((await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access, json: { data: await withPhotos(ctx, p.access, 'hair_growth', FIXTURES.hair_growth.eligible) } })).status).toBe(200);
  expect((await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token: p.access })).body.outcome).toBe('eligible');
  const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off' });
  const ok = await call(c, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: {} });
  expect(ok.status, ok.text).toBe(200);
  const rx = (await call(ctx, 'GET', '/v1/users/prescriptions/', { token: p.access })).body.results[0];
  const detail = await call(ctx, 'GET', `/v1/users/prescriptions/${rx.id}/`, { token: p.access });
  const res = await ctx.app.inject({ method: 'GET', url: `/v1/users/prescriptions/${rx.id}/pdf/`, headers: { authorization: `Bearer ${p.access}` } });
  return { p, rxId: rx.id, pdf: res.rawPayload, level: detail.body.signature.level };
}

/** The CMS's SignerInfo fields, from the PDF's /Contents. */
function signerInfoOf(pdf: Buffer): Node[] {
  const text = pdf.toString('latin1');
  const m = /\/ByteRange\s*\[\s*\d+\s+(\d+)\s+(\d+)/.exec(text)!;
  const cms = asn1.fromDer(forge.util.createBuffer(cmsFromContents(text.slice(Number(m[1]) + 1, Number(m[2]) - 1))!.toString('binary')), false);
  const signedData = kids(kids(kids(cms)[1])[0]);
  return kids(kids(signedData[signedData.length - 1])[0]);
}

function timestampTokenOf(info: Node[]): Node | null {
  const unsigned = info.find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && Number(n.type) === 1);
  const attr = kids(unsigned).find((a) => oidOf(kids(a)[0]) === '1.2.840.113549.1.9.16.2.14');
  return attr ? kids(kids(attr)[1])[0]! : null;
}

async function verify(c: { app: TestContext['app'] }, pdf: Buffer) {
  const body = multipart({}, pdfPart(pdf, 'prescription.pdf'));
  const res = await c.app.inject({ method: 'POST', url: '/v1/prescriptions/verify/', payload: body.payload, headers: body.headers });
  return res.json();
}

function pdfsig(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'rx-bt-'));
  writeFileSync(join(dir, 'rx.pdf'), pdf);
  try {
    return execFileSync(PDFSIG, [join(dir, 'rx.pdf')], { encoding: 'utf8' });
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

/** A loopback RFC 3161 authority: answers with the sandbox TSA's response, or as `mode` says. */
async function loopbackTsa(mode: () => 'ok' | 'http_error' | 'wrong_nonce') {
  const ca = generateSandboxCa('Loopback TSA CA', new Date());
  const tsa = issueTsaCertificate(ca, 'Loopback', new Date());
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push(String(req.headers['content-type']));
      const m = mode();
      if (m === 'http_error') return res.writeHead(503).end();
      let query: Buffer = Buffer.concat(chunks);
      if (m === 'wrong_nonce') {
        // Answer a request for the same hash with another nonce.
        const fields = kids(asn1.fromDer(forge.util.createBuffer(query.toString('binary')), false));
        query = timestampQuery(raw(kids(fields[1])[1]), Buffer.from('0102030405060708', 'hex'));
      }
      res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(sandboxTimestampResponse(tsa, ca.certificatePem, query, new Date()));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`, requests, ca, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('PAdES B-T', () => {
  it('the sandbox TSA timestamps the signature value; the token is signed by a timeStamping certificate of the CA; still valid for pdfsig and verify', async () => {
    const { p, rxId, pdf, level } = await approvedOn(ctx);
    expect(level).toBe('B-T');
    const info = signerInfoOf(pdf);
    const token = timestampTokenOf(info);
    expect(token).not.toBeNull();
    const signatureValue = raw(info.find((n) => n.tagClass === asn1.Class.UNIVERSAL && n.type === asn1.Type.OCTETSTRING));
    // The token's TSTInfo names SHA-256 of our signature value.
    const signedData = kids(kids(kids(token!)[1])[0]);
    const encap = signedData[2]!;
    expect(oidOf(kids(encap)[0])).toBe('1.2.840.113549.1.9.16.1.4');
    const tstDer = raw(kids(kids(encap)[1])[0]);
    const tst = kids(asn1.fromDer(forge.util.createBuffer(tstDer.toString('binary')), false));
    expect(raw(kids(tst[2])[1]).equals(createHash('sha256').update(signatureValue).digest())).toBe(true);
    // The TSA's signature over its signed attributes verifies with the embedded certificate, which the published root issued.
    const certs = kids(signedData.find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && Number(n.type) === 0)).map((n) => new X509Certificate(der(n)));
    const tsaCert = certs.find((c) => c.subject.includes('timestamp authority'))!;
    expect(tsaCert).toBeDefined();
    const root = new X509Certificate((await ctx.app.inject({ method: 'GET', url: '/v1/prescriptions/ca/' })).body);
    expect(tsaCert.verify(root.publicKey)).toBe(true);
    expect(tsaCert.keyUsage).toContain('1.3.6.1.5.5.7.3.8');
    const tsaInfo = kids(kids(signedData[signedData.length - 1])[0]);
    const attrs = tsaInfo.find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && Number(n.type) === 0)!;
    const v = createVerify('sha256');
    v.update(der(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, kids(attrs))));
    expect(v.verify(tsaCert.publicKey, raw(tsaInfo.find((n) => n.tagClass === asn1.Class.UNIVERSAL && n.type === asn1.Type.OCTETSTRING)))).toBe(true);
    // The messageDigest attribute is the TSTInfo's hash.
    const md = kids(attrs).find((a) => oidOf(kids(a)[0]) === forge.pki.oids.messageDigest)!;
    expect(raw(kids(kids(md)[1])[0]).equals(createHash('sha256').update(tstDer).digest())).toBe(true);

    const verdict = await verify(ctx, pdf);
    expect(verdict).toMatchObject({ valid: true, prescription_id: rxId, status: 'active' });
    expect((await call(ctx, 'GET', `/v1/users/prescriptions/${rxId}/`, { token: p.access })).body.signature.level).toBe('B-T');
    if (!existsSync(PDFSIG)) {
      console.warn(`SKIPPED pdfsig check: ${PDFSIG} is absent (install poppler-utils)`);
      return;
    }
    const report = pdfsig(pdf);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
  }, 60_000);

  it('an authority over HTTP (RFC 3161 query and reply); one that fails or answers another request leaves B-B, and the prescription is issued', async () => {
    let mode: 'ok' | 'http_error' | 'wrong_nonce' = 'ok';
    const tsa = await loopbackTsa(() => mode);
    const remote = await anotherInstance(ctx, { ...SELLER, SIGNING_TSA_URL: tsa.url, SIGNING_TSA_TIMEOUT_MS: '5000' });
    try {
      const stamped = await approvedOn(remote);
      expect(stamped.level).toBe('B-T');
      expect(tsa.requests).toEqual(['application/timestamp-query']);
      expect(timestampTokenOf(signerInfoOf(stamped.pdf))).not.toBeNull();
      expect((await verify(ctx, stamped.pdf)).valid).toBe(true);

      for (const m of ['http_error', 'wrong_nonce'] as const) {
        mode = m;
        const plain = await approvedOn(remote);
        expect(plain.level, m).toBe('B-B');
        expect(timestampTokenOf(signerInfoOf(plain.pdf)), m).toBeNull();
        expect((await verify(ctx, plain.pdf)).valid, m).toBe(true);
      }
      expect(tsa.requests).toHaveLength(3);
    } finally {
      await remote.close();
      await tsa.close();
    }
  }, 90_000);

  it('the client refuses a reply for another hash or another nonce', () => {
    const ca = generateSandboxCa('Unit CA', new Date());
    const tsa = issueTsaCertificate(ca, 'Unit', new Date());
    const hash = createHash('sha256').update('signature').digest();
    const nonce = Buffer.from('0a0b0c0d0e0f1011', 'hex');
    const reply = sandboxTimestampResponse(tsa, ca.certificatePem, timestampQuery(hash, nonce), new Date('2026-12-02T10:00:00Z'));
    expect(tokenFromResponse(reply, hash, nonce).genTime.toISOString()).toBe('2026-12-02T10:00:00.000Z');
    expect(() => tokenFromResponse(reply, createHash('sha256').update('other').digest(), nonce)).toThrow(TimestampError);
    expect(() => tokenFromResponse(reply, hash, Buffer.from('0a0b0c0d0e0f1012', 'hex'))).toThrow(TimestampError);
    expect(() => tokenFromResponse(Buffer.from('not der'), hash, nonce)).toThrow(TimestampError);
  });
});
