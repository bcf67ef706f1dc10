// SQL of verification (owner of identity_verifications, identity_webhook_events,
// weight_verifications and verification_blobs). Patient reads and writes go through forAccount; the
// desk's (any patient's record, by id), the provider's (by its session id) and the signals across
// accounts are the unscoped functions named so.
import { sql } from 'kysely';
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import { accountSql, forAccount } from '../../db/scope.ts';
import type { IdentityVerificationsRow, IdentityVerificationsUpdate, WeightVerificationsRow } from '../../db/schema.ts';

export type IdentityRow = IdentityVerificationsRow;
export type WeightRow = WeightVerificationsRow;

// ---------------------------------------------------------------- identity

export async function insertIdentity(
  q: Queryable,
  row: { id: string; userId: string; provider: string; providerSessionId: string; providerUrl: string; returnUrl: string; expiresAt: Date },
): Promise<IdentityRow | null> {
  const out = await sqlOf(q)
    .insertInto('identity_verifications')
    .values({ id: row.id, user_id: row.userId, provider: row.provider, provider_session_id: row.providerSessionId, provider_url: row.providerUrl, return_url: row.returnUrl, expires_at: row.expiresAt })
    // The account's one open session (a unique partial index): a concurrent start keeps the first.
    // The predicate is a literal: a bound parameter does not match the partial index once the
    // statement runs on a generic plan (42P10).
    .onConflict((oc) => oc.column('user_id').where(sql<boolean>`status = 'pending'`).doNothing())
    .returningAll()
    .executeTakeFirst();
  return out ?? null;
}

/** The account's newest identity verification. */
export async function latestIdentity(q: Queryable, userId: string): Promise<IdentityRow | null> {
  return (await forAccount(q, userId).selectFrom('identity_verifications').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst()) ?? null;
}

/** The newest identity verification of each account given (the desk's queue). */
export async function latestIdentityOfAccountsForClinician(q: Queryable, userIds: readonly string[]): Promise<IdentityRow[]> {
  if (userIds.length === 0) return [];
  return sqlOf(q)
    .selectFrom('identity_verifications')
    .selectAll()
    .distinctOn('user_id')
    .where('user_id', 'in', [...userIds])
    .orderBy('user_id')
    .orderBy('created_at', 'desc')
    .execute();
}

export async function expireIdentity(q: Queryable, userId: string, id: string): Promise<void> {
  await forAccount(q, userId).updateTable('identity_verifications').set({ status: 'expired', updated_at: sql<Date>`now()` }).where('id', '=', id).where('status', '=', 'pending').execute();
}

/** A provider's session, locked for its outcome (the sandbox page, the vendor's webhook). */
export async function lockIdentityBySessionForProvider(q: Queryable, provider: string, sessionId: string): Promise<IdentityRow | null> {
  return (await sqlOf(q).selectFrom('identity_verifications').selectAll().where('provider', '=', provider).where('provider_session_id', '=', sessionId).forUpdate().executeTakeFirst()) ?? null;
}

/** A provider's session as its page shows it (no lock). */
export async function identityBySessionForProvider(q: Queryable, provider: string, sessionId: string): Promise<IdentityRow | null> {
  return (await sqlOf(q).selectFrom('identity_verifications').selectAll().where('provider', '=', provider).where('provider_session_id', '=', sessionId).executeTakeFirst()) ?? null;
}

export async function updateIdentityForProvider(q: Queryable, id: string, fields: IdentityVerificationsUpdate): Promise<void> {
  await sqlOf(q).updateTable('identity_verifications').set({ ...fields, updated_at: sql<Date>`now()` }).where('id', '=', id).execute();
}

/** Records a webhook event id; false when it was recorded before (a redelivery or a replay). */
export async function recordWebhookEventForProvider(q: Queryable, provider: string, eventId: string): Promise<boolean> {
  const r = await sqlOf(q).insertInto('identity_webhook_events').values({ provider, event_id: eventId }).onConflict((oc) => oc.doNothing()).returning('event_id').executeTakeFirst();
  return r !== undefined;
}

export async function identityForClinician(q: Queryable, id: string, lock = false): Promise<IdentityRow | null> {
  const query = sqlOf(q).selectFrom('identity_verifications').selectAll().where('id', '=', id);
  return (await (lock ? query.forUpdate() : query).executeTakeFirst()) ?? null;
}

