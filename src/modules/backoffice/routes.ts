// The back office (/v1/backoffice/, backoffice_admin only): find accounts, disable/enable them,
// refund payments. Every action is audit-logged.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { orderBy, pageSchema, respondPage } from '../../http/pagination.ts';
import { refundPayment } from '../checkout/index.ts';
import { refundUndeliverableOrder, routeOrderToPharmacy } from '../fulfilment/index.ts';
import { pharmacyById } from '../pharmacies/index.ts';
import { fieldErrors, notFound } from '../../http/errors.ts';
import { PaymentSchema, refundConsultationCharges, toPayment } from '../payments/index.ts';
import { logStaffRead } from '../audit/index.ts';
import { USER_SEARCH_ORDERING, userEmail } from './service.ts';
import { findUsers, setAccountActive } from './service.ts';
import { fields, notFoundDetail, type OperationDoc } from '../../http/operation.ts';

const IdParams = z.object({ id: z.uuid() });
const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };
const ts = z.iso.datetime({ offset: true });

const StaffUser = z
  .object({
    id: z.uuid(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    is_active: z.boolean(),
    email_verified: z.boolean(),
    disabled_at: ts.nullable(),
    is_doctor: z.boolean(),
    is_backoffice_admin: z.boolean(),
    is_marketer: z.boolean(),
    locale: z.string(),
    consultation_count: z.number().int(),
    created_at: ts,
  })
  .meta({ id: 'BackofficeUser' });

const OrderRefundSchema = z
  .object({
    order_id: z.uuid(),
    status: z.literal('undeliverable'),
    refunded_at: ts,
    refunds: z.array(z.object({ payment_id: z.uuid(), amount_cents: z.number().int(), currency: z.string() })),
  })
  .meta({ id: 'OrderRefund' });

export default function backofficeModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/v1/backoffice/users/',
    {
      config: {
        operation: { id: 'findAccounts', errors: { 400: [fields] }, descriptions: { 200: 'A page of accounts' } },
      },
      schema: {
        tags: ['backoffice'],
        summary: 'Find accounts by email',
        description: '`email`: case-insensitive substring (an exact address finds that account). Oldest first.',
        security: bearerSecurity,
        querystring: USER_SEARCH_ORDERING.query.extend({ email: z.string().max(320).optional() }),
        response: { 200: pageSchema(StaffUser), 400: FieldErrorsSchema, ...staffErrors },
      },
    },
    async (request) => {
      const order = orderBy(request.query, USER_SEARCH_ORDERING);
      const page = await respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => findUsers(deps, request.query.email ?? '', limit, offset, order));
      await logStaffRead(deps, request, 'profile', page.results.map((u) => u.id));
      return page;
    },
  );

  for (const action of ['disable', 'enable'] as const) {
    r.post(
      `/v1/backoffice/users/:id/${action}/`,
      {
        config: {
          operation: (
            {
              disable: { id: 'disableAccount', errors: { 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The account, disabled' } },
              enable: { id: 'enableAccount', errors: { 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The account, enabled' } },
            } satisfies Record<typeof action, OperationDoc>
          )[action],
        },
        schema: {
          tags: ['backoffice'],
          summary: action === 'disable' ? 'Disable an account (ends every session at once)' : 'Enable a disabled account',
          description: action === 'disable' ? 'Sets disabled_at and revokes every refresh family: access tokens stop working on the next request; sign-in answers 403 user_inactive. An admin cannot disable their own account (400). Idempotent.' : 'Clears disabled_at. Idempotent.',
          security: bearerSecurity,
          params: IdParams,
          response: { 200: StaffUser, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema },
        },
      },
      async (request) => setAccountActive(deps, currentUser(request).id, request.params.id, action === 'enable'),
    );
  }

  r.post(
    '/v1/backoffice/payments/:id/refund/',
    {
      config: {
        operation: {
          id: 'refundPayment',
          errors: { 400: [fields], 404: [notFoundDetail], 502: [{ detail_code: ['refund_failed'] }] },
          descriptions: { 200: 'The payment with its refund', 502: 'The payment provider refused the refund' },
          requestExample: { amount_cents: 2500, reason: 'Goodwill refund after a delayed delivery' },
        },
      },
      schema: {
        tags: ['backoffice'],
        summary: 'Refund a payment, fully or partly',
        description: 'amount_cents omitted: the whole remaining amount. Refunds through the payment provider, then updates refunded_amount_cents, net_amount_cents, status (partially_refunded | refunded) and refund. A full refund of a consultation still waiting for review (or rejected) moves it to refunded.',
        security: bearerSecurity,
        params: IdParams,
        body: z.object({ amount_cents: z.number().int().positive().optional(), reason: z.string().max(500).optional() }),
        response: { 200: PaymentSchema, 400: FieldErrorsSchema, ...staffErrors, 404: z.union([DetailSchema, DetailCodeSchema]), 502: DetailCodeSchema },
      },
    },
    async (request) => {
      const updated = await refundPayment(deps, currentUser(request).id, request.params.id, request.body.amount_cents, request.body.reason ?? '');
      return toPayment(updated, (await userEmail(deps.db, updated.user_id)) ?? '', deps.config.PUBLIC_BASE_URL);
    },
  );

  r.post(
    '/v1/backoffice/orders/:id/refund/',
    {
      config: {
        operation: {
          id: 'refundUndeliverableOrder',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['invalid_status_transition', 'order_refunded', 'order_not_refundable'] }], 502: [{ detail_code: ['refund_failed'] }] },
          descriptions: { 200: 'Refunded: the payments given back; the patient was mailed', 409: 'Not undeliverable, already refunded, or nothing to refund', 502: 'The payment provider refused the refund' },
          requestExample: { reason: 'Returned to sender twice; the patient asked for a refund.' },
        },
      },
      schema: {
        tags: ['backoffice'],
        summary: 'Refund an undeliverable order instead of reshipping it',
        description:
          "Refunds in full what the order's consultation was charged (through the provider, with receipts), marks the order refunded (`refunded_at`; the pharmacy can no longer reship it) and mails the patient. 409 `invalid_status_transition` unless the order is undeliverable, `order_refunded` when already refunded, `order_not_refundable` when no payment holds money (a plan-covered supply). See docs/pharmacy.md.",
        security: bearerSecurity,
        params: IdParams,
        body: z.object({ reason: z.string().trim().max(500).optional() }).optional(),
        response: { 200: OrderRefundSchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema, 502: DetailCodeSchema },
      },
    },
    async (request) =>
      refundUndeliverableOrder(deps, request.params.id, currentUser(request).id, async (q, order) =>
        order.consultation_id ? refundConsultationCharges(deps, q, order.user_id, order.consultation_id, request.body?.reason || 'Order undeliverable: refunded instead of reshipped.') : [],
      ),
  );

  // Issue 43: an order is fulfilled by one pharmacy, whose pharmacists alone see and move it.
  r.put(
    '/v1/backoffice/orders/:id/pharmacy/',
    {
      config: {
        operation: {
          id: 'routeOrderToPharmacy',
          errors: { 400: [fields], 404: [notFoundDetail] },
          descriptions: { 200: 'The order is now with this pharmacy', 400: 'No active pharmacy with this id (`pharmacy_id`)', 404: 'No such order' },
          requestExample: { pharmacy_id: 'central' },
        },
      },
      schema: {
        tags: ['backoffice'],
        summary: 'Route an order to the pharmacy that fulfils it',
        description:
          'Orders go to the central dispatch pharmacy unless routed elsewhere; from then on only the pharmacists of the named pharmacy see and move the order (another pharmacy\'s pharmacist gets 404). `central` routes it back. Audit-logged (`order.routed`). See docs/pharmacy.md.',
        security: bearerSecurity,
        params: IdParams,
        body: z.object({ pharmacy_id: z.uuid().or(z.literal('central')).meta({ description: 'An active pharmacy, or `central`' }) }),
        response: { 200: z.object({ order_id: z.uuid(), pharmacy_id: z.uuid().nullable().meta({ description: 'null: the central dispatch pharmacy' }) }), 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema },
      },
    },
    async (request) => {
      const wanted = request.body.pharmacy_id;
      let pharmacyId: string | null = null;
      if (wanted !== 'central') {
        const pharmacy = await pharmacyById(deps.reader, wanted);
        if (!pharmacy || !pharmacy.is_active) throw fieldErrors({ pharmacy_id: ['No active pharmacy has this id.'] });
        pharmacyId = pharmacy.id;
      }
      if (!(await routeOrderToPharmacy(deps, currentUser(request).id, request.params.id, pharmacyId))) throw notFound();
      return { order_id: request.params.id, pharmacy_id: pharmacyId };
    },
  );
  return Promise.resolve();
}
