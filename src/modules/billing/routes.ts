// The billing module: checkout, session checks, payments, invoices, orders, prescriptions and the
// patient's consultations; the sandbox checkout pages; the Stripe webhook; the recurring-charge job.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, ErrorNameSchema, FieldErrorsSchema, TokenErrorSchema, notFound } from '../../http/errors.ts';
import { PageQuery, pageEnvelope, pageParams, pageSchema } from '../../http/pagination.ts';
import { providerFor } from '../../payments/index.ts';
import { registerSandboxPages } from '../../payments/sandbox-pages.ts';
import { registerStripeWebhook } from '../../payments/stripe-webhook.ts';
import consultationRoutes from '../consultations/routes.ts';
import { toPrescription } from '../consultations/repository.ts';
import { PrescriptionSchema } from '../consultations/schemas.ts';
import { OrderSchema, listOrders } from './orders.ts';
import { PaymentSchema, toPayment } from './payments.ts';
import { countPayments, countPrescriptions, pagePayments, pagePrescriptions, paymentForInvoice, paymentOrder, prescriptionForPdf } from './repository.ts';
import { invoiceDataFrom, invoicePdf, prescriptionPdf, sellerFrom } from './pdf.ts';
import { CheckoutBody, CheckoutResponse, SessionResponse } from './schemas.ts';
import { assertProfileComplete } from './profile-check.ts';
import { billingPortal, checkSession, checkout, expireSessions, finaliseInTx, runDueCharges } from './service.ts';

const IdParams = z.object({ id: z.uuid() });
const auth401 = { 401: TokenErrorSchema };

export default async function billingModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = deps.config.PUBLIC_BASE_URL;

  deps.scheduler.register('billing.recurring-charges', () => runDueCharges(deps));
  deps.scheduler.register('billing.expire-checkout-sessions', () => expireSessions(deps));

  r.post(
    '/v1/users/checkout/',
    {
      // The profile check runs before the body is validated: PROFILE_INCOMPLETE comes first.
      preValidation: async (request) => assertProfileComplete(deps.db, currentUser(request).id),
      schema: {
        tags: ['billing'],
        summary: 'Start a checkout for a consultation',
        description:
          'Refusals, in order: 400 PROFILE_INCOMPLETE {error_name, missing_fields}; 400 field errors; 400 SUBMISSION_REQUIRED (no submitted questionnaire in the category); 400 SUBMISSION_NOT_ELIGIBLE {outcome} (latest submission ineligible or emergency); 400 PLAN_NOT_AVAILABLE; 409 CONSULTATION_ALREADY_OPEN {consultation_id}; 409 SUBMISSION_ALREADY_USED {consultation_id} (the latest submission already has a consultation: submit again). Success: checkout_url + session_id of the provider page, or covered_by_subscription true with the consultation created at once. See docs/billing.md.',
        security: bearerSecurity,
        body: CheckoutBody,
        response: { 200: CheckoutResponse, 400: z.union([ErrorNameSchema, FieldErrorsSchema]), ...auth401, 409: ErrorNameSchema },
      },
    },
    async (request) => {
      const user = currentUser(request);
      return checkout(deps, { id: user.id, email: user.email }, request.body);
    },
  );

  for (const provider of ['sandbox', 'stripe'] as const) {
    r.get(
      `/v1/users/${provider}/session/:id/`,
      {
        schema: {
          tags: ['billing'],
          summary: `State of a ${provider} checkout session`,
          description: `A paid session is finalised here if the provider webhook has not done it yet (exactly one consultation and payment per session). Unknown, another account's, or another provider's session: 404 {detail, code: "${provider}_session_not_found"}.`,
          security: bearerSecurity,
          params: z.object({ id: z.string() }),
          response: { 200: SessionResponse, ...auth401, 404: DetailCodeSchema },
        },
      },
      async (request) => checkSession(deps, currentUser(request).id, provider, request.params.id),
    );
  }

  r.post(
    '/v1/users/billing-portal/',
    {
      schema: {
        tags: ['billing'],
        summary: "Link to the payment provider's billing portal",
        description:
          'Where the patient updates the card of their plan (Stripe customer portal). `url` is null when the account has no live plan or the provider has no portal (sandbox). `return_url`: where the portal sends the patient back.',
        security: bearerSecurity,
        body: z.object({ return_url: z.string().max(2000).optional() }).optional(),
        response: { 200: z.object({ url: z.string().nullable(), provider: z.string().nullable() }), 400: FieldErrorsSchema, ...auth401 },
      },
    },
    async (request) => billingPortal(deps, currentUser(request).id, request.body?.return_url),
  );

  r.get(
    '/v1/users/payments/',
    {
      schema: {
        tags: ['billing'],
        summary: 'Payments of the account, newest first',
        description: 'Ordering: `ordering=created_at|-created_at|amount_cents|-amount_cents` (default -created_at).',
        security: bearerSecurity,
        querystring: PageQuery,
        response: { 200: pageSchema(PaymentSchema), ...auth401 },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const p = pageParams(request.query);
      const n = await countPayments(deps.db, user.id);
      const rows = await pagePayments(deps.db, user.id, paymentOrder(request.query.ordering), p.limit, p.offset);
      return pageEnvelope(request, base, p, n, rows.map((row) => toPayment(row, user.email, base)));
    },
  );

  r.get(
    '/v1/users/payments/:id/invoice/',
    {
      schema: {
        tags: ['billing'],
        summary: 'Invoice of a payment (PDF)',
        description: 'application/pdf, Content-Disposition attachment. Seller, patient (with country), line item, service period, VAT treatment (exempt medical care), amounts and refunds; fonts cover Latin, Greek and Cyrillic.',
        security: bearerSecurity,
        params: IdParams,
        response: { 200: z.any().meta({ description: 'PDF document (application/pdf)' }), ...auth401, 404: DetailSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const p = await paymentForInvoice(deps.db, user.id, request.params.id);
      if (!p) throw notFound();
      const data = invoiceDataFrom(p, sellerFrom(deps.config));
      const { number } = data;
      const pdf = await invoicePdf(data);
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="invoice-${number.replace(/[^A-Za-z0-9-]/g, '')}.pdf"`).send(pdf);
    },
  );

  r.get(
    '/v1/users/orders/',
    {
      schema: { tags: ['billing'], summary: 'Orders of the account (bare array, newest first)', security: bearerSecurity, response: { 200: z.array(OrderSchema), ...auth401 } },
    },
    async (request) => listOrders(deps.db, currentUser(request).id),
  );

  r.get(
    '/v1/users/prescriptions/',
    {
      schema: { tags: ['billing'], summary: 'Prescriptions of the account, newest first', security: bearerSecurity, querystring: PageQuery, response: { 200: pageSchema(PrescriptionSchema), ...auth401 } },
    },
    async (request) => {
      const user = currentUser(request);
      const p = pageParams(request.query);
      const n = await countPrescriptions(deps.db, user.id);
      const rows = await pagePrescriptions(deps.db, user.id, p.limit, p.offset);
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
      const rx = await prescriptionForPdf(deps.db, user.id, request.params.id);
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
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="prescription-${String(rx.id).slice(0, 8)}.pdf"`).send(pdf);
    },
  );

  await consultationRoutes(app, { deps });

  registerSandboxPages(app, deps, async (sessionId) => {
    const state = await providerFor(deps, 'sandbox').retrieveSession(deps.db, sessionId);
    if (state) await deps.db.tx((q) => finaliseInTx(deps, q, sessionId, state));
  });
  registerStripeWebhook(app, deps);
}
