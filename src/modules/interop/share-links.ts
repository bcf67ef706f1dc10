// SMART Health Links to the patient summary (HL7 SMART Health Cards and Links, docs/interoperability.md).
// A link is made of the manifest's address (256 random bits) and a fresh AES-256 key; the summary is
// encrypted once with that key as a JWE (`dir`, `A256GCM`) and only the ciphertext is stored: the key
// travels in the link (`shlink:/…`) and nowhere else. Whoever holds the link POSTs to the manifest
// (with the passcode when the link has one: a limited number of wrong attempts, counted across all
// callers) and gets the JWE until the link expires or the patient revokes it; each use is listed to
// the patient and written to their access log.
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { CompactEncrypt } from 'jose';
import type { Deps } from '../../deps.ts';
import { fail, notFound } from '../../http/errors.ts';
import { logShareLinkAccess } from '../audit/index.ts';
import * as repo from './repository.ts';
import type { ShareLinkRow } from './repository.ts';
import { patientSummary } from './service.ts';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** Wrong passcodes a link takes (from anyone) before it stops answering. */
export const SHARE_LINK_PASSCODE_ATTEMPTS = 10;
export const DEFAULT_LABEL = 'Patient summary';

async function hashPasscode(passcode: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64url')}$${(await scrypt(passcode, salt, 32)).toString('base64url')}`;
}
async function passcodeMatches(passcode: string, stored: string): Promise<boolean> {
  const [, salt = '', hash = ''] = stored.split('$');
  const got = await scrypt(passcode, Buffer.from(salt, 'base64url'), 32);
  const want = Buffer.from(hash, 'base64url');
  return want.length === got.length && timingSafeEqual(got, want);
}

export const manifestUrl = (deps: Deps, manifestId: string) => `${deps.config.PUBLIC_BASE_URL}/v1/public/shl/${manifestId}/`;

const status = (row: ShareLinkRow, now: Date): 'active' | 'expired' | 'revoked' | 'locked' =>
  row.revoked_at ? 'revoked' : row.expires_at.getTime() <= now.getTime() ? 'expired' : row.passcode_failures >= SHARE_LINK_PASSCODE_ATTEMPTS ? 'locked' : 'active';

export async function createShareLink(deps: Deps, userId: string, input: { expires_in_days: number; passcode?: string | undefined; label?: string | undefined }) {
  const now = deps.clock.now();
  const expires = new Date(now.getTime() + input.expires_in_days * 86_400_000);
  const bundle = await patientSummary(deps, userId);
  const key = randomBytes(32);
  const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(bundle)))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: 'application/fhir+json' })
    .encrypt(key);
  const label = input.label?.trim() || DEFAULT_LABEL;
  const row = await repo.insertShareLink(deps.db, userId, {
    manifest_id: randomBytes(32).toString('base64url'),
    label,
    payload_jwe: jwe,
    passcode_hash: input.passcode ? await hashPasscode(input.passcode) : null,
    created_at: now,
    expires_at: expires,
  });
  const payload = { url: manifestUrl(deps, row.manifest_id), key: key.toString('base64url'), exp: Math.floor(expires.getTime() / 1000), ...(input.passcode ? { flag: 'P' } : {}), label, v: 1 };
  const shlink = `shlink:/${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  key.fill(0);
  return { id: row.id, url: `${deps.config.WEB_APP_URL}/shl#${shlink}`, shlink, label, passcode: !!input.passcode, created_at: row.created_at.toISOString(), expires_at: row.expires_at.toISOString() };
}

export async function listShareLinks(deps: Deps, userId: string, limit: number, offset: number) {
  const now = deps.clock.now();
  const count = await repo.countShareLinks(deps.db, userId);
  const rows = await repo.pageShareLinks(deps.db, userId, limit, offset);
  const accesses = await repo.accessesOf(deps.db, userId, rows.map((r) => r.id));
  return {
    count,
    results: rows.map((r) => ({
      id: r.id,
      label: r.label,
      passcode: r.passcode_hash !== null,
      status: status(r, now),
      created_at: r.created_at.toISOString(),
      expires_at: r.expires_at.toISOString(),
      revoked_at: r.revoked_at ? r.revoked_at.toISOString() : null,
      accesses: accesses.filter((a) => a.share_link_id === r.id).map((a) => ({ at: new Date(a.at).toISOString(), recipient: a.recipient, outcome: a.outcome as 'served' | 'wrong_passcode' | 'locked' })),
    })),
  };
}

export async function revokeShareLink(deps: Deps, userId: string, id: string): Promise<void> {
  const done = await repo.revokeShareLink(deps.db, userId, id, deps.clock.now());
  if (!done) throw notFound();
}

/**
 * The account's erasure: its links are deleted with their uses (the label the patient wrote, the
 * recipients' names, the encrypted summary): no link of it answers any more, and nothing of what
 * it shared stays here. Each use remains in the access log, as every staff read does.
 */
export async function eraseAccountShareLinks(q: Parameters<typeof repo.deleteAllShareLinks>[0], userId: string): Promise<void> {
  await repo.deleteAllShareLinks(q, userId);
}

/**
 * The manifest (SMART Health Links: POST to the link's url with `{recipient, passcode?}`): the
 * encrypted summary, embedded. An unknown, expired, revoked or locked link: 404. A missing or wrong
 * passcode: 401 with the attempts left (the attempt is counted and listed, and commits).
 */
export async function shareLinkManifest(deps: Deps, manifestId: string, input: { recipient: string; passcode?: string | undefined }) {
  const now = deps.clock.now();
  const outcome = await deps.db.tx(async (q) => {
    const row = await repo.lockShareLinkForLinkHolder(q, manifestId);
    if (!row || status(row, now) !== 'active') return { kind: 'gone' as const };
    const recipient = input.recipient.trim();
    if (row.passcode_hash && !(input.passcode !== undefined && (await passcodeMatches(input.passcode, row.passcode_hash)))) {
      const failures = await repo.countFailureForLinkHolder(q, row.id);
      await repo.insertAccessForLinkHolder(q, { share_link_id: row.id, user_id: row.user_id, recipient, outcome: 'wrong_passcode', at: now });
      return { kind: 'passcode' as const, remaining: Math.max(0, SHARE_LINK_PASSCODE_ATTEMPTS - failures) };
    }
    await repo.insertAccessForLinkHolder(q, { share_link_id: row.id, user_id: row.user_id, recipient, outcome: 'served', at: now });
    await logShareLinkAccess(q, { patientId: row.user_id, shareLinkId: row.id, recipient, at: now });
    return { kind: 'served' as const, jwe: row.payload_jwe };
  });
  if (outcome.kind === 'gone') throw notFound();
  if (outcome.kind === 'passcode') throw fail('share_link_passcode_invalid', { extra: { remainingAttempts: outcome.remaining } });
  return { files: [{ contentType: 'application/fhir+json' as const, embedded: outcome.jwe }] };
}

