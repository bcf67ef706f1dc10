// Metadata (RFC 9728, RFC 8414) and dynamic client registration (RFC 7591).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as oauth from '../oauth.ts';
import { PAGE_LOCALES } from '../pages.ts';
import { type RouteContext, tags, OAuthErrorSchema, FormBody } from './context.ts';

export function metadataRoutes(c: RouteContext): void {
  const { deps, r, mcpPath, registerHostBudget, registerIpBudget, registerLoopbackBudget, oauthThrottle, oauthReply } = c;
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

}
