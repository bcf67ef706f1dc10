// Where attachment bytes live (docs/messages.md, "Storage"): somewhere every process of the service
// sees, never a process's own disk. FILE_STORE=database (default) keeps them in the database
// (file_blobs, migration 0960): backed up, restored and replicated with everything else;
// FILE_STORE=s3 keeps them in an S3-compatible object store (AWS S3, MinIO, Ceph, R2...) for scale.
// Either way the bytes are sealed first with the data-encryption key ring that protects identity
// document numbers (AES-256-GCM, src/lib/crypto.ts sealBytes, the storage key as associated data),
// so neither a database dump nor the bucket holds a readable file.
//
// Files from before (DATA_DIR/uploads/<key>, plaintext, on the disk of the process that took them)
// are moved into the configured store when a process starts (importDiskUploads, called by
// runtime.ts): sealed, written, and only then removed from disk.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { openBytes, sealBytes, sealedKeyId } from '../../lib/crypto.ts';
import type { KeyRing } from '../../lib/keys.ts';
import * as blobs from './files.repository.ts';

/** Sealed bytes by storage key. */
export interface ObjectStore {
  readonly kind: 'database' | 's3';
  /** Database: written through `q`, so the bytes commit or roll back with the caller's file row. */
  put(q: Queryable, key: string, sealed: Buffer): Promise<void>;
  /** The sealed bytes, or undefined when the store has none under `key`. */
  get(key: string): Promise<Buffer | undefined>;
  /**
   * Deletes the bytes (account erasure). The database's rows go with their message_files row (on
   * delete cascade, in the erasure's transaction), so only an object store has work here; a key
   * that names nothing is not an error.
   */
  remove(key: string): Promise<void>;
}

/** Attachments as the messages module sees them: plaintext in, plaintext out. */
export interface FileStore {
  readonly kind: ObjectStore['kind'];
  /** Seals and stores `data` under a new random key (no user-supplied part), which it returns. */
  put(data: Buffer, q: Queryable): Promise<string>;
  get(key: string): Promise<Buffer>;
  remove(key: string): Promise<void>;
}

const STORAGE_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class StoredFileMissingError extends Error {
  constructor(key: string) {
    super(`the bytes of stored file ${key} are missing from the file store`);
    this.name = 'StoredFileMissingError';
  }
}

export function databaseObjects(reader: Queryable): ObjectStore {
  return {
    kind: 'database',
    put: (q, key, sealed) => blobs.insertBlob(q, key, sealedKeyId(sealed) ?? 'unknown', sealed),
    get: (key) => blobs.readBlob(reader, key),
    // Deleted with the message_files row (on delete cascade).
    remove: () => Promise.resolve(),
  };
}

export type S3Settings = Pick<Config, 'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'>;

/**
 * An S3-compatible bucket through the official AWS SDK (loaded on first use, so the default
 * configuration never loads it). Objects are named by the storage key alone. Checksums are sent and
 * checked only where the S3 API requires them: the SDK's newer default (CRC32 on every upload)
 * is refused by several S3-compatible stores, and GCM's tag already authenticates every byte.
 */
export function s3Objects(settings: S3Settings): ObjectStore {
  const bucket = settings.S3_BUCKET;
  if (!bucket || !settings.S3_REGION) throw new Error('S3_BUCKET and S3_REGION are required with FILE_STORE=s3');
  let client: Promise<{ sdk: typeof import('@aws-sdk/client-s3'); s3: import('@aws-sdk/client-s3').S3Client }> | undefined;
  const connect = () =>
    (client ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      s3: new sdk.S3Client({
        region: settings.S3_REGION,
        ...(settings.S3_ENDPOINT ? { endpoint: settings.S3_ENDPOINT } : {}),
        forcePathStyle: settings.S3_FORCE_PATH_STYLE,
        ...(settings.S3_ACCESS_KEY_ID && settings.S3_SECRET_ACCESS_KEY
          ? { credentials: { accessKeyId: settings.S3_ACCESS_KEY_ID, secretAccessKey: settings.S3_SECRET_ACCESS_KEY } }
          : {}),
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 3,
      }),
    })));
  return {
    kind: 's3',
    async put(_q, key, sealed) {
      const { sdk, s3 } = await connect();
      await s3.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: sealed, ContentType: 'application/octet-stream' }));
    },
    async get(key) {
      const { sdk, s3 } = await connect();
      try {
        const out = await s3.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!out.Body) return undefined;
        return Buffer.from(await out.Body.transformToByteArray());
      } catch (err) {
        if (err instanceof sdk.NoSuchKey || (err as { name?: unknown }).name === 'NoSuchKey') return undefined;
        throw err;
      }
    },
    async remove(key) {
      const { sdk, s3 } = await connect();
      // S3 answers a delete of a missing key with success.
      await s3.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}

