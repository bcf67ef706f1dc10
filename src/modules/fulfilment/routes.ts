// The patient's orders and prescriptions (lists and the prescription PDF).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailSchema, TokenErrorSchema, notFound } from '../../http/errors.ts';
import { orderBy, pageEnvelope, pageParams, pageSchema } from '../../http/pagination.ts';
import { prescriptionFile } from './documents.ts';
import { PRESCRIPTION_ORDERING, countPrescriptions, listOrders, pagePrescriptions } from './service.ts';
import { OrderSchema, PrescriptionSchema, toPrescription } from './schemas.ts';
import { reissueRoutes } from './reissue.routes.ts';
import { prescriptionRoutes } from './prescriptions.routes.ts';
import { staffSignatureRoutes } from './staff-signature.routes.ts';
import { notFoundDetail } from '../../http/operation.ts';

const IdParams = z.object({ id: z.uuid() });
const auth401 = { 401: TokenErrorSchema };

export default function fulfilmentModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = deps.config.PUBLIC_BASE_URL;
  reissueRoutes(app, deps);
  prescriptionRoutes(app, deps);
  staffSignatureRoutes(app, deps);

  r.get(
    '/v1/users/orders/',
    {
      config: {
        operation: { id: 'listOrders', descriptions: { 200: 'Every order (bare array, not paginated)' } },
      },
      schema: { tags: ['billing'], summary: 'Orders of the account (bare array, newest first)', security: bearerSecurity, response: { 200: z.array(OrderSchema), ...auth401 } },
    },
    async (request) => await listOrders(deps.reader, currentUser(request).id),
  );

  r.get(
    '/v1/users/prescriptions/',
    {
      config: {
        operation: { id: 'listPrescriptions', descriptions: { 200: 'A page of prescriptions' } },
      },
      schema: { tags: ['billing'], summary: 'Prescriptions of the account, newest first', security: bearerSecurity, querystring: PRESCRIPTION_ORDERING.query, response: { 200: pageSchema(PrescriptionSchema), ...auth401 } },
    },
    async (request) => {
      const user = currentUser(request);
      const p = pageParams(request.query);
      const order = orderBy(request.query, PRESCRIPTION_ORDERING);
      const n = await countPrescriptions(deps.reader, user.id);
      const rows = await pagePrescriptions(deps.reader, user.id, p.limit, p.offset, order);
      return pageEnvelope(request, base, p, n, rows.map((row) => toPrescription(row, base)));
    },
  );

  r.get(
    '/v1/users/prescriptions/:id/pdf/',
    {
      config: {
        operation: {
          id: 'downloadPrescription',
          errors: { 404: [notFoundDetail] },
          binary: ['application/pdf'],
          descriptions: { 200: 'The prescription as a PDF document (`Content-Disposition: attachment`)' },
        },
      },
      schema: {
        tags: ['billing'],
        summary: 'A prescription as PDF',
        security: bearerSecurity,
        params: IdParams,
        response: { 200: z.unknown().meta({ description: 'PDF document (application/pdf)' }), ...auth401, 404: DetailSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const file = await prescriptionFile(deps.reader, deps.config, user.id, request.params.id);
      if (!file) throw notFound();
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${file.name}"`).send(file.data);
    },
  );
  return Promise.resolve();
}
