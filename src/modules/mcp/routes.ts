// The assistant connector (docs/mcp.md): the MCP endpoint (Streamable HTTP, stateless, one McpServer
// per request), the OAuth 2.1 authorization server around it (metadata, registration, sign-in and
// consent pages, token, revocation) and the patient's list of connected apps.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Queryable } from '../../db/index.ts';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { ApiError, DetailSchema, UnauthorisedResponses, notFound } from '../../http/errors.ts';
import { orderBy, pageSchema, respondPage } from '../../http/pagination.ts';
import { randomToken } from '../../lib/crypto.ts';
import { checkCredentials, checkSecondFactor, googleAccount, onCredentialsRevoked } from '../accounts/index.ts';
import { isMetadataUrl } from './client-metadata.ts';
import * as oauth from './oauth.ts';
import { GOOGLE_GSI_CLIENT, PAGE_LOCALES, asLocale, consentPage, errorPage, pageLocale, signInPage, type ErrorKey, type PageLocale } from './pages.ts';
import * as repo from './repository.ts';
import { ConnectedAppSchema } from './schemas.ts';
import { deliverResponses, elicitsForms, onlyResponses, routeServerRequests } from './confirmation.ts';
import { CONFIRMING_TOOLS, TOOL_SCOPES, buildServer } from './tools.ts';

const tags = ['mcp'];
const OAuthErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() });
const FormBody = z.record(z.string(), z.unknown()).optional();
const Html = z.string().meta({ description: 'HTML page' });

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

