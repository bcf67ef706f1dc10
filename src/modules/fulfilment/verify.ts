// The patient's prescription detail (signature and dispensing) and the public verification of a
// prescription PDF (docs/prescriptions.md).
import type { Deps } from '../../deps.ts';
import type { Queryable } from '../../db/index.ts';
import { notFound } from '../../http/errors.ts';
import { iso } from '../../lib/iso.ts';
import { checkPdfSignature } from '../signing/index.ts';
import { dispensingsOf, prescriptionBySignedDigestForPharmacy, dispensingsForPharmacy, prescriptionDetailOf, lastDispensedInChainForPharmacy, lastDispensedInChainOf } from './signed.repository.ts';
import { nextDispensingFrom } from './repeats.ts';
import { signatureOf, toPrescription, type Dispensing, type PrescriptionDetail } from './schemas.ts';

/**
 * A prescription's dispensing in its API shape: `rows` its own dispensings, `lastInChain` the last
 * dispensing of it or of the prescription a reissue replaced (the stated interval counts from it).
 */
export function dispensingOf(
  rows: { order_id: string; pharmacy_name: string; partner_pharmacy_id: string | null; dispensed_at: Date }[],
  rx: { repeats: number; repeat_interval_days: number | null },
  lastInChain: Date | null,
): Dispensing {
  const count = new Set(rows.map((r) => r.order_id)).size;
  const allowed = 1 + rx.repeats;
  const last = rows[rows.length - 1];
  const next = count >= allowed ? null : nextDispensingFrom(lastInChain, rx.repeat_interval_days);
  return {
    status: count === 0 ? 'not_dispensed' : count >= allowed ? 'dispensed' : 'partly_dispensed',
    pharmacy: last ? { id: last.partner_pharmacy_id, name: last.pharmacy_name } : null,
    dispensed_at: last ? iso(last.dispensed_at) : null,
    dispensings_allowed: allowed,
    dispensed_count: count,
    repeats_used: Math.max(0, count - 1),
    repeats_left: Math.max(0, allowed - Math.max(count, 1)),
    repeat_interval_days: rx.repeat_interval_days,
    next_dispensing_from: iso(next),
  };
}

export async function prescriptionDetail(q: Queryable, baseUrl: string, userId: string, id: string): Promise<PrescriptionDetail> {
  const row = await prescriptionDetailOf(q, userId, id);
  if (!row) throw notFound();
  const [dispensings, lastInChain] = await Promise.all([dispensingsOf(q, userId, id), lastDispensedInChainOf(q, userId, id)]);
  return {
    ...toPrescription(row, baseUrl),
    status: row.status === 'cancelled' ? 'cancelled' : 'active',
    cancelled_at: iso(row.cancelled_at),
    repeats: row.repeats,
    signature: signatureOf({ signature_level: row.signature_level, signer_name: row.signer_name, signed_at: row.signed_at, certificate_sha256: row.certificate_sha256 }),
    dispensing: dispensingOf(dispensings, row, lastInChain),
  };
}

export const VERIFY_REASONS = [
  'not_a_pdf',
  'not_signed',
  'malformed_signature',
  'content_changed',
  'signature_invalid',
  'certificate_mismatch',
  'unknown_certificate',
  'certificate_revoked',
  'unknown_prescription',
  'prescription_cancelled',
] as const;
export type VerifyReason = (typeof VERIFY_REASONS)[number];

export interface Verification {
  valid: boolean;
  reason: VerifyReason | null;
  prescription_id: string | null;
  signer: string | null;
  signed_at: string | null;
  status: 'active' | 'dispensed' | 'cancelled' | null;
  certificate_sha256: string | null;
  dispensing: Pick<Dispensing, 'dispensings_allowed' | 'dispensed_count' | 'repeats_left' | 'repeat_interval_days' | 'next_dispensing_from'> | null;
}

type SignedRow = NonNullable<Awaited<ReturnType<typeof prescriptionBySignedDigestForPharmacy>>>;

/** What a verification says of the prescription a signature names: who signed, its status and its dispensings. */
async function aboutPrescription(deps: Deps, rx: SignedRow): Promise<Pick<Verification, 'prescription_id' | 'signer' | 'signed_at' | 'status' | 'dispensing'>> {
  const [rows, lastInChain] = await Promise.all([dispensingsForPharmacy(deps.reader, rx.id), lastDispensedInChainForPharmacy(deps.reader, rx.id)]);
  const d = dispensingOf(rows, rx, lastInChain);
  return {
    prescription_id: rx.id,
    signer: rx.signer_name,
    signed_at: iso(rx.signed_at),
    status: rx.status === 'cancelled' ? 'cancelled' : d.status === 'dispensed' ? 'dispensed' : 'active',
    dispensing: { dispensings_allowed: d.dispensings_allowed, dispensed_count: d.dispensed_count, repeats_left: d.repeats_left, repeat_interval_days: d.repeat_interval_days, next_dispensing_from: d.next_dispensing_from },
  };
}

/**
 * Verifies a prescription PDF: the signature (every byte but its own value, the certificate named in
 * the signed attributes, the signature value), the certificate (one of the prescribers', not
 * revoked), and the prescription it signs (found by the signed digest: not cancelled). A changed
 * file still names its prescription when the signature says which it was.
 */
export async function verifyPrescription(deps: Deps, pdf: Buffer): Promise<Verification> {
  const empty = { prescription_id: null, signer: null, signed_at: null, status: null, certificate_sha256: null, dispensing: null } as const;
  if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-') return { valid: false, reason: 'not_a_pdf', ...empty };
  const check = await checkPdfSignature(deps.reader, pdf);
  const rx = check.digest ? await prescriptionBySignedDigestForPharmacy(deps.reader, check.digest) : null;
  const about = rx ? await aboutPrescription(deps, rx) : { prescription_id: null, signer: null, signed_at: null, status: null, dispensing: null };
  if (!check.valid) return { valid: false, reason: check.reason, ...about, certificate_sha256: null };
  const certificate = check.identity.certificate_sha256;
  if (!rx) return { valid: false, reason: 'unknown_prescription', ...about, certificate_sha256: certificate };
  if (rx.signing_identity_id !== check.identity.id) return { valid: false, reason: 'certificate_mismatch', ...about, certificate_sha256: certificate };
  if (rx.status === 'cancelled') return { valid: false, reason: 'prescription_cancelled', ...about, certificate_sha256: certificate };
  return { valid: true, reason: null, ...about, certificate_sha256: certificate };
}
