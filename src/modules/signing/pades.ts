// PAdES signatures of prescriptions (docs/prescriptions.md): a signature dictionary added to the PDF
// by @signpdf/placeholder-plain (subfilter ETSI.CAdES.detached), and the CMS SignedData made by
// node-forge's pkcs7 through @signpdf's Signer contract. What PAdES B-B asks beyond a plain
// adbe.pkcs7.detached signature is the signed ESS signing-certificate-v2 attribute (RFC 5035, ETSI
// EN 319 122-1 5.2.2.3): the hash of the signer's certificate, so a certificate cannot be swapped.
// forge encodes only contentType, messageDigest and signingTime, so the attribute is added to the
// signed attributes forge builds, before they are digested and signed (see `attributesDigest`).
//
// The private key never has to be here: the signature value comes from `signHash` (the SHA-256 of
// the DER of the signed attributes), made by the sandbox's sealed key or by a remote provider (CSC
// signatures/signHash). forge's signing runs twice with the same inputs (same time, same content):
// once to learn the hash, once to place the signature, so nothing of the CMS is assembled by hand.
import { createHash, createVerify, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { plainAddPlaceholder } from '@signpdf/placeholder-plain';
import { SignPdf } from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';

const { asn1 } = forge;
/** id-aa-signingCertificateV2 (RFC 5035). */
const SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
/** id-aa-signatureTimeStampToken (RFC 3161 appendix A): the B-T timestamp, an unsigned attribute. */
const SIGNATURE_TIMESTAMP_TOKEN = '1.2.840.113549.1.9.16.2.14';
/** The signature field's size in bytes (hex doubles it): room for the certificate chain. */
const SIGNATURE_LENGTH = 16_384;

/**
 * Signs the DER of the signed attributes with RSASSA-PKCS1-v1_5 and SHA-256: the sandbox's key signs
 * the bytes (node:crypto), a remote provider their SHA-256 (CSC signatures/signHash).
 */
export type SignAttributes = (signedAttributesDer: Buffer) => Promise<Buffer>;

export interface SigningKey {
  /** The signer's certificate (PEM) and the chain above it (PEM, issuer first), all embedded in the CMS. */
  certificatePem: string;
  chainPem: string[];
  sign: SignAttributes;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();

/** The ESS signing-certificate-v2 attribute naming `cert` by its SHA-256 (the default hash, so no AlgorithmIdentifier) and issuer/serial. */
export function signingCertificateV2(cert: forge.pki.Certificate): forge.asn1.Asn1 {
  const der = asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes();
  const issuerSerial = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    // GeneralNames: one directoryName [4]
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [asn1.create(asn1.Class.CONTEXT_SPECIFIC, 4, true, [forge.pki.distinguishedNameToAsn1(cert.issuer)])]),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, forge.util.hexToBytes(cert.serialNumber)),
  ]);
  const essCertIdV2 = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, sha256(Buffer.from(der, 'binary')).toString('binary')),
    issuerSerial,
  ]);
  const value = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [essCertIdV2])]);
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(SIGNING_CERTIFICATE_V2).getBytes()),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, [value]),
  ]);
}

interface ForgeSigner {
  authenticatedAttributesAsn1: forge.asn1.Asn1 & { value: forge.asn1.Asn1[] };
}

/** A @signpdf Signer whose CMS is forge's pkcs7 SignedData (detached) with the PAdES B-B attributes. */
export class PadesSigner extends Signer {
  /** `finish`: a last step over the CMS (DER), e.g. the B-T signature timestamp (tsa.ts). */
  constructor(
    private readonly key: SigningKey,
    private readonly finish?: (cms: Buffer) => Promise<Buffer>,
  ) {
    super();
  }

  private build(content: Buffer, signingTime: Date, sign: (attributes: ForgeSigner) => string) {
    const certificate = forge.pki.certificateFromPem(this.key.certificatePem);
    const p7 = forge.pkcs7.createSignedData();
    p7.content = forge.util.createBuffer(content.toString('binary'));
    p7.addCertificate(certificate);
    for (const pem of this.key.chainPem) p7.addCertificate(forge.pki.certificateFromPem(pem));
    // forge calls key.sign once the signed attributes are built; `sign` adds signing-certificate-v2
    // to them and answers the signature value.
    const key = { sign: () => sign((p7 as unknown as { signers: ForgeSigner[] }).signers[0]!) };
    p7.addSigner({
      key: key as unknown as forge.pki.rsa.PrivateKey,
      certificate,
      digestAlgorithm: forge.pki.oids.sha256!,
      authenticatedAttributes: [
        { type: forge.pki.oids.contentType!, value: forge.pki.oids.data },
        { type: forge.pki.oids.signingTime!, value: signingTime as unknown as string },
        { type: forge.pki.oids.messageDigest! },
      ],
    });
    p7.sign({ detached: true });
    return { p7, certificate };
  }

