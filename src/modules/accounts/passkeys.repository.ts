// SQL of passkeys (docs/accounts.md, "Passkeys"): the accounts module owns mfa_passkeys and
// webauthn_challenges. Every statement names the account it reads or writes.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';

const now = sql<Date>`now()`;

export interface PasskeyRow {
  id: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string[];
  backed_up: boolean;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = ['id', 'credential_id', 'public_key', 'counter', 'transports', 'backed_up', 'name', 'created_at', 'last_used_at'] as const;

export async function listPasskeys(q: Queryable, userId: string): Promise<PasskeyRow[]> {
  return sqlOf(q).selectFrom('mfa_passkeys').select(COLUMNS).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function hasPasskey(q: Queryable, userId: string): Promise<boolean> {
  const row = await sqlOf(q).selectFrom('mfa_passkeys').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The account's passkey with this credential ID, locked (its counter is decided on it). */
export async function findPasskeyForUpdate(q: Queryable, userId: string, credentialId: string): Promise<PasskeyRow | undefined> {
  return sqlOf(q).selectFrom('mfa_passkeys').select(COLUMNS).where('user_id', '=', userId).where('credential_id', '=', credentialId).forUpdate().executeTakeFirst();
}

export interface NewPasskey {
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string[];
  backed_up: boolean;
  name: string;
}

/** Adds a passkey; undefined when this credential is already registered (to any account). */
export async function insertPasskey(q: Queryable, userId: string, p: NewPasskey): Promise<PasskeyRow | undefined> {
  return sqlOf(q)
    .insertInto('mfa_passkeys')
    .values({ user_id: userId, ...p })
    .onConflict((oc) => oc.column('credential_id').doNothing())
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** Records a use: the new counter, only if the counter is still the one checked (compare-and-set). */
export async function recordPasskeyUse(q: Queryable, userId: string, id: string, oldCounter: number, newCounter: number): Promise<boolean> {
  const row = await sqlOf(q)
    .updateTable('mfa_passkeys')
    .set({ counter: newCounter, last_used_at: now })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .where('counter', '=', oldCounter)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes one of the account's passkeys; false when the account has none with this id. */
export async function deletePasskey(q: Queryable, userId: string, id: string): Promise<boolean> {
  const r = await sqlOf(q).deleteFrom('mfa_passkeys').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

// ---------------------------------------------------------------- challenges

export type ChallengePurpose = 'register' | 'sign_in';

export async function insertChallenge(q: Queryable, challengeHash: string, userId: string, purpose: ChallengePurpose, ticketHash: string | null, expiresAt: Date): Promise<void> {
  // The account's spent or expired challenges go with the new one (nothing else sweeps them).
  await sqlOf(q)
    .deleteFrom('webauthn_challenges')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('expires_at', '<', now), eb('used_at', 'is not', null)]))
    .execute();
  await sqlOf(q).insertInto('webauthn_challenges').values({ challenge_hash: challengeHash, user_id: userId, purpose, ticket_hash: ticketHash, expires_at: expiresAt }).execute();
}

/**
 * Spends an unused challenge of the account for this purpose (and, for a sign-in, this ticket):
 * its expiry, or undefined when there is none. Spent even when it turns out expired or the
 * response is refused: a challenge is answered once.
 */
export async function takeChallenge(q: Queryable, challengeHash: string, userId: string, purpose: ChallengePurpose, ticketHash: string | null): Promise<Date | undefined> {
  let query = sqlOf(q)
    .updateTable('webauthn_challenges')
    .set({ used_at: now })
    .where('challenge_hash', '=', challengeHash)
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null);
  query = ticketHash === null ? query.where('ticket_hash', 'is', null) : query.where('ticket_hash', '=', ticketHash);
  const row = await query.returning('expires_at').executeTakeFirst();
  return row?.expires_at;
}

/** Removes every passkey and challenge of the account (operator reset); true when it had a passkey. */
export async function deletePasskeyData(q: Queryable, userId: string): Promise<boolean> {
  const r = await sqlOf(q).deleteFrom('mfa_passkeys').where('user_id', '=', userId).executeTakeFirst();
  await sqlOf(q).deleteFrom('webauthn_challenges').where('user_id', '=', userId).execute();
  return r.numDeletedRows > 0n;
}
