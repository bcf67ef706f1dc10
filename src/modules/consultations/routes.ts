// The patient's consultations (registered by the billing module).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailSchema, TokenErrorSchema } from '../../http/errors.ts';
import { orderBy, pageEnvelope, pageParams, pageSchema } from '../../http/pagination.ts';
import { CONSULTATION_ORDERING, dataVersionOf, listForUser } from './service.ts';
import { ConsultationSchema } from './schemas.ts';
import { getConsultationForUser } from './service.ts';
import { notFoundDetail } from '../../http/operation.ts';

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function consultationRoutes(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // Answered pages by account and URL, served again while the account's data version is unchanged.
  const cache = deps.pageCache;
  // A computed page's cache slot, from the handler to onSend (which sees the serialised body).
  const toFile = new WeakMap<FastifyRequest, { key: string; version: string }>();
  r.get(
    '/v1/users/consultations/',
    {
      config: {
        operation: { id: 'listConsultations', descriptions: { 200: 'A page of consultations' } },
      },
      schema: { tags: ['consultations'], summary: 'Consultations of the account, newest first', security: bearerSecurity, querystring: CONSULTATION_ORDERING.query, response: { 200: pageSchema(ConsultationSchema), 401: TokenErrorSchema } },
      onSend: (request, reply, payload, done) => {
        const slot = toFile.get(request);
        if (cache && slot && request.method === 'GET' && reply.statusCode === 200 && typeof payload === 'string') {
          const body = Buffer.from(payload);
          cache.set(slot.key, slot.version, body);
          done(null, body);
          return;
        }
        done(null, payload);
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const p = pageParams(request.query);
      const order = orderBy(request.query, CONSULTATION_ORDERING);
      // The account id comes from the verified session: an entry is only ever served to its account.
      const key = `${user.id} ${request.url}`;
      if (cache) {
        const version = await dataVersionOf(deps.reader, user.id);
        const body = version === undefined ? undefined : cache.get(key, version);
        // Already serialised (under this route's schema, when it was filed): sent as the bytes they are.
        if (body) return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
      }
      // One statement for the page, its related records, the count, the user summary and the
      // version they were read at.
      const { count, results, dataVersion } = await listForUser(deps.reader, deps, user.id, p.limit, p.offset, order);
      if (cache && dataVersion !== undefined) toFile.set(request, { key, version: dataVersion });
      return pageEnvelope(request, deps.config.PUBLIC_BASE_URL, p, count, results);
    },
  );
  r.get(
    '/v1/users/consultations/:id/',
    {
      config: {
        operation: { id: 'getConsultation', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The consultation' } },
      },
      schema: { tags: ['consultations'], summary: 'One consultation of the account', security: bearerSecurity, params: z.object({ id: z.uuid() }), response: { 200: ConsultationSchema, 401: TokenErrorSchema, 404: DetailSchema } },
    },
    async (request) => getConsultationForUser(deps, currentUser(request).id, request.params.id),
  );
  return Promise.resolve();
}
