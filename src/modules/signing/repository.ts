// SQL of the prescribers' signing identities (owner: signing; docs/prescriptions.md).
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import type { PrescriberSigningIdentitiesRow } from '../../db/schema.ts';

export type IdentityRow = PrescriberSigningIdentitiesRow;
export type Provider = 'sandbox' | 'csc';

export async function activeIdentity(q: Queryable, doctorId: string, provider: Provider): Promise<IdentityRow | null> {
  return (
    (await sqlOf(q).selectFrom('prescriber_signing_identities').selectAll().where('doctor_id', '=', doctorId).where('provider', '=', provider).where('status', '=', 'active').executeTakeFirst()) ?? null
  );
}

export interface NewIdentity {
  doctorId: string;
  provider: Provider;
  certificatePem: string;
  certificateSha256: string;
  serialNumber: string;
  notAfter: Date;
  privateKeySealed: string | null;
  cscCredentialId: string | null;
  at: Date;
}

/** Inserts the prescriber's active identity; null when another process made one first (the partial unique index). */
export async function insertIdentity(q: Queryable, n: NewIdentity): Promise<IdentityRow | null> {
  const row = await sqlOf(q)
    .insertInto('prescriber_signing_identities')
    .values({
      doctor_id: n.doctorId,
      provider: n.provider,
      certificate_pem: n.certificatePem,
      certificate_sha256: n.certificateSha256,
      serial_number: n.serialNumber,
      not_after: n.notAfter,
      private_key_sealed: n.privateKeySealed,
      csc_credential_id: n.cscCredentialId,
      created_at: n.at,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function identityByCertificate(q: Queryable, sha256: string): Promise<IdentityRow | null> {
  return (await sqlOf(q).selectFrom('prescriber_signing_identities').selectAll().where('certificate_sha256', '=', sha256).executeTakeFirst()) ?? null;
}

/** Retires the prescriber's active identities (rotated: still verifies; revoked: no longer does). */
export async function retireActiveIdentities(q: Queryable, doctorId: string, status: 'rotated' | 'revoked', reason: string | null, at: Date): Promise<number> {
  const r = await sqlOf(q)
    .updateTable('prescriber_signing_identities')
    .set({ status, retired_at: at, revoke_reason: status === 'revoked' ? reason : null })
    .where('doctor_id', '=', doctorId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Revokes every identity of the prescriber that is not revoked yet (rotated ones too: a compromised key signed with them). */
export async function revokeAllIdentities(q: Queryable, doctorId: string, reason: string, at: Date): Promise<number> {
  const r = await sqlOf(q)
    .updateTable('prescriber_signing_identities')
    .set({ status: 'revoked', retired_at: at, revoke_reason: reason })
    .where('doctor_id', '=', doctorId)
    .where('status', '<>', 'revoked')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** A staff account by e-mail (the CLI names the prescriber by address). */
export async function doctorByEmail(q: Queryable, email: string): Promise<{ id: string; is_doctor: boolean } | null> {
  return (await sqlOf(q).selectFrom('users').select(['id', 'is_doctor']).where(sql<string>`lower(email)`, '=', email.trim().toLowerCase()).executeTakeFirst()) ?? null;
}

/** A doctor's prescriber details as the prescription and the certificate subject name them. */
export async function prescriberOf(q: Queryable, doctorId: string) {
  return (
    (await sqlOf(q)
      .selectFrom('users')
      .select(['id', 'is_doctor', 'first_name', 'last_name', 'email', 'doctor_license_number', 'prescriber_qualification', 'prescriber_phone'])
      .where('id', '=', doctorId)
      .executeTakeFirst()) ?? null
  );
}

/** The prescriber's active signing identity of either provider (newest first). */
export async function currentIdentityOf(q: Queryable, doctorId: string): Promise<IdentityRow | null> {
  return (
    (await sqlOf(q).selectFrom('prescriber_signing_identities').selectAll().where('doctor_id', '=', doctorId).where('status', '=', 'active').orderBy('created_at', 'desc').executeTakeFirst()) ?? null
  );
}
