// The OAuth 2.1 authorization server of the assistant connector (docs/mcp.md): dynamic client
// registration (RFC 7591), the authorization code flow with PKCE S256 only, exact redirect URI
// matching, `iss` in the authorization response (RFC 9207), resource indicators (RFC 8707: every
// token is bound to the MCP resource), opaque access tokens kept hashed in the database (revocation
// takes effect at once), rotating refresh tokens with reuse detection, revocation (RFC 7009).
import { createHash, randomUUID } from 'node:crypto';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { randomToken, safeEqual, sha256 } from '../../lib/crypto.ts';
import { isMetadataUrl, metadataClient } from './client-metadata.ts';
import { appLinks } from '../../mail/links.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { assistantConnectedMail } from './mail.ts';
import * as repo from './repository.ts';

export type { ClientRow } from './repository.ts';

export const SCOPES = ['patient:read', 'journal:write', 'messages:write', 'treatment:write'] as const;
export type Scope = (typeof SCOPES)[number];
export const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;

/** Lifetimes of the short-lived artefacts (the token lifetimes are in the configuration). */
export const AUTH_REQUEST_TTL_SECONDS = 15 * 60;
export const CODE_TTL_SECONDS = 60;
/** A registration that no patient used for a grant within this time is deleted (mcp.expire-unused-clients). */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 3600;

/** An OAuth error: `{error, error_description}` with its HTTP status (RFC 6749 5.2). */
export class OAuthError extends Error {
  constructor(
    public readonly status: number,
    public readonly error: string,
    public readonly description: string,
  ) {
    super(description);
  }
  body() {
    return { error: this.error, error_description: this.description };
  }
}

const bad = (error: string, description: string, status = 400) => new OAuthError(status, error, description);

// ---------------------------------------------------------------- URLs

export const issuerOf = (deps: Deps) => deps.config.PUBLIC_BASE_URL;
export const resourceOf = (deps: Deps) => deps.config.MCP_PUBLIC_URL;

/** A resource indicator compared without its fragment and one trailing slash. */
export const sameResource = (a: string, b: string) => {
  const norm = (s: string) => (s.split('#')[0] ?? '').replace(/\/$/, '');
  return norm(a) === norm(b);
};

export function endpoints(deps: Deps) {
  const base = issuerOf(deps);
  const mcp = new URL(resourceOf(deps));
  return {
    issuer: base,
    authorization: `${base}/oauth/authorize`,
    token: `${base}/oauth/token`,
    registration: `${base}/oauth/register`,
    revocation: `${base}/oauth/revoke`,
    /** RFC 9728 3.1: the well-known path is inserted between the host and the resource's path. */
    resourceMetadata: `${mcp.origin}/.well-known/oauth-protected-resource${mcp.pathname === '/' ? '' : mcp.pathname}`,
  };
}

export function authorizationServerMetadata(deps: Deps, locales: readonly string[]) {
  const e = endpoints(deps);
  return {
    issuer: e.issuer,
    authorization_endpoint: e.authorization,
    token_endpoint: e.token,
    registration_endpoint: e.registration,
    revocation_endpoint: e.revocation,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    ui_locales_supported: [...locales],
    service_documentation: `${e.issuer}/v1/docs/`,
    // RFC 8414 2: the privacy policy and terms the assistant directories ask for (when configured).
    ...(deps.config.MCP_POLICY_URL ? { op_policy_uri: deps.config.MCP_POLICY_URL } : {}),
    ...(deps.config.MCP_TOS_URL ? { op_tos_uri: deps.config.MCP_TOS_URL } : {}),
  };
}

export function protectedResourceMetadata(deps: Deps) {
  return {
    resource: resourceOf(deps),
    authorization_servers: [issuerOf(deps)],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Patient Treatment Service assistant connector',
    resource_documentation: `${issuerOf(deps)}/v1/docs/`,
    // RFC 9728 2: the same links for the resource.
    ...(deps.config.MCP_POLICY_URL ? { resource_policy_uri: deps.config.MCP_POLICY_URL } : {}),
    ...(deps.config.MCP_TOS_URL ? { resource_tos_uri: deps.config.MCP_TOS_URL } : {}),
  };
}

