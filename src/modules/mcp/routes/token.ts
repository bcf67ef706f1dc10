// The token endpoint and revocation (RFC 7009).
import { z } from 'zod';
import * as oauth from '../oauth.ts';
import { type RouteContext, tags, OAuthErrorSchema, FormBody } from './context.ts';

export function tokenRoutes(c: RouteContext): void {
  const { deps, r, tokenBudget, oauthThrottle, oauthReply } = c;
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

}
