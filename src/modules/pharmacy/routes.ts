// The pharmacy desk (docs/pharmacy.md): a pharmacist's queue of orders awaiting
// fulfilment and the moves of an order (dispense, dispatch, deliver, undeliverable). Every route is
// under /v1/pharmacy/, which src/http/access.ts gives to pharmacists only. The orders and their
// status machine belong to fulfilment; this module adds the desk's HTTP surface, the staff access
// log and the dispatch-time re-check of time-bound answers (the questionnaires module's rule).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, TokenErrorSchema, notFound } from '../../http/errors.ts';
import { orderBy, pageEnvelope, pageParams, pageSchema } from '../../http/pagination.ts';
import { logStaffRead } from '../audit/index.ts';
import {
  PharmacyOrderSchema,
  countFulfilmentQueue,
  FULFILMENT_ORDERING,
  deliverOrder,
  deskOrder,
  dispatchOrder,
  dispenseOrder,
  markOrderUndeliverable,
  orderOfPharmacist,
  pageFulfilmentQueue,
  reshipOrder,
  toPharmacyOrder,
  type ArrivalCheck,
} from '../fulfilment/index.ts';
import { DELIVERY_MARGIN_HOURS, estimateArrival, timeWindowRecheck } from '../questionnaires/index.ts';
import { fields, notFoundDetail, transitionConflict } from '../../http/operation.ts';

const IdParams = z.object({ id: z.uuid() });

/**
 * Issue 43: a pharmacist moves only the orders of their pharmacy (docs/pharmacy.md); another
 * pharmacy's order is 404, exactly as an order that does not exist.
 */
async function guardOwnOrder(deps: ModuleOptions['deps'], request: { params: { id: string } } & Parameters<typeof currentUser>[0]): Promise<void> {
  if (!(await orderOfPharmacist(deps.db, request.params.id, currentUser(request).id))) throw notFound();
}
const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };
const text = (max: number) => z.string().trim().min(1).max(max);

const DispenseBody = z.object({
  batch: text(64).meta({ description: 'Batch or lot number of the dispensed pack' }),
  expiry: z.iso.date().meta({ description: 'Expiry date of the dispensed pack (YYYY-MM-DD)' }),
});
const DispatchBody = z.object({
  carrier: text(64).meta({ example: 'DHL' }),
  tracking_number: text(64).meta({ example: '00340434161094042557' }),
  tracking_url: z
    .url({ protocol: /^https?$/ })
    .max(500)
    .nullable()
    .optional()
    .meta({ description: "The carrier's tracking page for this parcel (http or https)" }),
});
const UndeliverableBody = z.object({ reason: text(1000).meta({ description: 'Why the order cannot be delivered (returned, address unknown, refused); the patient is told, the back office refunds or reships' }) });
const TooLateSchema = z
  .object({ detail: z.string(), code: z.literal('delivery_too_late'), order_status: z.literal('undeliverable'), expected_transit_hours: z.number(), hours_since_submission: z.number(), reason_codes: z.array(z.string()) })
  .catchall(z.unknown())
  .meta({ id: 'DeliveryTooLate', description: 'A time-bound treatment (emergency contraception) would arrive after its window: not dispatched, the order is undeliverable, the patient was mailed to get it locally at once' });

/**
 * Time-bound answers (hours since unprotected sex) are re-checked for the expected arrival of a parcel
 * handed over now: the carrier's cut-off, working days, holidays and transit days to the patient's
 * country (catalogue/delivery.json), plus the catalogue's margin.
 */