// ---------------------------------------------------------------- scopes

/** Parses a space-separated scope; undefined when a scope is unknown. */
export function parseScopes(raw: string | undefined | null): Scope[] | undefined {
  if (raw === undefined || raw === null || raw.trim() === '') return [...SCOPES];
  const parts = [...new Set(raw.trim().split(/\s+/))];
  if (!parts.every((p) => (SCOPES as readonly string[]).includes(p))) return undefined;
  return SCOPES.filter((s) => parts.includes(s));
}

// ---------------------------------------------------------------- redirect URIs

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** https anywhere, or http on a loopback address (RFC 8252 7.3); never a fragment or user info. */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash || uri.includes('#')) return 'must not contain a fragment';
  if (u.username || u.password) return 'must not contain user information';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && LOOPBACK.has(u.hostname)) return null;
  return 'must use https (or http on a loopback address)';
}

/**
 * The authorization request's redirect URI against a registered one: exactly equal, except that an
 * http loopback URI may use any port (RFC 8252 7.3, OAuth 2.1 native apps: the port is chosen when
 * the app starts). Scheme, host, path and query must still be equal.
 */
export function redirectMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  let a: URL;
  let b: URL;
  try {
    a = new URL(registered);
    b = new URL(requested);
  } catch {
    return false;
  }
  if (a.protocol !== 'http:' || b.protocol !== 'http:' || !LOOPBACK.has(a.hostname) || a.hostname !== b.hostname) return false;
  if (requested.includes('#') || b.username || b.password) return false;
  return a.pathname === b.pathname && a.search === b.search;
}

// ---------------------------------------------------------------- registration (RFC 7591)

/**
 * The hosts a registration is budgeted under: those of its https redirect URIs (a platform's own
 * host); none when every redirect URI is loopback (a native app, budgeted per address instead).
 */
export function registrationHosts(redirectUris: readonly string[]): string[] {
  const hosts = new Set<string>();
  for (const uri of redirectUris) {
    const u = new URL(uri);
    if (u.protocol === 'https:') hosts.add(u.host.toLowerCase());
  }
  return [...hosts].sort();
}

