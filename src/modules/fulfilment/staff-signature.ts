// A prescription's signature as the desks see it (docs/prescriptions.md): the doctor's consultation
// view ("signed by <name>, <qualification>, <when>, certificate serial and fingerprint, valid or
// revoked") and the pharmacy desk's look-up by the prescription's code (the id printed on the PDF),
// which verifies the file exactly as issued and lists the orders a dispensing can be recorded on.
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../http/errors.ts';
import { iso } from '../../lib/iso.ts';
import { certificateSummary, SigningCertificateSchema, subjectAttribute } from '../signing/index.ts';
import { VerificationSchema } from './prescriptions.routes.ts';
import { DispensingSchema } from './schemas.ts';
import { dispensingsForPharmacy, lastDispensedInChainForPharmacy, ordersToDispenseForPharmacy, prescriptionForStaff } from './signed.repository.ts';
import { dispensingOf, verifyPrescription } from './verify.ts';

const ts = z.iso.datetime({ offset: true });

export const StaffPrescriptionSchema = z
  .object({
    id: z.uuid().meta({ description: 'The prescription’s code (printed on the PDF)' }),
    consultation_id: z.uuid(),
    treatment_name: z.string(),
    dosage: z.string(),
    issued_at: ts,
    valid_until: ts.nullable(),
    status: z.enum(['active', 'cancelled']),
    cancelled_at: ts.nullable(),
    repeats: z.number().int(),
    patient: z.object({ first_name: z.string(), last_name: z.string(), date_of_birth: z.string().nullable() }).meta({ description: 'Who it is for (the pharmacy checks the person supplied)' }),
    signature: z
      .object({
        level: z.enum(['B-B', 'B-T']),
        signer: z.string(),
        qualification: z.string().nullable().meta({ description: 'As the certificate names it (subject title)' }),
        licence_number: z.string().nullable().meta({ description: 'As the certificate names it (subject serialNumber)' }),
        signed_at: ts,
        certificate: SigningCertificateSchema,
      })
      .nullable()
      .meta({ description: 'null: issued before prescriptions were signed' }),
    verification: VerificationSchema.nullable().meta({ description: 'The stored file verified now, as POST /v1/prescriptions/verify/ answers it (null when unsigned)' }),
    dispensing: DispensingSchema,
    orders_to_dispense: z.array(z.object({ id: z.uuid(), attempt: z.number().int(), created_at: ts })).meta({ description: 'Orders of this prescription waiting to be dispensed: record the dispensing with POST /v1/pharmacy/orders/{id}/dispense/' }),
  })
  .meta({ id: 'StaffPrescription' });
export type StaffPrescription = z.infer<typeof StaffPrescriptionSchema>;

export async function prescriptionForDesk(deps: Deps, id: string): Promise<StaffPrescription> {
  const row = await prescriptionForStaff(deps.reader, id);
  if (!row) throw notFound();
  const [dispensings, orders, lastInChain] = await Promise.all([dispensingsForPharmacy(deps.reader, id), ordersToDispenseForPharmacy(deps.reader, id), lastDispensedInChainForPharmacy(deps.reader, id)]);
  const signed =
    row.signed_at && row.signer_name && row.identity_id && row.certificate_pem && row.certificate_sha256 && row.serial_number && row.not_after && row.identity_status && row.provider && row.identity_doctor_id && row.identity_created_at
      ? {
          level: row.signature_level === 'B-T' ? ('B-T' as const) : ('B-B' as const),
          signer: row.signer_name,
          qualification: subjectAttribute(row.certificate_pem, 'title'),
          licence_number: subjectAttribute(row.certificate_pem, 'serialNumber'),
          signed_at: iso(row.signed_at)!,
          certificate: certificateSummary({
            id: row.identity_id,
            doctor_id: row.identity_doctor_id,
            provider: row.provider,
            certificate_pem: row.certificate_pem,
            certificate_sha256: row.certificate_sha256,
            serial_number: row.serial_number,
            not_after: row.not_after,
            status: row.identity_status,
            created_at: row.identity_created_at,
            retired_at: row.retired_at,
            revoke_reason: row.revoke_reason,
            private_key_sealed: row.private_key_sealed,
            csc_credential_id: row.csc_credential_id,
          }),
        }
      : null;
  return {
    id: row.id,
    consultation_id: row.consultation_id,
    treatment_name: row.treatment_name,
    dosage: row.dosage,
    issued_at: iso(row.issued_at)!,
    valid_until: iso(row.valid_until),
    status: row.status === 'cancelled' ? 'cancelled' : 'active',
    cancelled_at: iso(row.cancelled_at),
    repeats: row.repeats,
    patient: { first_name: row.patient_first_name ?? '', last_name: row.patient_last_name ?? '', date_of_birth: row.date_of_birth ?? null },
    signature: signed,
    verification: row.pdf ? await verifyPrescription(deps, row.pdf) : null,
    dispensing: dispensingOf(dispensings, row, lastInChain),
    orders_to_dispense: orders.map((o) => ({ id: o.id, attempt: o.attempt, created_at: iso(o.created_at)! })),
  };
}
