// The patient's consultations (registered by the billing module).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailSchema, TokenErrorSchema } from '../../http/errors.ts';
import { PageQuery, pageEnvelope, pageParams, pageSchema } from '../../http/pagination.ts';
import { listForUser } from './repository.ts';
import { ConsultationSchema } from './schemas.ts';
import { getConsultationForUser } from './service.ts';

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function consultationRoutes(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/users/consultations/',
    {
      schema: { tags: ['consultations'], summary: 'Consultations of the account, newest first', security: bearerSecurity, querystring: PageQuery, response: { 200: pageSchema(ConsultationSchema), 401: TokenErrorSchema } },
    },
    async (request) => {
      const user = currentUser(request);
      const p = pageParams(request.query);
      // One statement for the page, its related records, the count and the user summary.
      const { count, results } = await listForUser(deps.db, deps, user.id, p.limit, p.offset);
      return pageEnvelope(request, deps.config.PUBLIC_BASE_URL, p, count, results);
    },
  );
  r.get(
    '/v1/users/consultations/:id/',
    {
      schema: { tags: ['consultations'], summary: 'One consultation of the account', security: bearerSecurity, params: z.object({ id: z.uuid() }), response: { 200: ConsultationSchema, 401: TokenErrorSchema, 404: DetailSchema } },
    },
    async (request) => getConsultationForUser(deps, currentUser(request).id, request.params.id),
  );
  return Promise.resolve();
}
