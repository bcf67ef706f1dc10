// SQL of the profile module, every statement scoped by the authenticated account id. users belongs
// to accounts, which makes the profile's PATCH statement (userFieldsUpdate); this file only adds the
// columns it answers with (`returning`), instead of an update and a read of the profile back.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { UsersRow } from '../../db/schema.ts';
import { userFieldsUpdate, type UserFields } from '../accounts/index.ts';
import { ordersColumn, type OrderJson } from '../fulfilment/index.ts';

export type ProfileRow = Pick<
  UsersRow,
  | 'id'
  | 'email'
  | 'first_name'
  | 'last_name'
  | 'date_of_birth'
  | 'gender'
  | 'country_of_residence'
  | 'timezone'
  | 'locale'
  | 'city'
  | 'postal_code'
  | 'issuing_state'
  | 'document_number_enc'
  | 'document_type'
  | 'addresses'
  | 'gp'
  | 'is_doctor'
  | 'is_backoffice_admin'
  | 'is_marketer'
  | 'is_referrer'
>;

const PROFILE_COLUMNS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'date_of_birth',
  'gender',
  'country_of_residence',
  'timezone',
  'locale',
  'city',
  'postal_code',
  'issuing_state',
  'document_number_enc',
  'document_type',
  'addresses',
  'gp',
  'is_doctor',
  'is_backoffice_admin',
  'is_marketer',
  'is_referrer',
] as const;

/** The profile row with the categories the account submitted a questionnaire in and its orders (one statement). */
export type ProfileWithForms = ProfileRow & { submitted: string[]; orders: OrderJson[] };

// The categories with a submission, read in the same statement as the row (GET) or the update's
// `returning` (PATCH): one round trip where there were two. A subquery over the account's own
// submissions (the statement's row is the account's users row).
const submitted = (q: Queryable, userId: string) =>
  sql<string[]>`array(${forAccount(q, userId).selectFrom('questionnaire_submissions as s').select('s.category').distinct()})`.as('submitted');

// The orders (fulfilment's, as a JSON array) come in the same statement too: the GET is the session
// check and this one statement, as the floor's primary-key read.
const orders = (q: Queryable, userId: string) => ordersColumn(q, userId).as('orders');

const profileQuery = (q: Queryable, userId: string) =>
  sqlOf(q).selectFrom('users').select([...PROFILE_COLUMNS, submitted(q, userId), orders(q, userId)]).where('id', '=', userId);

// The GET's statement is built and compiled by the query builder once, then sent as its SQL text
// with the account id: building and compiling it on every request was ~3 % of the route's CPU
//. The text depends on nothing but the id, which is its only parameter (checked).
let profileSql: string | undefined;
let profileSqlParameters = 0;

export async function profileRow(q: Queryable, userId: string): Promise<ProfileWithForms | undefined> {
  if (profileSql === undefined) {
    const compiled = profileQuery(q, userId).compile();
    // The account id is bound three times (the users row, the submissions' and the orders' owner) and nothing else.
    if (compiled.parameters.length === 0 || compiled.parameters.some((p) => p !== userId)) throw new Error('profileRow: the statement has parameters besides the account id');
    profileSql = compiled.sql;
    profileSqlParameters = compiled.parameters.length;
  }
  const [row] = await q.query<ProfileWithForms>(profileSql, Array.from({ length: profileSqlParameters }, () => userId));
  return row;
}

/** Sets the given profile columns (and updated_at) and answers the row as written; undefined when there is no such account. */
export async function updateProfileRow(q: Queryable, userId: string, fields: UserFields): Promise<ProfileWithForms | undefined> {
  // accounts writes users (its userFieldsUpdate); this only chooses what the update answers with.
  return userFieldsUpdate(q, userId, fields)
    .returning([...PROFILE_COLUMNS, submitted(q, userId), orders(q, userId)])
    .executeTakeFirst();
}

export type CareFields = Pick<UsersRow, 'first_name' | 'last_name' | 'date_of_birth' | 'gender' | 'country_of_residence'>;

/** The profile fields that submission and checkout require. */
export async function careFields(q: Queryable, userId: string): Promise<CareFields | undefined> {
  return sqlOf(q).selectFrom('users').select(['first_name', 'last_name', 'date_of_birth', 'gender', 'country_of_residence']).where('id', '=', userId).executeTakeFirst();
}

