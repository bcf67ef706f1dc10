// Back-office rules: account search, disable/enable (ending every session), refunds (checkout).
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fieldErrors, notFound } from '../../http/errors.ts';
import { revokeAllSessions, updateUserFields } from '../accounts/index.ts';
import { recordAudit } from '../audit/index.ts';
import { revokeAllGrantsForUser } from '../mcp/index.ts';
import { userEmail as repoUserEmail, countUsersByEmail, lockUser, pageUsersByEmail, staffUserById, type StaffUserRow, type UserSearchOrder } from './repository.ts';

function toStaffUser(u: StaffUserRow) {
  return {
    id: u.id,
    email: u.email,
    first_name: u.first_name,
    last_name: u.last_name,
    is_active: !u.disabled_at,
    email_verified: Boolean(u.email_verified_at),
    disabled_at: u.disabled_at ? u.disabled_at.toISOString() : null,
    is_doctor: u.is_doctor,
    is_backoffice_admin: u.is_backoffice_admin,
    is_marketer: u.is_marketer,
    locale: u.locale,
    consultation_count: u.consultation_count,
    created_at: u.created_at.toISOString(),
  };
}

/** Accounts whose email contains `email` (case-insensitive; LIKE wildcards escaped), oldest first. */
export async function findUsers(deps: Deps, email: string, limit: number, offset: number, order?: UserSearchOrder) {
  const count = await countUsersByEmail(deps.reader, email);
  const rows = await pageUsersByEmail(deps.reader, email, limit, offset, order);
  return { count, results: rows.map(toStaffUser) };
}

/** Disables (ending every session at once) or enables an account; idempotent; audit-logged. */
export async function setAccountActive(deps: Deps, actorId: string, userId: string, active: boolean) {
  if (!active && userId === actorId) throw fieldErrors({ non_field_errors: ['You cannot disable your own account.'] });
  const row = await deps.db.tx(async (q) => {
    if (!(await lockUser(q, userId))) throw notFound();
    const current = await staffUserById(q, userId);
    if (!active) {
      // A repeated disable keeps the first time.
      if (!current?.disabled_at) await updateUserFields(q, userId, { disabled_at: deps.clock.now() });
      await revokeAllSessions(q, userId, 'account_disabled');
      await revokeAllGrantsForUser(q, userId, 'account_disabled');
    } else {
      await updateUserFields(q, userId, { disabled_at: null });
    }
    await recordAudit(q, { actorId, action: active ? 'user.enabled' : 'user.disabled', subjectType: 'user', subjectId: userId });
    return staffUserById(q, userId);
  });
  if (!row) throw notFound();
  return toStaffUser(row);
}

export { USER_SEARCH_ORDERING } from './repository.ts';

/** An account's email address (a refund's answer names it). */
export function userEmail(q: Queryable, userId: string): Promise<string | undefined> {
  return repoUserEmail(q, userId);
}
