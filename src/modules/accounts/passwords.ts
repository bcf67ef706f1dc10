// Password rules (NIST SP 800-63B style): 8 to 128 characters, no composition rules, not one of the
// most common passwords (shipped list), and not containing the email's local part. Hashing is
// argon2id with OWASP's parameters (m=19456 KiB, t=2, p=1).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Algorithm, hash, verify } from '@node-rs/argon2';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

const COMMON = new Set(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'common-passwords.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith('#')),
);

/** Messages for a weak password (empty when acceptable). */
export function passwordProblems(password: string, email?: string): string[] {
  const problems: string[] = [];
  const length = [...password].length;
  if (length < PASSWORD_MIN) problems.push(`This password is too short. It must contain at least ${PASSWORD_MIN} characters.`);
  if (length > PASSWORD_MAX) problems.push(`This password is too long. It must contain at most ${PASSWORD_MAX} characters.`);
  if (COMMON.has(password.toLowerCase())) problems.push('This password is too common.');
  const local = email?.split('@')[0]?.toLowerCase() ?? '';
  if (local.length >= 3 && password.toLowerCase().includes(local)) problems.push('The password is too similar to the email address.');
  return problems;
}

const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export const hashPassword = (password: string) => hash(password, OPTIONS);

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

// Hashed once at start-up; verified against for unknown emails so that a wrong email costs as much
// time as a wrong password (no timing oracle for which addresses have accounts).
let dummy: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword('dummy-password-for-timing-equalisation');
  await verifyPassword(await dummy, password);
}
