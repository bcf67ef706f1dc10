// SQL of the back office: reads only. Accounts are written through accounts' index.ts; the
// consultation count is a read of the consultations table for the list.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import type { UsersRow } from '../../db/schema.ts';

export type StaffUserRow = Pick<
  UsersRow,
  'id' | 'email' | 'first_name' | 'last_name' | 'disabled_at' | 'email_verified_at' | 'is_doctor' | 'is_backoffice_admin' | 'is_marketer' | 'locale' | 'created_at'
> & { consultation_count: number };

function staffUsersForBackoffice(q: Queryable) {
  return sqlOf(q)
    .selectFrom('users as u')
    .select([
      'u.id',
      'u.email',
      'u.first_name',
      'u.last_name',
      'u.disabled_at',
      'u.email_verified_at',
      'u.is_doctor',
      'u.is_backoffice_admin',
      'u.is_marketer',
      'u.locale',
      'u.created_at',
      (eb) =>
        eb
          .selectFrom('consultations as c')
          .select(sql<number>`count(*)::int`.as('n'))
          .whereRef('c.user_id', '=', 'u.id')
          .as('consultation_count'),
    ]);
}

/** `%term%` for a LIKE match of lower(email), with LIKE's wildcards escaped. */
const containsPattern = (term: string) => `%${term.trim().toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const emailContains = (pattern: string) => sql<boolean>`lower(u.email) like ${pattern} escape '\\'`;

export async function countUsersByEmail(q: Queryable, term: string): Promise<number> {
  const row = await sqlOf(q)
    .selectFrom('users as u')
    .select(sql<number>`count(*)::int`.as('n'))
    .where(emailContains(containsPattern(term)))
    .executeTakeFirstOrThrow();
  return row.n;
}

/** The account search's `ordering` whitelist (default oldest first). */
export const USER_SEARCH_ORDERING = listOrdering(['email'], 'created_at');
export type UserSearchOrder = Order<(typeof USER_SEARCH_ORDERING.fields)[number]>;

/** Accounts whose email contains `term` (case-insensitive), in the asked order (default oldest first). */
export async function pageUsersByEmail(q: Queryable, term: string, limit: number, offset: number, order: UserSearchOrder = orderBy({}, USER_SEARCH_ORDERING)): Promise<StaffUserRow[]> {
  const rows = await staffUsersForBackoffice(q)
    .where(emailContains(containsPattern(term)))
    .orderBy(`u.${order.field}`, order.direction)
    .orderBy('u.id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({ ...r, consultation_count: r.consultation_count ?? 0 }));
}

export async function staffUserById(q: Queryable, userId: string): Promise<StaffUserRow | undefined> {
  const row = await staffUsersForBackoffice(q).where('u.id', '=', userId).executeTakeFirst();
  return row && { ...row, consultation_count: row.consultation_count ?? 0 };
}

/** Locks the account row for a status change; false when there is no such account. */
export async function lockUser(q: Queryable, userId: string): Promise<boolean> {
  const row = await sqlOf(q).selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirst();
  return row !== undefined;
}

export async function userEmail(q: Queryable, userId: string): Promise<string | undefined> {
  const row = await sqlOf(q).selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  return row?.email;
}
