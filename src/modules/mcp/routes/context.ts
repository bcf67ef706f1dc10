// What the connector's route files share (docs/mcp.md): the typed router, the endpoints, the
// budgets, the OAuth JSON answer, the HTML page answer (CSP, framing) and the sign-in page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ZodApp } from '../../../http/plugin.ts';
import { randomToken } from '../../../lib/crypto.ts';
import { isMetadataUrl } from '../client-metadata.ts';
import * as oauth from '../oauth.ts';
import { GOOGLE_GSI_CLIENT, signInPage } from '../pages.ts';
import type { Deps } from '../../../deps.ts';

export const tags = ['mcp'];
export const OAuthErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() });
export const FormBody = z.record(z.string(), z.unknown()).optional();
export const Html = z.string().meta({ description: 'HTML page' });

export const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

export function cookies(request: FastifyRequest): Record<string, string> {
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
export const displayName = (client: oauth.ClientRow) => {
  if (!isMetadataUrl(client.id)) return client.client_name || client.id;
  const host = new URL(client.id).host;
  return client.client_name ? `${client.client_name} (${host})` : host;
};

/** A JSON-RPC tools/call request (the scope check runs before the SDK parses the body). */
export interface ToolCallMessage {
  method: 'tools/call';
  params?: { name?: unknown };
}
export const isToolCall = (msg: unknown): msg is ToolCallMessage =>
  typeof msg === 'object' && msg !== null && (msg as { method?: unknown }).method === 'tools/call';
/** A resources/read request: the patient's records, as the read tools (scope patient:read). */
export const isResourceRead = (msg: unknown): boolean => typeof msg === 'object' && msg !== null && (msg as { method?: unknown }).method === 'resources/read';

export const csrfCookieName = (requestId: string) => `mcp_csrf_${requestId.replace(/-/g, '').slice(0, 16)}`;

export function routeContext(app: ZodApp, deps: Deps) {
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
  return { app, deps, r, e, secure, mcpPath, allowedOrigins, toolBudget, clientToolBudget, tokenBudget, registerHostBudget, registerIpBudget, registerLoopbackBudget, authorizeBudget, oauthThrottle, oauthReply, page, googleClientId, googleBudget, signIn };
}
export type RouteContext = ReturnType<typeof routeContext>;
