// The assistant connector (docs/mcp.md): the MCP endpoint (Streamable HTTP, stateless, one McpServer
// per request), the OAuth 2.1 authorization server around it (metadata, registration, sign-in and
// consent pages, token, revocation) and the patient's list of connected apps. Each part is a file of
// routes/; what they share is routes/context.ts; the work outside requests is service.ts.
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { authorizeRoutes } from './routes/authorize.ts';
import { connectedAppsRoutes } from './routes/connected-apps.ts';
import { routeContext } from './routes/context.ts';
import { corsRoutes } from './routes/cors.ts';
import { endpointRoutes } from './routes/endpoint.ts';
import { metadataRoutes } from './routes/metadata.ts';
import { tokenRoutes } from './routes/token.ts';
import { startConnectorService } from './service.ts';

export default function mcpModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  // The connector's protocol endpoints (MCP, OAuth 2.1, RFC 8414/9728 metadata) follow their own
  // specifications and describe themselves (the metadata documents); docs/mcp.md explains them. They
  // stay out of the patient REST API document; connected apps (/v1/) are in it.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/')) route.schema = { ...(route.schema ?? {}), hide: true };
  });
  startConnectorService(deps);
  const c = routeContext(app, deps);
  corsRoutes(c);
  metadataRoutes(c);
  authorizeRoutes(c);
  tokenRoutes(c);
  endpointRoutes(c);
  connectedAppsRoutes(c);
  return Promise.resolve();
}
