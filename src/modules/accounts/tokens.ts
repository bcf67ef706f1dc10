// Token pairs. Access tokens are short-lived JWTs; refresh tokens are JWTs whose jti is stored
// hashed in refresh_tokens, grouped in a family (one sign-in session). Each refresh rotates the
// token; presenting a used refresh token again revokes the whole family (OWASP ASVS 10.4.5).
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../http/auth.ts';
import { sha256 } from '../../lib/crypto.ts';
import { insertFamily, insertRefreshToken, revokeAllFamilies } from './repository.ts';

export interface TokenPair {
  access: string;
  refresh: string;
}

async function sign(deps: Deps, claims: Record<string, unknown>, ttlSeconds: number): Promise<string> {
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: deps.secrets.jwtKeys.active.id })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .setJti(String(claims.jti))
    .sign(deps.secrets.jwtKeys.active.key);
}

export function accessToken(deps: Deps, userId: string, familyId: string): Promise<string> {
  return sign(deps, { token_type: 'access', user_id: userId, sid: familyId, jti: randomUUID() }, deps.config.ACCESS_TOKEN_TTL_SECONDS);
}

/** Issues a refresh token in a family, storing its jti hashed. */
export async function refreshToken(deps: Deps, q: Queryable, userId: string, familyId: string): Promise<string> {
  const jti = randomUUID();
  const ttl = deps.config.REFRESH_TOKEN_TTL_SECONDS;
  await insertRefreshToken(q, sha256(jti), familyId, new Date(deps.clock.now().getTime() + ttl * 1000));
  return sign(deps, { token_type: 'refresh', user_id: userId, sid: familyId, jti }, ttl);
}

/**
 * Starts a new session (refresh family) and returns its first token pair. `secondFactor`: the sign-in
 * passed a second factor (the session is marked, so that STAFF_MFA=required can tell).
 */
export async function issueTokenPair(deps: Deps, q: Queryable, userId: string, opts: { secondFactor?: boolean } = {}): Promise<TokenPair> {
  const now = deps.clock.now();
  const familyId = await insertFamily(q, userId, now, opts.secondFactor ? now : null);
  return { access: await accessToken(deps, userId, familyId), refresh: await refreshToken(deps, q, userId, familyId) };
}

/**
 * What else must end when the account's credentials change or its sessions are all ended (the
 * assistant connector's grants). The connector registers itself here because it already
 * depends on accounts (sign-in): accounts calling it directly would be an import cycle.
 */
export type CredentialsListener = (q: Queryable, userId: string, reason: string) => Promise<void>;
const credentialsListeners = new Set<CredentialsListener>();
export function onCredentialsRevoked(listener: CredentialsListener): void {
  credentialsListeners.add(listener);
}
export async function credentialsRevoked(q: Queryable, userId: string, reason: string): Promise<void> {
  for (const listener of credentialsListeners) await listener(q, userId, reason);
}

/** Ends every session of an account (disable, password reset, erasure), and its connector grants. Access tokens die with them. */
export async function revokeAllSessions(q: Queryable, userId: string, reason: string): Promise<void> {
  await revokeAllFamilies(q, userId, reason);
  await credentialsRevoked(q, userId, reason);
}
