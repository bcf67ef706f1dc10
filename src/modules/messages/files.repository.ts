// SQL of attachment storage in the database (migration 0960): sealed bytes by storage key. A storage
// key is a random UUID the server made; callers reach one only through a file row they read with
// the account's id (repository.ts fileForPatient) or the medical team's rule (fileForClinician), so
// these statements take the key alone.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';

/** Writes the sealed bytes of a file; a second write of the same key (a repeated import) is a no-op. */
export async function insertBlob(q: Queryable, storageKey: string, keyId: string, sealed: Buffer): Promise<void> {
  await sqlOf(q).insertInto('file_blobs').values({ storage_key: storageKey, key_id: keyId, sealed }).onConflict((oc) => oc.column('storage_key').doNothing()).execute();
}

export async function readBlob(q: Queryable, storageKey: string): Promise<Buffer | undefined> {
  const row = await sqlOf(q).selectFrom('file_blobs').select('sealed').where('storage_key', '=', storageKey).executeTakeFirst();
  // node-postgres answers a Buffer, PGlite a Uint8Array.
  return row ? Buffer.from(row.sealed.buffer, row.sealed.byteOffset, row.sealed.byteLength) : undefined;
}

/** Whether a file row holds this storage key, any account's (the start-up import of files from DATA_DIR/uploads). */
export async function fileRowExistsForOperator(q: Queryable, storageKey: string): Promise<boolean> {
  return (await sqlOf(q).selectFrom('message_files').select('id').where('storage_key', '=', storageKey).executeTakeFirst()) !== undefined;
}

/** Whether the bytes of this storage key are in the database already. */
export async function blobExists(q: Queryable, storageKey: string): Promise<boolean> {
  return (await sqlOf(q).selectFrom('file_blobs').select('storage_key').where('storage_key', '=', storageKey).executeTakeFirst()) !== undefined;
}

/** Storage keys of blobs sealed with another key than `keyId` (reencrypt), a batch at a time. */
export async function blobsNotUnderKey(q: Queryable, keyId: string, limit: number): Promise<string[]> {
  const rows = await sqlOf(q).selectFrom('file_blobs').select('storage_key').where('key_id', '<>', keyId).orderBy('storage_key').limit(limit).execute();
  return rows.map((r) => r.storage_key);
}

/** Replaces a blob's sealed bytes (re-sealed with another key: the same plaintext). */
export async function replaceBlob(q: Queryable, storageKey: string, keyId: string, sealed: Buffer): Promise<void> {
  await sqlOf(q).updateTable('file_blobs').set({ key_id: keyId, sealed }).where('storage_key', '=', storageKey).execute();
}

/** Storage keys of every account's file rows after `after`, in order (the operator's reencrypt over an object store). */
export async function fileKeysAfterForOperator(q: Queryable, after: string, limit: number): Promise<string[]> {
  const rows = await sqlOf(q).selectFrom('message_files').select('storage_key').where('storage_key', '>', after).orderBy('storage_key').limit(limit).execute();
  return rows.map((r) => r.storage_key);
}

/** How many blobs each key sealed. */
export async function blobCountsByKey(q: Queryable): Promise<Record<string, number>> {
  const rows = await sqlOf(q).selectFrom('file_blobs').select(['key_id', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('key_id').execute();
  return Object.fromEntries(rows.map((r) => [r.key_id, Number(r.n)]));
}
