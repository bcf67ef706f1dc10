// Where a photo's bytes live: the file store of message attachments (src/modules/messages/file-stores.ts,
// docs/messages.md "Storage"), sealed the same way (AES-256-GCM with the data-encryption key ring, the
// storage key as associated data). FILE_STORE=database keeps them in clinical_photo_blobs (deleted with
// their photo row); FILE_STORE=s3 in the same bucket as attachments, named by the storage key alone.
import type { Deps } from '../../deps.ts';
import { openBytes, sealBytes, sealedKeyId } from '../../lib/crypto.ts';
import { s3Objects, sealedFileStore, type FileStore, type ObjectStore } from '../messages/index.ts';
import * as repo from './repository.ts';

function databasePhotoObjects(deps: Pick<Deps, 'reader'>): ObjectStore {
  return {
    kind: 'database',
    put: (q, key, sealed) => repo.insertPhotoBlob(q, key, sealedKeyId(sealed) ?? 'unknown', sealed),
    get: (key) => repo.readPhotoBlob(deps.reader, key),
    // Deleted with the clinical_photos row (on delete cascade).
    remove: () => Promise.resolve(),
  };
}

// One store per set of dependencies (the S3 client keeps its connections).
const stores = new WeakMap<object, FileStore>();

/** The photos' sealed store for this process's configuration. */
export function photoStore(deps: Pick<Deps, 'config' | 'reader' | 'secrets'>): FileStore {
  let store = stores.get(deps);
  if (!store) {
    const objects = deps.config.FILE_STORE === 's3' ? s3Objects(deps.config) : databasePhotoObjects(deps);
    store = sealedFileStore(objects, deps.secrets.documentKeys);
    stores.set(deps, store);
  }
  return store;
}

/**
 * reencrypt (docs/operations.md, "Key rotation"): every photo sealed with another key than the active
 * one is opened and sealed again with it; in the database in place, with FILE_STORE=s3 in the bucket.
 */
export async function resealPhotos(deps: Pick<Deps, 'config' | 'db' | 'secrets'>): Promise<{ database: number; s3: number }> {
  const keys = deps.secrets.documentKeys;
  const active = keys.active.id;
  let database = 0;
  for (let batch = await repo.photoBlobsNotUnderKey(deps.db, active, 100); batch.length; batch = await repo.photoBlobsNotUnderKey(deps.db, active, 100)) {
    for (const key of batch) {
      const sealed = await repo.readPhotoBlob(deps.db, key);
      if (!sealed) continue;
      await repo.replacePhotoBlob(deps.db, key, active, sealBytes(keys, openBytes(keys, sealed, key), key));
      database++;
    }
  }
  let s3 = 0;
  if (deps.config.FILE_STORE === 's3') {
    const bucket = s3Objects(deps.config);
    for (let after = '', batch = await repo.photoKeysAfterForOperator(deps.db, after, 100); batch.length; batch = await repo.photoKeysAfterForOperator(deps.db, after, 100)) {
      for (const key of batch) {
        const sealed = await bucket.get(key);
        if (!sealed || sealedKeyId(sealed) === active) continue;
        await bucket.put(deps.db, key, sealBytes(keys, openBytes(keys, sealed, key), key));
        s3++;
      }
      after = batch[batch.length - 1]!;
    }
  }
  return { database, s3 };
}