const arrivalCheck: ArrivalCheck = async (q, order, dispatchedAt) => {
  if (!order.treatment_id) return null;
  const estimate = estimateArrival(dispatchedAt, order.country_of_residence, { reviewHours: 0 });
  const arrival = new Date(Date.parse(estimate.estimated_arrival) + DELIVERY_MARGIN_HOURS * 3_600_000);
  const late = await timeWindowRecheck(q, order.user_id, order.questionnaire_submission_id, order.treatment_id, arrival);
  return late && { hours_since_submission: late.hours_since_submission, reason_codes: late.reason_codes, expected_transit_hours: Math.round(((arrival.getTime() - dispatchedAt.getTime()) / 3_600_000) * 10) / 10 };
};

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function pharmacyModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const ownOrder = (request: { params: { id: string } } & Parameters<typeof currentUser>[0]) => guardOwnOrder(deps, request);
  const base = deps.config.PUBLIC_BASE_URL;

  r.get(
    '/v1/pharmacy/orders/',
    {
      config: {
        operation: { id: 'listFulfilmentQueue', errors: { 400: [fields] }, descriptions: { 200: 'A page of orders awaiting fulfilment, oldest first' } },
      },
      schema: {
        tags: ['pharmacy'],
        summary: 'Fulfilment queue',
        description: 'Orders awaiting fulfilment, oldest first: what dispensing needs (prescription, items, address, patient name), no health answers.',
        security: bearerSecurity,
        querystring: FULFILMENT_ORDERING.query,
        response: { 200: pageSchema(PharmacyOrderSchema), 400: FieldErrorsSchema, ...staffErrors },
      },
    },
    async (request) => {
      const p = pageParams(request.query);
      const order = orderBy(request.query, FULFILMENT_ORDERING);
      const me = currentUser(request).id;
      const n = await countFulfilmentQueue(deps.reader, me);
      const rows = await pageFulfilmentQueue(deps.reader, me, p.limit, p.offset, order);
      await logStaffRead(deps, request, 'order', rows.map((o) => o.id));
      return pageEnvelope(request, base, p, n, rows.map(toPharmacyOrder));
    },
  );

  r.get(
    '/v1/pharmacy/orders/:id/',
    { config: { operation: { id: 'getOrderForDispensing', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The order with what dispensing needs' } } }, schema: { tags: ['pharmacy'], summary: 'One order for dispensing', security: bearerSecurity, params: IdParams, response: { 200: PharmacyOrderSchema, ...staffErrors, 404: DetailSchema } } },
    async (request) => {
      const row = await deskOrder(deps.reader, request.params.id, currentUser(request).id);
      if (!row) throw notFound();
      await logStaffRead(deps, request, 'order', row.id);
      return toPharmacyOrder(row);
    },
  );

  // A repeat before the interval the doctor stated: when the next dispensing is allowed.
  const RepeatTooEarlySchema = z
    .object({ detail: z.string(), code: z.literal('repeat_too_early'), earliest_at: z.iso.datetime({ offset: true }) })
    .meta({ id: 'RepeatTooEarly', description: 'The minimum interval between two dispensings has not passed: dispense from `earliest_at`' });
  const moveErrors = { 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema };

  r.post(
    '/v1/pharmacy/orders/:id/dispense/',
    {
      config: {
        operation: {
          id: 'dispenseOrder',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['invalid_status_transition', 'already_dispensed', 'prescription_cancelled', 'repeat_too_early', 'prescription_expired'] }] },
          descriptions: { 200: 'Dispensing recorded (on the order and on its prescription)', 409: 'The order no longer awaits fulfilment, was dispensed already (or its prescription as often as it allows), its prescription was cancelled by a reissue or is past its validity (`prescription_expired`), or the repeat comes before the interval the doctor stated (`repeat_too_early` with `earliest_at`)' },
          requestExample: { batch: 'LOT-24A17', expiry: '2027-06-30' },
        },
      },
      schema: { tags: ['pharmacy'], summary: 'Record dispensing (batch and expiry): once per prescription (or its repeats)', security: bearerSecurity, params: IdParams, body: DispenseBody, response: { 200: PharmacyOrderSchema, ...moveErrors, 409: DetailCodeSchema.or(RepeatTooEarlySchema) } } },
    async (request) => {
      await ownOrder(request);
      const row = await dispenseOrder(deps, { orderId: request.params.id, pharmacistId: currentUser(request).id, batch: request.body.batch, expiry: request.body.expiry });
      await logStaffRead(deps, request, 'order', row.id);
      return toPharmacyOrder(row);
    },
  );

  r.post(
    '/v1/pharmacy/orders/:id/dispatch/',
    {
      config: {
        operation: {
          id: 'dispatchOrder',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['invalid_status_transition', 'delivery_too_late'] }] },
          descriptions: { 200: 'Shipped: the patient was mailed the tracking', 409: 'Not awaiting fulfilment (dispatched twice, delivered, undeliverable), or a time-bound treatment that would arrive too late (`delivery_too_late`: the order is now undeliverable)' },
          requestExample: { carrier: 'DHL', tracking_number: '00340434161094042557', tracking_url: 'https://www.dhl.de/en/privatkunden/dhl-sendungsverfolgung.html?piececode=00340434161094042557' },
        },
      },
      schema: {
        tags: ['pharmacy'],
        summary: 'Dispatch: shipped, with carrier and tracking; the patient is mailed',
        security: bearerSecurity,
        params: IdParams,
        body: DispatchBody,
        response: { 200: PharmacyOrderSchema, ...moveErrors, 409: DetailCodeSchema.or(TooLateSchema) },
      },
    },
    async (request) => {
      await ownOrder(request);
      const b = request.body;
      const row = await dispatchOrder(deps, { orderId: request.params.id, pharmacistId: currentUser(request).id, carrier: b.carrier, trackingNumber: b.tracking_number, trackingUrl: b.tracking_url ?? null }, arrivalCheck);
      await logStaffRead(deps, request, 'order', row.id);
      return toPharmacyOrder(row);
    },
  );

  r.post(
    '/v1/pharmacy/orders/:id/deliver/',
    { config: { operation: { id: 'deliverOrder', errors: { 404: [notFoundDetail], ...transitionConflict }, descriptions: { 200: 'Delivered', 409: 'Not shipped' } } }, schema: { tags: ['pharmacy'], summary: 'Delivered', security: bearerSecurity, params: IdParams, response: { 200: PharmacyOrderSchema, ...moveErrors } } },
    async (request) => {
      await ownOrder(request);
      const row = await deliverOrder(deps, request.params.id);
      await logStaffRead(deps, request, 'order', row.id);
      return toPharmacyOrder(row);
    },
  );

  r.post(
    '/v1/pharmacy/orders/:id/undeliverable/',
    {
      config: {
        operation: {
          id: 'markOrderUndeliverable',
          errors: { 400: [fields], 404: [notFoundDetail], ...transitionConflict },
          descriptions: { 200: 'Undeliverable: the patient was mailed', 409: 'Already delivered, undeliverable or cancelled' },
          requestExample: { reason: 'Returned to sender: address unknown.' },
        },
      },
      schema: {
        tags: ['pharmacy'],
        summary: 'Undeliverable or returned: the patient is mailed; the back office refunds or reships',
        security: bearerSecurity,
        params: IdParams,
        body: UndeliverableBody,
        response: { 200: PharmacyOrderSchema, ...moveErrors },
      },
    },
    async (request) => {
      await ownOrder(request);
      const row = await markOrderUndeliverable(deps, request.params.id, request.body.reason);
      await logStaffRead(deps, request, 'order', row.id);
      return toPharmacyOrder(row);
    },
  );

  r.post(
    '/v1/pharmacy/orders/:id/reship/',
    {
      config: {
        operation: {
          id: 'reshipOrder',
          errors: { 404: [notFoundDetail], 409: [{ detail_code: ['invalid_status_transition', 'order_refunded', 'order_not_reshippable'] }] },
          descriptions: { 200: 'A new attempt awaiting dispatch: the patient was mailed', 409: 'Not undeliverable, already refunded, or stopped as too late for its window' },
        },
      },
      schema: {
        tags: ['pharmacy'],
        summary: 'Reship an undeliverable or returned order: a new attempt awaiting dispatch; the patient is mailed',
        description:
          'undeliverable -> awaiting_fulfilment, `attempt` + 1; the failed attempt (carrier, tracking, dispensing, reason) moves to `previous_attempts` and dispatch records new tracking. 409 `invalid_status_transition` unless undeliverable, `order_refunded` after the back office refunded it, `order_not_reshippable` for an order stopped as too late for its time window.',
        security: bearerSecurity,
        params: IdParams,
        response: { 200: PharmacyOrderSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema },
      },
    },
    async (request) => {
      await ownOrder(request);
      const row = await reshipOrder(deps, request.params.id, currentUser(request).id);
      await logStaffRead(deps, request, 'order', row.id);
      return toPharmacyOrder(row);
    },
  );
  return Promise.resolve();
}
