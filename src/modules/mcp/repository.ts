// SQL of the assistant connector: OAuth clients, pending authorization requests, grants (connected
// apps), authorization codes, tokens (hashed) and the tool-call record. Every patient-scoped query
// takes the account id.
import type { Queryable } from '../../db/index.ts';

export interface ClientRow {
  id: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  client_secret_hash: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export async function insertClient(
  q: Queryable,
  c: { id: string; clientName: string; redirectUris: string[]; authMethod: string; secretHash: string | null; metadata: Record<string, unknown> },
): Promise<ClientRow> {
  const [row] = await q.query<ClientRow>(
    `insert into mcp_clients (id, client_name, redirect_uris, token_endpoint_auth_method, client_secret_hash, metadata)
     values ($1, $2, $3::jsonb, $4, $5, $6::jsonb) returning *`,
    [c.id, c.clientName, JSON.stringify(c.redirectUris), c.authMethod, c.secretHash, JSON.stringify(c.metadata)],
  );
  return row;
}

export async function findClient(q: Queryable, id: string): Promise<ClientRow | undefined> {
  const [row] = await q.query<ClientRow>('select * from mcp_clients where id = $1', [id]);
  return row;
}

/** A client described by its metadata document (client-metadata.ts): created, or refreshed from a newer fetch. */
export async function upsertMetadataClient(
  q: Queryable,
  c: { id: string; clientName: string; redirectUris: string[]; metadata: Record<string, unknown> },
): Promise<ClientRow> {
  const [row] = await q.query<ClientRow>(
    `insert into mcp_clients (id, client_name, redirect_uris, token_endpoint_auth_method, client_secret_hash, metadata)
     values ($1, $2, $3::jsonb, 'none', null, $4::jsonb)
     on conflict (id) do update set client_name = excluded.client_name, redirect_uris = excluded.redirect_uris,
       token_endpoint_auth_method = 'none', client_secret_hash = null, metadata = excluded.metadata
     returning *`,
    [c.id, c.clientName, JSON.stringify(c.redirectUris), JSON.stringify(c.metadata)],
  );
  return row;
}

// ---------------------------------------------------------------- authorization requests

export interface AuthRequestRow {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  scopes: string;
  resource: string;
  locale: string;
  csrf_hash: string;
  user_id: string | null;
  expires_at: Date;
  completed_at: Date | null;
}

export async function insertAuthRequest(
  q: Queryable,
  r: { clientId: string; redirectUri: string; state: string | null; codeChallenge: string; scopes: string; resource: string; locale: string; csrfHash: string; expiresAt: Date },
): Promise<string> {
  const [row] = await q.query<{ id: string }>(
    `insert into mcp_auth_requests (client_id, redirect_uri, state, code_challenge, scopes, resource, locale, csrf_hash, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
    [r.clientId, r.redirectUri, r.state, r.codeChallenge, r.scopes, r.resource, r.locale, r.csrfHash, r.expiresAt],
  );
  return row.id;
}

export async function findAuthRequest(q: Queryable, id: string, lock = false): Promise<AuthRequestRow | undefined> {
  const [row] = await q.query<AuthRequestRow>(`select * from mcp_auth_requests where id = $1${lock ? ' for update' : ''}`, [id]);
  return row;
}

export async function setAuthRequestUser(q: Queryable, id: string, userId: string): Promise<void> {
  await q.query('update mcp_auth_requests set user_id = $2 where id = $1', [id, userId]);
}

/** Marks the request completed; false when it already was (a second submit of the consent form). */
export async function completeAuthRequest(q: Queryable, id: string, at: Date): Promise<boolean> {
  const rows = await q.query('update mcp_auth_requests set completed_at = $2 where id = $1 and completed_at is null returning id', [id, at]);
  return rows.length === 1;
}

// ---------------------------------------------------------------- grants (connected apps)

export interface GrantRow {
  id: string;
  user_id: string;
  client_id: string;
  scopes: string;
  resource: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** The account's live grant for a client, or a new one; its scopes become the consented ones. */
export async function upsertGrant(q: Queryable, userId: string, clientId: string, scopes: string, resource: string): Promise<string> {
  const [live] = await q.query<{ id: string }>(
    'select id from mcp_grants where user_id = $1 and client_id = $2 and resource = $3 and revoked_at is null order by created_at desc limit 1 for update',
    [userId, clientId, resource],
  );
  if (live) {
    await q.query('update mcp_grants set scopes = $2 where id = $1', [live.id, scopes]);
    return live.id;
  }
  const [row] = await q.query<{ id: string }>('insert into mcp_grants (user_id, client_id, scopes, resource) values ($1, $2, $3, $4) returning id', [
    userId,
    clientId,
    scopes,
    resource,
  ]);
  return row.id;
}

export async function revokeGrant(q: Queryable, grantId: string, reason: string): Promise<void> {
  await q.query('update mcp_grants set revoked_at = now(), revoke_reason = $2 where id = $1 and revoked_at is null', [grantId, reason]);
  await q.query('update mcp_tokens set revoked_at = now() where grant_id = $1 and revoked_at is null', [grantId]);
}

/** Revokes the account's grant; false when it is not the account's live grant. */
export async function revokeOwnGrant(q: Queryable, userId: string, grantId: string): Promise<boolean> {
  const rows = await q.query("update mcp_grants set revoked_at = now(), revoke_reason = 'patient' where id = $1 and user_id = $2 and revoked_at is null returning id", [
    grantId,
    userId,
  ]);
  if (rows.length === 0) return false;
  await q.query('update mcp_tokens set revoked_at = now() where grant_id = $1 and revoked_at is null', [grantId]);
  return true;
}

export interface ConnectedAppRow extends GrantRow {
  client_name: string;
  redirect_uris: string[];
}

export async function countLiveGrants(q: Queryable, userId: string): Promise<number> {
  const [r] = await q.query<{ n: number }>('select count(*)::int as n from mcp_grants where user_id = $1 and revoked_at is null', [userId]);
  return r.n;
}

export function pageLiveGrants(q: Queryable, userId: string, limit: number, offset: number): Promise<ConnectedAppRow[]> {
  return q.query<ConnectedAppRow>(
    `select g.*, c.client_name, c.redirect_uris from mcp_grants g join mcp_clients c on c.id = g.client_id
      where g.user_id = $1 and g.revoked_at is null order by g.created_at desc, g.id desc limit $2 offset $3`,
    [userId, limit, offset],
  );
}

export async function touchGrant(q: Queryable, grantId: string, at: Date): Promise<void> {
  await q.query("update mcp_grants set last_used_at = $2 where id = $1 and (last_used_at is null or last_used_at < $2::timestamptz - interval '1 minute')", [grantId, at]);
}

// ---------------------------------------------------------------- codes and tokens

export async function insertCode(
  q: Queryable,
  c: { codeHash: string; grantId: string; clientId: string; redirectUri: string; codeChallenge: string; scopes: string; resource: string; expiresAt: Date },
): Promise<void> {
  await q.query(
    `insert into mcp_auth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, scopes, resource, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [c.codeHash, c.grantId, c.clientId, c.redirectUri, c.codeChallenge, c.scopes, c.resource, c.expiresAt],
  );
}

export interface CodeRow {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  resource: string;
  expires_at: Date;
  used_at: Date | null;
}

export async function findCodeForUpdate(q: Queryable, codeHash: string): Promise<CodeRow | undefined> {
  const [row] = await q.query<CodeRow>('select * from mcp_auth_codes where code_hash = $1 for update', [codeHash]);
  return row;
}

export async function markCodeUsed(q: Queryable, codeHash: string, at: Date): Promise<void> {
  await q.query('update mcp_auth_codes set used_at = $2 where code_hash = $1', [codeHash, at]);
}

export async function insertToken(
  q: Queryable,
  t: { tokenHash: string; grantId: string; kind: 'access' | 'refresh'; scopes: string; resource: string; expiresAt: Date },
): Promise<void> {
  await q.query('insert into mcp_tokens (token_hash, grant_id, kind, scopes, resource, expires_at) values ($1, $2, $3, $4, $5, $6)', [
    t.tokenHash,
    t.grantId,
    t.kind,
    t.scopes,
    t.resource,
    t.expiresAt,
  ]);
}

export interface TokenRow {
  token_hash: string;
  grant_id: string;
  kind: 'access' | 'refresh';
  scopes: string;
  resource: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  client_id: string;
  user_id: string;
  grant_revoked_at: Date | null;
}

const TOKEN_SELECT = `select t.*, g.client_id, g.user_id, g.revoked_at as grant_revoked_at
  from mcp_tokens t join mcp_grants g on g.id = t.grant_id`;

export async function findToken(q: Queryable, tokenHash: string, lock = false): Promise<TokenRow | undefined> {
  const [row] = await q.query<TokenRow>(`${TOKEN_SELECT} where t.token_hash = $1${lock ? ' for update of t, g' : ''}`, [tokenHash]);
  return row;
}

export async function markTokenUsed(q: Queryable, tokenHash: string, at: Date): Promise<void> {
  await q.query('update mcp_tokens set used_at = $2 where token_hash = $1', [tokenHash, at]);
}

export async function revokeToken(q: Queryable, tokenHash: string): Promise<void> {
  await q.query('update mcp_tokens set revoked_at = now() where token_hash = $1 and revoked_at is null', [tokenHash]);
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
  const [row] = await q.query<PatientRow>(
    `select id, email, locale, country_of_residence, disabled_at, email_verified_at, (is_doctor or is_backoffice_admin or is_marketer) as is_staff
       from users where id = $1`,
    [userId],
  );
  return row;
}

// ---------------------------------------------------------------- tool calls and housekeeping

export async function recordToolCall(q: Queryable, c: { userId: string; clientId: string; grantId: string; tool: string; outcome: string; at: Date }): Promise<void> {
  await q.query('insert into mcp_tool_calls (user_id, client_id, grant_id, tool, outcome, called_at) values ($1, $2, $3, $4, $5, $6)', [
    c.userId,
    c.clientId,
    c.grantId,
    c.tool,
    c.outcome,
    c.at,
  ]);
}

/** Deletes what can no longer be used: finished or expired requests, old codes, expired tokens. */
export async function purgeExpired(q: Queryable, now: Date): Promise<void> {
  await q.query("delete from mcp_auth_requests where expires_at < $1::timestamptz - interval '1 day'", [now]);
  await q.query("delete from mcp_auth_codes where expires_at < $1::timestamptz - interval '1 day'", [now]);
  await q.query("delete from mcp_tokens where expires_at < $1::timestamptz - interval '1 day'", [now]);
}

/** The account's email address, for the consent page after Google sign-in. */
export async function userEmail(q: Queryable, userId: string): Promise<string | undefined> {
  const [row] = await q.query<{ email: string }>('select email from users where id = $1', [userId]);
  return row?.email;
}
