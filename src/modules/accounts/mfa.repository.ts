// SQL of the second factor (docs/accounts.md, "Second factor"): the accounts module owns mfa_totp,
// mfa_recovery_codes and mfa_tickets. Every statement names the account it reads or writes.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { deletePasskeyData } from './passkeys.repository.ts';

const now = sql<Date>`now()`;

// ---------------------------------------------------------------- TOTP

export interface TotpRow {
  secret_enc: string;
  confirmed_at: Date | null;
}

export async function findTotp(q: Queryable, userId: string, lock = false): Promise<TotpRow | undefined> {
  const query = sqlOf(q).selectFrom('mfa_totp').select(['secret_enc', 'confirmed_at']).where('user_id', '=', userId);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** True when the account has a confirmed second factor. */
export async function hasConfirmedTotp(q: Queryable, userId: string): Promise<boolean> {
  const row = await sqlOf(q).selectFrom('mfa_totp').select('user_id').where('user_id', '=', userId).where('confirmed_at', 'is not', null).executeTakeFirst();
  return row !== undefined;
}

/** Starts (or restarts) an enrolment with a new secret; never replaces a confirmed factor. False when one exists. */
export async function upsertPendingTotp(q: Queryable, userId: string, secretEnc: string): Promise<boolean> {
  const row = await sqlOf(q)
    .insertInto('mfa_totp')
    .values({ user_id: userId, secret_enc: secretEnc })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ secret_enc: secretEnc, created_at: now, last_step: null }).where('mfa_totp.confirmed_at', 'is', null))
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Sets a confirmed factor outright (operator enrolment), replacing any other. */
export async function setConfirmedTotp(q: Queryable, userId: string, secretEnc: string): Promise<void> {
  await sqlOf(q)
    .insertInto('mfa_totp')
    .values({ user_id: userId, secret_enc: secretEnc, confirmed_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ secret_enc: secretEnc, confirmed_at: now, last_step: null, created_at: now }))
    .execute();
}

export async function confirmTotp(q: Queryable, userId: string): Promise<void> {
  await sqlOf(q).updateTable('mfa_totp').set({ confirmed_at: now }).where('user_id', '=', userId).execute();
}

/**
 * Records that a code of time step `step` was accepted, only if no code of this or a later step was
 * (compare-and-set: of two requests with one code, exactly one gets true).
 */
export async function claimTotpStep(q: Queryable, userId: string, step: number): Promise<boolean> {
  const row = await sqlOf(q)
    .updateTable('mfa_totp')
    .set({ last_step: step })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

// ---------------------------------------------------------------- recovery codes

export async function replaceRecoveryCodes(q: Queryable, userId: string, hashes: string[]): Promise<void> {
  await sqlOf(q).deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length === 0) return;
  await sqlOf(q)
    .insertInto('mfa_recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
    .execute();
}

/** Spends an unused recovery code of the account; false when there is none with this hash. */
export async function spendRecoveryCode(q: Queryable, userId: string, hash: string): Promise<boolean> {
  const row = await sqlOf(q)
    .updateTable('mfa_recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function countUnusedRecoveryCodes(q: Queryable, userId: string): Promise<number> {
  const row = await sqlOf(q)
    .selectFrom('mfa_recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// ---------------------------------------------------------------- tickets (mfa_token, enrolment_token)

export type TicketPurpose = 'sign_in' | 'enrol';

export async function insertTicket(q: Queryable, tokenHash: string, userId: string, purpose: TicketPurpose, expiresAt: Date): Promise<void> {
  // The account's expired tickets go with the new one (nothing else sweeps them).
  await sqlOf(q).deleteFrom('mfa_tickets').where('user_id', '=', userId).where('expires_at', '<', now).execute();
  await sqlOf(q).insertInto('mfa_tickets').values({ token_hash: tokenHash, user_id: userId, purpose, expires_at: expiresAt }).execute();
}

export interface TicketRow {
  user_id: string;
  expires_at: Date;
  used_at: Date | null;
  failed_attempts: number;
}

/** The ticket with this hash and purpose, locked (its use and its failures are decided on it). */
export async function findTicketForUpdate(q: Queryable, tokenHash: string, purpose: TicketPurpose): Promise<TicketRow | undefined> {
  return sqlOf(q)
    .selectFrom('mfa_tickets')
    .select(['user_id', 'expires_at', 'used_at', 'failed_attempts'])
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .forUpdate()
    .executeTakeFirst();
}

export async function markTicketUsed(q: Queryable, tokenHash: string, userId: string): Promise<void> {
  await sqlOf(q).updateTable('mfa_tickets').set({ used_at: now }).where('token_hash', '=', tokenHash).where('user_id', '=', userId).execute();
}

/** Counts a wrong code; at `burnAt` failures the ticket is used up. */
export async function countTicketFailure(q: Queryable, tokenHash: string, userId: string, burnAt: number): Promise<void> {
  await sqlOf(q)
    .updateTable('mfa_tickets')
    .set((eb) => ({
      failed_attempts: eb('failed_attempts', '+', 1),
      used_at: sql<Date | null>`case when failed_attempts + 1 >= ${burnAt} then now() else used_at end`,
    }))
    .where('token_hash', '=', tokenHash)
    .where('user_id', '=', userId)
    .execute();
}

// ---------------------------------------------------------------- reset (operator)

/** Removes every factor (TOTP and passkeys), recovery code, ticket and challenge of the account; true when it had a factor. */
export async function deleteFactors(q: Queryable, userId: string): Promise<boolean> {
  const totp = await sqlOf(q).deleteFrom('mfa_totp').where('user_id', '=', userId).executeTakeFirst();
  const passkeys = await deletePasskeyData(q, userId);
  await sqlOf(q).deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
  await sqlOf(q).deleteFrom('mfa_tickets').where('user_id', '=', userId).execute();
  return totp.numDeletedRows > 0n || passkeys;
}

/** Removes the account's TOTP factor only (its passkeys and recovery codes stay). */
export async function deleteTotp(q: Queryable, userId: string): Promise<void> {
  await sqlOf(q).deleteFrom('mfa_totp').where('user_id', '=', userId).execute();
}