export async function registerClient(deps: Deps, body: unknown, budget: (hosts: string[]) => Promise<void> = () => Promise.resolve()) {
  const parsed = OAuthClientMetadataSchema.safeParse(body ?? {});
  if (!parsed.success) throw bad('invalid_client_metadata', parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  const meta = parsed.data;
  if (meta.redirect_uris.length === 0) throw bad('invalid_redirect_uri', 'At least one redirect URI is required.');
  if (meta.redirect_uris.length > 10) throw bad('invalid_redirect_uri', 'At most 10 redirect URIs can be registered.');
  for (const uri of meta.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw bad('invalid_redirect_uri', `${uri} ${problem}.`);
  }
  const grantTypes = meta.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!grantTypes.every((g) => g === 'authorization_code' || g === 'refresh_token')) {
    throw bad('invalid_client_metadata', 'Only the authorization_code and refresh_token grant types are supported.');
  }
  const responseTypes = meta.response_types ?? ['code'];
  if (!responseTypes.every((r) => r === 'code')) throw bad('invalid_client_metadata', 'Only the code response type is supported.');
  const authMethod = meta.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(authMethod)) {
    throw bad('invalid_client_metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}.`);
  }
  const scope = meta.scope === undefined ? undefined : parseScopes(meta.scope);
  if (scope === undefined && meta.scope !== undefined) throw bad('invalid_client_metadata', `scope must be made of ${SCOPES.join(', ')}.`);
  await budget(registrationHosts(meta.redirect_uris));
  const clientName = (meta.client_name ?? '').trim().slice(0, 120);
  const id = `mcp_${randomUUID().replace(/-/g, '')}`;
  const secret = authMethod === 'none' ? null : randomToken(32);
  const stored = {
    redirect_uris: meta.redirect_uris,
    client_name: clientName || undefined,
    client_uri: meta.client_uri,
    logo_uri: meta.logo_uri,
    token_endpoint_auth_method: authMethod,
    grant_types: grantTypes,
    response_types: responseTypes,
    scope: scope?.join(' '),
    software_id: meta.software_id,
    software_version: meta.software_version,
  };
  const row = await repo.insertClient(deps.db, {
    id,
    clientName,
    redirectUris: meta.redirect_uris,
    authMethod,
    secretHash: secret ? sha256(secret) : null,
    metadata: stored,
  });
  return {
    client_id: row.id,
    client_id_issued_at: Math.floor(new Date(row.created_at).getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    ...(JSON.parse(JSON.stringify(stored)) as Record<string, unknown>), // drops the undefined fields
  };
}

/** Client authentication at the token and revocation endpoints (none, client_secret_post, client_secret_basic). */
export async function authenticateClient(deps: Deps, body: Record<string, unknown>, authorization: string | undefined): Promise<repo.ClientRow> {
  let clientId: string | undefined;
  let secret: string | undefined;
  let method: string;
  const basic = authorization ? /^Basic\s+(\S+)\s*$/i.exec(authorization) : null;
  if (basic) {
    const decoded = Buffer.from(basic[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw bad('invalid_client', 'Malformed Basic credentials.', 401);
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw bad('invalid_client', 'Malformed Basic credentials.', 401);
    }
    method = 'client_secret_basic';
  } else {
    clientId = typeof body.client_id === 'string' ? body.client_id : undefined;
    secret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
    method = secret === undefined ? 'none' : 'client_secret_post';
  }
  if (!clientId) throw bad('invalid_client', 'Client authentication is required.', 401);
  if (typeof body.client_id === 'string' && body.client_id !== clientId) throw bad('invalid_client', 'client_id does not match the credentials.', 401);
  const client = await repo.findClient(deps.db, clientId);
  if (!client) throw bad('invalid_client', 'Unknown client.', 401);
  if (client.token_endpoint_auth_method === 'none') {
    if (method !== 'none') throw bad('invalid_client', 'This client is registered as a public client.', 401);
    return client;
  }
  if (method !== client.token_endpoint_auth_method || !secret || !client.client_secret_hash || !safeEqual(sha256(secret), client.client_secret_hash)) {
    throw bad('invalid_client', 'Client authentication failed.', 401);
  }
  return client;
}

// ---------------------------------------------------------------- authorization request

export interface AuthorizeQuery {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  resource?: string | string[];
}

export type AuthorizeOutcome =
  | { kind: 'error-page'; message: 'unknown_client' | 'bad_redirect_uri' }
  | { kind: 'redirect'; location: string }
  | { kind: 'sign-in'; requestId: string; csrf: string; client: repo.ClientRow };

/** The authorization response's redirect: code or error, with state and iss (RFC 9207). */
export function redirectWith(deps: Deps, redirectUri: string, params: Record<string, string | null | undefined>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) u.searchParams.set(k, v);
  u.searchParams.set('iss', issuerOf(deps));
  return u.toString();
}

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export async function startAuthorization(deps: Deps, q: AuthorizeQuery, locale: string): Promise<AuthorizeOutcome> {
  // Until the client and its redirect URI are known to match, nothing is redirected (RFC 6749 4.1.2.1).
  // A client_id that is an https URL names its metadata document (fetched under the SSRF fences of
  // client-metadata.ts); any other is a registered client.
  const client =
    typeof q.client_id !== 'string'
      ? undefined
      : isMetadataUrl(q.client_id)
        ? await metadataClient(deps, q.client_id, { redirectUriProblem, parseScopes })
        : await repo.findClient(deps.db, q.client_id);
  if (!client) return { kind: 'error-page', message: 'unknown_client' };
  // redirect_uri is always required (and then required, equal, at the token endpoint).
  const target = typeof q.redirect_uri === 'string' ? q.redirect_uri : undefined;
  if (target === undefined || !client.redirect_uris.some((r) => redirectMatches(r, target))) return { kind: 'error-page', message: 'bad_redirect_uri' };
  const state = typeof q.state === 'string' ? q.state : null;
  const fail = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: redirectWith(deps, target, { error, error_description: description, state }),
  });
  if (q.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (typeof q.code_challenge !== 'string' || !q.code_challenge) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (q.code_challenge_method !== 'S256') return fail('invalid_request', 'Only the S256 code challenge method is supported.');
  if (!PKCE_CHALLENGE.test(q.code_challenge)) return fail('invalid_request', 'code_challenge is malformed.');
  const scopes = parseScopes(q.scope);
  if (!scopes || scopes.length === 0) return fail('invalid_scope', `Known scopes: ${SCOPES.join(' ')}.`);
  if (Array.isArray(q.resource)) return fail('invalid_target', 'One resource indicator is accepted.');
  if (q.resource !== undefined && !sameResource(q.resource, resourceOf(deps))) return fail('invalid_target', 'Tokens are only issued for this server’s MCP resource.');
  const csrf = randomToken(24);
  const requestId = await repo.insertAuthRequest(deps.db, {
    clientId: client.id,
    redirectUri: target,
    state,
    codeChallenge: q.code_challenge,
    scopes: scopes.join(' '),
    resource: resourceOf(deps),
    locale,
    csrfHash: sha256(csrf),
    expiresAt: new Date(deps.clock.now().getTime() + AUTH_REQUEST_TTL_SECONDS * 1000),
  });
  return { kind: 'sign-in', requestId, csrf, client };
}

