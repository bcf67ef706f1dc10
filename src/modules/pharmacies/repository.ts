// Partner pharmacies' SQL (docs/pharmacy.md "Partner pharmacies"). Pharmacies are not patient data:
// the back office reads and writes any of them; a patient reads the active ones of their country.
// The patient's location is read with the account id in the SQL.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import type { PartnerPharmaciesRow, PartnerPharmaciesUpdate } from '../../db/schema.ts';

export type PartnerPharmacyRow = PartnerPharmaciesRow;

export async function insertPharmacy(q: Queryable, values: Omit<PartnerPharmaciesUpdate, 'id'> & { name: string; address_line: string; postal_code: string; city: string; country: string }, at: Date): Promise<PartnerPharmacyRow> {
  return sqlOf(q)
    .insertInto('partner_pharmacies')
    .values({ ...values, opening_hours: JSON.stringify(values.opening_hours ?? []), created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function lockPharmacy(q: Queryable, id: string): Promise<PartnerPharmacyRow | null> {
  return (await sqlOf(q).selectFrom('partner_pharmacies').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()) ?? null;
}

export async function updatePharmacy(q: Queryable, id: string, set: Omit<PartnerPharmaciesUpdate, 'id'>, at: Date): Promise<PartnerPharmacyRow | null> {
  const values = { ...set, ...(set.opening_hours !== undefined ? { opening_hours: JSON.stringify(set.opening_hours) } : {}), updated_at: at };
  return (await sqlOf(q).updateTable('partner_pharmacies').set(values).where('id', '=', id).returningAll().executeTakeFirst()) ?? null;
}

export async function pharmacyById(q: Queryable, id: string): Promise<PartnerPharmacyRow | null> {
  return (await sqlOf(q).selectFrom('partner_pharmacies').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function countPharmacies(q: Queryable): Promise<number> {
  const r = await sqlOf(q).selectFrom('partner_pharmacies').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
  return r.n;
}

/** Every pharmacy (active or not) for the back office: country, city, name. */
export async function pagePharmacies(q: Queryable, limit: number, offset: number): Promise<PartnerPharmacyRow[]> {
  return sqlOf(q).selectFrom('partner_pharmacies').selectAll().orderBy('country').orderBy('city').orderBy('name').orderBy('id').limit(limit).offset(offset).execute();
}

/** The account's country of residence, city and postal code (profile fields). */
export async function profileLocation(q: Queryable, userId: string) {
  return (await sqlOf(q).selectFrom('users').select(['country_of_residence', 'city', 'postal_code']).where('id', '=', userId).executeTakeFirst()) ?? null;
}

/** A postal code compared without spaces or dashes, upper case ("10 115" = "10115", "sw1a 1aa" = "SW1A1AA"). */
const normPostal = (column: string) => sql.raw(`upper(regexp_replace(${column}, '[\\s-]', '', 'g'))`);

/**
 * The ranking rule (docs/pharmacy.md): 1 same postal code, 2 same first three characters of it, 3 same
 * first two, 4 same city (case-insensitive), 5 the rest of the country; then name and id.
 */
function rankOf(postal: string | null, city: string | null) {
  const p = postal ? postal.replace(/[\s-]/g, '').toUpperCase() : null;
  const c = city ? city.trim().toLowerCase() : null;
  const code = normPostal('postal_code');
  return sql<number>`case
    when ${p}::text is not null and ${code} = ${p}::text then 1
    when ${p}::text is not null and char_length(${p}::text) >= 3 and left(${code}, 3) = left(${p}::text, 3) then 2
    when ${p}::text is not null and char_length(${p}::text) >= 2 and left(${code}, 2) = left(${p}::text, 2) then 3
    when ${c}::text is not null and lower(trim(city)) = ${c}::text then 4
    else 5 end`;
}

export interface NearbyQuery {
  country: string;
  postalCode: string | null;
  city: string | null;
  collectionOnly: boolean;
}

function nearby(q: Queryable, n: NearbyQuery) {
  // The central dispatch pharmacy ships orders; it is no place a patient picks (migration 1233).
  let query = sqlOf(q).selectFrom('partner_pharmacies').where('is_active', '=', true).where('is_central', '=', false).where('country', '=', n.country);
  if (n.collectionOnly) query = query.where('click_and_collect', '=', true);
  return query;
}

export async function countNearby(q: Queryable, n: NearbyQuery): Promise<number> {
  const r = await nearby(q, n).select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
  return r.n;
}

export async function pageNearby(q: Queryable, n: NearbyQuery, limit: number, offset: number): Promise<(PartnerPharmacyRow & { rank: number })[]> {
  return nearby(q, n)
    .selectAll()
    .select(rankOf(n.postalCode, n.city).as('rank'))
    .orderBy('rank')
    .orderBy('name')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
}

// ---- pharmacists and their pharmacy (issue 43; migration 1233, docs/pharmacy.md)

/** The central dispatch pharmacy (exactly one, migration 1233). */
export async function centralPharmacy(q: Queryable): Promise<PartnerPharmacyRow | null> {
  return (await sqlOf(q).selectFrom('partner_pharmacies').selectAll().where('is_central', '=', true).executeTakeFirst()) ?? null;
}

/** A pharmacist's account (locked while it is assigned), or null when the id names no pharmacist. */
export async function lockPharmacistAccount(q: Queryable, id: string): Promise<{ id: string; email: string } | null> {
  return (await sqlOf(q).selectFrom('users').select(['id', 'email']).where('id', '=', id).where('is_pharmacist', '=', true).where('erased_at', 'is', null).forUpdate().executeTakeFirst()) ?? null;
}

export async function pharmacistByEmail(q: Queryable, email: string): Promise<{ id: string } | null> {
  return (await sqlOf(q).selectFrom('users').select('id').where(sql<boolean>`lower(email) = lower(${email})`).where('is_pharmacist', '=', true).executeTakeFirst()) ?? null;
}

/** Assigns (or moves) a pharmacist to a pharmacy: one pharmacy per pharmacist. */
export async function assignPharmacist(q: Queryable, pharmacistId: string, pharmacyId: string, by: string | null, at: Date) {
  return sqlOf(q)
    .insertInto('pharmacist_pharmacies')
    .values({ pharmacist_id: pharmacistId, pharmacy_id: pharmacyId, assigned_by: by, assigned_at: at })
    .onConflict((oc) => oc.column('pharmacist_id').doUpdateSet({ pharmacy_id: pharmacyId, assigned_by: by, assigned_at: at }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The pharmacy a pharmacist works for: their assignment, else the central dispatch pharmacy. */
export async function pharmacyOfPharmacist(q: Queryable, pharmacistId: string): Promise<{ pharmacy: PartnerPharmacyRow; assigned_at: Date | null } | null> {
  const row = await sqlOf(q)
    .selectFrom('partner_pharmacies as ph')
    .leftJoin('pharmacist_pharmacies as a', (j) => j.onRef('a.pharmacy_id', '=', 'ph.id').on('a.pharmacist_id', '=', pharmacistId))
    .selectAll('ph')
    .select('a.assigned_at')
    .where(sql<boolean>`ph.id = coalesce((select pharmacy_id from pharmacist_pharmacies where pharmacist_id = ${pharmacistId}), (select id from partner_pharmacies where is_central))`)
    .executeTakeFirst();
  if (!row) return null;
  const { assigned_at, ...pharmacy } = row;
  return { pharmacy, assigned_at };
}
