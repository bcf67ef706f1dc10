// The patient’s connected assistants (/v1/): list and disconnect.
import { z } from 'zod';
import { bearerSecurity, currentUser } from '../../../http/auth.ts';
import { DetailSchema, UnauthorisedResponses, notFound } from '../../../http/errors.ts';
import { orderBy, pageSchema, respondPage } from '../../../http/pagination.ts';
import * as repo from '../repository.ts';
import { ConnectedAppSchema } from '../schemas.ts';
import { type RouteContext } from './context.ts';

export function connectedAppsRoutes(c: RouteContext): void {
  const { deps, r } = c;
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
}