function cookies(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/**
 * The client as the pages name it. A metadata-document client chose its own name, so the host that
 * serves its document (the identity that was actually checked) is shown next to it.
 */
const displayName = (client: repo.ClientRow) => {
  if (!isMetadataUrl(client.id)) return client.client_name || client.id;
  const host = new URL(client.id).host;
  return client.client_name ? `${client.client_name} (${host})` : host;
};

/** A JSON-RPC tools/call request (the scope check runs before the SDK parses the body). */
interface ToolCallMessage {
  method: 'tools/call';
  params?: { name?: unknown };
}
const isToolCall = (msg: unknown): msg is ToolCallMessage =>
  typeof msg === 'object' && msg !== null && (msg as { method?: unknown }).method === 'tools/call';
/** A resources/read request: the patient's records, as the read tools (scope patient:read). */
const isResourceRead = (msg: unknown): boolean => typeof msg === 'object' && msg !== null && (msg as { method?: unknown }).method === 'resources/read';

const revokeGrantsOnCredentials = async (q: Queryable, userId: string, reason: string) => {
  await repo.revokeAllGrantsForUser(q, userId, reason);
};

const csrfCookieName = (requestId: string) => `mcp_csrf_${requestId.replace(/-/g, '').slice(0, 16)}`;

export default function mcpModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  // The connector's protocol endpoints (MCP, OAuth 2.1, RFC 8414/9728 metadata) follow their own
  // specifications and describe themselves (the metadata documents); docs/mcp.md explains them. They
  // stay out of the patient REST API document; connected apps (/v1/) are in it.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/')) route.schema = { ...(route.schema ?? {}), hide: true };
  });
  const r = app.withTypeProvider<ZodTypeProvider>();
  const e = oauth.endpoints(deps);
  const secure = e.issuer.startsWith('https:');
  const mcpPath = new URL(deps.config.MCP_PUBLIC_URL).pathname.replace(/\/$/, '') || '/mcp';
  const allowedOrigins = new Set([new URL(deps.config.PUBLIC_BASE_URL).origin, new URL(deps.config.MCP_PUBLIC_URL).origin, ...deps.config.MCP_ALLOWED_ORIGINS]);
  // Tool calls: a budget per patient of a client (the grant), under a larger ceiling per client
  // (every patient of one assistant platform shares its client).
  const toolBudget = deps.limiters.budget('mcp-tool-calls-grant', deps.config.MCP_TOOL_CALLS_PER_MINUTE, 60);
  const clientToolBudget = deps.limiters.budget('mcp-tool-calls-client', deps.config.MCP_CLIENT_TOOL_CALLS_PER_MINUTE, 60);
  const tokenBudget = deps.limiters.budget('mcp-token-ip', 120, 60);
  // Registrations: per redirect host (a platform registers per patient from shared addresses, all
  // with its own redirect host), with a per-address ceiling ten times that; a client that only has
  // loopback redirect URIs (a native app on the patient's machine) counts per address, 30 an hour.
  const registerHostBudget = deps.limiters.budget('mcp-register-host', deps.config.MCP_REGISTRATIONS_PER_HOUR, 3600);
  const registerIpBudget = deps.limiters.budget('mcp-register-ip-ceiling', deps.config.MCP_REGISTRATIONS_PER_HOUR * 10, 3600);
  const registerLoopbackBudget = deps.limiters.budget('mcp-register-ip', 30, 3600);
  const authorizeBudget = deps.limiters.budget('mcp-authorize-ip', 120, 60);

  // A password change or reset, a disable (back office or CLI), an MFA reset or an erasure ends
  // every session of the account in the accounts module: every connector grant ends with them.
  onCredentialsRevoked(revokeGrantsOnCredentials);
  deps.scheduler.register('mcp.purge-expired', () => repo.purgeExpired(deps.db, deps.clock.now()));
  // Registrations never used for a grant are deleted a day after they were made (docs/mcp.md).
  deps.scheduler.register('mcp.expire-unused-clients', async () => {
    const n = await repo.deleteUnusedClients(deps.db, new Date(deps.clock.now().getTime() - oauth.UNUSED_CLIENT_TTL_SECONDS * 1000));
    if (n > 0) deps.log.info({ clients: n }, 'mcp: unused client registrations deleted');
  });
  // CORS of the connector (the app's own CORS is same-origin by default): browser-based clients such
  // as the MCP Inspector call the metadata, registration, token and revocation endpoints from any
  // origin (no cookies involved, as the SDK's own router allows), and /mcp from the origins that the
  // Origin check accepts. They must be able to read the challenge and protocol headers.
  const mcpOriginAllowed = (origin: string) => allowedOrigins.has(origin) || LOOPBACK_ORIGIN.test(origin);
  const OPEN_PATHS = new Set(['/oauth/token', '/oauth/register', '/oauth/revoke', '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${mcpPath}`]);
  const corsOrigin = (request: FastifyRequest): string | undefined => {
    const origin = request.headers.origin;
    if (!origin) return undefined;
    const path = (request.url.split('?')[0] ?? '').replace(/(.)\/$/, '$1');
    if (path === '/mcp') return mcpOriginAllowed(origin) ? origin : undefined;
    return OPEN_PATHS.has(path) ? '*' : undefined;
  };
  app.addHook('onRequest', async (request, reply) => {
    const allow = corsOrigin(request);
    if (!allow) return;
    reply.header('access-control-allow-origin', allow);
    if (allow !== '*') reply.header('vary', 'Origin');
    reply.header('access-control-expose-headers', 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After, X-Request-Id');
  });
  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!corsOrigin(request)) return reply.code(204).send();
    return reply
      .code(204)
      .header('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS')
      .header('access-control-allow-headers', 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID')
      .header('access-control-max-age', '600')
      .send();
  };
  for (const path of ['/mcp', ...OPEN_PATHS]) app.options(path, { schema: { hide: true } }, preflight);

  const oauthThrottle = (seconds: number) =>
    new oauth.OAuthError(429, 'slow_down', `Too many requests. Try again in ${Math.max(1, Math.ceil(seconds))} seconds.`);

  async function oauthReply(reply: FastifyReply, fn: () => Promise<unknown>, okStatus = 200) {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    try {
      return reply.code(okStatus).send(await fn());
    } catch (err) {
      if (err instanceof oauth.OAuthError) {
        if (err.status === 401) reply.header('www-authenticate', 'Basic realm="oauth"');
        if (err.status === 429) reply.header('retry-after', '60');
        return reply.code(err.status).send(err.body());
      }
      throw err;
    }
  }

  function page(reply: FastifyReply, status: number, html: string, formTarget?: string, googleNonce?: string) {
    const formAction = ["'self'", formTarget].filter(Boolean).join(' ');
    // With the Google button the page runs Google Identity Services (its script, its iframe, its
    // style sheet and its calls, as Google documents them) and its own one-line callback, by nonce.
    const google = googleNonce
      ? `; script-src 'nonce-${googleNonce}' ${GOOGLE_GSI_CLIENT}; frame-src ${GSI}; connect-src ${GSI}`
      : '';
    const styles = googleNonce ? `'unsafe-inline' ${GSI}style` : "'unsafe-inline'";
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .header('content-security-policy', `default-src 'none'; style-src ${styles}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'${google}`)
      .send(html);
  }

  // Google sign-in on the sign-in page when the service has Google sign-in (GOOGLE_CLIENT_IDS; the
  // first id is the web client the button uses, as for the web app).
  const GSI = 'https://accounts.google.com/gsi/';
  const googleClientId = deps.config.GOOGLE_CLIENT_IDS[0];
  const googleBudget = deps.limiters.budget('mcp-google-ip', 30, 60);
  /** The sign-in page, with the Google button (and its CSP) when configured. */
  const signIn = (reply: FastifyReply, status: number, view: Omit<Parameters<typeof signInPage>[0], 'google'>) => {
    const nonce = googleClientId ? randomToken(16) : undefined;
    return page(reply, status, signInPage({ ...view, ...(nonce && googleClientId ? { google: { clientId: googleClientId, nonce } } : {}) }), undefined, nonce);
  };

  // ------------------------------------------------------------ metadata (RFC 9728, RFC 8414)

  const prm = { schema: { tags, summary: 'OAuth protected resource metadata of the MCP endpoint (RFC 9728)', security: [], response: { 200: z.object({ resource: z.string() }).catchall(z.unknown()) } } };
  const prmHandler = async (_req: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'public, max-age=300');
    return oauth.protectedResourceMetadata(deps);
  };
  r.get(`/.well-known/oauth-protected-resource${mcpPath}`, prm, prmHandler);
  r.get('/.well-known/oauth-protected-resource', prm, prmHandler);
  r.get(
    '/.well-known/oauth-authorization-server',
    { schema: { tags, summary: 'OAuth authorization server metadata (RFC 8414)', security: [], response: { 200: z.object({ issuer: z.string() }).catchall(z.unknown()) } } },
    async (_req, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return oauth.authorizationServerMetadata(deps, PAGE_LOCALES);
    },
  );

  // ------------------------------------------------------------ registration (RFC 7591)

  r.post(
    '/oauth/register',
    {
      schema: {
        tags,
        summary: 'Dynamic client registration (RFC 7591)',
        description: 'redirect_uris must be https, or http on a loopback address; token_endpoint_auth_method none, client_secret_post or client_secret_basic.',
        security: [],
        body: FormBody,
        response: { 201: z.object({ client_id: z.string() }).catchall(z.unknown()), 400: OAuthErrorSchema, 429: OAuthErrorSchema },
      },
    },
    async (request, reply) =>
      oauthReply(
        reply,
        async () => {
          return oauth.registerClient(deps, request.body, async (hosts) => {
            if (hosts.length === 0) return registerLoopbackBudget.consume(request.ip, oauthThrottle);
            await registerIpBudget.consume(request.ip, oauthThrottle);
            for (const host of hosts) await registerHostBudget.consume(host, oauthThrottle);
          });
        },
        201,
      ),
  );

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
      if (user.is_doctor || user.is_backoffice_admin || user.is_marketer || user.is_pharmacist) return again(403, 'staff');
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
      await repo.setAuthRequestUser(deps.db, row.id, user.id);
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

  // ------------------------------------------------------------ token and revocation

  const TokenResponse = z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), refresh_token: z.string(), scope: z.string() });
  r.post(
    '/oauth/token',
    {
      schema: {
        tags,
        summary: 'Token endpoint: authorization_code (with PKCE code_verifier) and refresh_token grants; refresh tokens rotate',
        security: [],
        body: FormBody,
        response: { 200: TokenResponse, 400: OAuthErrorSchema, 401: OAuthErrorSchema, 429: OAuthErrorSchema },
      },
    },
    async (request, reply) =>
      oauthReply(reply, async () => {
        await tokenBudget.consume(request.ip, oauthThrottle);
        return oauth.tokenRequest(deps, request.body ?? {}, request.headers.authorization);
      }),
  );

  r.post(
    '/oauth/revoke',
    {
      schema: {
        tags,
        summary: 'Token revocation (RFC 7009): a refresh token ends its whole grant',
        security: [],
        body: FormBody,
        response: { 200: z.object({}), 400: OAuthErrorSchema, 401: OAuthErrorSchema },
      },
    },
    async (request, reply) =>
      oauthReply(reply, async () => {
        await oauth.revokeRequest(deps, request.body ?? {}, request.headers.authorization);
        return {};
      }),
  );

  // ------------------------------------------------------------ the MCP endpoint

  const challenge = (error?: { code: string; description: string }) =>
    [
      'Bearer',
      // The scope to ask for (MCP authorization 2025-11-25, scope selection): every connector scope.
      [error ? `error="${error.code}", error_description="${error.description}"` : '', `resource_metadata="${e.resourceMetadata}"`, `scope="${oauth.SCOPES.join(' ')}"`].filter(Boolean).join(', '),
    ].join(' ');

  async function mcpAuth(request: FastifyRequest, reply: FastifyReply): Promise<oauth.McpAuth | undefined> {
    const origin = request.headers.origin;
    if (origin && !allowedOrigins.has(origin) && !LOOPBACK_ORIGIN.test(origin)) {
      reply.code(403).send({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Origin not allowed.' }, id: null });
      return undefined;
    }
    const header = request.headers.authorization;
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) {
      reply.code(401).header('www-authenticate', challenge()).send({ error: 'invalid_token', error_description: 'Authorization required.' });
      return undefined;
    }
    const auth = await oauth.verifyMcpToken(deps, m[1] ?? '');
    if (!auth) {
      reply
        .code(401)
        .header('www-authenticate', challenge({ code: 'invalid_token', description: 'The access token is invalid, expired, revoked or not for this resource.' }))
        .send({ error: 'invalid_token', error_description: 'The access token is invalid, expired, revoked or not for this resource.' });
      return undefined;
    }
    return auth;
  }

  const McpBody = z.unknown().meta({ description: 'A JSON-RPC message or batch (Model Context Protocol, Streamable HTTP)' });
  const mcpSchema = (summary: string) => ({
    tags,
    summary,
    description: `Bearer token from ${e.token} (resource ${deps.config.MCP_PUBLIC_URL}); 401 carries WWW-Authenticate with resource_metadata; 403 insufficient_scope names the scope to ask for.`,
    security: [],
  });

  r.post(
    '/mcp',
    {
      schema: {
        ...mcpSchema('MCP endpoint (Streamable HTTP, stateless)'),
        body: McpBody,
        response: { 200: z.unknown(), 202: z.unknown(), 401: OAuthErrorSchema, 403: z.unknown(), 404: z.unknown(), 429: z.unknown() },
      },
    },
    async (request, reply) => {
      const auth = await mcpAuth(request, reply);
      if (!auth) return reply;
      const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
      const calls = messages.filter(isToolCall);
      const reads = messages.filter(isResourceRead);
      for (const call of [...calls, ...reads.map(() => ({ params: { name: 'resources/read' } }))]) {
        const name = String(call.params?.name);
        const needed = name === 'resources/read' ? 'patient:read' : TOOL_SCOPES.get(name);
        if (needed && !auth.scopes.includes(needed)) {
          const scope = [...new Set([...auth.scopes, needed])].join(' ');
          return reply
            .code(403)
            .header('www-authenticate', `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${e.resourceMetadata}", error_description="The ${name} tool needs the ${needed} scope."`)
            .send({ error: 'insufficient_scope', error_description: `The ${name} tool needs the ${needed} scope.` });
        }
      }
      // Resource reads count like tool calls.
      for (let i = 0; i < calls.length + reads.length; i++) {
        let who = 'for this patient';
        try {
          await toolBudget.consume(auth.grantId);
          who = 'from this assistant';
          await clientToolBudget.consume(auth.clientId);
        } catch (err) {
          if (err instanceof ApiError && err.status === 429) {
            for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
            return reply.code(429).send({ jsonrpc: '2.0', error: { code: -32000, message: `Too many tool calls ${who}; try again later.` }, id: null });
          }
          throw err;
        }
      }
      // The client answering a request of the server (an elicitation of a waiting tool call): handed
      // to that call when it waits in this process for this grant (docs/mcp.md, "Steps behind a confirmation").
      if (onlyResponses(messages)) {
        if (deliverResponses(auth.grantId, messages)) return reply.code(202).send();
        return reply.code(404).send({ jsonrpc: '2.0', error: { code: -32001, message: 'No tool call of this connection is waiting for this answer (it ended, or timed out).' }, id: null });
      }
      // The capabilities of `initialize` are kept on the grant: later (stateless) requests need `elicitation`.
      const init = messages.find((m): m is { method: 'initialize'; params?: { capabilities?: unknown } } => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
      if (init) {
        const caps = init.params?.capabilities;
        await repo.setGrantCapabilities(deps.db, auth.userId, auth.grantId, caps && typeof caps === 'object' && !Array.isArray(caps) ? (caps as Record<string, unknown>) : {});
      }
      const confirming = calls.some((c) => CONFIRMING_TOOLS.has(String(c.params?.name)));
      const elicits = confirming && elicitsForms(await repo.grantCapabilities(deps.db, auth.userId, auth.grantId));
      const server = buildServer(
        deps,
        auth,
        (tool, outcome) => repo.recordToolCall(deps.db, { userId: auth.userId, clientId: auth.clientId, grantId: auth.grantId, tool, outcome, at: deps.clock.now() }),
        { elicits },
      );
      // JSON answers, except for a confirming call of a client that elicits: its answer is an SSE
      // stream that can carry the elicitation request before the result.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !elicits });
      const unroute = elicits ? routeServerRequests(transport, auth.grantId) : () => undefined;
      await server.connect(transport);
      reply.raw.on('close', () => {
        unroute();
        void transport.close();
        void server.close();
      });
      // The transport writes the answer itself: keep the headers set so far (request id, CORS).
      for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v);
      reply.raw.setHeader('cache-control', 'no-store');
      reply.hijack();
      const raw = request.raw as typeof request.raw & { auth?: AuthInfo };
      raw.auth = { token: auth.token, clientId: auth.clientId, scopes: auth.scopes, expiresAt: auth.expiresAt, resource: new URL(deps.config.MCP_PUBLIC_URL) };
      await transport.handleRequest(raw, reply.raw, request.body);
      return reply;
    },
  );

  const notAllowed = async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = await mcpAuth(request, reply);
    if (!auth) return reply;
    return reply
      .code(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless (POST only, no SSE stream, no session).' }, id: null });
  };
  r.get('/mcp', { schema: { ...mcpSchema('MCP endpoint: no server-initiated stream (405)'), response: { 401: OAuthErrorSchema, 403: z.unknown(), 405: z.unknown() } } }, notAllowed);
  r.delete('/mcp', { schema: { ...mcpSchema('MCP endpoint: no session to end (405)'), response: { 401: OAuthErrorSchema, 403: z.unknown(), 405: z.unknown() } } }, notAllowed);

  // ------------------------------------------------------------ connected apps (the patient's view)

  const appOut = (g: repo.ConnectedAppRow) => ({
    id: g.id,
    client_id: g.client_id,
    client_name: g.client_name || g.client_id,
    redirect_hosts: [...new Set(g.redirect_uris.map((u) => new URL(u).host))],
    scopes: g.scopes.split(' ').filter(Boolean),
    created_at: new Date(g.created_at).toISOString(),
    last_used_at: g.last_used_at ? new Date(g.last_used_at).toISOString() : null,
  });

  r.get(
    '/v1/users/connected-apps/',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Assistants connected to the account through the MCP connector, newest first',
        security: bearerSecurity,
        querystring: repo.GRANT_ORDERING.query,
        response: { 200: pageSchema(ConnectedAppSchema), ...UnauthorisedResponses },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const order = orderBy(request.query, repo.GRANT_ORDERING);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, async ({ limit, offset }) => ({
        count: await repo.countLiveGrants(deps.db, user.id),
        results: (await repo.pageLiveGrants(deps.db, user.id, limit, offset, order)).map(appOut),
      }));
    },
  );

  r.delete(
    '/v1/users/connected-apps/:id/',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Disconnect an assistant: its tokens stop working at once',
        security: bearerSecurity,
        params: z.object({ id: z.uuid() }),
        response: { 204: z.null(), ...UnauthorisedResponses, 404: DetailSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const done = await deps.db.tx((q) => repo.revokeOwnGrant(q, user.id, request.params.id));
      if (!done) throw notFound();
      return reply.code(204).send(null);
    },
  );
  return Promise.resolve();
}
