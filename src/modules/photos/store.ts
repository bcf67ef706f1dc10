// Where a photo's bytes live: the file store of message attachments (src/modules/messages/file-stores.ts,
// docs/messages.md "Storage"), sealed the same way (AES-256-GCM with the data-encryption key ring, the
// storage key as associated data). FILE_STORE=database keeps them in clinical_photo_blobs (deleted with
// their photo row); FILE_STORE=s3 in the same bucket as attachments, named by the storage key alone.
import type { Deps } from '../../deps.ts';
import { sealedKeyId } from '../../lib/crypto.ts';
import { resealBlobTable, s3Objects, sealedFileStore, type FileStore, type ObjectStore } from '../messages/index.ts';
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

/** reencrypt (docs/operations.md, "Key rotation"): the photos' blobs, in the database or the bucket. */
export function resealPhotos(deps: Pick<Deps, 'config' | 'db' | 'secrets'>): Promise<{ database: number; s3: number }> {
  return resealBlobTable(deps, {
    blobsNotUnderKey: repo.photoBlobsNotUnderKey,
    readBlob: repo.readPhotoBlob,
    replaceBlob: repo.replacePhotoBlob,
    keysAfterForOperator: repo.photoKeysAfterForOperator,
  });
}