export async function decideIdentityForClinician(q: Queryable, id: string, fields: { status: 'verified' | 'rejected'; decidedBy: string; reason: string; profileHash: string | null; at: Date }): Promise<IdentityRow> {
  return sqlOf(q)
    .updateTable('identity_verifications')
    .set({ status: fields.status, decided_by: fields.decidedBy, decision_reason: fields.reason, profile_hash: fields.profileHash, checked_at: fields.at, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function countIdentityQueueForClinician(q: Queryable, status: string): Promise<number> {
  const r = await sqlOf(q).selectFrom('identity_verifications').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', status).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function pageIdentityQueueForClinician(q: Queryable, status: string, limit: number, offset: number): Promise<IdentityRow[]> {
  return sqlOf(q).selectFrom('identity_verifications').selectAll().where('status', '=', status).orderBy('created_at', 'asc').orderBy('id').limit(limit).offset(offset).execute();
}

/** Other accounts whose verified document has this keyed hash (the same identity document). */
export async function accountsWithDocumentForClinician(q: Queryable, userId: string, documentHashes: readonly string[]): Promise<string[]> {
  if (documentHashes.length === 0) return [];
  const rows = await sqlOf(q).selectFrom('identity_verifications').select('user_id').distinct().where('document_hash', 'in', [...documentHashes]).where('user_id', '<>', userId).orderBy('user_id').limit(20).execute();
  return rows.map((r) => r.user_id);
}

/** The account's document hashes (every verification that read one). */
export async function documentHashesOf(q: Queryable, userId: string): Promise<string[]> {
  const rows = await forAccount(q, userId).selectFrom('identity_verifications').select('document_hash').distinct().where('document_hash', 'is not', null).execute();
  return rows.flatMap((r) => (r.document_hash ? [r.document_hash] : []));
}

/** Other accounts that paid with a card this account paid with (the provider's card fingerprint). */
export async function accountsWithCardForClinician(q: Queryable, userId: string): Promise<string[]> {
  const rows = await sqlOf(q)
    .selectFrom('payments as other')
    .select('other.user_id')
    .distinct()
    .where('other.user_id', '<>', userId)
    .where('other.payment_method_fingerprint', 'in', (eb) =>
      eb.selectFrom('payments as own').select('own.payment_method_fingerprint').where('own.user_id', '=', userId).where('own.payment_method_fingerprint', 'is not', null),
    )
    .orderBy('other.user_id')
    .limit(20)
    .execute();
  return rows.map((r) => r.user_id);
}

// An address as compared across accounts: first line, postcode and country, letters and digits only, lower case.
const ADDRESS_KEY = (column: string) => `lower(regexp_replace(coalesce(${column}->>'line1', '') || '|' || coalesce(${column}->>'postal_code', '') || '|' || coalesce(${column}->>'country', ''), '[^[:alnum:]|]', '', 'g'))`;

const ADDRESS_KEYS = accountSql(
  (owner) => `select ${ADDRESS_KEY('x.value')} as k from users u cross join lateral jsonb_array_elements(case when jsonb_typeof(u.addresses) = 'array' then u.addresses else '[]'::jsonb end) x where u.id = ${owner}
   union
   select ${ADDRESS_KEY('o.shipping_address')} as k from orders o where o.user_id = ${owner} and o.shipping_address is not null`,
);

/** The account's delivery addresses (its profile's and its orders'), as comparison keys. */
export async function addressKeysOf(q: Queryable, userId: string): Promise<string[]> {
  const rows = await ADDRESS_KEYS.query<{ k: string | null }>(q, userId);
  // A key of three empty parts (`||`) names no address.
  return [...new Set(rows.flatMap((r) => (r.k && r.k.replace(/\|/g, '') !== '' ? [r.k] : [])))];
}

/** Other accounts with one of these delivery addresses (in their profile or on an order). */
export async function accountsWithAddressForClinician(q: Queryable, userId: string, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const r = await q.query<{ user_id: string }>(
    `select distinct user_id from (
       select u.id as user_id from users u cross join lateral jsonb_array_elements(case when jsonb_typeof(u.addresses) = 'array' then u.addresses else '[]'::jsonb end) x
        where u.id <> $1 and ${ADDRESS_KEY('x.value')} = any($2::text[])
       union
       select o.user_id from orders o where o.user_id <> $1 and o.shipping_address is not null and ${ADDRESS_KEY('o.shipping_address')} = any($2::text[])
     ) s order by user_id limit 20`,
    [userId, [...keys]],
  );
  return r.map((row) => row.user_id);
}

// ---------------------------------------------------------------- the profile the checks compare with

export interface ProfileFacts {
  first_name: string;
  last_name: string;
  date_of_birth: string | null;
  document_number_enc: string | null;
  issuing_state: string;
  country_of_residence: string | null;
}

export async function profileFacts(q: Queryable, userId: string): Promise<ProfileFacts | null> {
  // users is the account itself (its id is the account id).
  const row = await sqlOf(q)
    .selectFrom('users')
    .select(['first_name', 'last_name', sql<string | null>`to_char(date_of_birth, 'YYYY-MM-DD')`.as('date_of_birth'), 'document_number_enc', 'issuing_state', 'country_of_residence'])
    .where('id', '=', userId)
    .executeTakeFirst();
  return row ?? null;
}

/** The profiles the desk compares (several patients at once). */
export async function profileFactsForClinician(q: Queryable, userIds: readonly string[]): Promise<(ProfileFacts & { id: string })[]> {
  if (userIds.length === 0) return [];
  return sqlOf(q)
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', sql<string | null>`to_char(date_of_birth, 'YYYY-MM-DD')`.as('date_of_birth'), 'document_number_enc', 'issuing_state', 'country_of_residence'])
    .where('id', 'in', [...userIds])
    .execute();
}

// ---------------------------------------------------------------- weight

export async function insertWeight(q: Queryable, row: { userId: string; photoKey: string; claimedWeightKg: number }): Promise<WeightRow> {
  return sqlOf(q).insertInto('weight_verifications').values({ user_id: row.userId, photo_key: row.photoKey, claimed_weight_kg: row.claimedWeightKg }).returningAll().executeTakeFirstOrThrow();
}

/** A weight the doctor saw on the scales during a video call: verified at once, no photo. */
export async function insertWeightSeenOnCall(q: Queryable, row: { userId: string; weightKg: number; decidedBy: string; at: Date }): Promise<WeightRow> {
  return sqlOf(q)
    .insertInto('weight_verifications')
    .values({ user_id: row.userId, method: 'video_call', photo_key: null, claimed_weight_kg: row.weightKg, status: 'verified', weight_kg: row.weightKg, decided_by: row.decidedBy, decided_at: row.at, created_at: row.at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function latestWeight(q: Queryable, userId: string): Promise<WeightRow | null> {
  return (await forAccount(q, userId).selectFrom('weight_verifications').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst()) ?? null;
}

/** The newest verified weight (the one a requirement counts). */
export async function latestVerifiedWeight(q: Queryable, userId: string): Promise<WeightRow | null> {
  return (await forAccount(q, userId).selectFrom('weight_verifications').selectAll().where('status', '=', 'verified').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst()) ?? null;
}

export async function weightForClinician(q: Queryable, id: string, lock = false): Promise<WeightRow | null> {
  const query = sqlOf(q).selectFrom('weight_verifications').selectAll().where('id', '=', id);
  return (await (lock ? query.forUpdate() : query).executeTakeFirst()) ?? null;
}

export async function decideWeightForClinician(q: Queryable, id: string, fields: { status: 'verified' | 'rejected'; weightKg: number | null; decidedBy: string; reason: string; at: Date }): Promise<WeightRow> {
  return sqlOf(q)
    .updateTable('weight_verifications')
    .set({ status: fields.status, weight_kg: fields.weightKg, decided_by: fields.decidedBy, reason: fields.reason, decided_at: fields.at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function countWeightQueueForClinician(q: Queryable, status: string): Promise<number> {
  const r = await sqlOf(q).selectFrom('weight_verifications').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', status).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function pageWeightQueueForClinician(q: Queryable, status: string, limit: number, offset: number): Promise<WeightRow[]> {
  return sqlOf(q).selectFrom('weight_verifications').selectAll().where('status', '=', status).orderBy('created_at', 'asc').orderBy('id').limit(limit).offset(offset).execute();
}

// ---------------------------------------------------------------- the scheduler

/**
 * Patients with a live plan in one of `categories` whose newest verified weight was photographed at
 * or before `photographedBefore` (it expires within the notice period, or has): the weight to renew.
 */
export async function weightsDueForScheduler(q: Queryable, categories: readonly string[], photographedBefore: Date): Promise<{ user_id: string; weight_id: string }[]> {
  if (categories.length === 0) return [];
  const db = sqlOf(q);
  const newest = db
    .selectFrom('weight_verifications as w')
    .select(['w.user_id', 'w.id as weight_id', 'w.created_at'])
    .distinctOn('w.user_id')
    .where('w.status', '=', 'verified')
    .orderBy('w.user_id')
    .orderBy('w.created_at', 'desc')
    .orderBy('w.id', 'desc')
    .as('n');
  return db
    .selectFrom(newest)
    .select(['n.user_id', 'n.weight_id'])
    .where('n.created_at', '<=', photographedBefore)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('subscriptions as s')
          .select('s.id')
          .whereRef('s.user_id', '=', 'n.user_id')
          .where('s.category', 'in', categories)
          .where('s.status', 'in', ['active', 'past_due', 'paused']),
      ),
    )
    .execute();
}

// ---------------------------------------------------------------- images (FILE_STORE=database)

export async function insertBlob(q: Queryable, storageKey: string, keyId: string, sealed: Buffer): Promise<void> {
  await sqlOf(q).insertInto('verification_blobs').values({ storage_key: storageKey, key_id: keyId, sealed }).execute();
}

export async function readBlob(q: Queryable, storageKey: string): Promise<Buffer | undefined> {
  const row = await sqlOf(q).selectFrom('verification_blobs').select('sealed').where('storage_key', '=', storageKey).executeTakeFirst();
  return row ? Buffer.from(row.sealed.buffer, row.sealed.byteOffset, row.sealed.byteLength) : undefined;
}

export async function deleteBlob(q: Queryable, storageKey: string): Promise<void> {
  await sqlOf(q).deleteFrom('verification_blobs').where('storage_key', '=', storageKey).execute();
}

/** Storage keys of blobs sealed with another key than `keyId` (reencrypt), a batch at a time. */
export async function blobsNotUnderKey(q: Queryable, keyId: string, limit: number): Promise<string[]> {
  const rows = await sqlOf(q).selectFrom('verification_blobs').select('storage_key').where('key_id', '<>', keyId).orderBy('storage_key').limit(limit).execute();
  return rows.map((r) => r.storage_key);
}

/** Replaces a blob's sealed bytes (re-sealed with another key: the same plaintext). */
export async function replaceBlob(q: Queryable, storageKey: string, keyId: string, sealed: Buffer): Promise<void> {
  await sqlOf(q).updateTable('verification_blobs').set({ key_id: keyId, sealed }).where('storage_key', '=', storageKey).execute();
}

/** Storage keys of every account's verification images after `after`, in order (the operator's reencrypt over a bucket). */
export async function imageKeysAfterForOperator(q: Queryable, after: string, limit: number): Promise<string[]> {
  const db = sqlOf(q);
  const keys = db
    .selectFrom('identity_verifications')
    .select('id_photo_key as storage_key')
    .unionAll(db.selectFrom('identity_verifications').select('selfie_key as storage_key'))
    .unionAll(db.selectFrom('weight_verifications').select('photo_key as storage_key'))
    .as('k');
  const rows = await db.selectFrom(keys).select('k.storage_key').where('k.storage_key', 'is not', null).where('k.storage_key', '>', after).orderBy('k.storage_key').limit(limit).execute();
  return rows.map((r) => r.storage_key!);
}

// ---------------------------------------------------------------- the account's privacy

export async function identitiesOfAccount(q: Queryable, userId: string): Promise<IdentityRow[]> {
  return forAccount(q, userId).selectFrom('identity_verifications').selectAll().orderBy('created_at').execute();
}

export async function weightsOfAccount(q: Queryable, userId: string): Promise<WeightRow[]> {
  return forAccount(q, userId).selectFrom('weight_verifications').selectAll().orderBy('created_at').execute();
}

/** Deletes the account's verification records; answers the storage keys of their images. */
export async function deleteAccountVerificationRows(q: Queryable, userId: string): Promise<string[]> {
  const ids = await forAccount(q, userId).deleteFrom('identity_verifications').returning(['id_photo_key', 'selfie_key']).execute();
  const weights = await forAccount(q, userId).deleteFrom('weight_verifications').returning('photo_key').execute();
  return [...ids.flatMap((r) => [r.id_photo_key, r.selfie_key]), ...weights.map((r) => r.photo_key)].filter((k): k is string => Boolean(k));
}
