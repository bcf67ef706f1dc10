// Small crypto helpers: one-way hashes for stored tokens and codes, random codes, and authenticated
// encryption for identity document numbers at rest.
import type { KeyRing } from './keys.ts';
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Keyed hash for short secrets (6-digit codes): without the key a stolen table does not reveal them. */
export const keyedHash = (key: string, value: string) => createHash('sha256').update(key).update('\0').update(value).digest('hex');

export const safeEqual = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** A 6-digit one-time code from the CSPRNG. */
export const sixDigitCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/**
 * AES-256-GCM with the ring's active key: `v2.<key id>.<iv>.<tag>.<ciphertext>` in base64url.
 * `v1.<iv>.<tag>.<ciphertext>` (before key ids) was made with the generated key, id `db`.
 */
export function encrypt(keys: KeyRing, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.active.key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v2', keys.active.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export function decrypt(keys: KeyRing, sealed: string): string {
  const parts = sealed.split('.');
  const [keyId, iv, tag, data] = parts[0] === 'v2' ? parts.slice(1) : parts[0] === 'v1' ? ['db', ...parts.slice(1)] : [];
  const key = keyId ? keys.byId(keyId) : undefined;
  if (!key || !iv || !tag || data === undefined) throw new Error('unknown ciphertext version or key id');
  const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

// Files (message attachments) are sealed with the same key ring as document numbers, in binary:
// `PTF1` | key id length (1 byte) | key id | iv (12) | tag (16) | ciphertext. The associated data
// (the file's storage key) binds a sealed file to its name: bytes moved to another key do not open.
const FILE_MAGIC = Buffer.from('PTF1');

export function sealBytes(keys: KeyRing, plaintext: Buffer, associated: string): Buffer {
  const id = Buffer.from(keys.active.id, 'utf8');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.active.key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([FILE_MAGIC, Buffer.from([id.length]), id, iv, cipher.getAuthTag(), data]);
}

/** The id of the key that sealed `sealed` (for rotation bookkeeping), or undefined when it is not a sealed file. */
export function sealedKeyId(sealed: Buffer): string | undefined {
  if (sealed.length < 5 || !sealed.subarray(0, 4).equals(FILE_MAGIC)) return undefined;
  const n = sealed[4]!;
  return sealed.length >= 5 + n + 28 ? sealed.toString('utf8', 5, 5 + n) : undefined;
}

export function openBytes(keys: KeyRing, sealed: Buffer, associated: string): Buffer {
  const keyId = sealedKeyId(sealed);
  const key = keyId === undefined ? undefined : keys.byId(keyId);
  if (keyId === undefined || !key) throw new Error('unknown sealed file format or key id');
  const at = 5 + Buffer.byteLength(keyId, 'utf8');
  const decipher = createDecipheriv('aes-256-gcm', key.key, sealed.subarray(at, at + 12));
  decipher.setAuthTag(sealed.subarray(at + 12, at + 28));
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  return Buffer.concat([decipher.update(sealed.subarray(at + 28)), decipher.final()]);
}
