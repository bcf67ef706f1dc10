// Owner of share_links and share_link_accesses (docs/interoperability.md). Every statement of the
// patient's own routes is scoped to the account; the manifest's lookup by the link's unguessable
// address serves whoever holds the link (`...ForLinkHolder`).
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';

export interface ShareLinkRow {
  id: string;
  user_id: string;
  manifest_id: string;
  label: string;
  payload_jwe: string;
  passcode_hash: string | null;
  passcode_failures: number;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export async function insertShareLink(
  q: Queryable,
  userId: string,
  v: { manifest_id: string; label: string; payload_jwe: string; passcode_hash: string | null; created_at: Date; expires_at: Date },
): Promise<ShareLinkRow> {
  return (await sqlOf(q)
    .insertInto('share_links')
    .values({ user_id: userId, ...v })
    .returningAll()
    .executeTakeFirstOrThrow());
}

export async function countShareLinks(q: Queryable, userId: string): Promise<number> {
  const r = await forAccount(q, userId).selectFrom('share_links').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function pageShareLinks(q: Queryable, userId: string, limit: number, offset: number): Promise<ShareLinkRow[]> {
  return (await forAccount(q, userId).selectFrom('share_links').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute());
}

export async function accessesOf(q: Queryable, userId: string, linkIds: readonly string[]) {
  if (!linkIds.length) return [];
  return forAccount(q, userId).selectFrom('share_link_accesses').select(['id', 'share_link_id', 'recipient', 'outcome', 'at']).where('share_link_id', 'in', linkIds).orderBy('at', 'desc').orderBy('id', 'desc').execute();
}

/** Revokes the account's link (once); undefined when the account has no such link. */
export async function revokeShareLink(q: Queryable, userId: string, id: string, at: Date): Promise<{ id: string } | undefined> {
  const row = await forAccount(q, userId).selectFrom('share_links').select(['id', 'revoked_at']).where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  if (!row.revoked_at) await forAccount(q, userId).updateTable('share_links').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return { id: row.id };
}

/** Erasure: the account's links and their uses are deleted (each use stays in the access log). */
export async function deleteAllShareLinks(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).deleteFrom('share_links').execute();
}

/** The link at this manifest address, locked for the attempt (whoever holds the link; its owner is on the row). */
export async function lockShareLinkForLinkHolder(q: Queryable, manifestId: string): Promise<ShareLinkRow | undefined> {
  return (await sqlOf(q).selectFrom('share_links').selectAll().where('manifest_id', '=', manifestId).forUpdate().executeTakeFirst());
}

export async function countFailureForLinkHolder(q: Queryable, id: string): Promise<number> {
  const r = await sqlOf(q).updateTable('share_links').set((eb) => ({ passcode_failures: eb('passcode_failures', '+', 1) })).where('id', '=', id).returning('passcode_failures').executeTakeFirstOrThrow();
  return r.passcode_failures;
}

export async function insertAccessForLinkHolder(q: Queryable, v: { share_link_id: string; user_id: string; recipient: string; outcome: 'served' | 'wrong_passcode' | 'locked'; at: Date }): Promise<void> {
  await sqlOf(q).insertInto('share_link_accesses').values(v).execute();
}
