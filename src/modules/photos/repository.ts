// SQL of the photos module (owner of clinical_photos and clinical_photo_blobs, migration 1120).
// Patient-scoped statements take the account id and put it in the SQL; the desk's read of a photo
// by id says so (`...ForStaff`) and is only answered for a photo a consultation shows.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { ClinicalPhotosRow } from '../../db/schema.ts';

export type PhotoRow = Pick<ClinicalPhotosRow, 'id' | 'user_id' | 'category' | 'question_key' | 'storage_key' | 'size_bytes' | 'width' | 'height' | 'created_at'>;

const COLUMNS = ['id', 'user_id', 'category', 'question_key', 'storage_key', 'size_bytes', 'width', 'height', 'created_at'] as const;

export interface NewPhoto {
  userId: string;
  category: string;
  questionKey: string | null;
  storageKey: string;
  sizeBytes: number;
  width: number;
  height: number;
  at: Date;
}

export async function insertPhoto(q: Queryable, p: NewPhoto): Promise<PhotoRow> {
  return sqlOf(q)
    .insertInto('clinical_photos')
    .values({ user_id: p.userId, category: p.category, question_key: p.questionKey, storage_key: p.storageKey, size_bytes: p.sizeBytes, width: p.width, height: p.height, created_at: p.at })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** How many photos the account uploaded for one question of one questionnaire (a bound on uploads). */
export async function countPhotosOfQuestion(q: Queryable, userId: string, category: string, questionKey: string): Promise<number> {
  const row = await forAccount(q, userId)
    .selectFrom('clinical_photos')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('category', '=', category)
    .where('question_key', '=', questionKey)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One of the account's photos. */
export async function photoForPatient(q: Queryable, userId: string, id: string): Promise<PhotoRow | undefined> {
  return forAccount(q, userId).selectFrom('clinical_photos').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Any patient's photo by id (the desk; the service then checks that a consultation shows it). */
export async function photoForStaff(q: Queryable, id: string): Promise<PhotoRow | undefined> {
  return sqlOf(q).selectFrom('clinical_photos').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Some of the account's photos by id. */
export async function photosOfAccountByIds(q: Queryable, userId: string, ids: readonly string[]): Promise<PhotoRow[]> {
  if (ids.length === 0) return [];
  return forAccount(q, userId).selectFrom('clinical_photos').select(COLUMNS).where('id', 'in', [...ids]).execute();
}

/** Every photo of the account, oldest first (the data export). */
export async function photosOfAccount(q: Queryable, userId: string): Promise<PhotoRow[]> {
  return forAccount(q, userId).selectFrom('clinical_photos').select(COLUMNS).orderBy('created_at').orderBy('id').execute();
}

/** Account erasure: deletes the account's photos (their database blobs go with them); returns their storage keys. */
export async function deleteAccountPhotos(q: Queryable, userId: string): Promise<string[]> {
  const rows = await forAccount(q, userId).deleteFrom('clinical_photos').returning('storage_key').execute();
  return rows.map((r) => r.storage_key);
}

/**
 * The retention sweep (docs/photos.md, "Retention"): deletes up to `batch` photos uploaded for a
 * questionnaire's photo question before `before` that no consultation of their account shows (a draft
 * never submitted, or a submission that never became a consultation); returns their storage keys.
 * Photos added to a consultation (no question) and photos a consultation shows stay. Rows are
 * claimed with FOR UPDATE SKIP LOCKED: several processes may sweep at once.
 */
export async function deleteUnattachedDraftPhotosForScheduler(q: Queryable, before: Date, batch: number): Promise<string[]> {
  const rows = await q.query<{ storage_key: string }>(
    `delete from clinical_photos where id in (
       select p.id from clinical_photos p
        where p.question_key is not null and p.created_at < $1
          and not exists (
            select 1 from consultations c
             where c.user_id = p.user_id and c.images @> jsonb_build_array(jsonb_build_object('id', p.id::text)))
        order by p.created_at limit $2 for update of p skip locked)
     returning storage_key`,
    [before, batch],
  );
  return rows.map((r) => r.storage_key);
}

// ---- the sealed bytes in the database (FILE_STORE=database). A storage key is a random UUID the
// server made and is reached only through a photo row read as above, so these take the key alone.

/** Writes the sealed bytes of a photo (the photo row follows in the same transaction). */
export async function insertPhotoBlob(q: Queryable, storageKey: string, keyId: string, sealed: Buffer): Promise<void> {
  await sqlOf(q).insertInto('clinical_photo_blobs').values({ storage_key: storageKey, key_id: keyId, sealed }).execute();
}

export async function readPhotoBlob(q: Queryable, storageKey: string): Promise<Buffer | undefined> {
  const row = await sqlOf(q).selectFrom('clinical_photo_blobs').select('sealed').where('storage_key', '=', storageKey).executeTakeFirst();
  // node-postgres answers a Buffer, PGlite a Uint8Array.
  return row ? Buffer.from(row.sealed.buffer, row.sealed.byteOffset, row.sealed.byteLength) : undefined;
}

/** Storage keys of photo blobs sealed with another key than `keyId` (reencrypt), a batch at a time. */
export async function photoBlobsNotUnderKey(q: Queryable, keyId: string, limit: number): Promise<string[]> {
  const rows = await sqlOf(q).selectFrom('clinical_photo_blobs').select('storage_key').where('key_id', '<>', keyId).orderBy('storage_key').limit(limit).execute();
  return rows.map((r) => r.storage_key);
}

/** Replaces a photo blob's sealed bytes (re-sealed with another key: the same plaintext). */
export async function replacePhotoBlob(q: Queryable, storageKey: string, keyId: string, sealed: Buffer): Promise<void> {
  await sqlOf(q).updateTable('clinical_photo_blobs').set({ key_id: keyId, sealed }).where('storage_key', '=', storageKey).execute();
}

/** Storage keys of every account's photos after `after`, in order (the operator's reencrypt over a bucket). */
export async function photoKeysAfterForOperator(q: Queryable, after: string, limit: number): Promise<string[]> {
  const rows = await sqlOf(q).selectFrom('clinical_photos').select('storage_key').where('storage_key', '>', after).orderBy('storage_key').limit(limit).execute();
  return rows.map((r) => r.storage_key);
}
