// SQL of the accounts module.
import { randomInt } from 'node:crypto';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import type { UsersRow } from '../../db/schema.ts';

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  google_sub: string | null;
  email_verified_at: Date | null;
  disabled_at: Date | null;
  is_doctor: boolean;
  is_backoffice_admin: boolean;
  is_marketer: boolean;
  locale: string;
}

const USER_COLUMNS = 'id, email, password_hash, google_sub, email_verified_at, disabled_at, is_doctor, is_backoffice_admin, is_marketer, locale';

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export async function findUserByEmail(q: Queryable, email: string, lock = false): Promise<UserRow | undefined> {
  const [row] = await q.query<UserRow>(`select ${USER_COLUMNS} from users where lower(email) = lower($1)${lock ? ' for update' : ''}`, [normaliseEmail(email)]);
  return row;
}

export async function findUserById(q: Queryable, id: string, lock = false): Promise<UserRow | undefined> {
  const [row] = await q.query<UserRow>(`select ${USER_COLUMNS} from users where id = $1${lock ? ' for update' : ''}`, [id]);
  return row;
}

export async function findUserByGoogleSub(q: Queryable, sub: string): Promise<UserRow | undefined> {
  const [row] = await q.query<UserRow>(`select ${USER_COLUMNS} from users where google_sub = $1 for update`, [sub]);
  return row;
}

// Unambiguous alphabet (no 0/O, 1/I/L) for codes people read aloud.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const newReferralCode = () => Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

export interface NewUser {
  email: string;
  passwordHash: string | null;
  googleSub?: string | null;
  verified: boolean;
  firstName?: string;
  lastName?: string;
  locale?: string;
  referredBy?: string | null;
  roles?: { is_doctor?: boolean; is_backoffice_admin?: boolean; is_marketer?: boolean };
  doctorLicenseNumber?: string | null;
}

export async function insertUser(q: Queryable, u: NewUser): Promise<string> {
  // A referral-code collision (31^8 space) is retried with a fresh code.
  for (let attempt = 0; ; attempt++) {
    try {
      const [row] = await q.query<{ id: string }>(
        `insert into users (email, password_hash, google_sub, email_verified_at, first_name, last_name, locale, referred_by,
                            is_doctor, is_backoffice_admin, is_marketer, doctor_license_number, referral_code)
         values ($1, $2, $3, case when $4 then now() end, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning id`,
        [
          normaliseEmail(u.email),
          u.passwordHash,
          u.googleSub ?? null,
          u.verified,
          u.firstName ?? '',
          u.lastName ?? '',
          u.locale ?? 'en',
          u.referredBy ?? null,
          Boolean(u.roles?.is_doctor),
          Boolean(u.roles?.is_backoffice_admin),
          Boolean(u.roles?.is_marketer),
          u.doctorLicenseNumber ?? null,
          newReferralCode(),
        ],
      );
      return row.id;
    } catch (err: any) {
      if (attempt < 3 && err?.code === '23505' && String(err?.constraint ?? err?.message).includes('referral_code')) continue;
      throw err;
    }
  }
}

export async function referrerIdByCode(q: Queryable, code: string): Promise<string | null> {
  const [row] = await q.query<{ id: string }>('select id from users where referral_code = upper($1) and disabled_at is null', [code.trim()]);
  return row?.id ?? null;
}

export async function isSuppressed(q: Queryable, email: string): Promise<boolean> {
  return (await q.query('select 1 from email_suppressions where email = lower($1)', [normaliseEmail(email)])).length > 0;
}

export async function suppressEmail(q: Queryable, email: string, reason: string): Promise<void> {
  await q.query('insert into email_suppressions (email, reason) values (lower($1), $2) on conflict (email) do update set reason = excluded.reason', [
    normaliseEmail(email),
    reason,
  ]);
}

export interface VerificationRow {
  user_id: string;
  code_hash: string;
  expires_at: Date;
  last_sent_at: Date;
  failed_attempts: number;
  locked_until: Date | null;
}

export async function findVerification(q: Queryable, userId: string): Promise<VerificationRow | undefined> {
  const [row] = await q.query<VerificationRow>('select * from email_verifications where user_id = $1 for update', [userId]);
  return row;
}

export async function upsertVerification(q: Queryable, userId: string, codeHash: string, now: Date, ttlSeconds: number): Promise<void> {
  // A new code replaces the old one; a running lockout is kept (re-registering must not reset it).
  await q.query(
    `insert into email_verifications (user_id, code_hash, expires_at, last_sent_at, failed_attempts)
     values ($1, $2, $3, $4, 0)
     on conflict (user_id) do update set code_hash = excluded.code_hash, expires_at = excluded.expires_at,
       last_sent_at = excluded.last_sent_at,
       failed_attempts = case when email_verifications.locked_until > excluded.last_sent_at then email_verifications.failed_attempts else 0 end`,
    [userId, codeHash, new Date(now.getTime() + ttlSeconds * 1000), now],
  );
}

// ---------------------------------------------------------------- password change (signed in)

export type PasswordHolder = Pick<UsersRow, 'id' | 'email' | 'password_hash' | 'google_sub' | 'first_name' | 'last_name' | 'locale'>;

/** What a password change needs to know about the signed-in account. */
export async function findPasswordHolder(q: Queryable, userId: string): Promise<PasswordHolder | undefined> {
  return sqlOf(q)
    .selectFrom('users')
    .select(['id', 'email', 'password_hash', 'google_sub', 'first_name', 'last_name', 'locale'])
    .where('id', '=', userId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Replaces the password hash only if it is still the one the current password was checked against
 * (compare-and-set): of two concurrent changes made with the same current password, one wins and
 * the other finds the password already changed.
 */
export async function replacePasswordHash(q: Queryable, userId: string, expectedHash: string, newHash: string): Promise<boolean> {
  const result = await sqlOf(q)
    .updateTable('users')
    .set({ password_hash: newHash, updated_at: sql<Date>`now()` })
    .where('id', '=', userId)
    .where('password_hash', '=', expectedHash)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends every session of the account except `keepFamilyId` (the one that changed the password). */
export async function revokeOtherSessions(q: Queryable, userId: string, keepFamilyId: string, reason: string): Promise<void> {
  await sqlOf(q)
    .updateTable('refresh_families')
    .set({ revoked_at: sql<Date>`now()`, revoke_reason: reason })
    .where('user_id', '=', userId)
    .where('id', '<>', keepFamilyId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Spends every unused reset link of the account (a link mailed before a change must not undo it). */
export async function spendResetTokens(q: Queryable, userId: string): Promise<void> {
  await sqlOf(q).updateTable('password_reset_tokens').set({ used_at: sql<Date>`now()` }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
}
