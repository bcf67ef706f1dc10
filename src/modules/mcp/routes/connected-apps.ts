// The patient’s connected assistants (/v1/): list and disconnect.
import { z } from 'zod';
import { bearerSecurity, currentUser } from '../../../http/auth.ts';
import { DetailSchema, UnauthorisedResponses, notFound } from '../../../http/errors.ts';
import { notFoundDetail } from '../../../http/operation.ts';
import { orderBy, pageSchema, respondPage } from '../../../http/pagination.ts';
import { ConnectedAppSchema } from '../schemas.ts';
import { GRANT_ORDERING, connectedAppsPage, disconnectApp } from '../service.ts';
import { type RouteContext } from './context.ts';

export function connectedAppsRoutes(c: RouteContext): void {
  const { deps, r } = c;
  // ------------------------------------------------------------ connected apps (the patient's view)

  r.get(
    '/v1/users/connected-apps/',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Assistants connected to the account through the MCP connector, newest first',
        security: bearerSecurity,
        querystring: GRANT_ORDERING.query,
        response: { 200: pageSchema(ConnectedAppSchema), ...UnauthorisedResponses },
      },
      config: { operation: { id: 'listConnectedApps', descriptions: { 200: 'The assistants connected to the account (docs/mcp.md)' } } },
    },
    async (request) => {
      const user = currentUser(request);
      const order = orderBy(request.query, GRANT_ORDERING);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => connectedAppsPage(deps, user.id, limit, offset, order));
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
      config: { operation: { id: 'disconnectApp', errors: { 404: [notFoundDetail] }, descriptions: { 204: 'Disconnected: its tokens stop working at once' } } },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const done = await disconnectApp(deps, user.id, request.params.id);
      if (!done) throw notFound();
      return reply.code(204).send(null);
    },
  );
}