/** A pending request whose CSRF token (form field and cookie) matches; undefined otherwise. */
export async function pendingRequest(deps: Deps, requestId: unknown, csrfField: unknown, csrfCookie: string | undefined) {
  if (typeof requestId !== 'string' || !/^[0-9a-f-]{36}$/i.test(requestId)) return undefined;
  if (typeof csrfField !== 'string' || !csrfCookie || !safeEqual(csrfField, csrfCookie)) return undefined;
  const row = await repo.findAuthRequest(deps.db, requestId);
  if (!row || row.completed_at || row.expires_at <= deps.clock.now() || !safeEqual(sha256(csrfField), row.csrf_hash)) return undefined;
  const client = await repo.findClient(deps.db, row.client_id);
  if (!client) return undefined;
  return { row, client };
}

/** The request's account, once signed in on its page: the consent that follows is this account's. */
export function signedIn(deps: Deps, requestId: string, userId: string): Promise<void> {
  return repo.setAuthRequestUser(deps.db, requestId, userId);
}

/** The patient's decision on the consent page: the redirect to the client (code, or access_denied). */
export async function decide(deps: Deps, row: repo.AuthRequestRow, allow: boolean): Promise<string | undefined> {
  return deps.db.tx(async (q) => {
    if (!row.user_id || !(await repo.completeAuthRequest(q, row.id, deps.clock.now()))) return undefined;
    if (!allow) return redirectWith(deps, row.redirect_uri, { error: 'access_denied', error_description: 'The patient denied the request.', state: row.state });
    // A new consent replaces the grant: the old one's access and refresh tokens end here.
    const { id: grantId } = await repo.replaceGrant(q, row.user_id, row.client_id, row.scopes, row.resource);
    const patient = await repo.findPatient(q, row.user_id);
    const client = await repo.findClient(q, row.client_id);
    if (patient && client) {
      await enqueueMail(q, patient.email, assistantConnectedMail, patient.locale, {
        client: client.client_name || client.id,
        host: new URL(row.redirect_uri).host,
        scopes: row.scopes.split(' ').join(', '),
        link: appLinks.account(deps.config),
      });
    }
    const code = randomToken(32);
    await repo.insertCode(q, {
      codeHash: sha256(code),
      grantId,
      clientId: row.client_id,
      redirectUri: row.redirect_uri,
      codeChallenge: row.code_challenge,
      scopes: row.scopes,
      resource: row.resource,
      expiresAt: new Date(deps.clock.now().getTime() + CODE_TTL_SECONDS * 1000),
    });
    return redirectWith(deps, row.redirect_uri, { code, state: row.state });
  });
}

