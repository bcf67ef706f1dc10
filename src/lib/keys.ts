// Key rings for token signing and for the encryption of identity document numbers.
//
// In production the keys come from the environment (or a file), apart from the database whose
// data they protect: `JWT_SIGNING_KEYS` and `DATA_ENCRYPTION_KEYS` are comma-separated `id:key`
// entries (key: base64url, at least 32 bytes), or the absolute path of a file holding that list.
// The FIRST entry is active: new tokens and ciphertexts use it; the others still verify and
// decrypt, which is how a key is rotated (docs/operations.md). Without them (the embedded
// default) one key of each kind is generated and kept in the database, under the id `db`.
import { readFileSync } from 'node:fs';

export interface Key {
  id: string;
  key: Buffer;
}

/** The active key first; lookup by id for verification and decryption. */
export interface KeyRing {
  active: Key;
  byId(id: string): Key | undefined;
  /** Every key of the ring, the active one first (keyed hashes are matched under each: src/lib/sealed.ts). */
  all?: readonly Key[];
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** Parses an `id:base64url,...` list (or `/path/to/file` holding one); throws a message naming `name`. */
export function parseKeyList(name: string, raw: string): Key[] {
  let text = raw.trim();
  if (text.startsWith('/')) {
    try {
      text = readFileSync(text, 'utf8').trim();
    } catch {
      throw new Error(`${name}: cannot read the key file ${text}`);
    }
  }
  const keys = text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf(':');
      const id = entry.slice(0, at);
      const key = Buffer.from(entry.slice(at + 1), 'base64url');
      if (at < 1 || !KEY_ID.test(id)) throw new Error(`${name}: each entry is id:base64url-key with an id of letters, digits, - or _`);
      if (id === 'db') throw new Error(`${name}: the key id "db" is reserved for generated keys`);
      if (key.length < 32) throw new Error(`${name}: key "${id}" is shorter than 32 bytes`);
      return { id, key };
    });
  if (keys.length === 0) throw new Error(`${name}: no keys`);
  const ids = new Set(keys.map((k) => k.id));
  if (ids.size !== keys.length) throw new Error(`${name}: duplicate key ids`);
  return keys;
}

export function keyRing(keys: Key[]): KeyRing {
  const [active] = keys;
  if (!active) throw new Error('a key ring needs at least one key');
  const map = new Map(keys.map((k) => [k.id, k]));
  return { active, byId: (id) => map.get(id), all: keys };
}
