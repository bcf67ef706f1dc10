// Bearer authentication. An access token is trusted only while its account is active and its
// session (refresh family) is not revoked, so disabling an account or resetting a password takes
// effect on the next request. Only HS256 is accepted (alg allowlist).
import type { FastifyRequest } from 'fastify';
import { TokenRejected, verifyServiceToken, type ServiceClaims } from '../lib/jwt.ts';
import type { Deps } from '../deps.ts';
import { UntilWrite } from '../db/until-write.ts';
import { findSessionAccount, type SessionAccount } from './auth.repository.ts';
import { notAuthenticated, tokenNotValid } from './errors.ts';
import { isStaff } from './access.ts';

export interface AuthUser {
  id: string;
  email: string;
  sessionId: string;
  locale: string;
  is_doctor: boolean;
  is_backoffice_admin: boolean;
  is_marketer: boolean;
  is_pharmacist: boolean;
  /** The session's sign-in passed the second factor (a prescription is signed only in one with STAFF_MFA=required). */
  second_factor: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser | null;
  }
}

export const TOKEN_ISSUER = 'patient-treatment-service';
/** The token failure of a staff session without the second factor its account requires. */
export const SECOND_FACTOR_MISSING = 'This session did not pass the second factor the account requires. Sign in again.';
/** The `aud` of the service's own tokens: this API (checked on every token, src/lib/jwt.ts). */
export const TOKEN_AUDIENCE = 'patient-treatment-service/api';

// Sessions found active, per account and session, until the embedded database's next write.
const activeSessions = new UntilWrite<SessionAccount>(4096);

export async function verifyAccessToken(deps: Deps, token: string): Promise<AuthUser> {
  let payload: ServiceClaims;
  try {
    // Signature, key, issuer, audience, expiry and every claim's shape (user_id and sid UUIDs...)
    // are checked before the session query, so a forged shape is a 401, never a database error.
    payload = verifyServiceToken(deps.secrets.jwtKeys, TOKEN_ISSUER, token, deps.clock.now(), TOKEN_AUDIENCE);
  } catch (err) {
    if (!(err instanceof TokenRejected)) throw err;
    throw tokenNotValid(err.expired ? 'Token is expired' : 'Token is invalid or expired');
  }
  if (payload.token_type !== 'access') throw tokenNotValid('Token has wrong type');
  // On the embedded database (this process its only writer) an answer is kept until the next write
  // of any kind, so a revoked session or a disabled account is refused at once all the same; on
  // PostgreSQL every request asks (src/db/until-write.ts).
  const row = await activeSessions.get(deps.db, `${payload.user_id} ${payload.sid}`, () => findSessionAccount(deps.db, payload.user_id, payload.sid));
  if (!row) throw tokenNotValid('User is inactive or the session has ended');
  // STAFF_MFA=required holds for every request, not only at sign-in: a staff session that did not
  // pass a second factor (opened before the setting, or before the account became staff) is refused.
  if (isStaff(row) && !row.second_factor && deps.config.STAFF_MFA === 'required') throw tokenNotValid(SECOND_FACTOR_MISSING);
  return { id: row.id, email: row.email, sessionId: payload.sid, locale: row.locale, is_doctor: row.is_doctor, is_backoffice_admin: row.is_backoffice_admin, is_marketer: row.is_marketer, is_pharmacist: row.is_pharmacist, second_factor: row.second_factor };
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw tokenNotValid('Authorization header must contain two space-delimited values');
  return m[1];
}

/** The authenticated user inside a handler (set by the access control of src/http/access.ts). */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw notAuthenticated();
  return request.user;
}

/** OpenAPI security requirement for bearer routes: either of the two schemes (src/http/openapi.ts). */
export const bearerSecurity: Record<string, string[]>[] = [{ bearerAuth: [] }, { jwtAuth: [] }];