// ---------------------------------------------------------------- token endpoint

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

async function issueTokens(deps: Deps, q: Queryable, grantId: string, scopes: string, resource: string): Promise<TokenResponse> {
  const now = deps.clock.now().getTime();
  const access = `mcp_at_${randomToken(32)}`;
  const refresh = `mcp_rt_${randomToken(32)}`;
  const accessTtl = deps.config.MCP_ACCESS_TOKEN_TTL_SECONDS;
  await repo.insertToken(q, { tokenHash: sha256(access), grantId, kind: 'access', scopes, resource, expiresAt: new Date(now + accessTtl * 1000) });
  await repo.insertToken(q, {
    tokenHash: sha256(refresh),
    grantId,
    kind: 'refresh',
    scopes,
    resource,
    expiresAt: new Date(now + deps.config.MCP_REFRESH_TOKEN_TTL_SECONDS * 1000),
  });
  return { access_token: access, token_type: 'Bearer', expires_in: accessTtl, refresh_token: refresh, scope: scopes };
}

const mayUse = (p: repo.PatientRow | undefined) => Boolean(p && !p.disabled_at && p.email_verified_at && !p.is_staff);

function checkResourceParam(deps: Deps, resource: unknown, bound: string) {
  if (resource === undefined) return;
  if (typeof resource !== 'string' || !sameResource(resource, bound) || !sameResource(resource, resourceOf(deps))) {
    throw bad('invalid_target', 'The resource does not match the one this grant is bound to.');
  }
}

export async function tokenRequest(deps: Deps, body: Record<string, unknown>, authorization: string | undefined): Promise<TokenResponse> {
  const grantType = body.grant_type;
  if (typeof grantType !== 'string' || !grantType) throw bad('invalid_request', 'grant_type is required.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') throw bad('unsupported_grant_type', 'Supported: authorization_code, refresh_token.');
  const client = await authenticateClient(deps, body, authorization);
  return grantType === 'authorization_code' ? exchangeCode(deps, client, body) : exchangeRefresh(deps, client, body);
}

