// SQL of the accounts module, owner of users, email_verifications, password_reset_tokens,
// refresh_families and refresh_tokens (docs/architecture.md). Other modules write users through
// the functions index.ts exports.
import { randomInt } from 'node:crypto';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import type { EmailVerificationsRow, UsersRow, UsersUpdate } from '../../db/schema.ts';

export type UserRow = Pick<
  UsersRow,
  'id' | 'email' | 'password_hash' | 'google_sub' | 'email_verified_at' | 'disabled_at' | 'is_doctor' | 'is_backoffice_admin' | 'is_marketer' | 'is_pharmacist' | 'locale'
>;

const USER_COLUMNS = ['id', 'email', 'password_hash', 'google_sub', 'email_verified_at', 'disabled_at', 'is_doctor', 'is_backoffice_admin', 'is_marketer', 'is_pharmacist', 'locale'] as const;

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

const now = sql<Date>`now()`;

// ---------------------------------------------------------------- users

export async function findUserByEmail(q: Queryable, email: string, lock = false): Promise<UserRow | undefined> {
  const query = sqlOf(q)
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where(sql<string>`lower(email)`, '=', normaliseEmail(email));
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function findUserById(q: Queryable, id: string, lock = false): Promise<UserRow | undefined> {
  const query = sqlOf(q).selectFrom('users').select(USER_COLUMNS).where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function findUserByGoogleSub(q: Queryable, sub: string): Promise<UserRow | undefined> {
  return sqlOf(q).selectFrom('users').select(USER_COLUMNS).where('google_sub', '=', sub).forUpdate().executeTakeFirst();
}

/** The columns other modules (profile, back office) may set on an account. */
export type UserFields = Pick<
  UsersUpdate,
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
  | 'disabled_at'
  | 'prescriber_phone'
  | 'prescriber_qualification'
  | 'doctor_license_number'
>;

/** Sets the given columns (and updated_at); false when there is no such account. */
export async function updateUserFields(q: Queryable, userId: string, fields: UserFields): Promise<boolean> {
  const result = await userFieldsUpdate(q, userId, fields).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The one update of an account's own fields, as a statement the caller may finish with the columns
 * it answers with (`.returning(...)`: the profile's PATCH answers the row it wrote in one round
 * trip). The write stays here: accounts is the one module that writes `users`.
 */
export function userFieldsUpdate(q: Queryable, userId: string, fields: UserFields) {
  return sqlOf(q).updateTable('users').set({ ...fields, updated_at: now }).where('id', '=', userId);
}

// Unambiguous alphabet (no 0/O, 1/I/L) for codes people read aloud.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newReferralCode = () => Array.from({ length: 8 }, () => CODE_ALPHABET.charAt(randomInt(CODE_ALPHABET.length))).join('');

export interface NewUser {
  email: string;
  passwordHash: string | null;
  googleSub?: string | null;
  verified: boolean;
  firstName?: string;
  lastName?: string;
  locale?: string;
  referredBy?: string | null;
  roles?: { is_doctor?: boolean; is_backoffice_admin?: boolean; is_marketer?: boolean; is_pharmacist?: boolean };
  doctorLicenseNumber?: string | null;
}

/** A unique violation on the referral code (both drivers report SQLSTATE and constraint). */
function isReferralCodeClash(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  return e.code === '23505' && String(e.constraint ?? e.message).includes('referral_code');
}

export async function insertUser(q: Queryable, u: NewUser): Promise<string> {
  // A referral-code collision (31^8 space) is retried with a fresh code.
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await sqlOf(q)
        .insertInto('users')
        .values({
          email: normaliseEmail(u.email),
          password_hash: u.passwordHash,
          google_sub: u.googleSub ?? null,
          email_verified_at: u.verified ? now : null,
          first_name: u.firstName ?? '',
          last_name: u.lastName ?? '',
          locale: u.locale ?? 'en',
          referred_by: u.referredBy ?? null,
          is_doctor: Boolean(u.roles?.is_doctor),
          is_backoffice_admin: Boolean(u.roles?.is_backoffice_admin),
          is_marketer: Boolean(u.roles?.is_marketer),
          is_pharmacist: Boolean(u.roles?.is_pharmacist),
          doctor_license_number: u.doctorLicenseNumber ?? null,
          referral_code: newReferralCode(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    } catch (err) {
      if (attempt < 3 && isReferralCodeClash(err)) continue;
      throw err;
    }
  }
}

/** The pending signup takes the latest details (names and locale only when given). */
export async function updatePendingSignup(
  q: Queryable,
  userId: string,
  d: { passwordHash: string; firstName?: string; lastName?: string; locale?: string },
): Promise<void> {
  await sqlOf(q)
    .updateTable('users')
    .set({
      password_hash: d.passwordHash,
      ...(d.firstName !== undefined ? { first_name: d.firstName } : {}),
      ...(d.lastName !== undefined ? { last_name: d.lastName } : {}),
      ...(d.locale !== undefined ? { locale: d.locale } : {}),
      updated_at: now,
    })
    .where('id', '=', userId)
    .execute();
}

export async function markEmailVerified(q: Queryable, userId: string, at: Date): Promise<void> {
  await sqlOf(q).updateTable('users').set({ email_verified_at: at, updated_at: now }).where('id', '=', userId).execute();
}

/** Links a Google subject; an unverified signup is taken over (verified, its password removed). */
export async function linkGoogle(q: Queryable, userId: string, sub: string, takeOver: boolean): Promise<void> {
  await sqlOf(q)
    .updateTable('users')
    .set(takeOver ? { google_sub: sub, password_hash: null, email_verified_at: now, updated_at: now } : { google_sub: sub, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

/** A reset link proved the mailbox: the password is set and a pending signup becomes verified. */
export async function setPasswordFromReset(q: Queryable, userId: string, passwordHash: string): Promise<void> {
  await sqlOf(q)
    .updateTable('users')
    .set({ password_hash: passwordHash, email_verified_at: sql<Date>`coalesce(email_verified_at, now())`, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

export type StaffFlag = 'is_doctor' | 'is_backoffice_admin' | 'is_marketer' | 'is_pharmacist';
const STAFF_FLAG: Record<StaffFlag, Pick<UsersUpdate, StaffFlag>> = {
  is_doctor: { is_doctor: true },
  is_backoffice_admin: { is_backoffice_admin: true },
  is_marketer: { is_marketer: true },
  is_pharmacist: { is_pharmacist: true },
};

/** Promotes an existing account to verified staff with this password (given details win). */
export async function promoteToStaff(
  q: Queryable,
  userId: string,
  flag: StaffFlag,
  d: { passwordHash: string; licenseNumber?: string; firstName?: string; lastName?: string },
): Promise<void> {
  await sqlOf(q)
    .updateTable('users')
    .set({
      ...STAFF_FLAG[flag],
      password_hash: d.passwordHash,
      email_verified_at: sql<Date>`coalesce(email_verified_at, now())`,
      ...(d.licenseNumber !== undefined ? { doctor_license_number: d.licenseNumber } : {}),
      ...(d.firstName !== undefined ? { first_name: d.firstName } : {}),
      ...(d.lastName !== undefined ? { last_name: d.lastName } : {}),
      updated_at: now,
    })
    .where('id', '=', userId)
    .execute();
}

/** Sets or clears disabled_at (a repeated disable keeps the first time); false for no account. */
export async function setDisabled(q: Queryable, userId: string, disabled: boolean, at?: Date): Promise<boolean> {
  const result = await sqlOf(q)
    .updateTable('users')
    .set({ disabled_at: disabled ? sql<Date>`coalesce(disabled_at, ${at ?? now})` : null, updated_at: now })
    .where('id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function referrerIdByCode(q: Queryable, code: string): Promise<string | null> {
  const row = await sqlOf(q)
    .selectFrom('users')
    .select('id')
    .where('referral_code', '=', code.trim().toUpperCase())
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return row?.id ?? null;
}

// ---------------------------------------------------------------- email verification

export type VerificationRow = EmailVerificationsRow;

export async function findVerification(q: Queryable, userId: string): Promise<VerificationRow | undefined> {
  return sqlOf(q).selectFrom('email_verifications').selectAll().where('user_id', '=', userId).forUpdate().executeTakeFirst();
}

export async function upsertVerification(q: Queryable, userId: string, codeHash: string, at: Date, ttlSeconds: number): Promise<void> {
  // A new code replaces the old one; a running lockout is kept (re-registering must not reset it).
  await sqlOf(q)
    .insertInto('email_verifications')
    .values({ user_id: userId, code_hash: codeHash, expires_at: new Date(at.getTime() + ttlSeconds * 1000), last_sent_at: at, failed_attempts: 0 })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => ({
        code_hash: eb.ref('excluded.code_hash'),
        expires_at: eb.ref('excluded.expires_at'),
        last_sent_at: eb.ref('excluded.last_sent_at'),
        failed_attempts: sql<number>`case when email_verifications.locked_until > excluded.last_sent_at then email_verifications.failed_attempts else 0 end`,
      })),
    )
    .execute();
}

/** Records failed attempts and the lockout (null clears it); `failures` undefined keeps the count. */
export async function updateVerificationFailures(q: Queryable, userId: string, failures: number | undefined, lockedUntil: Date | null): Promise<void> {
  await sqlOf(q)
    .updateTable('email_verifications')
    .set({ ...(failures !== undefined ? { failed_attempts: failures } : {}), locked_until: lockedUntil })
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteVerification(q: Queryable, userId: string): Promise<void> {
  await sqlOf(q).deleteFrom('email_verifications').where('user_id', '=', userId).execute();
}

// ---------------------------------------------------------------- sessions (refresh families and tokens)

/** A new session; `secondFactorAt` when the sign-in passed a second factor (STAFF_MFA=required refuses staff sessions without one). */
export async function insertFamily(q: Queryable, userId: string, at: Date, secondFactorAt: Date | null): Promise<string> {
  // The sign-in that opens a session is its first authentication (re-authentication, docs/accounts.md).
  const row = await sqlOf(q).insertInto('refresh_families').values({ user_id: userId, second_factor_at: secondFactorAt, reauthenticated_at: at }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The session proved its holder again (password or a current factor). */
export async function markSessionReauthenticated(q: Queryable, userId: string, sessionId: string, at: Date): Promise<void> {
  await sqlOf(q).updateTable('refresh_families').set({ reauthenticated_at: at }).where('id', '=', sessionId).where('user_id', '=', userId).execute();
}

export async function sessionReauthenticatedAt(q: Queryable, userId: string, sessionId: string): Promise<Date | null> {
  const row = await sqlOf(q).selectFrom('refresh_families').select('reauthenticated_at').where('id', '=', sessionId).where('user_id', '=', userId).executeTakeFirst();
  return row?.reauthenticated_at ?? null;
}

/** The session passed a second factor after it began (a factor confirmed from the account page). */
export async function markSessionSecondFactor(q: Queryable, userId: string, sessionId: string, at: Date): Promise<void> {
  await sqlOf(q).updateTable('refresh_families').set({ second_factor_at: at }).where('id', '=', sessionId).where('user_id', '=', userId).execute();
}

export async function insertRefreshToken(q: Queryable, jtiHash: string, familyId: string, expiresAt: Date): Promise<void> {
  await sqlOf(q).insertInto('refresh_tokens').values({ jti_hash: jtiHash, family_id: familyId, expires_at: expiresAt }).execute();
}

export interface RefreshState {
  used_at: Date | null;
  grace_used_at: Date | null;
  expires_at: Date;
  family_id: string;
  revoked_at: Date | null;
  user_id: string;
  second_factor_at: Date | null;
}

/** A refresh token and its session, both locked (rotation and reuse detection decide on them). */
export async function findRefreshForUpdate(q: Queryable, jtiHash: string): Promise<RefreshState | undefined> {
  return sqlOf(q)
    .selectFrom('refresh_tokens as t')
    .innerJoin('refresh_families as f', 'f.id', 't.family_id')
    .select(['t.used_at', 't.grace_used_at', 't.expires_at', 'f.id as family_id', 'f.revoked_at', 'f.user_id', 'f.second_factor_at'])
    .where('t.jti_hash', '=', jtiHash)
    .forUpdate(['t', 'f'])
    .executeTakeFirst();
}

/** Marks a refresh token used at `at`, the service's clock (the reuse grace is measured on it). */
export async function markRefreshUsed(q: Queryable, jtiHash: string, at: Date): Promise<void> {
  await sqlOf(q).updateTable('refresh_tokens').set({ used_at: at }).where('jti_hash', '=', jtiHash).execute();
}

/** The one answer a rotated refresh cookie gets within the reuse grace (see accounts/service.ts). */
export async function markRefreshGraceUsed(q: Queryable, jtiHash: string, at: Date): Promise<void> {
  await sqlOf(q).updateTable('refresh_tokens').set({ grace_used_at: at }).where('jti_hash', '=', jtiHash).execute();
}

/** Ends the given sessions of the account (ids of other accounts are ignored). */
export async function revokeFamilies(q: Queryable, userId: string, familyIds: string[], reason: string): Promise<void> {
  if (familyIds.length === 0) return;
  await sqlOf(q)
    .updateTable('refresh_families')
    .set({ revoked_at: now, revoke_reason: reason })
    .where('user_id', '=', userId)
    .where('id', 'in', familyIds)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Ends every session of the account. */
export async function revokeAllFamilies(q: Queryable, userId: string, reason: string): Promise<void> {
  await sqlOf(q)
    .updateTable('refresh_families')
    .set({ revoked_at: now, revoke_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Ends every session of the account except `keepFamilyId` (the one that changed the password). */
export async function revokeOtherSessions(q: Queryable, userId: string, keepFamilyId: string, reason: string): Promise<void> {
  await sqlOf(q)
    .updateTable('refresh_families')
    .set({ revoked_at: now, revoke_reason: reason })
    .where('user_id', '=', userId)
    .where('id', '<>', keepFamilyId)
    .where('revoked_at', 'is', null)
    .execute();
}

// ---------------------------------------------------------------- password reset

export async function hasRecentResetToken(q: Queryable, userId: string, since: Date): Promise<boolean> {
  const row = await sqlOf(q).selectFrom('password_reset_tokens').select('user_id').where('user_id', '=', userId).where('created_at', '>', since).executeTakeFirst();
  return row !== undefined;
}

export async function insertResetToken(q: Queryable, tokenHash: string, userId: string, expiresAt: Date, createdAt: Date): Promise<void> {
  await sqlOf(q).insertInto('password_reset_tokens').values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt, created_at: createdAt }).execute();
}

export type ResetHolder = Pick<UsersRow, 'email' | 'first_name' | 'last_name' | 'locale'> & { user_id: string };

/** The enabled account of an unused, unexpired reset token. */
export async function findResetHolder(q: Queryable, tokenHash: string, at: Date): Promise<ResetHolder | undefined> {
  return sqlOf(q)
    .selectFrom('password_reset_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.user_id', 'u.email', 'u.first_name', 'u.last_name', 'u.locale'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.used_at', 'is', null)
    .where('t.expires_at', '>', at)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
}

/** Marks the token used; false when another request already did (single use under concurrency). */
export async function claimResetToken(q: Queryable, tokenHash: string): Promise<boolean> {
  const row = await sqlOf(q)
    .updateTable('password_reset_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Spends every unused reset link of the account (a link mailed before a change must not undo it). */
export async function spendResetTokens(q: Queryable, userId: string): Promise<void> {
  await sqlOf(q).updateTable('password_reset_tokens').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
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
    .set({ password_hash: newHash, updated_at: now })
    .where('id', '=', userId)
    .where('password_hash', '=', expectedHash)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

// ---------------------------------------------------------------- erasure (docs/privacy.md)

/** When the session (refresh family) of an access token began: the time of that sign-in. */
export async function sessionStartedAt(q: Queryable, userId: string, sessionId: string): Promise<Date | undefined> {
  const row = await sqlOf(q).selectFrom('refresh_families').select('created_at').where('id', '=', sessionId).where('user_id', '=', userId).executeTakeFirst();
  return row?.created_at;
}

/**
 * Pseudonymises an erased account's row: every identifying column emptied, the address replaced by
 * one that can never receive mail nor collide (so registering the old address makes a new account),
 * sign-in impossible (no password, no Google link, disabled). The row stays: retained records
 * (invoices, prescriptions, consultations) point at its id. Codes and reset links are deleted.
 */
export async function pseudonymiseUser(q: Queryable, userId: string, at: Date): Promise<void> {
  const db = sqlOf(q);
  await db.deleteFrom('email_verifications').where('user_id', '=', userId).execute();
  await db.deleteFrom('password_reset_tokens').where('user_id', '=', userId).execute();
  await db
    .updateTable('users')
    .set({
      email: `erased-${userId}@erased.invalid`,
      password_hash: null,
      google_sub: null,
      first_name: '',
      last_name: '',
      date_of_birth: null,
      gender: null,
      city: null,
      postal_code: null,
      document_number_enc: null,
      document_type: null,
      addresses: JSON.stringify([]),
      // The patient's own doctor: who treats them is personal data too.
      gp: null,
      referral_code: `ERASED-${userId}`,
      disabled_at: at,
      erased_at: at,
      updated_at: at,
    })
    .where('id', '=', userId)
    .execute();
}

// ---------------------------------------------------------------- retention (docs/privacy.md)
// Sweeps across accounts, run by the scheduled retention jobs (src/modules/privacy/retention.ts).
// Each deletes at most `batch` rows per call, claiming them with SKIP LOCKED so that several
// processes running the job at once share the work instead of waiting on each other.

/**
 * Registrations never verified: deleted (with their cascade) when created before `before` and no
 * code was sent since. Never a staff, Google-linked, disabled or erased account, nor one another
 * account names as its referrer.
 */
export async function deleteUnverifiedAccounts(q: Queryable, before: Date, batch: number): Promise<number> {
  const { rowCount } = await q.execute(
    `delete from users where id in (
       select u.id from users u
        where u.email_verified_at is null and u.google_sub is null and u.disabled_at is null and u.erased_at is null
          and not (u.is_doctor or u.is_backoffice_admin or u.is_marketer or u.is_pharmacist)
          and u.created_at < $1
          and not exists (select 1 from email_verifications v where v.user_id = u.id and v.last_sent_at >= $1)
          and not exists (select 1 from users r where r.referred_by = u.id)
        order by u.created_at limit $2 for update of u skip locked)`,
    [before, batch],
  );
  return rowCount;
}

/**
 * Sign-in sessions over: refresh tokens that expired before `before`, then sessions (refresh
 * families) revoked before it or whose every token expired before it (a family without tokens is
 * over too once it is older than `before`).
 */
export async function deleteExpiredSessions(q: Queryable, before: Date, batch: number): Promise<number> {
  const tokens = await q.execute(
    `delete from refresh_tokens where jti_hash in (
       select jti_hash from refresh_tokens where expires_at < $1 limit $2 for update skip locked)`,
    [before, batch],
  );
  const families = await q.execute(
    `delete from refresh_families where id in (
       select f.id from refresh_families f
        where f.revoked_at < $1
           or (f.created_at < $1 and not exists (select 1 from refresh_tokens t where t.family_id = f.id and t.expires_at >= $1))
        limit $2 for update of f skip locked)`,
    [before, batch],
  );
  return tokens.rowCount + families.rowCount;
}

/** One-time tokens (password reset, second-factor tickets) that expired before `before`. */
export async function deleteExpiredOneTimeTokens(q: Queryable, before: Date, batch: number): Promise<number> {
  const resets = await q.execute(
    `delete from password_reset_tokens where token_hash in (
       select token_hash from password_reset_tokens where expires_at < $1 limit $2 for update skip locked)`,
    [before, batch],
  );
  const tickets = await q.execute(
    `delete from mfa_tickets where token_hash in (
       select token_hash from mfa_tickets where expires_at < $1 limit $2 for update skip locked)`,
    [before, batch],
  );
  return resets.rowCount + tickets.rowCount;
}
