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
  let query = sqlOf(q).selectFrom('partner_pharmacies').where('is_active', '=', true).where('country', '=', n.country);
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