async function exchangeCode(deps: Deps, client: repo.ClientRow, body: Record<string, unknown>): Promise<TokenResponse> {
  const { code, code_verifier: verifier, redirect_uri: redirectUri } = body;
  if (typeof code !== 'string' || !code) throw bad('invalid_request', 'code is required.');
  if (typeof verifier !== 'string' || !verifier) throw bad('invalid_request', 'code_verifier is required (PKCE).');
  const outcome = await deps.db.tx(async (q) => {
    const row = await repo.findCodeForUpdate(q, sha256(code));
    if (!row || row.client_id !== client.id) return bad('invalid_grant', 'The authorization code is invalid.');
    if (row.used_at) {
      // A code presented twice: whoever holds it may have intercepted it, so the grant ends.
      await repo.revokeGrant(q, row.user_id, row.grant_id, 'code_reuse');
      return bad('invalid_grant', 'The authorization code was already used.');
    }
    await repo.markCodeUsed(q, row.code_hash, deps.clock.now());
    if (row.expires_at <= deps.clock.now()) return bad('invalid_grant', 'The authorization code has expired.');
    if (redirectUri !== row.redirect_uri) return bad('invalid_grant', 'redirect_uri does not match the authorization request.');
    if (!PKCE_VERIFIER.test(verifier)) return bad('invalid_grant', 'code_verifier is malformed.');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (!safeEqual(challenge, row.code_challenge)) return bad('invalid_grant', 'code_verifier does not match the code challenge.');
    try {
      checkResourceParam(deps, body.resource, row.resource);
    } catch (err) {
      return err as OAuthError;
    }
    if (row.grant_revoked_at || !mayUse(await repo.findPatient(q, row.user_id))) return bad('invalid_grant', 'The grant is no longer valid.');
    return issueTokens(deps, q, row.grant_id, row.scopes, row.resource);
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

async function exchangeRefresh(deps: Deps, client: repo.ClientRow, body: Record<string, unknown>): Promise<TokenResponse> {
  const token = body.refresh_token;
  if (typeof token !== 'string' || !token) throw bad('invalid_request', 'refresh_token is required.');
  const outcome = await deps.db.tx(async (q) => {
    const row = await repo.findToken(q, sha256(token), true);
    if (!row || row.kind !== 'refresh' || row.client_id !== client.id) return bad('invalid_grant', 'The refresh token is invalid.');
    if (row.revoked_at || row.grant_revoked_at) return bad('invalid_grant', 'The refresh token was revoked.');
    if (row.used_at) {
      // Reuse of a rotated refresh token: someone else may hold it. End the whole grant.
      await repo.revokeGrant(q, row.user_id, row.grant_id, 'refresh_reuse');
      return bad('invalid_grant', 'The refresh token was already used.');
    }
    if (row.expires_at <= deps.clock.now()) return bad('invalid_grant', 'The refresh token has expired.');
    try {
      checkResourceParam(deps, body.resource, row.resource);
    } catch (err) {
      return err as OAuthError;
    }
    let scopes = row.scopes;
    if (typeof body.scope === 'string' && body.scope.trim()) {
      const asked = parseScopes(body.scope);
      const held = row.scopes.split(' ');
      if (!asked || !asked.every((s) => held.includes(s))) return bad('invalid_scope', 'A refresh cannot widen the granted scopes.');
      scopes = asked.join(' ');
    }
    if (!mayUse(await repo.findPatient(q, row.user_id))) return bad('invalid_grant', 'The account can no longer use this grant.');
    await repo.markTokenUsed(q, row.token_hash, deps.clock.now());
    return issueTokens(deps, q, row.grant_id, scopes, row.resource);
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/** RFC 7009: revokes the client's token (a refresh token takes its grant's tokens with it); unknown tokens are fine. */
export async function revokeRequest(deps: Deps, body: Record<string, unknown>, authorization: string | undefined): Promise<void> {
  const client = await authenticateClient(deps, body, authorization);
  const token = body.token;
  if (typeof token !== 'string' || !token) throw bad('invalid_request', 'token is required.');
  await deps.db.tx(async (q) => {
    const row = await repo.findToken(q, sha256(token), true);
    if (!row || row.client_id !== client.id) return;
    if (row.kind === 'refresh') await repo.revokeGrant(q, row.user_id, row.grant_id, 'client_revoked');
    else await repo.revokeToken(q, row.token_hash);
  });
}

// ---------------------------------------------------------------- the resource server side

export interface McpAuth {
  token: string;
  userId: string;
  clientId: string;
  grantId: string;
  scopes: Scope[];
  expiresAt: number;
  locale: string;
  country: string | null;
}

/** The patient behind an MCP access token, or undefined: expired, revoked, another resource, inactive account. */
export async function verifyMcpToken(deps: Deps, token: string): Promise<McpAuth | undefined> {
  if (!token.startsWith('mcp_at_')) return undefined;
  const row = await repo.findToken(deps.db, sha256(token));
  const now = deps.clock.now();
  if (!row || row.kind !== 'access' || row.revoked_at || row.grant_revoked_at || row.expires_at <= now) return undefined;
  if (!sameResource(row.resource, resourceOf(deps))) return undefined;
  const patient = await repo.findPatient(deps.db, row.user_id);
  if (!patient || !mayUse(patient)) return undefined;
  await repo.touchGrant(deps.db, row.user_id, row.grant_id, now);
  return {
    token,
    userId: row.user_id,
    clientId: row.client_id,
    grantId: row.grant_id,
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
    expiresAt: Math.floor(new Date(row.expires_at).getTime() / 1000),
    locale: patient.locale,
    country: patient.country_of_residence,
  };
}
