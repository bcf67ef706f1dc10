// SQL of the assistant connector: OAuth clients, pending authorization requests, grants (connected
// apps), authorization codes, tokens (hashed) and the tool-call record. Every patient-scoped query
// takes the account id and starts from forAccount (src/db/scope.ts); the OAuth side finds a grant
// only through the secret a client holds (a code's or a token's hash), and the scheduler's sweeps are
// named ...ForScheduler. Statements go through the typed query layer (src/db/kysely.ts), so rows
// carry the column types generated from the migrations; the few columns the schema cannot describe
// (jsonb lists, the token kind) are narrowed here, once.
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import type { McpAuthCodesRow, McpAuthRequestsRow, McpClientsRow, McpGrantsRow } from '../../db/schema.ts';

const DAY_MS = 24 * 3600 * 1000;

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const jsonObject = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

// ---------------------------------------------------------------- clients

export interface ClientRow {
  id: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  client_secret_hash: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
}

const toClient = (row: McpClientsRow): ClientRow => ({ ...row, redirect_uris: stringList(row.redirect_uris), metadata: jsonObject(row.metadata) });

export async function insertClient(
  q: Queryable,
  c: { id: string; clientName: string; redirectUris: string[]; authMethod: string; secretHash: string | null; metadata: Record<string, unknown> },
): Promise<ClientRow> {
  const row = await sqlOf(q)
    .insertInto('mcp_clients')
    .values({
      id: c.id,
      client_name: c.clientName,
      redirect_uris: JSON.stringify(c.redirectUris),
      token_endpoint_auth_method: c.authMethod,
      client_secret_hash: c.secretHash,
      metadata: JSON.stringify(c.metadata),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toClient(row);
}

/** A client described by its metadata document (client-metadata.ts): created, or refreshed from a newer fetch. */
export async function upsertMetadataClient(
  q: Queryable,
  c: { id: string; clientName: string; redirectUris: string[]; metadata: Record<string, unknown> },
): Promise<ClientRow> {
  const values = {
    client_name: c.clientName,
    redirect_uris: JSON.stringify(c.redirectUris),
    token_endpoint_auth_method: 'none',
    client_secret_hash: null,
    metadata: JSON.stringify(c.metadata),
  };
  const row = await sqlOf(q)
    .insertInto('mcp_clients')
    .values({ id: c.id, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  return toClient(row);
}

export async function findClient(q: Queryable, id: string): Promise<ClientRow | undefined> {
  const row = await sqlOf(q).selectFrom('mcp_clients').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toClient(row);
}

// ---------------------------------------------------------------- authorization requests

export type AuthRequestRow = Omit<McpAuthRequestsRow, 'created_at'>;

export async function insertAuthRequest(
  q: Queryable,
  r: { clientId: string; redirectUri: string; state: string | null; codeChallenge: string; scopes: string; resource: string; locale: string; csrfHash: string; expiresAt: Date },
): Promise<string> {
  const row = await sqlOf(q)
    .insertInto('mcp_auth_requests')
    .values({
      client_id: r.clientId,
      redirect_uri: r.redirectUri,
      state: r.state,
      code_challenge: r.codeChallenge,
      scopes: r.scopes,
      resource: r.resource,
      locale: r.locale,
      csrf_hash: r.csrfHash,
      expires_at: r.expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findAuthRequest(q: Queryable, id: string, lock = false): Promise<AuthRequestRow | undefined> {
  const query = sqlOf(q).selectFrom('mcp_auth_requests').selectAll().where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function setAuthRequestUser(q: Queryable, id: string, userId: string): Promise<void> {
  await sqlOf(q).updateTable('mcp_auth_requests').set({ user_id: userId }).where('id', '=', id).execute();
}

/** Marks the request completed; false when it already was (a second submit of the consent form). */
export async function completeAuthRequest(q: Queryable, id: string, at: Date): Promise<boolean> {
  const rows = await sqlOf(q).updateTable('mcp_auth_requests').set({ completed_at: at }).where('id', '=', id).where('completed_at', 'is', null).returning('id').execute();
  return rows.length === 1;
}

// ---------------------------------------------------------------- grants (connected apps)

export type GrantRow = Omit<McpGrantsRow, 'revoke_reason' | 'client_capabilities'>;

async function revokeGrantTokens(q: Queryable, grantId: string): Promise<void> {
  await sqlOf(q).updateTable('mcp_tokens').set({ revoked_at: sql<Date>`now()` }).where('grant_id', '=', grantId).where('revoked_at', 'is', null).execute();
}

/** Ends the account's grant with its tokens (the callers know the account from the code or token presented). */
export async function revokeGrant(q: Queryable, userId: string, grantId: string, reason: string): Promise<void> {
  await forAccount(q, userId)
    .updateTable('mcp_grants')
    .set({ revoked_at: sql<Date>`now()`, revoke_reason: reason })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
  await revokeGrantTokens(q, grantId);
}

/**
 * Every live grant of the account revoked with its access and refresh tokens (password change,
 * disable, erasure): they stop working at once, and re-enabling the account does not revive them.
 * Returns how many grants were live.
 */
export async function revokeAllGrantsForUser(q: Queryable, userId: string, reason = 'account_security'): Promise<number> {
  const live = await forAccount(q, userId)
    .updateTable('mcp_grants')
    .set({ revoked_at: sql<Date>`now()`, revoke_reason: reason.slice(0, 64) })
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  if (live.length > 0) {
    await sqlOf(q)
      .updateTable('mcp_tokens')
      .set({ revoked_at: sql<Date>`now()` })
      .where(
        'grant_id',
        'in',
        live.map((g) => g.id),
      )
      .where('revoked_at', 'is', null)
      .execute();
  }
  return live.length;
}

/**
 * A new consent for a client replaces the account's grant with it: the live grant (if any) is
 * revoked with its tokens (reason `replaced`), so narrower scopes take effect at once and the old
 * refresh token cannot mint the old scopes again. Returns the new grant's id.
 */
export async function replaceGrant(q: Queryable, userId: string, clientId: string, scopes: string, resource: string): Promise<{ id: string; replaced: number }> {
  const live = await forAccount(q, userId)
    .selectFrom('mcp_grants')
    .select('id')
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .forUpdate()
    .execute();
  for (const g of live) await revokeGrant(q, userId, g.id, 'replaced');
  const row = await sqlOf(q).insertInto('mcp_grants').values({ user_id: userId, client_id: clientId, scopes, resource }).returning('id').executeTakeFirstOrThrow();
  return { id: row.id, replaced: live.length };
}

/** Revokes the account's grant; false when it is not the account's live grant. */
export async function revokeOwnGrant(q: Queryable, userId: string, grantId: string): Promise<boolean> {
  const rows = await forAccount(q, userId)
    .updateTable('mcp_grants')
    .set({ revoked_at: sql<Date>`now()`, revoke_reason: 'patient' })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  if (rows.length === 0) return false;
  await revokeGrantTokens(q, grantId);
  return true;
}

export interface ConnectedAppRow extends GrantRow {
  client_name: string;
  redirect_uris: string[];
}

export async function countLiveGrants(q: Queryable, userId: string): Promise<number> {
  const r = await forAccount(q, userId)
    .selectFrom('mcp_grants')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return r.n;
}

/** The connected apps list's `ordering` whitelist (default: newest first). */
export const GRANT_ORDERING = listOrdering(['last_used_at'], '-created_at');

export async function pageLiveGrants(
  q: Queryable,
  userId: string,
  limit: number,
  offset: number,
  order: Order<(typeof GRANT_ORDERING.fields)[number]> = orderBy({}, GRANT_ORDERING),
): Promise<ConnectedAppRow[]> {
  const rows = await forAccount(q, userId)
    .selectFrom('mcp_grants as g')
    .innerJoin('mcp_clients as c', 'c.id', 'g.client_id')
    .select(['g.id', 'g.user_id', 'g.client_id', 'g.scopes', 'g.resource', 'g.created_at', 'g.last_used_at', 'g.revoked_at', 'c.client_name', 'c.redirect_uris'])
    .where('g.revoked_at', 'is', null)
    .orderBy(`g.${order.field}`, order.direction)
    .orderBy('g.id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({ ...r, redirect_uris: stringList(r.redirect_uris) }));
}

/** Records use at most once a minute per grant (a write per request would be wasted). */
export async function touchGrant(q: Queryable, userId: string, grantId: string, at: Date): Promise<void> {
  await forAccount(q, userId)
    .updateTable('mcp_grants')
    .set({ last_used_at: at })
    .where('id', '=', grantId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(at.getTime() - 60_000))]))
    .execute();
}

// ---------------------------------------------------------------- codes and tokens

export async function insertCode(
  q: Queryable,
  c: { codeHash: string; grantId: string; clientId: string; redirectUri: string; codeChallenge: string; scopes: string; resource: string; expiresAt: Date },
): Promise<void> {
  await sqlOf(q)
    .insertInto('mcp_auth_codes')
    .values({
      code_hash: c.codeHash,
      grant_id: c.grantId,
      client_id: c.clientId,
      redirect_uri: c.redirectUri,
      code_challenge: c.codeChallenge,
      scopes: c.scopes,
      resource: c.resource,
      expires_at: c.expiresAt,
    })
    .execute();
}

/** A code with its grant's account and whether that grant was revoked (the token endpoint checks both). */
export type CodeRow = McpAuthCodesRow & { user_id: string; grant_revoked_at: Date | null };

/**
 * The code found by its hash, the secret the client presents before any account is known: the secret
 * is its scope (as for the accounts module's credential tables), and the grant is read through it.
 * Locks the code row only: a second exchange of the same code waits here and then sees it used.
 */
export async function findCodeForUpdate(q: Queryable, codeHash: string): Promise<CodeRow | undefined> {
  return sqlOf(q)
    .selectFrom('mcp_auth_codes as c')
    .innerJoin('mcp_grants as g', 'g.id', 'c.grant_id')
    .selectAll('c')
    .select(['g.user_id', 'g.revoked_at as grant_revoked_at'])
    .where('c.code_hash', '=', codeHash)
    .forUpdate(['c'])
    .executeTakeFirst();
}

export async function markCodeUsed(q: Queryable, codeHash: string, at: Date): Promise<void> {
  await sqlOf(q).updateTable('mcp_auth_codes').set({ used_at: at }).where('code_hash', '=', codeHash).execute();
}

export type TokenKind = 'access' | 'refresh';

export async function insertToken(q: Queryable, t: { tokenHash: string; grantId: string; kind: TokenKind; scopes: string; resource: string; expiresAt: Date }): Promise<void> {
  await sqlOf(q)
    .insertInto('mcp_tokens')
    .values({ token_hash: t.tokenHash, grant_id: t.grantId, kind: t.kind, scopes: t.scopes, resource: t.resource, expires_at: t.expiresAt })
    .execute();
}

export interface TokenRow {
  token_hash: string;
  grant_id: string;
  kind: TokenKind;
  scopes: string;
  resource: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  client_id: string;
  user_id: string;
  grant_revoked_at: Date | null;
}

export async function findToken(q: Queryable, tokenHash: string, lock = false): Promise<TokenRow | undefined> {
  const query = sqlOf(q)
    .selectFrom('mcp_tokens as t')
    .innerJoin('mcp_grants as g', 'g.id', 't.grant_id')
    .select(['t.token_hash', 't.grant_id', 't.kind', 't.scopes', 't.resource', 't.expires_at', 't.used_at', 't.revoked_at', 'g.client_id', 'g.user_id', 'g.revoked_at as grant_revoked_at'])
    .where('t.token_hash', '=', tokenHash);
  const row = await (lock ? query.forUpdate(['t', 'g']) : query).executeTakeFirst();
  if (!row) return undefined;
  // The column holds only what insertToken writes; anything else is not a usable token.
  if (row.kind !== 'access' && row.kind !== 'refresh') return undefined;
  return { ...row, kind: row.kind };
}

export async function markTokenUsed(q: Queryable, tokenHash: string, at: Date): Promise<void> {
  await sqlOf(q).updateTable('mcp_tokens').set({ used_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function revokeToken(q: Queryable, tokenHash: string): Promise<void> {
  await sqlOf(q).updateTable('mcp_tokens').set({ revoked_at: sql<Date>`now()` }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute();
}

/** The account behind a grant, when it may still use the connector. */
export interface PatientRow {
  id: string;
  email: string;
  locale: string;
  country_of_residence: string | null;
  disabled_at: Date | null;
  email_verified_at: Date | null;
  is_staff: boolean;
}

export async function findPatient(q: Queryable, userId: string): Promise<PatientRow | undefined> {
  const row = await sqlOf(q)
    .selectFrom('users')
    .select(['id', 'email', 'locale', 'country_of_residence', 'disabled_at', 'email_verified_at', 'is_doctor', 'is_backoffice_admin', 'is_marketer', 'is_pharmacist'])
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { is_doctor, is_backoffice_admin, is_marketer, is_pharmacist, ...rest } = row;
  return { ...rest, is_staff: is_doctor || is_backoffice_admin || is_marketer || is_pharmacist };
}

// ---------------------------------------------------------------- tool calls and housekeeping

export async function recordToolCall(q: Queryable, c: { userId: string; clientId: string; grantId: string; tool: string; outcome: string; at: Date }): Promise<void> {
  await sqlOf(q)
    .insertInto('mcp_tool_calls')
    .values({ user_id: c.userId, client_id: c.clientId, grant_id: c.grantId, tool: c.tool, outcome: c.outcome, called_at: c.at })
    .execute();
}

/** Deletes what can no longer be used, a day after it expired: requests, codes, tokens (every account's). */
export async function purgeExpiredForScheduler(q: Queryable, now: Date): Promise<void> {
  const before = new Date(now.getTime() - DAY_MS);
  const db = sqlOf(q);
  await db.deleteFrom('mcp_auth_requests').where('expires_at', '<', before).execute();
  await db.deleteFrom('mcp_auth_codes').where('expires_at', '<', before).execute();
  await db.deleteFrom('mcp_tokens').where('expires_at', '<', before).execute();
  await db.deleteFrom('mcp_confirmations').where('expires_at', '<', before).execute();
}

/**
 * Registrations (and cached metadata documents) made before `before` that no patient ever used for a
 * grant (the check reads every account's grants): deleted with their pending requests. Returns how many.
 */
export async function deleteUnusedClientsForScheduler(q: Queryable, before: Date): Promise<number> {
  const rows = await sqlOf(q)
    .deleteFrom('mcp_clients as c')
    .where('c.created_at', '<', before)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('mcp_grants as g').select('g.id').whereRef('g.client_id', '=', 'c.id'))))
    .returning('c.id')
    .execute();
  return rows.length;
}

// ---------------------------------------------------------------- the account's privacy

export interface AccountGrantRow extends McpGrantsRow {
  client_name: string;
}

/** Every grant the account ever gave a connector (live and revoked), newest first. */
export async function grantsOfAccount(q: Queryable, userId: string): Promise<AccountGrantRow[]> {
  return forAccount(q, userId)
    .selectFrom('mcp_grants as g')
    .innerJoin('mcp_clients as c', 'c.id', 'g.client_id')
    .selectAll('g')
    .select('c.client_name')
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id', 'desc')
    .execute();
}

/** The account's connector tool calls (names and outcomes, no content), newest first. */
export async function toolCallsOfAccount(q: Queryable, userId: string) {
  return forAccount(q, userId).selectFrom('mcp_tool_calls').select(['id', 'client_id', 'tool', 'outcome', 'called_at']).orderBy('called_at', 'desc').execute();
}

/**
 * Erasure: every grant revoked with its tokens (they stop working at once), pending authorization
 * requests and the tool-call record deleted. The revoked grants stay as the record of the consent given.
 */
export async function revokeAccountConnectors(q: Queryable, userId: string): Promise<void> {
  await revokeAllGrantsForUser(q, userId, 'account_erased');
  // A pending request's account is unknown until sign-in (its user_id may be null), so forAccount,
  // which takes the tables whose every row has an owner, does not take it: the filter is written here.
  await sqlOf(q).deleteFrom('mcp_auth_requests').where('user_id', '=', userId).execute();
  await forAccount(q, userId).deleteFrom('mcp_tool_calls').execute();
  await forAccount(q, userId).deleteFrom('mcp_confirmations').execute();
}

// ---------------------------------------------------------------- client capabilities, confirmations

/** The capabilities the client declared in its last `initialize` on this grant (the endpoint is stateless). */
export async function setGrantCapabilities(q: Queryable, userId: string, grantId: string, capabilities: Record<string, unknown>): Promise<void> {
  await forAccount(q, userId).updateTable('mcp_grants').set({ client_capabilities: JSON.stringify(capabilities) }).where('id', '=', grantId).execute();
}

export async function grantCapabilities(q: Queryable, userId: string, grantId: string): Promise<Record<string, unknown>> {
  const row = await forAccount(q, userId).selectFrom('mcp_grants').select('client_capabilities').where('id', '=', grantId).executeTakeFirst();
  return jsonObject(row?.client_capabilities);
}

export async function insertConfirmation(q: Queryable, c: { tokenHash: string; userId: string; grantId: string; tool: string; inputHash: string; expiresAt: Date }): Promise<void> {
  await sqlOf(q)
    .insertInto('mcp_confirmations')
    .values({ token_hash: c.tokenHash, user_id: c.userId, grant_id: c.grantId, tool: c.tool, input_hash: c.inputHash, expires_at: c.expiresAt })
    .execute();
}

/**
 * Uses a confirmation token once: only the patient and grant it was issued to, for the same tool and
 * the same input, before it expires. True when it was live (and is now used).
 */
export async function useConfirmation(q: Queryable, c: { tokenHash: string; userId: string; grantId: string; tool: string; inputHash: string; now: Date }): Promise<boolean> {
  const row = await forAccount(q, c.userId)
    .updateTable('mcp_confirmations')
    .set({ used_at: c.now })
    .where('token_hash', '=', c.tokenHash)
    .where('grant_id', '=', c.grantId)
    .where('tool', '=', c.tool)
    .where('input_hash', '=', c.inputHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', c.now)
    .returning('token_hash')
    .executeTakeFirst();
  return row !== undefined;
}
