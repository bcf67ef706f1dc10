// The web app's refresh token in a cookie (issue 43; docs/accounts.md, "The refresh cookie"): a
// script in the page (an XSS, a compromised dependency) cannot read an HttpOnly cookie, where it could
// read the 14-day refresh token from localStorage. The API keeps answering the token pair in JSON for
// every other client (spec: /v1/users/token/, /v1/users/token/refresh/).
//
// - A client opts in with the header `X-Session-Cookie: 1`. Every answer of the accounts module that
//   carries a refresh token (sign-in, the second step, enrolment, Google, refresh) then also sets
//   `pts_refresh=<token>; Path=/v1/users/token/refresh/; Max-Age=<REFRESH_TOKEN_TTL_SECONDS>; HttpOnly;
//   Secure; SameSite=Strict`: the browser sends it to the refresh endpoint only.
// - `POST /v1/users/token/refresh/` with no `refresh` in the body takes the cookie, and only with the
//   same header (a cross-site form or image cannot send a custom header, and a cross-origin script
//   that tries must pass CORS, which does not allow credentials): CSRF needs both to fail.
//   It rotates like a body token: the answer sets the new one; a used cookie ends the session.
// - Sign-out clears it (`Max-Age=0`), whatever the body.
import type { FastifyReply, FastifyRequest } from 'fastify';

export const REFRESH_COOKIE = 'pts_refresh';
export const REFRESH_COOKIE_PATH = '/v1/users/token/refresh/';
export const SESSION_COOKIE_HEADER = 'x-session-cookie';

/** The client asked for the cookie (and, on the refresh endpoint, proves it is not a cross-site form). */
export const wantsRefreshCookie = (request: FastifyRequest): boolean => request.headers[SESSION_COOKIE_HEADER] === '1';

export const refreshCookie = (token: string, maxAgeSeconds: number): string =>
  `${REFRESH_COOKIE}=${token}; Path=${REFRESH_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;

export const clearedRefreshCookie = (): string => `${REFRESH_COOKIE}=; Path=${REFRESH_COOKIE_PATH}; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;

/** The refresh token of the request's cookie, if any (a token is base64url/JWT text: no decoding). */
export function refreshFromCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === REFRESH_COOKIE) {
      const value = part.slice(at + 1).trim();
      return value && value.length <= 4096 ? value : undefined;
    }
  }
  return undefined;
}

/**
 * onSend: an answer (2xx) that carries a refresh token sets the cookie when the client opted in.
 * The JSON answer is left as it is (its schema is the contract for every client).
 */
export function setRefreshCookieOnSend(ttlSeconds: number) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void => {
    if (wantsRefreshCookie(request) && reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string' && payload.includes('"refresh"')) {
      try {
        const body = JSON.parse(payload) as unknown;
        const token = typeof body === 'object' && body !== null && 'refresh' in body ? body.refresh : undefined;
        if (typeof token === 'string' && token) reply.header('set-cookie', refreshCookie(token, ttlSeconds));
      } catch {
        /* not JSON: nothing to set */
      }
    }
    done(null, payload);
  };
}
