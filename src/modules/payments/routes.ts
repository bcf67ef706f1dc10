// The patient's payments and their invoices (PDF).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailSchema, TokenErrorSchema, notFound } from '../../http/errors.ts';
import { orderBy, pageEnvelope, pageParams, pageSchema } from '../../http/pagination.ts';
import { invoiceFile } from './documents.ts';
import { PAYMENT_ORDERING, countPayments, pagePayments } from './service.ts';
import { PaymentSchema, toPayment } from './schemas.ts';
import { notFoundDetail } from '../../http/operation.ts';

const IdParams = z.object({ id: z.uuid() });
const auth401 = { 401: TokenErrorSchema };

export default function paymentsModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = deps.config.PUBLIC_BASE_URL;

  r.get(
    '/v1/users/payments/',
    {
      config: {
        operation: { id: 'listPayments', descriptions: { 200: 'A page of payments' } },
      },
      schema: {
        tags: ['billing'],
        summary: 'Payments of the account, newest first',
        security: bearerSecurity,
        querystring: PAYMENT_ORDERING.query,
        response: { 200: pageSchema(PaymentSchema), ...auth401 },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const p = pageParams(request.query);
      const order = orderBy(request.query, PAYMENT_ORDERING);
      const n = await countPayments(deps.reader, user.id);
      const rows = await pagePayments(deps.reader, user.id, order, p.limit, p.offset);
      return pageEnvelope(request, base, p, n, rows.map((row) => toPayment(row, user.email, base)));
    },
  );

  r.get(
    '/v1/users/payments/:id/invoice/',
    {
      config: {
        operation: {
          id: 'downloadInvoice',
          errors: { 404: [notFoundDetail] },
          binary: ['application/pdf'],
          descriptions: { 200: 'The invoice as a PDF document (`Content-Disposition: attachment`)' },
        },
      },
      schema: {
        tags: ['billing'],
        summary: 'Invoice of a payment (PDF)',
        description: 'application/pdf, Content-Disposition attachment. Seller, patient (with country), line item, service period, VAT treatment (exempt medical care), amounts and refunds; fonts cover Latin, Greek and Cyrillic.',
        security: bearerSecurity,
        params: IdParams,
        response: { 200: z.unknown().meta({ description: 'PDF document (application/pdf)' }), ...auth401, 404: DetailSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const file = await invoiceFile(deps.reader, deps.config, user.id, request.params.id);
      if (!file) throw notFound();
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${file.name}"`).send(file.data);
    },
  );
  return Promise.resolve();
}
