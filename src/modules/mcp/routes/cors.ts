// CORS of the connector: /mcp for the origins the Origin check accepts, the OAuth endpoints for any origin.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RouteContext, LOOPBACK_ORIGIN } from './context.ts';

export function corsRoutes(c: RouteContext): void {
  const { app, mcpPath, allowedOrigins } = c;
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
}
