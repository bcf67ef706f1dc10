// SQL of signed prescriptions (owner: fulfilment; docs/prescriptions.md): what the signature needs,
// the signature and its sealed file, cancellation, verification lookups and dispensings.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import { openText, sealText } from '../../lib/sealed.ts';

/** A prescription being issued, with the patient's and the prescriber's details its document names. */
export async function prescriptionForSigningForClinician(q: Queryable, id: string) {
  const row = await sqlOf(q)
    .selectFrom('prescriptions as r')
    .innerJoin('users as d', 'd.id', 'r.doctor_id')
    .innerJoin('users as pu', 'pu.id', 'r.user_id')
    .selectAll('r')
    .select([
      'd.first_name as doctor_first_name',
      'd.last_name as doctor_last_name',
      'd.email as doctor_email',
      'd.doctor_license_number',
      'd.prescriber_qualification',
      'd.prescriber_phone',
      'pu.first_name as patient_first_name',
      'pu.last_name as patient_last_name',
      'pu.date_of_birth',
      'pu.email as patient_email',
    ])
    .where('r.id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

export type PrescriptionForSigning = NonNullable<Awaited<ReturnType<typeof prescriptionForSigningForClinician>>>;

export interface SignatureRecord {
  level: 'B-B' | 'B-T';
  signedAt: Date;
  signerName: string;
  identityId: string;
  digest: string;
  pdf: Buffer;
}

export async function recordSignatureForClinician(q: Queryable, id: string, s: SignatureRecord): Promise<void> {
  await sqlOf(q)
    .updateTable('prescriptions')
    .set({ signature_level: s.level, signed_at: s.signedAt, signer_name: s.signerName, signing_identity_id: s.identityId, signed_digest: s.digest })
    .where('id', '=', id)
    .execute();
  await sqlOf(q)
    .insertInto('prescription_signed_documents')
    .values({ prescription_id: id, pdf_sealed: sealText(q, s.pdf.toString('base64')), created_at: s.signedAt })
    .execute();
}

/** The account's signed PDF of a prescription (null: unsigned, or not this account's). */
export async function signedPdfOf(q: Queryable, userId: string, id: string): Promise<Buffer | null> {
  const row = await forAccount(q, userId)
    .selectFrom('prescriptions as r')
    .innerJoin('prescription_signed_documents as sd', 'sd.prescription_id', 'r.id')
    .select('sd.pdf_sealed')
    .where('r.id', '=', id)
    .executeTakeFirst();
  return row ? Buffer.from(openText(q, row.pdf_sealed), 'base64') : null;
}

/** Cancels a prescription (a reissue replaces it); false when it was cancelled already. */
export async function cancelPrescriptionForClinician(q: Queryable, id: string, at: Date): Promise<boolean> {
  const r = await sqlOf(q).updateTable('prescriptions').set({ status: 'cancelled', cancelled_at: at }).where('id', '=', id).where('status', '=', 'active').executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Orders of the old prescription not dispensed yet now carry the new one (a reissue). */
export async function moveOpenOrdersForClinician(q: Queryable, fromId: string, toId: string, at: Date): Promise<void> {
  await sqlOf(q)
    .updateTable('orders')
    .set({ prescription_id: toId, updated_at: at })
    .where('prescription_id', '=', fromId)
    .where('status', '=', 'awaiting_fulfilment')
    .where('dispensed_at', 'is', null)
    .execute();
}

/** The prescription a signature covers (by the CMS messageDigest), for the public verification. */
export async function prescriptionBySignedDigestForPharmacy(q: Queryable, digest: string) {
  const row = await sqlOf(q)
    .selectFrom('prescriptions')
    .select(['id', 'status', 'signer_name', 'signed_at', 'signing_identity_id', 'repeats', 'repeat_interval_days'])
    .where('signed_digest', '=', digest)
    .executeTakeFirst();
  return row ?? null;
}

export interface DispensingRow {
  order_id: string;
  attempt: number;
  pharmacy_name: string;
  partner_pharmacy_id: string | null;
  dispensed_at: Date;
}

/** A prescription's dispensings, oldest first. */
export async function dispensingsForPharmacy(q: Queryable, prescriptionId: string): Promise<DispensingRow[]> {
  return sqlOf(q)
    .selectFrom('prescription_dispensings')
    .select(['order_id', 'attempt', 'pharmacy_name', 'partner_pharmacy_id', 'dispensed_at'])
    .where('prescription_id', '=', prescriptionId)
    .orderBy('dispensed_at')
    .orderBy('id')
    .execute();
}

/** The account's prescription's dispensings (the patient's view). */
export async function dispensingsOf(q: Queryable, userId: string, prescriptionId: string): Promise<DispensingRow[]> {
  return forAccount(q, userId)
    .selectFrom('prescriptions as r')
    .innerJoin('prescription_dispensings as pd', 'pd.prescription_id', 'r.id')
    .select(['pd.order_id', 'pd.attempt', 'pd.pharmacy_name', 'pd.partner_pharmacy_id', 'pd.dispensed_at'])
    .where('r.id', '=', prescriptionId)
    .orderBy('pd.dispensed_at')
    .orderBy('pd.id')
    .execute();
}

/** A prescription's last dispensing and the prescription a reissue replaced (one step of a reissue chain). */
type ChainStep = (id: string) => Promise<{ reissued_from: string | null; last: Date | null } | undefined>;

/**
 * The last dispensing of a prescription or of any it replaced by reissue (the repeat interval counts
 * from it: a reissue does not restart it). Reissue chains are short; a cycle cannot exist (each
 * reissue names an older prescription), the bound only guards the loop.
 */
async function lastDispensedInChain(step: ChainStep, id: string): Promise<Date | null> {
  let last: Date | null = null;
  let next: string | null = id;
  for (let i = 0; next && i < 50; i += 1) {
    const row = await step(next);
    if (!row) break;
    if (row.last && (!last || new Date(row.last) > last)) last = new Date(row.last);
    next = row.reissued_from;
  }
  return last;
}

const lastDispensedSql = sql<Date | null>`(select max(pd.dispensed_at) from prescription_dispensings pd where pd.prescription_id = r.id)`;

/** The last dispensing of the prescription or of those it replaced (the pharmacy desk, the public verification). */
export async function lastDispensedInChainForPharmacy(q: Queryable, prescriptionId: string): Promise<Date | null> {
  return lastDispensedInChain((id) => sqlOf(q).selectFrom('prescriptions as r').select(['r.reissued_from', lastDispensedSql.as('last')]).where('r.id', '=', id).executeTakeFirst(), prescriptionId);
}

/** The same for the account's own prescription (the patient's view). */
export async function lastDispensedInChainOf(q: Queryable, userId: string, prescriptionId: string): Promise<Date | null> {
  return lastDispensedInChain((id) => forAccount(q, userId).selectFrom('prescriptions as r').select(['r.reissued_from', lastDispensedSql.as('last')]).where('r.id', '=', id).executeTakeFirst(), prescriptionId);
}

/** The prescription an order carries (unlocked read: the dispense locks the prescription first, then the order). */
export async function prescriptionIdOfOrderForPharmacy(q: Queryable, orderId: string): Promise<string | null> {
  const row = await sqlOf(q).selectFrom('orders').select('prescription_id').where('id', '=', orderId).executeTakeFirst();
  return row?.prescription_id ?? null;
}

/** Locks a prescription for a dispensing (serialises two pharmacists on one prescription). */
export async function lockPrescriptionForPharmacy(q: Queryable, id: string) {
  const row = await sqlOf(q).selectFrom('prescriptions').select(['id', 'status', 'repeats', 'repeat_interval_days', 'valid_until']).where('id', '=', id).forUpdate().executeTakeFirst();
  return row ?? null;
}

export async function insertDispensingForPharmacy(
  q: Queryable,
  d: { prescriptionId: string; orderId: string; attempt: number; pharmacyId: string | null; pharmacyName: string; by: string; at: Date },
): Promise<boolean> {
  const r = await sqlOf(q)
    .insertInto('prescription_dispensings')
    .values({ prescription_id: d.prescriptionId, order_id: d.orderId, attempt: d.attempt, partner_pharmacy_id: d.pharmacyId, pharmacy_name: d.pharmacyName, dispensed_by: d.by, dispensed_at: d.at })
    .onConflict((oc) => oc.columns(['order_id', 'attempt']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

/** The name of the partner pharmacy an order is collected at (null: delivered by the service's pharmacy). */
export async function collectionPharmacyForPharmacy(q: Queryable, orderId: string): Promise<{ id: string; name: string } | null> {
  const row = await sqlOf(q)
    .selectFrom('orders as o')
    .innerJoin('partner_pharmacies as ph', 'ph.id', 'o.collection_pharmacy_id')
    .select(['ph.id', 'ph.name'])
    .where('o.id', '=', orderId)
    .executeTakeFirst();
  return row ?? null;
}

/** The account's prescription with its prescriber and signature, for the detail route. */
export async function prescriptionDetailOf(q: Queryable, userId: string, id: string) {
  const row = await forAccount(q, userId)
    .selectFrom('prescriptions as r')
    .innerJoin('users as d', 'd.id', 'r.doctor_id')
    .leftJoin('prescriber_signing_identities as si', 'si.id', 'r.signing_identity_id')
    .selectAll('r')
    .select(['d.first_name as doctor_first_name', 'd.last_name as doctor_last_name', 'd.doctor_license_number', 'si.certificate_sha256', 'si.status as identity_status'])
    .select(sql<number>`(select count(distinct pd.order_id)::int from prescription_dispensings pd where pd.prescription_id = r.id)`.as('dispensed_count'))
    .where('r.id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

/** A prescription with its signature, signing identity and sealed file, for the desks (doctor, pharmacist). */
export async function prescriptionForStaff(q: Queryable, id: string) {
  const row = await sqlOf(q)
    .selectFrom('prescriptions as r')
    .innerJoin('users as pu', 'pu.id', 'r.user_id')
    .leftJoin('prescriber_signing_identities as si', 'si.id', 'r.signing_identity_id')
    .leftJoin('prescription_signed_documents as sd', 'sd.prescription_id', 'r.id')
    .select([
      'r.id',
      'r.consultation_id',
      'r.treatment_name',
      'r.dosage',
      'r.issued_at',
      'r.valid_until',
      'r.status',
      'r.cancelled_at',
      'r.repeats',
      'r.repeat_interval_days',
      'r.signature_level',
      'r.signer_name',
      'r.signed_at',
      'pu.first_name as patient_first_name',
      'pu.last_name as patient_last_name',
      'pu.date_of_birth',
      'si.id as identity_id',
      'si.provider',
      'si.certificate_pem',
      'si.certificate_sha256',
      'si.serial_number',
      'si.not_after',
      'si.status as identity_status',
      'si.doctor_id as identity_doctor_id',
      'si.created_at as identity_created_at',
      'si.retired_at',
      'si.revoke_reason',
      'si.private_key_sealed',
      'si.csc_credential_id',
      'sd.pdf_sealed',
    ])
    .where('r.id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  const { pdf_sealed, ...rest } = row;
  return { ...rest, pdf: pdf_sealed ? Buffer.from(openText(q, pdf_sealed), 'base64') : null };
}

/** The prescription's orders still waiting to be dispensed (the pharmacy desk's dispense action). */
export async function ordersToDispenseForPharmacy(q: Queryable, prescriptionId: string) {
  return sqlOf(q)
    .selectFrom('orders')
    .select(['id', 'status', 'attempt', 'created_at'])
    .where('prescription_id', '=', prescriptionId)
    .where('status', '=', 'awaiting_fulfilment')
    .where('dispensed_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
