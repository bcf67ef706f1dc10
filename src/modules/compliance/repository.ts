// SQL of the compliance module, owner of staff_public_profiles and plan_cancel_requests. It reads
// the users table (owned by accounts) for the public doctors list and for the account a public
// cancellation names; it writes no other module's table.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import { readText, sealText } from '../../lib/sealed.ts';

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
  row: { token_hash: string; user_id: string; subscription_id: string | null; kind: 'ordinary' | 'extraordinary'; requested_date: string; created_at: Date; expires_at: Date; reason: string | null },
): Promise<void> {
  const { reason, ...rest } = row;
  await sqlOf(q)
    .insertInto('plan_cancel_requests')
    .values({ ...rest, reason_enc: reason === null ? null : sealText(q, reason) })
    .execute();
}

/** Confirmed extraordinary cancellations for the back office, oldest first; `reviewed` filters. */
export async function extraordinaryCancellations(q: Queryable, reviewed: boolean | undefined, limit: number, offset: number) {
  let query = sqlOf(q)
    .selectFrom('plan_cancel_requests as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .select(['c.id', 'c.user_id', 'u.email', 'c.subscription_id', 'c.requested_date', 'c.created_at', 'c.used_at', 'c.reason_enc', 'c.reviewed_at', 'c.reviewed_by', 'c.review_note_enc'])
    .where('c.kind', '=', 'extraordinary')
    .where('c.used_at', 'is not', null);
  if (reviewed !== undefined) query = query.where('c.reviewed_at', reviewed ? 'is not' : 'is', null);
  const [rows, total] = await Promise.all([
    query.orderBy('c.used_at').orderBy('c.id').limit(limit).offset(offset).execute(),
    query.clearSelect().select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    count: Number(total.n),
    rows: rows.map(({ reason_enc, review_note_enc, ...r }) => ({ ...r, reason: readText(q, null, reason_enc), review_note: review_note_enc ? readText(q, null, review_note_enc) : null })),
  };
}

/** Records the back office's review of a confirmed extraordinary cancellation (once). */
export async function markCancellationReviewed(q: Queryable, id: string, staffId: string, note: string, now: Date): Promise<boolean> {
  const r = await sqlOf(q)
    .updateTable('plan_cancel_requests')
    .set({ reviewed_at: now, reviewed_by: staffId, review_note_enc: sealText(q, note) })
    .where('id', '=', id)
    .where('kind', '=', 'extraordinary')
    .where('used_at', 'is not', null)
    .where('reviewed_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function cancellationExists(q: Queryable, id: string): Promise<boolean> {
  return !!(await sqlOf(q).selectFrom('plan_cancel_requests').select('id').where('id', '=', id).where('kind', '=', 'extraordinary').where('used_at', 'is not', null).executeTakeFirst());
}

/** Erasure: the reasons go (free text of the patient); the receipt of the cancellation stays. */
export async function eraseCancellationReasons(q: Queryable, userId: string): Promise<void> {
  await sqlOf(q).updateTable('plan_cancel_requests').set({ reason_enc: null, review_note_enc: null }).where('user_id', '=', userId).execute();
}

/** The request a link's hash names, locked for its single use. */
export async function lockCancelRequest(q: Queryable, tokenHash: string) {
  return sqlOf(q).selectFrom('plan_cancel_requests').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst();
}

export async function markCancelRequestUsed(q: Queryable, id: string, now: Date): Promise<void> {
  await sqlOf(q).updateTable('plan_cancel_requests').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).execute();
}
