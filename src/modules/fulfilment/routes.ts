// The patient's orders and prescriptions (lists and the prescription PDF).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailSchema, TokenErrorSchema, notFound } from '../../http/errors.ts';
import { orderBy, pageEnvelope, pageParams, pageSchema } from '../../http/pagination.ts';
import { prescriptionPdf, sellerFrom } from '../../lib/pdf.ts';
import { PRESCRIPTION_ORDERING, countPrescriptions, ordersOf, pagePrescriptions, prescriptionForPdf } from './repository.ts';
import { OrderSchema, PrescriptionSchema, toOrder, toPrescription } from './schemas.ts';
import { reissueRoutes } from './reissue.routes.ts';

const IdParams = z.object({ id: z.uuid() });
const auth401 = { 401: TokenErrorSchema };

export default function fulfilmentModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = deps.config.PUBLIC_BASE_URL;
  reissueRoutes(app, deps);

  r.get(
    '/v1/users/orders/',
    {
      schema: { tags: ['billing'], summary: 'Orders of the account (bare array, newest first)', security: bearerSecurity, response: { 200: z.array(OrderSchema), ...auth401 } },
    },
    async (request) => (await ordersOf(deps.reader, currentUser(request).id)).map(toOrder),
  );

  r.get(
    '/v1/users/prescriptions/',
    {
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
      schema: {
        tags: ['billing'],
        summary: 'A prescription as PDF',
        security: bearerSecurity,
        params: IdParams,
        response: { 200: z.any().meta({ description: 'PDF document (application/pdf)' }), ...auth401, 404: DetailSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const rx = await prescriptionForPdf(deps.reader, user.id, request.params.id);
      if (!rx) throw notFound();
      const pdf = await prescriptionPdf({
        id: rx.id,
        issuedAt: new Date(rx.issued_at),
        validUntil: rx.valid_until ? new Date(rx.valid_until) : null,
        seller: sellerFrom(deps.config),
        patient: { name: `${rx.patient_first_name} ${rx.patient_last_name}`.trim(), date_of_birth: rx.date_of_birth, email: rx.patient_email },
        doctor: { first_name: rx.doctor_first_name ?? '', last_name: rx.doctor_last_name ?? '', license: rx.doctor_license_number },
        treatment_name: rx.treatment_name,
        dosage: rx.dosage,
        supply_days: rx.supply_days,
        instructions: rx.instructions,
      });
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="prescription-${rx.id.slice(0, 8)}.pdf"`).send(pdf);
    },
  );
  return Promise.resolve();
}