export function sealedFileStore(objects: ObjectStore, keys: KeyRing): FileStore {
  return {
    kind: objects.kind,
    async put(data, q) {
      const key = randomUUID();
      await objects.put(q, key, sealBytes(keys, data, key));
      return key;
    },
    async get(key) {
      if (!STORAGE_KEY.test(key)) throw new Error('bad storage key');
      const sealed = await objects.get(key);
      if (!sealed) throw new StoredFileMissingError(key);
      return openBytes(keys, sealed, key);
    },
    async remove(key) {
      if (!STORAGE_KEY.test(key)) throw new Error('bad storage key');
      await objects.remove(key);
    },
  };
}

/**
 * The configured store. With s3, a file missing from the bucket is looked for in the database too:
 * files stored before the switch to s3 stay readable where they are (they are not moved).
 */
export function objectStoreOf(deps: Pick<Deps, 'config' | 'reader'>): ObjectStore {
  const database = databaseObjects(deps.reader);
  if (deps.config.FILE_STORE !== 's3') return database;
  const s3 = s3Objects(deps.config);
  return { kind: 's3', put: (q, key, sealed) => s3.put(q, key, sealed), get: async (key) => (await s3.get(key)) ?? (await database.get(key)), remove: (key) => s3.remove(key) };
}

/**
 * A table of sealed blobs as reencrypt sees it: the database copies (keys sealed with another key
 * than the active one, read, replace) and, for FILE_STORE=s3, every storage key its rows name.
 */
export interface SealedBlobTable {
  blobsNotUnderKey(q: Queryable, keyId: string, limit: number): Promise<string[]>;
  readBlob(q: Queryable, storageKey: string): Promise<Buffer | undefined>;
  replaceBlob(q: Queryable, storageKey: string, keyId: string, sealed: Buffer): Promise<void>;
  keysAfterForOperator(q: Queryable, after: string, limit: number): Promise<string[]>;
}

/**
 * reencrypt (docs/operations.md, "Key rotation"): every blob of `table` sealed with another key than
 * the active one is opened and sealed again with it, so the old key can be dropped. Blobs in the
 * database are replaced in place; with FILE_STORE=s3, every object the table's rows name too.
 * Answers how many were re-sealed where.
 */
