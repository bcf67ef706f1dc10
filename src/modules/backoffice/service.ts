// Back-office rules: account search, disable/enable (ending every session), refunds (billing).
import type { Deps } from '../../deps.ts';
import { fieldErrors, notFound } from '../../http/errors.ts';
import { revokeAllSessions } from '../accounts/tokens.ts';
import { audit } from '../consultations/service.ts';

const USER_SELECT = 'select u.*, (select count(*)::int from consultations c where c.user_id = u.id) as consultation_count from users u';

export function toStaffUser(u: any) {
  return {
    id: u.id,
    email: u.email,
    first_name: u.first_name,
    last_name: u.last_name,
    is_active: !u.disabled_at,
    email_verified: Boolean(u.email_verified_at),
    disabled_at: u.disabled_at ? new Date(u.disabled_at).toISOString() : null,
    is_doctor: u.is_doctor,
    is_backoffice_admin: u.is_backoffice_admin,
    is_marketer: u.is_marketer,
    locale: u.locale,
    consultation_count: u.consultation_count ?? 0,
    created_at: new Date(u.created_at).toISOString(),
  };
}

/** Accounts whose email contains `email` (case-insensitive; LIKE wildcards escaped), oldest first. */
export async function findUsers(deps: Deps, email: string, limit: number, offset: number) {
  const pattern = `%${email.trim().toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const [{ n }] = await deps.db.query("select count(*)::int as n from users where lower(email) like $1 escape '\\'", [pattern]);
  const rows = await deps.db.query(`${USER_SELECT} where lower(u.email) like $1 escape '\\' order by u.created_at, u.id limit $2 offset $3`, [pattern, limit, offset]);
  return { count: n as number, results: rows.map(toStaffUser) };
}

/** Disables (ending every session at once) or enables an account; idempotent; audit-logged. */
export async function setAccountActive(deps: Deps, actorId: string, userId: string, active: boolean) {
  if (!active && userId === actorId) throw fieldErrors({ non_field_errors: ['You cannot disable your own account.'] });
  await deps.db.tx(async (q) => {
    const [u] = await q.query('select id from users where id = $1 for update', [userId]);
    if (!u) throw notFound();
    if (!active) {
      await q.query('update users set disabled_at = coalesce(disabled_at, $2), updated_at = now() where id = $1', [u.id, deps.clock.now()]);
      await revokeAllSessions(q, u.id, 'account_disabled');
    } else {
      await q.query('update users set disabled_at = null, updated_at = now() where id = $1', [u.id]);
    }
    await audit(q, actorId, active ? 'user.enabled' : 'user.disabled', 'user', u.id);
  });
  const [row] = await deps.db.query(`${USER_SELECT} where u.id = $1`, [userId]);
  return toStaffUser(row);
}
