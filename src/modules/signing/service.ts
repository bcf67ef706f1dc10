// Signing identities and the signature of a prescription (docs/prescriptions.md).
//
// PRESCRIPTION_SIGNER=sandbox: each prescriber gets a key pair (RSA 3072, sealed at rest with the
// data-encryption keys) and a one-year certificate from the service's sandbox CA; the CA comes from
// PRESCRIPTION_CA_CERT/KEY or is generated once and kept sealed in the database. PRESCRIPTION_SIGNER=csc:
// the key stays with the provider; its certificate is recorded as the prescriber's identity the first
// time it signs, so verification answers alike for both. Rotation retires the active identity (what
// it signed still verifies) and the next signature issues a new one; revocation makes everything the
// identity signed fail verification.
import { createHash, randomBytes, sign as rsaSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail } from '../../http/errors.ts';
import { openText, sealText } from '../../lib/sealed.ts';
import { getOrCreateSecret } from '../../lib/secrets.repository.ts';
import { certificateSha256, generateSandboxCa, issuePrescriberCertificate, newRsaKeyPem, type CaMaterial } from './ca.ts';
import { CscClient, CscError } from './csc.ts';
import { inspectSignature, signPdf, type Inspection, type SigningKey } from './pades.ts';
import * as repo from './repository.ts';
import { addSignatureTimestamp, issueTsaCertificate, requestTimestamp, sandboxTimestampResponse, timestampQuery, TimestampError, tokenFromResponse, type TsaMaterial } from './tsa.ts';

export interface Prescriber {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  licenceNumber: string;
  qualification: string;
  organisation: string;
  /** Country name of the work address (the signature dictionary's /Location). */
  country: string;
}

export interface PrescriptionSignature {
  pdf: Buffer;
  /** SHA-256 (hex) of the signed byte ranges: the CMS messageDigest. */
  digest: string;
  identityId: string;
  certificateSha256: string;
  signerName: string;
  level: 'B-B' | 'B-T';
  signedAt: Date;
}

/** The session that signs: with STAFF_MFA=required only one that passed the second factor may. */
export interface SigningSession {
  secondFactor: boolean;
}

const caCache = new WeakMap<object, Promise<CaMaterial>>();

function pemSetting(value: string): string {
  return value.trim().startsWith('-----BEGIN') ? value : readFileSync(value, 'utf8');
}

async function loadCa(deps: Deps, q: Queryable): Promise<CaMaterial> {
  const { PRESCRIPTION_CA_CERT, PRESCRIPTION_CA_KEY } = deps.config;
  if (PRESCRIPTION_CA_CERT && PRESCRIPTION_CA_KEY) return { certificatePem: pemSetting(PRESCRIPTION_CA_CERT), privateKeyPem: pemSetting(PRESCRIPTION_CA_KEY) };
  const organisation = deps.config.SELLER_NAME ?? 'Patient Treatment Service';
  const stored = await getOrCreateSecret(q, 'prescription_sandbox_ca', sealText(q, JSON.stringify(generateSandboxCa(organisation, deps.clock.now()))));
  return JSON.parse(openText(q, stored)) as CaMaterial;
}

/**
 * The sandbox CA: configured, else generated once and kept sealed in app_secrets. Read through `q`
 * (the signing transaction: the embedded database has one connection); remembered only once read
 * outside a transaction, so a CA made by a transaction that rolled back is never kept.
 */
export function sandboxCa(deps: Deps, q: Queryable = deps.db): Promise<CaMaterial> {
  const cached = caCache.get(deps.db);
  if (cached) return cached;
  if (q !== deps.db) return loadCa(deps, q);
  const ca = loadCa(deps, q);
  // A failure (database briefly away) is not remembered: the next call tries again.
  ca.catch(() => caCache.delete(deps.db));
  caCache.set(deps.db, ca);
  return ca;
}

/** The root a pharmacy checks sandbox signatures against (PEM); null with a remote provider. */
export async function publishedCaPem(deps: Deps): Promise<string | null> {
  if (deps.config.PRESCRIPTION_SIGNER !== 'sandbox') return null;
  return (await sandboxCa(deps)).certificatePem;
}

const cscClients = new WeakMap<object, CscClient>();
function cscClient(deps: Deps): CscClient {
  let c = cscClients.get(deps.config);
  if (!c) cscClients.set(deps.config, (c = new CscClient(deps.config, () => deps.clock.now())));
  return c;
}