  /** Adds the attribute (once) and answers the DER SET of the signed attributes (what is signed). */
  private signedAttributes(signer: ForgeSigner, certificate: forge.pki.Certificate): Buffer {
    signer.authenticatedAttributesAsn1.value.push(signingCertificateV2(certificate));
    const set = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, signer.authenticatedAttributesAsn1.value);
    return Buffer.from(asn1.toDer(set).getBytes(), 'binary');
  }

  override async sign(content: Buffer, signingTime?: Date): Promise<Buffer> {
    const at = signingTime ?? new Date();
    const certificate = forge.pki.certificateFromPem(this.key.certificatePem);
    let attributes: Buffer | undefined;
    this.build(content, at, (s) => {
      attributes = this.signedAttributes(s, certificate);
      return '';
    });
    if (!attributes) throw new Error('forge did not sign the attributes');
    const signature = await this.key.sign(attributes);
    const { p7 } = this.build(content, at, (s) => {
      const again = this.signedAttributes(s, certificate);
      if (!again.equals(attributes!)) throw new Error('the signed attributes changed between the two passes');
      return signature.toString('binary');
    });
    const cms = Buffer.from(asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
    return this.finish ? this.finish(cms) : cms;
  }
}

export interface SignatureAppearance {
  /** The signer's name (the signature dictionary's /Name). */
  name: string;
  reason: string;
  location: string;
  contactInfo: string;
}

/**
 * The signature dictionary's strings in plain ASCII: placeholder-plain writes them as literal strings
 * byte for byte, and a reader shows anything else as garbage. The certificate carries the exact name.
 */
export function pdfAscii(s: string): string {
  const folded = s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[ŁłØøĐđßÆæŒœ]/g, (ch) => ({ Ł: 'L', ł: 'l', Ø: 'O', ø: 'o', Đ: 'D', đ: 'd', ß: 'ss', Æ: 'AE', æ: 'ae', Œ: 'OE', œ: 'oe' })[ch] ?? '?');
  return folded.replace(/[^\x20-\x7e]/g, '?').replace(/[()\\]/g, ' ');
}

/** The PDF signed (PAdES B-B, ETSI.CAdES.detached), and the SHA-256 its signature covers (hex). */
export async function signPdf(pdf: Buffer, key: SigningKey, appearance: SignatureAppearance, signingTime: Date, finish?: (cms: Buffer) => Promise<Buffer>): Promise<{ pdf: Buffer; digest: string }> {
  const prepared = plainAddPlaceholder({
    pdfBuffer: pdf,
    reason: pdfAscii(appearance.reason),
    contactInfo: pdfAscii(appearance.contactInfo),
    name: pdfAscii(appearance.name),
    location: pdfAscii(appearance.location),
    signingTime,
    signatureLength: SIGNATURE_LENGTH,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    // A PDF name object (no spaces).
    appName: 'PatientTreatmentService',
  });
  const signed = await new SignPdf().sign(prepared, new PadesSigner(key, finish), signingTime);
  const inspected = inspectSignature(signed);
  if (!inspected.ok) throw new Error(`the signed prescription does not verify: ${inspected.reason}`);
  return { pdf: signed, digest: inspected.digest };
}

// ---------------------------------------------------------------- verification

export type SignatureFailure = 'not_signed' | 'malformed_signature' | 'content_changed' | 'signature_invalid' | 'certificate_mismatch';

export type Inspection =
  | { ok: true; digest: string; certificate: X509Certificate; certificateSha256: string; chain: X509Certificate[]; signingTime: Date | null; subFilter: string | null; timestamped: boolean }
  /** `digest`: the SHA-256 the signature claims to cover (to name the prescription a changed file was), when readable. */
  | { ok: false; reason: SignatureFailure; digest: string | null };

const BYTE_RANGE = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g;

type Node = forge.asn1.Asn1 & { value: Node[] | string };
const children = (n: forge.asn1.Asn1 | undefined): Node[] => (n && Array.isArray(n.value) ? (n.value) : []);
const bytesOf = (n: Node | undefined): string => (n && typeof n.value === 'string' ? n.value : '');

/**
 * The CMS in a signature's /Contents: the hex string is padded with zeros to the placeholder's size,
 * so the DER is cut at the length its outer SEQUENCE declares. (Trimming trailing "00"s instead
 * would also cut a signature value that happens to end in a zero byte: one signature in 256.)
 */
export function cmsFromContents(hex: string): Buffer | null {
  if (!/^[0-9a-fA-F]*$/.test(hex)) return null;
  const bytes = Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
  if (bytes.length < 2 || bytes[0] !== 0x30) return null;
  const first = bytes[1]!;
  let header = 2;
  let length = first;
  if (first & 0x80) {
    const octets = first & 0x7f;
    if (octets === 0 || octets > 4 || bytes.length < 2 + octets) return null;
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + bytes[2 + i]!;
    header += octets;
  }
  return header + length <= bytes.length ? bytes.subarray(0, header + length) : null;
}

