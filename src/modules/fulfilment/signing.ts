// Issuing a prescription signs it (docs/prescriptions.md): inside the approval's transaction the
// prescription is recorded, its document rendered with every element of Implementing Directive
// 2012/52/EU's annex, signed for its prescriber (PAdES, signing module) and the signed file kept
// sealed. A signature that cannot be made (a remote provider down, a session without the second
// factor where one is required) fails the approval: no prescription exists unsigned.
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { appLinks } from '../../mail/links.ts';
import { prescriptionPdf, sellerFrom, type PrescriptionData } from '../../lib/pdf.ts';
import { signPrescriptionPdf, type SigningSession } from '../signing/index.ts';
import { prescribedProduct } from './products.ts';
import { issuePrescription, type PrescriptionInput } from './repository.ts';
import { prescriptionForSigningForClinician, recordSignatureForClinician, type PrescriptionForSigning } from './signed.repository.ts';

/** What a qualification defaults to for a doctor account without one on its profile: every doctor account is a registered medical doctor. */
export const DEFAULT_QUALIFICATION = 'Medical doctor (physician)';

/** The document of a prescription (signed: with the signature element and where to verify it). */
export function prescriptionDocument(config: Config, rx: PrescriptionForSigning, signed: boolean): PrescriptionData {
  const seller = sellerFrom(config);
  return {
    id: rx.id,
    issuedAt: new Date(rx.issued_at),
    validUntil: rx.valid_until ? new Date(rx.valid_until) : null,
    seller,
    patient: {
      name: `${rx.patient_first_name} ${rx.patient_last_name}`.trim(),
      first_name: rx.patient_first_name,
      last_name: rx.patient_last_name,
      date_of_birth: rx.date_of_birth,
      email: rx.patient_email,
    },
    doctor: {
      first_name: rx.doctor_first_name,
      last_name: rx.doctor_last_name,
      license: rx.doctor_license_number,
      qualification: rx.prescriber_qualification ?? DEFAULT_QUALIFICATION,
      email: rx.doctor_email,
      phone: rx.prescriber_phone ?? config.SELLER_PHONE ?? 'not configured (SELLER_PHONE)',
    },
    treatment_name: rx.treatment_name,
    dosage: rx.dosage,
    supply_days: rx.supply_days,
    instructions: rx.instructions,
    product: prescribedProduct(rx.treatment_id, rx.dosage) ?? undefined,
    repeats: rx.repeats,
    repeat_interval_days: rx.repeat_interval_days,
    signature: signed
      ? { verify_url: appLinks.verifyPrescription(config, rx.id), ca_url: config.PRESCRIPTION_SIGNER === 'sandbox' ? `${config.PUBLIC_BASE_URL}/v1/prescriptions/ca/` : null }
      : undefined,
  };
}

/** Records, renders and signs a prescription inside the caller's transaction. */
export async function issueSignedPrescription(deps: Deps, trx: Queryable, input: PrescriptionInput, session: SigningSession): Promise<{ id: string }> {
  const { id } = await issuePrescription(trx, input);
  const rx = await prescriptionForSigningForClinician(trx, id);
  if (!rx) throw new Error('the prescription just recorded cannot be read');
  if (!prescribedProduct(rx.treatment_id, rx.dosage)) throw new Error(`catalogue/prescription-products.json has no entry for ${rx.treatment_id}: a prescription must name its product (2012/52/EU)`);
  const pdf = await prescriptionPdf(prescriptionDocument(deps.config, rx, true));
  const seller = sellerFrom(deps.config);
  const signature = await signPrescriptionPdf(
    deps,
    trx,
    {
      id: rx.doctor_id,
      firstName: rx.doctor_first_name,
      lastName: rx.doctor_last_name,
      email: rx.doctor_email,
      licenceNumber: rx.doctor_license_number ?? '',
      qualification: rx.prescriber_qualification ?? DEFAULT_QUALIFICATION,
      organisation: seller.name,
      country: seller.country,
    },
    session,
    pdf,
  );
  await recordSignatureForClinician(trx, id, { level: signature.level, signedAt: signature.signedAt, signerName: signature.signerName, identityId: signature.identityId, digest: signature.digest, pdf: signature.pdf });
  return { id };
}
