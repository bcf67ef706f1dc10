// Keys. Production supplies the signing and encryption keys from the environment (src/lib/keys.ts),
// apart from the data they protect. Otherwise the service generates them on first start and keeps
// them in the database (so every process behind a load balancer shares them; on the embedded
// database they live under DATA_DIR with it), under the key id `db`.
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.ts';
import { keyRing, parseKeyList, type KeyRing } from './keys.ts';
import { getOrCreateSecret } from './secrets.repository.ts';

export interface Secrets {
  /** HS256 keys for access and refresh tokens: the first signs, all verify (by `kid`). */
  jwtKeys: KeyRing;
  /** The active signing key (also keys the sandbox provider's HMAC links). */
  jwtKey: Uint8Array;
  /** AES-256-GCM keys for identity document numbers: the first encrypts, all decrypt. */
  documentKeys: KeyRing;
  /** Key for hashing one-time codes. */
  codeKey: string;
}

const getOrCreate = (db: Db, name: string, make: () => string): Promise<string> => getOrCreateSecret(db, name, make());

export interface KeySettings {
  JWT_SIGNING_KEYS?: string;
  DATA_ENCRYPTION_KEYS?: string;
}

export async function loadSecrets(db: Db, settings: KeySettings = {}): Promise<Secrets> {
  const gen = () => randomBytes(32).toString('base64url');
  // Generated keys stay readable under the id `db` so that tokens and ciphertexts made before the
  // environment supplied keys still verify and decrypt; they are no longer used for new ones.
  const dbJwt = { id: 'db', key: Buffer.from(await getOrCreate(db, 'jwt_hs256', () => randomBytes(64).toString('base64url')), 'base64url') };
  const dbDoc = { id: 'db', key: Buffer.from(await getOrCreate(db, 'document_aes256', gen), 'base64url') };
  const jwtKeys = keyRing(settings.JWT_SIGNING_KEYS ? [...parseKeyList('JWT_SIGNING_KEYS', settings.JWT_SIGNING_KEYS), dbJwt] : [dbJwt]);
  const documentKeys = keyRing(settings.DATA_ENCRYPTION_KEYS ? [...parseKeyList('DATA_ENCRYPTION_KEYS', settings.DATA_ENCRYPTION_KEYS), dbDoc] : [dbDoc]);
  return {
    jwtKeys,
    jwtKey: jwtKeys.active.key,
    documentKeys,
    codeKey: await getOrCreate(db, 'code_hash', gen),
  };
}
