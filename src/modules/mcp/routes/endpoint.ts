// The MCP endpoint (Streamable HTTP, stateless): authentication, scopes, budgets, then the SDK.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../http/errors.ts';
import * as oauth from '../oauth.ts';
import { deliverResponses, elicitsForms, onlyResponses, routeServerRequests } from '../confirmation.ts';
import { capabilitiesOf, rememberCapabilities, toolCallRecorder } from '../service.ts';
import { buildServer } from '../server.ts';
import { CONFIRMING_TOOLS, TOOL_SCOPES } from '../tools/index.ts';
import { type RouteContext, tags, OAuthErrorSchema, LOOPBACK_ORIGIN, isToolCall, isResourceRead } from './context.ts';

export function endpointRoutes(c: RouteContext): void {
  const { deps, r, e, allowedOrigins, toolBudget, clientToolBudget } = c;
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
        await rememberCapabilities(deps, auth, caps && typeof caps === 'object' && !Array.isArray(caps) ? (caps as Record<string, unknown>) : {});
      }
      const confirming = calls.some((c) => CONFIRMING_TOOLS.has(String(c.params?.name)));
      const elicits = confirming && elicitsForms(await capabilitiesOf(deps, auth));
      const server = buildServer(deps, auth, toolCallRecorder(deps, auth), { elicits });
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
}
