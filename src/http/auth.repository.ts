// The one statement of bearer authentication: the account behind a token is active and verified,
// and the token's session (refresh family) is not revoked. A read of accounts' tables (their
// owner writes them); bench/floor-sql.ts keeps a copy of this statement for the floor server.
import type { Queryable } from '../db/index.ts';
import { sqlOf } from '../db/kysely.ts';

export async function findSessionAccount(q: Queryable, userId: string, sessionId: string) {
  return sqlOf(q)
    .selectFrom('users as u')
    .innerJoin('refresh_families as f', 'f.user_id', 'u.id')
    .select(['u.id', 'u.email', 'u.locale', 'u.is_doctor', 'u.is_backoffice_admin', 'u.is_marketer'])
    .where('u.id', '=', userId)
    .where('f.id', '=', sessionId)
    .where('f.revoked_at', 'is', null)
    .where('u.disabled_at', 'is', null)
    .where('u.email_verified_at', 'is not', null)
    .executeTakeFirst();
}
