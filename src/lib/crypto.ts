// Small crypto helpers: one-way hashes for stored tokens and codes, random codes, and authenticated
// encryption for identity document numbers at rest.
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

/** AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt(keyB64: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyB64, 'base64url'), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export function decrypt(keyB64: string, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1') throw new Error('unknown ciphertext version');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyB64, 'base64url'), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
