// The authorization endpoint, the sign-in page (password or Google) and the consent page.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../http/errors.ts';
import { isStaff } from '../../../http/access.ts';
import { checkCredentials, checkSecondFactor, googleAccount } from '../../accounts/index.ts';
import * as oauth from '../oauth.ts';
import { asLocale, consentPage, errorPage, pageLocale, type ErrorKey, type PageLocale } from '../pages.ts';
import { type RouteContext, tags, Html, cookies, displayName, csrfCookieName } from './context.ts';

export function authorizeRoutes(c: RouteContext): void {
  const { deps, r, secure, authorizeBudget, page, googleClientId, googleBudget, signIn } = c;
  // ------------------------------------------------------------ authorization, sign-in, consent

  r.get(
    '/oauth/authorize',
    {
      schema: {
        tags,
        summary: 'Authorization endpoint: the sign-in page (HTML), or a redirect to the client with an error',
        description: 'response_type=code, PKCE S256 required, redirect_uri matched exactly, resource must be the MCP resource, ui_locales picks the page language.',
        security: [],
        querystring: z.object({
          response_type: z.string().optional(),
          client_id: z.string().optional(),
          redirect_uri: z.string().optional(),
          scope: z.string().optional(),
          state: z.string().max(2000).optional(),
          code_challenge: z.string().optional(),
          code_challenge_method: z.string().optional(),
          resource: z.union([z.string(), z.array(z.string())]).optional(),
          ui_locales: z.string().optional(),
        }),
        response: { 200: Html, 302: z.null(), 400: Html, 429: Html },
      },
    },
    async (request, reply) => {
      const locale = pageLocale(request.query.ui_locales, request.headers['accept-language']);
      // Each page opens a pending request row: a per-IP budget keeps that bounded.
      try {
        await authorizeBudget.consume(request.ip);
      } catch (err) {
        if (err instanceof ApiError && err.status === 429) return page(reply, 429, errorPage(locale, 'throttled'));
        throw err;
      }
      const outcome = await oauth.startAuthorization(deps, request.query, locale);
      if (outcome.kind === 'error-page') return page(reply, 400, errorPage(locale, outcome.message));
      if (outcome.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(outcome.location, 302);
      const maxAge = oauth.AUTH_REQUEST_TTL_SECONDS;
      reply.header('set-cookie', `${csrfCookieName(outcome.requestId)}=${outcome.csrf}; Path=/oauth; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
      return signIn(reply, 200, { locale, requestId: outcome.requestId, csrf: outcome.csrf, clientName: displayName(outcome.client) });
    },
  );

  const FormFields = z.object({ request: z.string().max(64).optional(), csrf: z.string().max(128).optional() }).catchall(z.unknown());

  async function pending(request: FastifyRequest) {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const id = typeof body.request === 'string' ? body.request : '';
    return oauth.pendingRequest(deps, id, body.csrf, id ? cookies(request)[csrfCookieName(id)] : undefined);
  }

  const errorCodeOf = (err: ApiError): string => (typeof err.body.code === 'string' ? err.body.code : '');
  type GoogleRefusal = 'throttled' | 'google_invalid' | 'google_link_not_allowed' | 'user_inactive';
  const GOOGLE_STATUS: Record<GoogleRefusal, number> = { throttled: 429, google_invalid: 401, google_link_not_allowed: 400, user_inactive: 403 };

  /**
   * Google sign-in with the accounts module's own rules (`googleAccount`: ID token verified against
   * Google's keys, audience and issuer; account found, linked or created exactly as for
   * /v1/users/google-login/; disabled refused). No /v1/ session is opened: the connector issues its
   * own grant. Staff are refused by the caller, as for the password form.
   */
  async function googleSignIn(request: FastifyRequest, credential: string, locale: PageLocale) {
    try {
      await googleBudget.consume(request.ip);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) return 'throttled' as const;
      throw err;
    }
    try {
      return await googleAccount(deps, credential, locale);
    } catch (err) {
      if (err instanceof ApiError) {
        const code = errorCodeOf(err);
        if (code === 'user_inactive') return 'user_inactive' as const;
        if (code === 'google_link_not_allowed') return 'google_link_not_allowed' as const;
        return 'google_invalid' as const;
      }
      throw err;
    }
  }

  r.post(
    '/oauth/sign-in',
    {
      schema: {
        tags,
        summary: 'Sign-in form of the authorization page (same account rules as /v1/users/token/); answers the consent page',
        security: [],
        body: FormFields.optional(),
        response: { 200: Html, 400: Html, 401: Html, 403: Html, 429: Html },
      },
    },
    async (request, reply) => {
      const found = await pending(request);
      const fallbackLocale = pageLocale(undefined, request.headers['accept-language']);
      if (!found) return page(reply, 400, errorPage(fallbackLocale, 'expired'));
      const { row, client } = found;
      const locale = asLocale(row.locale);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const email = typeof body.email === 'string' ? body.email.slice(0, 254) : '';
      const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
      const csrf = String(body.csrf);
      const clientName = displayName(client);
      const again = (status: number, error: ErrorKey) => signIn(reply, status, { locale, requestId: row.id, csrf, clientName, email, error });
      const credential = typeof body.credential === 'string' ? body.credential.slice(0, 8192) : '';
      let user: { id: string; email: string; is_doctor: boolean; is_backoffice_admin: boolean; is_marketer: boolean; is_pharmacist: boolean };
      if (credential && googleClientId && !email && !password) {
        const outcome = await googleSignIn(request, credential, locale);
        if (typeof outcome === 'string') {
          if (outcome === 'throttled') reply.header('retry-after', '60');
          return again(GOOGLE_STATUS[outcome], outcome);
        }
        user = outcome;
      } else {
        if (!email || !password) return again(401, 'invalid_credentials');
        try {
          user = await checkCredentials(deps, email, password, request.ip);
        } catch (err) {
          if (err instanceof ApiError) {
            const code = errorCodeOf(err);
            if (err.status === 429) {
              if (err.headers['retry-after']) reply.header('retry-after', err.headers['retry-after']);
              return again(429, 'throttled');
            }
            if (code === 'user_inactive') return again(403, 'user_inactive');
            if (code === 'google_account') return again(400, googleClientId ? 'google_account_button' : 'google_account');
            return again(401, 'invalid_credentials');
          }
          throw err;
        }
      }
      if (isStaff(user)) return again(403, 'staff');
      // An account with a second factor signs in here with it too, as through the API (docs/accounts.md).
      const code = typeof body.code === 'string' ? body.code.slice(0, 32) : '';
      let factor: 'none' | 'ok' | 'wrong';
      try {
        factor = await checkSecondFactor(deps, user.id, code, request.ip);
      } catch (err) {
        if (err instanceof ApiError && err.status === 429) {
          if (err.headers['retry-after']) reply.header('retry-after', err.headers['retry-after']);
          return again(429, 'throttled');
        }
        throw err;
      }
      if (factor === 'wrong') {
        return signIn(reply, 401, { locale, requestId: row.id, csrf, clientName, email, error: code ? 'invalid_mfa_code' : 'mfa_code_required', askCode: true });
      }
      await oauth.signedIn(deps, row.id, user.id);
      const redirectHost = new URL(row.redirect_uri).host;
      return page(
        reply,
        200,
        consentPage({ locale, requestId: row.id, csrf, clientName, redirectHost, scopes: row.scopes.split(' ') as oauth.Scope[], email: user.email }),
        new URL(row.redirect_uri).origin,
      );
    },
  );

  r.post(
    '/oauth/consent',
    {
      schema: {
        tags,
        summary: 'Consent form: Allow redirects to the client with a code, Deny with access_denied (both with state and iss)',
        security: [],
        body: FormFields.optional(),
        response: { 303: z.null(), 400: Html },
      },
    },
    async (request, reply) => {
      const found = await pending(request);
      const locale: PageLocale = found ? asLocale(found.row.locale) : pageLocale(undefined, request.headers['accept-language']);
      const decision = request.body?.decision;
      if (!found || !found.row.user_id || (decision !== 'allow' && decision !== 'deny')) return page(reply, 400, errorPage(locale, 'expired'));
      const location = await oauth.decide(deps, found.row, decision === 'allow');
      if (!location) return page(reply, 400, errorPage(locale, 'expired'));
      reply.header('set-cookie', `${csrfCookieName(found.row.id)}=; Path=/oauth; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
      return reply.header('cache-control', 'no-store').redirect(location, 303);
    },
  );

}
