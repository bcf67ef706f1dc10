// The one statement of bearer authentication: the account behind a token is active and verified,
// and the token's session (refresh family) is not revoked. A read of accounts' tables (their
// owner writes them); bench/floor-sql.ts keeps a copy of this statement for the floor server.
//
// Plain SQL rather than the query builder: it runs before every authenticated request, and building
// and compiling it per request was 3 % of the list route's CPU. The row type is taken from
// the generated table types, so a renamed column still fails the type check.
import type { Queryable } from '../db/index.ts';
import type { UsersRow } from '../db/schema.ts';

export type SessionAccount = Pick<UsersRow, 'id' | 'email' | 'locale' | 'is_doctor' | 'is_backoffice_admin' | 'is_marketer' | 'is_pharmacist'> & { second_factor: boolean };

export const SESSION_ACCOUNT_SQL = `select u.id, u.email, u.locale, u.is_doctor, u.is_backoffice_admin, u.is_marketer, u.is_pharmacist, f.second_factor_at is not null as second_factor
  from users u join refresh_families f on f.user_id = u.id
 where u.id = $1 and f.id = $2 and f.revoked_at is null and u.disabled_at is null and u.email_verified_at is not null`;

export async function findSessionAccount(q: Queryable, userId: string, sessionId: string): Promise<SessionAccount | undefined> {
  const [row] = await q.query<SessionAccount>(SESSION_ACCOUNT_SQL, [userId, sessionId]);
  return row;
}
