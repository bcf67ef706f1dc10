// SQL of the profile module: reads only (users belongs to accounts, written through its index.ts),
// every statement scoped by the authenticated account id.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import type { UsersRow } from '../../db/schema.ts';

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
  | 'is_doctor'
  | 'is_backoffice_admin'
  | 'is_marketer'
  | 'is_referrer'
>;

export async function profileRow(q: Queryable, userId: string): Promise<ProfileRow | undefined> {
  return sqlOf(q)
    .selectFrom('users')
    .select([
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
      'is_doctor',
      'is_backoffice_admin',
      'is_marketer',
      'is_referrer',
    ])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export type CareFields = Pick<UsersRow, 'first_name' | 'last_name' | 'date_of_birth' | 'gender' | 'country_of_residence'>;

/** The profile fields that submission and checkout require. */
export async function careFields(q: Queryable, userId: string): Promise<CareFields | undefined> {
  return sqlOf(q).selectFrom('users').select(['first_name', 'last_name', 'date_of_birth', 'gender', 'country_of_residence']).where('id', '=', userId).executeTakeFirst();
}

export async function submittedCategories(q: Queryable, userId: string): Promise<Set<string>> {
  const rows = await sqlOf(q).selectFrom('questionnaire_submissions').select('category').distinct().where('user_id', '=', userId).execute();
  return new Set(rows.map((r) => r.category));
}
