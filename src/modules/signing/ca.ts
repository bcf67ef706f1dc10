// The sandbox's certificate authority (docs/prescriptions.md): a self-signed root that issues each
// prescriber's signing certificate. Certificates are made with node-forge (X.509 v3); keys with
// node:crypto (RSA 3072, generated in native code). Not a qualified certificate: it shows that the
// signature chain works end to end and lets a pharmacy check a prescription against the root the
// service publishes (GET /v1/prescriptions/ca/).
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface CaMaterial {
  certificatePem: string;
  privateKeyPem: string;
}

export interface PrescriberSubject {
  /** Full name as printed (given names and surname written out). */
  givenName: string;
  surname: string;
  /** Professional qualification (X.520 title). */
  qualification: string;
  /** The licence (registration) number, the subject's serialNumber attribute. */
  licenceNumber: string;
  email: string;
  organisation: string;
}

const DAY = 24 * 3600 * 1000;
const SANDBOX_CA_YEARS = 10;
/** A prescriber's certificate lives one year: rotation is the normal path, not the exception. */
export const PRESCRIBER_CERT_DAYS = 365;

export function newRsaKeyPem(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 3072 });
  return { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

// A positive 128-bit serial (the top bit clear keeps the DER INTEGER positive).
const serial = () => {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
};

// forge encodes a string attribute as UTF8String when asked (valueTagClass 12); otherwise it writes
// the characters as one byte each, so a name in Greek, Cyrillic or Polish would give a broken
// certificate. Every name (the seller's for the CA, the doctor's) goes through this.
const utf8 = (v: string) => ({ value: v, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class });

export function generateSandboxCa(organisation: string, now: Date): CaMaterial {
  const keys = newRsaKeyPem();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now.getTime() - DAY);
  cert.validity.notAfter = new Date(now.getTime() + SANDBOX_CA_YEARS * 365 * DAY);
  const name = [
    { name: 'commonName', ...utf8(`${organisation} prescription signing sandbox CA`) },
    { name: 'organizationName', ...utf8(organisation) },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true, pathLenConstraint: 0 },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKeyPem), forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(cert), privateKeyPem: keys.privateKeyPem };
}

/** A prescriber's signing certificate (digitalSignature + nonRepudiation), issued by the CA. */
export function issuePrescriberCertificate(ca: CaMaterial, subject: PrescriberSubject, publicKeyPem: string, now: Date): { certificatePem: string; serialNumber: string; notAfter: Date; sha256: string } {
  const caCert = forge.pki.certificateFromPem(ca.certificatePem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + PRESCRIBER_CERT_DAYS * DAY);
  cert.setSubject([
    { name: 'commonName', ...utf8(`${subject.givenName} ${subject.surname}`.trim()) },
    { name: 'givenName', ...utf8(subject.givenName) },
    { name: 'surname', ...utf8(subject.surname) },
    { name: 'title', ...utf8(subject.qualification) },
    { type: '2.5.4.5', ...utf8(subject.licenceNumber) },
    { name: 'organizationName', ...utf8(subject.organisation) },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectAltName', altNames: [{ type: 1, value: subject.email }] },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.privateKeyPem), forge.md.sha256.create());
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { certificatePem: forge.pki.certificateToPem(cert), serialNumber: cert.serialNumber, notAfter: cert.validity.notAfter, sha256: createHash('sha256').update(der).digest('hex') };
}

/** SHA-256 of a PEM certificate's DER, lower-case hex. */
export function certificateSha256(pem: string): string {
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(forge.pki.certificateFromPem(pem))).getBytes(), 'binary');
  return createHash('sha256').update(der).digest('hex');
}