async function sandboxKey(deps: Deps, q: Queryable, prescriber: Prescriber): Promise<{ identity: repo.IdentityRow; key: SigningKey }> {
  const now = deps.clock.now();
  const ca = await sandboxCa(deps, q);
  let identity = await repo.activeIdentity(q, prescriber.id, 'sandbox');
  if (identity && new Date(identity.not_after).getTime() <= now.getTime() + 24 * 3600 * 1000) {
    // About to expire: rotated, so the next lines issue a fresh one.
    await repo.retireActiveIdentities(q, prescriber.id, 'rotated', null, now);
    identity = null;
  }
  if (!identity) {
    const keys = newRsaKeyPem();
    const cert = issuePrescriberCertificate(
      ca,
      { givenName: prescriber.firstName, surname: prescriber.lastName, qualification: prescriber.qualification, licenceNumber: prescriber.licenceNumber, email: prescriber.email, organisation: prescriber.organisation },
      keys.publicKeyPem,
      now,
    );
    identity =
      (await repo.insertIdentity(q, {
        doctorId: prescriber.id,
        provider: 'sandbox',
        certificatePem: cert.certificatePem,
        certificateSha256: cert.sha256,
        serialNumber: cert.serialNumber,
        notAfter: cert.notAfter,
        privateKeySealed: sealText(q, keys.privateKeyPem),
        cscCredentialId: null,
        at: now,
      })) ?? (await repo.activeIdentity(q, prescriber.id, 'sandbox'));
    if (!identity) throw new Error('no active signing identity after issuing one');
  }
  const privateKeyPem = openText(q, identity.private_key_sealed ?? '');
  return {
    identity,
    key: { certificatePem: identity.certificate_pem, chainPem: [ca.certificatePem], sign: (der) => Promise.resolve(rsaSign('sha256', der, privateKeyPem)) },
  };
}

async function cscKey(deps: Deps, q: Queryable, prescriber: Prescriber): Promise<{ identity: repo.IdentityRow; key: SigningKey }> {
  const client = cscClient(deps);
  const credential = await client.credentialFor(prescriber.email);
  const sha = certificateSha256(credential.certificatePem);
  let identity = await repo.identityByCertificate(q, sha);
  if (identity && identity.doctor_id !== prescriber.id) throw new CscError('the provider answered another prescriber\'s certificate');
  if (!identity) {
    const now = deps.clock.now();
    // A new certificate from the provider retires the one recorded before (it still verifies).
    await repo.retireActiveIdentities(q, prescriber.id, 'rotated', null, now);
    const { X509Certificate } = await import('node:crypto');
    const x = new X509Certificate(credential.certificatePem);
    identity = await repo.insertIdentity(q, {
      doctorId: prescriber.id,
      provider: 'csc',
      certificatePem: credential.certificatePem,
      certificateSha256: sha,
      serialNumber: x.serialNumber.toLowerCase(),
      notAfter: new Date(x.validTo),
      privateKeySealed: null,
      cscCredentialId: credential.credentialId,
      at: now,
    });
    if (!identity) throw new CscError('another signing identity was recorded at the same time; try again');
  }
  if (identity.status === 'revoked') throw new CscError('the provider\'s certificate for this prescriber was revoked here');
  return { identity, key: { certificatePem: credential.certificatePem, chainPem: credential.chainPem, sign: (der) => client.signAttributes(credential.credentialId, der) } };
}

const sandboxTsas = new WeakMap<object, TsaMaterial>();

/**
 * The B-T step (SIGNING_TSA_URL): the signature value timestamped by the configured authority, or by
 * the sandbox TSA (a key held in memory, its certificate issued by the sandbox CA and embedded in each
 * token). A timestamp that cannot be had leaves the signature at B-B (logged): a prescription is not
 * refused for want of a timestamp; `level` says which it is.
 */
function timestampStep(deps: Deps, q: Queryable, done: () => void): ((cms: Buffer) => Promise<Buffer>) | undefined {
  const url = deps.config.SIGNING_TSA_URL;
  if (!url) return undefined;
  const timestamp = async (hash: Buffer) => {
    if (url !== 'sandbox') return requestTimestamp(url, hash, deps.config.SIGNING_TSA_TIMEOUT_MS);
    const ca = await sandboxCa(deps, q);
    let tsa = sandboxTsas.get(deps.db);
    if (!tsa) sandboxTsas.set(deps.db, (tsa = issueTsaCertificate(ca, deps.config.SELLER_NAME ?? 'Patient Treatment Service', deps.clock.now())));
    const nonce = randomBytes(8);
    return tokenFromResponse(sandboxTimestampResponse(tsa, ca.certificatePem, timestampQuery(hash, nonce), deps.clock.now()), hash, nonce);
  };
  return async (cms) => {
    try {
      const stamped = await addSignatureTimestamp(cms, timestamp);
      done();
      return stamped;
    } catch (err) {
      if (!(err instanceof TimestampError)) throw err;
      deps.log.warn({ err: err.message }, 'prescription signature not timestamped (B-B): the timestamp authority failed');
      return cms;
    }
  };
}

