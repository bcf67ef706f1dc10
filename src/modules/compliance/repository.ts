// SQL of the compliance module, owner of staff_public_profiles and plan_cancel_requests. It reads
// the users table (owned by accounts) for the public doctors list and for the account a public
// cancellation names; it writes no other module's table.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';

export interface ListedDoctor {
  id: string;
  first_name: string;
  last_name: string;
  doctor_license_number: string | null;
  country_of_residence: string | null;
}

/** Active doctors with a registration number who have not opted out of the public listing. */
export async function listedDoctors(q: Queryable): Promise<ListedDoctor[]> {
  return sqlOf(q)
    .selectFrom('users as u')
    .leftJoin('staff_public_profiles as p', 'p.staff_id', 'u.id')
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.doctor_license_number', 'u.country_of_residence'])
    .where('u.is_doctor', '=', true)
    .where('u.disabled_at', 'is', null)
    .where('u.erased_at', 'is', null)
    .where('u.doctor_license_number', 'is not', null)
    .where((eb) => eb.or([eb('p.public_listing', 'is', null), eb('p.public_listing', '=', true)]))
    .orderBy('u.last_name')
    .orderBy('u.first_name')
    .orderBy('u.id')
    .execute();
}

/** A doctor's own desk profile: name, registration number and whether they are listed. */
export async function doctorProfile(q: Queryable, staffId: string) {
  return sqlOf(q)
    .selectFrom('users as u')
    .leftJoin('staff_public_profiles as p', 'p.staff_id', 'u.id')
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.doctor_license_number', 'u.country_of_residence', 'p.public_listing'])
    .where('u.id', '=', staffId)
    .where('u.is_doctor', '=', true)
    .executeTakeFirst();
}

export async function setPublicListing(q: Queryable, staffId: string, listed: boolean, now: Date): Promise<void> {
  await sqlOf(q)
    .insertInto('staff_public_profiles')
    .values({ staff_id: staffId, public_listing: listed, updated_at: now })
    .onConflict((oc) => oc.column('staff_id').doUpdateSet({ public_listing: listed, updated_at: now }))
    .execute();
}

/** The verified, active account an address belongs to (case-insensitive), or undefined. */
export async function accountByEmail(q: Queryable, email: string) {
  return sqlOf(q)
    .selectFrom('users')
    .select(['id', 'email', 'locale', 'first_name', 'last_name'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('email_verified_at', 'is not', null)
    .where('disabled_at', 'is', null)
    .where('erased_at', 'is', null)
    .executeTakeFirst();
}

export async function contactOf(q: Queryable, userId: string) {
  return sqlOf(q).selectFrom('users').select(['email', 'locale']).where('id', '=', userId).executeTakeFirst();
}

export async function insertCancelRequest(
  q: Queryable,
  row: { token_hash: string; user_id: string; subscription_id: string | null; kind: 'ordinary' | 'extraordinary'; requested_date: string; created_at: Date; expires_at: Date },
): Promise<void> {
  await sqlOf(q).insertInto('plan_cancel_requests').values(row).execute();
}

/** The request a link's hash names, locked for its single use. */
export async function lockCancelRequest(q: Queryable, tokenHash: string) {
  return sqlOf(q).selectFrom('plan_cancel_requests').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst();
}

export async function markCancelRequestUsed(q: Queryable, id: string, now: Date): Promise<void> {
  await sqlOf(q).updateTable('plan_cancel_requests').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).execute();
}
