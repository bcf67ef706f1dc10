// PAdES B-T (ETSI EN 319 142-1, docs/prescriptions.md): an RFC 3161 signature timestamp over the CMS
// signature value, added to the SignerInfo as the unsigned attribute id-aa-signatureTimeStampToken
// (RFC 3161 appendix A). The client asks a timestamp authority over HTTP (application/timestamp-query)
// and checks that the token answers for exactly our hash and nonce. The sandbox TSA builds tokens
// itself (a CMS SignedData over a TSTInfo made with node-forge's pkcs7, signed by a key whose
// certificate the sandbox CA issues with the critical timeStamping extended key usage), for
// development and the tests; it is not a qualified timestamp.
import { createHash, randomBytes, sign as rsaSign } from 'node:crypto';
import forge from 'node-forge';
import type { CaMaterial } from './ca.ts';
import { newRsaKeyPem } from './ca.ts';
import { signingCertificateV2 } from './pades.ts';

const { asn1 } = forge;
type Asn1 = forge.asn1.Asn1;

/** id-aa-signatureTimeStampToken (RFC 3161 appendix A); pades.ts reads it back. */
const SIGNATURE_TIMESTAMP_TOKEN = '1.2.840.113549.1.9.16.2.14';
/** id-ct-TSTInfo (RFC 3161 2.4.2). */
const TST_INFO = '1.2.840.113549.1.9.16.1.4';
const SHA256 = forge.pki.oids.sha256!;
/** The sandbox TSA's policy (an arc under the example OID 1.3.6.1.4.1.99999: not a registered policy). */
const SANDBOX_POLICY = '1.3.6.1.4.1.99999.1.1';

export class TimestampError extends Error {}

