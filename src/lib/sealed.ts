// Health data sealed at rest (docs/privacy.md, "Encryption at rest"): questionnaire answers,
// consultation form snapshots and renewal details, message bodies, journal free text and the replayed
// answers of Idempotency-Key requests are stored AES-256-GCM encrypted with the data-encryption key
// ring (DATA_ENCRYPTION_KEYS, else the generated key `db`), the same keys as identity document numbers:
// `v2.<key id>.<iv>.<tag>.<ciphertext>` (src/lib/crypto.ts), so each value names the key that sealed it.
//
// The key ring travels with the database handle: createRuntime (src/runtime.ts) binds it to deps.db,
// deps.reader and every transaction deps.db opens, so repositories seal on write and open on read
// with the handle they already receive and their callers see plaintext, unchanged.
//
// Rows written before encryption at rest keep their plaintext column until the start-up pass (or
// `npm run cli -- reencrypt`) seals it (src/lib/sealed-columns.repository.ts). Until then a read takes the
// plaintext when it is present: a writer that predates the migration (a rolling deploy) writes only
// the plaintext column, which is then the newest value; new writes set the plaintext column to null.
import { createHmac, hkdfSync } from 'node:crypto';
import { decrypt, encrypt } from './crypto.ts';
import type { Key } from './keys.ts';
import type { KeyRing } from './keys.ts';
import type { Db, Queryable } from '../db/index.ts';

const rings = new WeakMap<object, KeyRing>();

/** Binds the key ring to a handle; for a Db also to every transaction it opens from now on. */
export function bindDataKeys(q: Queryable | Db, keys: KeyRing): void {
  const bound = rings.has(q);
  rings.set(q, keys);
  if (bound) return; // its transactions are bound already (deps.reader is often deps.db)
  if ('tx' in q && typeof q.tx === 'function') {
    const db = q;
    const tx = db.tx.bind(db);
    db.tx = <T>(fn: (t: Queryable) => Promise<T>) =>
      tx((t) => {
        rings.set(t, rings.get(db) ?? keys);
        return fn(t);
      });
  }
}

/** The key ring bound to a handle; throws when none is (a handle not made by createRuntime). */
export function dataKeysOf(q: Queryable): KeyRing {
  const keys = rings.get(q);
  if (!keys) throw new Error('no data-encryption keys are bound to this database handle (src/lib/sealed.ts)');
  return keys;
}

/** The sealed form of a text, with the active key. */
export const sealText = (q: Queryable, text: string): string => encrypt(dataKeysOf(q), text);

/** The sealed form of a JSON value (stored as its JSON text, sealed). */
export const sealJson = (q: Queryable, value: unknown): string => encrypt(dataKeysOf(q), JSON.stringify(value ?? null));

export const openText = (q: Queryable, sealed: string): string => decrypt(dataKeysOf(q), sealed);

export const openJson = (q: Queryable, sealed: string): unknown => JSON.parse(decrypt(dataKeysOf(q), sealed)) as unknown;

/** A text column pair: the plaintext when a pre-encryption writer left one, else the sealed value opened, else `empty`. */
export function readText(q: Queryable, plain: string | null | undefined, sealed: string | null | undefined, empty = ''): string {
  if (plain !== null && plain !== undefined) return plain;
  return sealed ? openText(q, sealed) : empty;
}

/** A JSON column pair, as readText. */
export function readJson(q: Queryable, plain: unknown, sealed: string | null | undefined, empty: unknown = null): unknown {
  if (plain !== null && plain !== undefined) return plain;
  return sealed ? openJson(q, sealed) : empty;
}

/** The id of the key that sealed a value (`v2.<key id>.…`; `v1.` values are the generated key `db`). */
export function sealedKeyIdOf(sealed: string): string | undefined {
  const [version, keyId] = sealed.split('.', 2);
  return version === 'v2' ? keyId : version === 'v1' ? 'db' : undefined;
}

// Keyed hashes of sealed texts (issue 43): where a sealed value must be compared with another (the
// red-flag desk files the same words from the same place once), the comparison uses an HMAC-SHA-256
// of the text under a key derived (HKDF, per purpose) from a data-encryption key, never the
// plaintext. The hash is written under the active key; a lookup matches it under every key of the
// ring, so a rotation does not break the comparison, and `reencrypt` rewrites it with the active key.
const hashKeys = new WeakMap<Buffer, Map<string, Buffer>>();
function hashKey(key: Key, purpose: string): Buffer {
  let byPurpose = hashKeys.get(key.key);
  if (!byPurpose) hashKeys.set(key.key, (byPurpose = new Map<string, Buffer>()));
  let k = byPurpose.get(purpose);
  if (!k) byPurpose.set(purpose, (k = Buffer.from(hkdfSync('sha256', key.key, Buffer.alloc(0), `pts keyed hash: ${purpose}`, 32))));
  return k;
}
const hmacWith = (key: Key, purpose: string, text: string): string => createHmac('sha256', hashKey(key, purpose)).update(text, 'utf8').digest('base64url');

/** The keyed hash of a text under the active key, for `purpose` (e.g. `red_flag_excerpt`). */
export const keyedTextHash = (q: Queryable, purpose: string, text: string): string => hmacWith(dataKeysOf(q).active, purpose, text);

/** The keyed hashes of a text under every key of the ring (the active one first): what a lookup matches. */
export function keyedTextHashes(q: Queryable, purpose: string, text: string): string[] {
  const keys = dataKeysOf(q);
  return (keys.all ?? [keys.active]).map((k) => hmacWith(k, purpose, text));
}