/**
 * Signs a prescription's PDF for its prescriber (PAdES B-B; B-T with SIGNING_TSA_URL). Refused (403) with STAFF_MFA=required in
 * a session that did not pass the second factor; a provider that fails answers 503 and the caller's
 * transaction (the approval) is rolled back.
 */
export async function signPrescriptionPdf(deps: Deps, q: Queryable, prescriber: Prescriber, session: SigningSession, pdf: Buffer): Promise<PrescriptionSignature> {
  if (deps.config.STAFF_MFA === 'required' && !session.secondFactor) throw fail('second_factor_required_to_sign');
  const signedAt = deps.clock.now();
  let signer: { identity: repo.IdentityRow; key: SigningKey };
  let signed: { pdf: Buffer; digest: string };
  let timestamped = false;
  try {
    signer = deps.config.PRESCRIPTION_SIGNER === 'csc' ? await cscKey(deps, q, prescriber) : await sandboxKey(deps, q, prescriber);
    signed = await signPdf(
      pdf,
      signer.key,
      { name: `${prescriber.firstName} ${prescriber.lastName}`.trim(), reason: 'Prescription issued by the prescriber', location: prescriber.country, contactInfo: prescriber.email },
      signedAt,
      timestampStep(deps, q, () => (timestamped = true)),
    );
  } catch (err) {
    if (err instanceof CscError) {
      deps.log.warn({ err: err.message }, 'prescription signing failed at the remote provider');
      throw fail('signing_unavailable');
    }
    throw err;
  }
  return { pdf: signed.pdf, digest: signed.digest, identityId: signer.identity.id, certificateSha256: signer.identity.certificate_sha256, signerName: `${prescriber.firstName} ${prescriber.lastName}`.trim(), level: timestamped ? 'B-T' : 'B-B', signedAt };
}

export type SignatureCheck =
  | { valid: true; digest: string; identity: repo.IdentityRow; signingTime: Date | null }
  | { valid: false; reason: 'not_signed' | 'malformed_signature' | 'content_changed' | 'signature_invalid' | 'certificate_mismatch' | 'unknown_certificate' | 'certificate_revoked'; digest: string | null };

/** A PDF's signature checked, and its certificate looked up among the prescribers' identities. */
export async function checkPdfSignature(q: Queryable, pdf: Buffer): Promise<SignatureCheck> {
  const inspected: Inspection = inspectSignature(pdf);
  if (!inspected.ok) return { valid: false, reason: inspected.reason, digest: inspected.digest };
  const identity = await repo.identityByCertificate(q, inspected.certificateSha256);
  if (!identity) return { valid: false, reason: 'unknown_certificate', digest: inspected.digest };
  if (identity.status === 'revoked') return { valid: false, reason: 'certificate_revoked', digest: inspected.digest };
  return { valid: true, digest: inspected.digest, identity, signingTime: inspected.signingTime };
}

// ---------------------------------------------------------------- operator commands (src/cli.ts)

/** Retires the prescriber's active identity; the next prescription they sign gets a new key and certificate. */
export async function rotateSigningIdentity(deps: Deps, email: string): Promise<{ found: boolean; retired: number }> {
  return deps.db.tx(async (q) => {
    const doctor = await repo.doctorByEmail(q, email);
    if (!doctor?.is_doctor) return { found: false, retired: 0 };
    return { found: true, retired: await repo.retireActiveIdentities(q, doctor.id, 'rotated', null, deps.clock.now()) };
  });
}

/** Revokes every identity of the prescriber: what they signed no longer verifies; the next signature issues a new one. */
export async function revokeSigningIdentity(deps: Deps, email: string, reason: string): Promise<{ found: boolean; revoked: number }> {
  return deps.db.tx(async (q) => {
    const doctor = await repo.doctorByEmail(q, email);
    if (!doctor?.is_doctor) return { found: false, revoked: 0 };
    return { found: true, revoked: await repo.revokeAllIdentities(q, doctor.id, reason, deps.clock.now()) };
  });
}

export const sha256Hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');