export async function resealBlobTable(deps: Pick<Deps, 'config' | 'db' | 'secrets'>, table: SealedBlobTable): Promise<{ database: number; s3: number }> {
  const keys = deps.secrets.documentKeys;
  const active = keys.active.id;
  let database = 0;
  for (let batch = await table.blobsNotUnderKey(deps.db, active, 100); batch.length; batch = await table.blobsNotUnderKey(deps.db, active, 100)) {
    for (const key of batch) {
      const sealed = await table.readBlob(deps.db, key);
      if (!sealed) continue;
      await table.replaceBlob(deps.db, key, active, sealBytes(keys, openBytes(keys, sealed, key), key));
      database++;
    }
  }
  let s3 = 0;
  if (deps.config.FILE_STORE === 's3') {
    const bucket = s3Objects(deps.config);
    for (let after = '', batch = await table.keysAfterForOperator(deps.db, after, 100); batch.length; batch = await table.keysAfterForOperator(deps.db, after, 100)) {
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

/** reencrypt of the message attachments, with the database's blobs per key afterwards. */
export async function resealStoredFiles(deps: Pick<Deps, 'config' | 'db' | 'secrets'>): Promise<{ database: number; s3: number; blobsPerKey: Record<string, number> }> {
  const counts = await resealBlobTable(deps, {
    blobsNotUnderKey: blobs.blobsNotUnderKey,
    readBlob: blobs.readBlob,
    replaceBlob: blobs.replaceBlob,
    keysAfterForOperator: blobs.fileKeysAfterForOperator,
  });
  return { ...counts, blobsPerKey: await blobs.blobCountsByKey(deps.db) };
}

// One store per set of dependencies (the S3 client keeps its connections).
const stores = new WeakMap<object, FileStore>();
export function fileStoreOf(deps: Pick<Deps, 'config' | 'reader' | 'secrets'>): FileStore {
  let store = stores.get(deps);
  if (!store) {
    store = sealedFileStore(objectStoreOf(deps), deps.secrets.documentKeys);
    stores.set(deps, store);
  }
  return store;
}

/**
 * The sealed file store for another module's files whose database copies live in that module's own
 * table (`database`, e.g. the verification images): with FILE_STORE=s3 the bucket (reads fall back
 * to `database` for files kept before the switch), else `database`. Same sealing, same key ring.
 */
export function sealedStoreWith(deps: Pick<Deps, 'config' | 'secrets'>, database: ObjectStore): FileStore {
  if (deps.config.FILE_STORE !== 's3') return sealedFileStore(database, deps.secrets.documentKeys);
  const s3 = s3Objects(deps.config);
  return sealedFileStore(
    {
      kind: 's3',
      put: (q, key, sealed) => s3.put(q, key, sealed),
      get: async (key) => (await s3.get(key)) ?? (await database.get(key)),
      remove: async (key) => {
        await s3.remove(key);
        await database.remove(key);
      },
    },
    deps.secrets.documentKeys,
  );
}

export interface ImportReport {
  imported: number;
  /** Files on disk that no file row names (an upload whose message was never stored): left in place. */
  unreferenced: number;
  failed: number;
}

/**
 * Moves the files of DATA_DIR/uploads (where attachments were kept before the file store) into the
 * configured store: each file is sealed and written (one statement, committed on its own), then
 * removed from disk; the directory goes when it is empty. Idempotent: a file whose bytes are
 * stored already is only removed. A file that cannot be moved stays, and the next start tries again.
 */
export async function importDiskUploads(deps: Pick<Deps, 'config' | 'db' | 'reader' | 'secrets' | 'log'>): Promise<ImportReport> {
  const report: ImportReport = { imported: 0, unreferenced: 0, failed: 0 };
  const dir = join(deps.config.DATA_DIR, 'uploads');
  if (!existsSync(dir)) return report;
  const objects = deps.config.FILE_STORE === 's3' ? s3Objects(deps.config) : databaseObjects(deps.db);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    // `.<key>.tmp`: a write interrupted before its rename, never referenced.
    if (/^\.[0-9a-f-]{36}\.tmp$/.test(name)) {
      await rm(path, { force: true });
      continue;
    }
    if (!STORAGE_KEY.test(name)) continue;
    try {
      if (!(await blobs.fileRowExistsForOperator(deps.db, name))) {
        report.unreferenced++;
        continue;
      }
      const alreadyStored = objects.kind === 'database' && (await blobs.blobExists(deps.db, name));
      if (!alreadyStored) {
        const sealed = sealBytes(deps.secrets.documentKeys, await readFile(path), name);
        await objects.put(deps.db, name, sealed);
        report.imported++;
      }
      await rm(path, { force: true });
    } catch (err) {
      report.failed++;
      deps.log.error({ err, storageKey: name }, 'could not move an attachment from DATA_DIR/uploads into the file store');
    }
  }
  await rmdir(dir).catch(() => undefined); // only when empty
  if (report.imported || report.unreferenced || report.failed) {
    deps.log.info({ ...report, store: objects.kind }, 'attachments moved from DATA_DIR/uploads into the file store');
  }
  return report;
}