const seq = (v: Asn1[]) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, v);
const oid = (o: string) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(o).getBytes());
const int = (bytes: Buffer) => {
  // DER INTEGER of unsigned bytes: a leading zero keeps it positive.
  const b = bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, b.toString('binary'));
};
const octets = (b: Buffer) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, b.toString('binary'));
const messageImprint = (hash: Buffer) => seq([seq([oid(SHA256), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')]), octets(hash)]);
const der = (n: Asn1) => Buffer.from(asn1.toDer(n).getBytes(), 'binary');
const parse = (b: Buffer) => asn1.fromDer(forge.util.createBuffer(b.toString('binary')), false);
const kids = (n: Asn1 | undefined): Asn1[] => (n && Array.isArray(n.value) ? (n.value) : []);
const raw = (n: Asn1 | undefined): Buffer => Buffer.from(n && typeof n.value === 'string' ? n.value : '', 'binary');
/** An INTEGER's bytes without the sign-keeping leading zero (to compare nonces). */
const intBytes = (n: Asn1 | undefined) => {
  const b = raw(n);
  return b.length > 1 && b[0] === 0 ? b.subarray(1) : b;
};

/** A TimeStampReq (RFC 3161 2.4.1) for a SHA-256 hash, with a nonce, asking for the TSA's certificate. */
export function timestampQuery(hash: Buffer, nonce: Buffer): Buffer {
  return der(seq([int(Buffer.from([1])), messageImprint(hash), int(nonce), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BOOLEAN, false, '\xff')]));
}

/** The TSTInfo inside a TimeStampToken (ContentInfo of SignedData with eContent TSTInfo). */
function tstInfoOf(token: Asn1): { imprint: Buffer; nonce: Buffer; genTime: Date } {
  const [type, wrapped] = kids(token);
  if (asn1.derToOid(raw(type).toString('binary')) !== forge.pki.oids.signedData) throw new TimestampError('the token is not a SignedData');
  const signedData = kids(kids(wrapped)[0]);
  const encap = signedData[2];
  const [eType, eWrapped] = kids(encap);
  if (asn1.derToOid(raw(eType).toString('binary')) !== TST_INFO) throw new TimestampError('the token does not carry a TSTInfo');
  const tst = kids(parse(raw(kids(eWrapped)[0])));
  const imprint = raw(kids(tst[2])[1]);
  const genTime = asn1.generalizedTimeToDate(raw(tst[4]).toString('binary'));
  const nonceNode = tst.find((n, i) => i > 4 && n.tagClass === asn1.Class.UNIVERSAL && n.type === asn1.Type.INTEGER);
  return { imprint, nonce: intBytes(nonceNode), genTime };
}

/**
 * Reads a TimeStampResp (RFC 3161 2.4.2): granted (0) or grantedWithMods (1) with a token whose
 * TSTInfo names exactly `hash` and `nonce`; anything else is a TimestampError.
 */
export function tokenFromResponse(response: Buffer, hash: Buffer, nonce: Buffer): { token: Asn1; genTime: Date } {
  let resp: Asn1;
  try {
    resp = parse(response);
  } catch {
    throw new TimestampError('the timestamp response is not DER');
  }
  const [statusInfo, token] = kids(resp);
  const status = raw(kids(statusInfo)[0]).readUIntBE(0, 1);
  if (status > 1 || !token) throw new TimestampError(`the timestamp authority refused (status ${status})`);
  const info = tstInfoOf(token);
  if (!info.imprint.equals(hash)) throw new TimestampError('the timestamp is for another hash');
  if (!info.nonce.equals(intBytes(int(nonce)))) throw new TimestampError('the timestamp answers another request (nonce)');
  return { token, genTime: info.genTime };
}

/** Asks an RFC 3161 timestamp authority over HTTP for a token over `hash` (SHA-256). */
export async function requestTimestamp(url: string, hash: Buffer, timeoutMs: number): Promise<{ token: Asn1; genTime: Date }> {
  const nonce = randomBytes(8);
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' }, body: new Uint8Array(timestampQuery(hash, nonce)), signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new TimestampError(`the timestamp authority is unreachable: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!response.ok) throw new TimestampError(`the timestamp authority answered HTTP ${response.status}`);
  return tokenFromResponse(Buffer.from(await response.arrayBuffer()), hash, nonce);
}

/**
 * Adds the signature timestamp to a CMS SignedData (DER): `timestamp` gets the SHA-256 of the
 * SignerInfo's signature value and answers the TimeStampToken, put in the unsigned attributes.
 */
export async function addSignatureTimestamp(cms: Buffer, timestamp: (hash: Buffer) => Promise<{ token: Asn1 }>): Promise<Buffer> {
  const contentInfo = parse(cms);
  const signedData = kids(kids(kids(contentInfo)[1])[0]);
  const signerInfo = kids(signedData[signedData.length - 1])[0]!;
  const fields = kids(signerInfo);
  const signature = fields.find((n) => n.tagClass === asn1.Class.UNIVERSAL && n.type === asn1.Type.OCTETSTRING);
  if (!signature) throw new TimestampError('the CMS has no signature value');
  const { token } = await timestamp(createHash('sha256').update(raw(signature)).digest());
  const attribute = seq([oid(SIGNATURE_TIMESTAMP_TOKEN), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, [token])]);
  // unsignedAttrs [1] IMPLICIT SET OF Attribute, after the signature value.
  fields.push(asn1.create(asn1.Class.CONTEXT_SPECIFIC, 1, true, [attribute]));
  return der(contentInfo);
}

// ---------------------------------------------------------------- the sandbox TSA

export interface TsaMaterial {
  certificatePem: string;
  privateKeyPem: string;
}

/** The sandbox TSA's key and certificate: issued by the sandbox CA, extendedKeyUsage timeStamping (critical, RFC 3161 2.3). */
export function issueTsaCertificate(ca: CaMaterial, organisation: string, now: Date): TsaMaterial {
  const keys = newRsaKeyPem();
  const caCert = forge.pki.certificateFromPem(ca.certificatePem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 2 * 365 * 24 * 3600 * 1000);
  cert.setSubject([
    { name: 'commonName', value: `${organisation} sandbox timestamp authority`, valueTagClass: asn1.Type.UTF8 as unknown as forge.asn1.Class },
    { name: 'organizationName', value: organisation, valueTagClass: asn1.Type.UTF8 as unknown as forge.asn1.Class },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'extKeyUsage', timeStamping: true, critical: true },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.privateKeyPem), forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(cert), privateKeyPem: keys.privateKeyPem };
}

/**
 * The sandbox TSA's answer to a TimeStampReq: a granted TimeStampResp whose token is a CMS SignedData
 * (forge's pkcs7, eContentType id-ct-TSTInfo) signed with signing-certificate-v2 naming the TSA
 * certificate, which is embedded with the CA's when the request asks for it.
 */
export function sandboxTimestampResponse(tsa: TsaMaterial, caPem: string, query: Buffer, now: Date): Buffer {
  const req = kids(parse(query));
  const imprint = req[1]!;
  const nonce = req.find((n, i) => i > 1 && n.tagClass === asn1.Class.UNIVERSAL && n.type === asn1.Type.INTEGER);
  const certReq = req.some((n) => n.type === asn1.Type.BOOLEAN && raw(n)[0] !== 0);
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const tstInfo = seq([
    int(Buffer.from([1])),
    oid(SANDBOX_POLICY),
    imprint,
    int(serial),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.GENERALIZEDTIME, false, asn1.dateToGeneralizedTime(now)),
    ...(nonce ? [nonce] : []),
  ]);
  const certificate = forge.pki.certificateFromPem(tsa.certificatePem);
  const p7 = forge.pkcs7.createSignedData();
  if (certReq) {
    p7.addCertificate(certificate);
    p7.addCertificate(forge.pki.certificateFromPem(caPem));
  }
  // A ContentInfo of type TSTInfo set beforehand: forge signs its eContent instead of making a Data one.
  const msg = p7 as unknown as { contentInfo: Asn1; content: unknown; signers: { authenticatedAttributesAsn1: Asn1 & { value: Asn1[] } }[] };
  msg.content = forge.util.createBuffer(der(tstInfo).toString('binary'));
  msg.contentInfo = seq([oid(TST_INFO), asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [octets(der(tstInfo))])]);
  const key = {
    sign: () => {
      const attrs = msg.signers[0]!.authenticatedAttributesAsn1;
      attrs.value.push(signingCertificateV2(certificate));
      const set = der(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, attrs.value));
      return rsaSign('sha256', set, tsa.privateKeyPem).toString('binary');
    },
  };
  p7.addSigner({
    key: key as unknown as forge.pki.rsa.PrivateKey,
    certificate,
    digestAlgorithm: SHA256,
    authenticatedAttributes: [
      { type: forge.pki.oids.contentType!, value: TST_INFO },
      { type: forge.pki.oids.signingTime!, value: now as unknown as string },
      { type: forge.pki.oids.messageDigest! },
    ],
  });
  p7.sign();
  const granted = seq([int(Buffer.from([0]))]);
  return der(seq([granted, p7.toAsn1()]));
}