/**
 * Checks the one signature of a PDF: it covers the whole file but its own value, the messageDigest
 * is the SHA-256 of those bytes, the signed attributes carry signing-certificate-v2 naming the
 * embedded signer certificate, and the signature over them verifies with that certificate's key.
 * Which certificate it is (known, revoked) is the caller's question.
 */
export function inspectSignature(pdf: Buffer): Inspection {
  const text = pdf.toString('latin1');
  const ranges = [...text.matchAll(BYTE_RANGE)];
  if (ranges.length === 0) return { ok: false, reason: 'not_signed', digest: null };
  // One signature, covering everything up to the end of the file: an incremental update appended
  // after signing (a second revision) is a change the signature does not cover.
  if (ranges.length > 1) return { ok: false, reason: 'content_changed', digest: null };
  const [a, b, c, d] = ranges[0]!.slice(1, 5).map(Number) as [number, number, number, number];
  if (a !== 0 || b <= 0 || c <= b || c + d > pdf.length || pdf[b] !== 0x3c || pdf[c - 1] !== 0x3e) return { ok: false, reason: 'malformed_signature', digest: null };
  // Bytes after the signed range: a revision appended after signing, which the signature does not cover.
  const appended = c + d !== pdf.length;
  let signedData: Node[];
  let signerInfo: Node[];
  let cms: forge.asn1.Asn1;
  try {
    const der = cmsFromContents(text.slice(b + 1, c - 1));
    if (!der) return { ok: false, reason: 'malformed_signature', digest: null };
    cms = asn1.fromDer(forge.util.createBuffer(der.toString('binary')), false);
    const [oid, wrapped] = children(cms);
    if (asn1.derToOid(bytesOf(oid)) !== forge.pki.oids.signedData) return { ok: false, reason: 'malformed_signature', digest: null };
    signedData = children(children(wrapped)[0]);
    const infos = signedData[signedData.length - 1];
    signerInfo = children(children(infos)[0]);
  } catch {
    return { ok: false, reason: 'malformed_signature', digest: null };
  }
  try {
    const certsNode = signedData.find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && Number(n.type) === 0);
    const certificates = children(certsNode).map((n) => new X509Certificate(Buffer.from(asn1.toDer(n).getBytes(), 'binary')));
    const attrsNode = signerInfo.find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && Number(n.type) === 0);
    if (!attrsNode) return { ok: false, reason: 'malformed_signature', digest: null };
    const attributes = new Map(children(attrsNode).map((attr) => [asn1.derToOid(bytesOf(children(attr)[0])), children(children(attr)[1])[0]]));
    const digest = Buffer.from(bytesOf(attributes.get(forge.pki.oids.messageDigest!)), 'binary').toString('hex');
    const signedBytes = Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);
    if (digest.length !== 64) return { ok: false, reason: 'malformed_signature', digest: null };
    if (appended || sha256(signedBytes).toString('hex') !== digest) return { ok: false, reason: 'content_changed', digest };
    // signing-certificate-v2: the first ESSCertIDv2's certHash names the signer's certificate.
    const ess = attributes.get(SIGNING_CERTIFICATE_V2);
    const certHash = Buffer.from(bytesOf(children(children(children(ess)[0])[0])[0]), 'binary').toString('hex');
    const certificate = certificates.find((cert) => sha256(cert.raw).toString('hex') === certHash);
    if (!certificate) return { ok: false, reason: 'certificate_mismatch', digest };
    const set = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, children(attrsNode));
    const signature = Buffer.from(bytesOf(signerInfo.find((n) => n.tagClass === asn1.Class.UNIVERSAL && n.type === asn1.Type.OCTETSTRING)), 'binary');
    const verifier = createVerify('sha256');
    verifier.update(Buffer.from(asn1.toDer(set).getBytes(), 'binary'));
    if (!verifier.verify(certificate.publicKey, signature)) return { ok: false, reason: 'signature_invalid', digest };
    const timeNode = attributes.get(forge.pki.oids.signingTime!);
    const signingTime = timeNode ? (timeNode.type === asn1.Type.UTCTIME ? asn1.utcTimeToDate(bytesOf(timeNode)) : asn1.generalizedTimeToDate(bytesOf(timeNode))) : null;
    const subFilter = /\/SubFilter\s*\/([A-Za-z0-9.]+)/.exec(text)?.[1] ?? null;
    // PAdES B-T: an id-aa-signatureTimeStampToken among the unsigned attributes ([1]).
    const unsigned = signerInfo.find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && Number(n.type) === 1);
    const timestamped = children(unsigned).some((attr) => asn1.derToOid(bytesOf(children(attr)[0])) === SIGNATURE_TIMESTAMP_TOKEN);
    return { ok: true, digest, certificate, certificateSha256: certificate.fingerprint256.replace(/:/g, '').toLowerCase(), chain: certificates.filter((x) => x !== certificate), signingTime, subFilter, timestamped };
  } catch {
    return { ok: false, reason: 'malformed_signature', digest: null };
  }
}
