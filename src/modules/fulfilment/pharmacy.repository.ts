// The pharmacy desk's SQL (docs/pharmacy.md): the queue, one order with what dispensing needs, and
// the moves. A staff desk reads across accounts (the route is the pharmacist's); no health answers
// are read here: the prescription, the order's items and address, and the patient's name.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import type { OrdersUpdate } from '../../db/schema.ts';
import { COLLECTION_COLUMNS } from './repository.ts';
import type { OrderStatus } from './status.ts';

// Issue 43 (migration 1233): an order is fulfilled by its pharmacy (orders.pharmacy_id; null: the
// central dispatch pharmacy); a pharmacist works for the pharmacy they are assigned to (none: the
// central dispatch pharmacy), and sees and moves only that pharmacy's orders.
const CENTRAL = sql<string>`(select id from partner_pharmacies where is_central)`;
const ofPharmacist = (pharmacistId: string) =>
  sql<boolean>`coalesce(o.pharmacy_id, ${CENTRAL}) = coalesce((select pp.pharmacy_id from pharmacist_pharmacies pp where pp.pharmacist_id = ${pharmacistId}), ${CENTRAL})`;

/** Whether the order is one of the pharmacist's pharmacy (else the desk answers 404, as for no order). */
export async function orderOfPharmacistForPharmacy(q: Queryable, orderId: string, pharmacistId: string): Promise<boolean> {
  const row = await sqlOf(q).selectFrom('orders as o').select('o.id').where('o.id', '=', orderId).where(ofPharmacist(pharmacistId)).executeTakeFirst();
  return row !== undefined;
}

/** Routes an order to a pharmacy (null: the central dispatch pharmacy); false when no such order. */
export async function routeOrderForBackoffice(q: Queryable, orderId: string, pharmacyId: string | null, at: Date): Promise<boolean> {
  const r = await sqlOf(q).updateTable('orders').set({ pharmacy_id: pharmacyId, updated_at: at }).where('id', '=', orderId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

function deskOrdersForPharmacy(q: Queryable) {
  return sqlOf(q)
    .selectFrom('orders as o')
    .innerJoin('users as p', 'p.id', 'o.user_id')
    .leftJoin('prescriptions as r', 'r.id', 'o.prescription_id')
    .leftJoin('users as d', 'd.id', 'r.doctor_id')
    .leftJoin('prescriber_signing_identities as si', 'si.id', 'r.signing_identity_id')
    .leftJoin('partner_pharmacies as ph', 'ph.id', 'o.collection_pharmacy_id')
    .selectAll('o')
    .select(COLLECTION_COLUMNS)
    .select([
      'p.first_name as patient_first_name',
      'p.last_name as patient_last_name',
      'r.treatment_id as rx_treatment_id',
      'r.treatment_name as rx_treatment_name',
      'r.dosage as rx_dosage',
      'r.instructions as rx_instructions',
      'r.supply_days as rx_supply_days',
      'r.issued_at as rx_issued_at',
      'r.valid_until as rx_valid_until',
      'r.status as rx_status',
      'r.signature_level as rx_signature_level',
      'r.signer_name as rx_signer_name',
      'r.signed_at as rx_signed_at',
      'si.certificate_sha256 as rx_certificate_sha256',
      'd.first_name as doctor_first_name',
      'd.last_name as doctor_last_name',
      'd.doctor_license_number',
    ]);
}

export type DeskOrderRow = Awaited<ReturnType<ReturnType<typeof deskOrdersForPharmacy>['executeTakeFirstOrThrow']>>;

export async function countFulfilmentQueueForPharmacy(q: Queryable, pharmacistId: string): Promise<number> {
  const r = await sqlOf(q)
    .selectFrom('orders as o')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('o.status', '=', 'awaiting_fulfilment')
    .where(ofPharmacist(pharmacistId))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The fulfilment queue's `ordering` whitelist (default oldest first: the queue order). */
export const FULFILMENT_ORDERING = listOrdering(['updated_at'], 'created_at');

/** Orders awaiting fulfilment in the asked order (default oldest first). */
export async function pageFulfilmentQueue(
  q: Queryable,
  pharmacistId: string,
  limit: number,
  offset: number,
  order: Order<(typeof FULFILMENT_ORDERING.fields)[number]> = orderBy({}, FULFILMENT_ORDERING),
): Promise<DeskOrderRow[]> {
  return deskOrdersForPharmacy(q)
    .where('o.status', '=', 'awaiting_fulfilment')
    .where(ofPharmacist(pharmacistId))
    .orderBy(`o.${order.field}`, order.direction)
    .orderBy('o.id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
}

/** One order; with `pharmacistId`, only one of that pharmacist's pharmacy. */
export async function deskOrder(q: Queryable, id: string, pharmacistId?: string): Promise<DeskOrderRow | null> {
  let query = deskOrdersForPharmacy(q).where('o.id', '=', id);
  if (pharmacistId !== undefined) query = query.where(ofPharmacist(pharmacistId));
  return (await query.executeTakeFirst()) ?? null;
}

/**
 * Locks one order for a move, with what the move needs: the patient's contact for the mail, and the
 * consultation's questionnaire submission and prescribed treatment for the time-window re-check.
 */
export async function lockOrderForPharmacy(q: Queryable, id: string) {
  const row = await sqlOf(q)
    .selectFrom('orders as o')
    .innerJoin('users as u', 'u.id', 'o.user_id')
    .leftJoin('consultations as c', 'c.id', 'o.consultation_id')
    .leftJoin('prescriptions as r', 'r.id', 'o.prescription_id')
    .select([
      'o.id',
      'o.user_id',
      'o.status',
      'o.consultation_id',
      'o.prescription_id',
      'o.attempt',
      'o.previous_attempts',
      'o.refunded_at',
      'o.carrier',
      'o.tracking_number',
      'o.tracking_url',
      'o.shipped_at',
      'o.undeliverable_reason',
      'o.undeliverable_at',
      'o.batch_number',
      'o.batch_expiry',
      'o.dispensed_at',
      'u.email',
      'u.locale',
      'u.first_name',
      'u.country_of_residence',
      'c.questionnaire_submission_id',
      'r.treatment_id',
    ])
    .where('o.id', '=', id)
    .forUpdate('o')
    .executeTakeFirst();
  return row ?? null;
}

/** Moves a (locked) order from `from` to `to` with the move's columns; false when it was not in `from`. */
export async function transitionOrderForPharmacy(q: Queryable, id: string, from: OrderStatus, to: OrderStatus, set: Omit<OrdersUpdate, 'status' | 'id' | 'user_id'>, at: Date): Promise<boolean> {
  const r = await sqlOf(q)
    .updateTable('orders')
    .set({ ...set, status: to, updated_at: at })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Marks an undeliverable order refunded (the back office's choice instead of a reship). */
export async function markOrderRefundedForBackoffice(q: Queryable, id: string, at: Date): Promise<boolean> {
  const r = await sqlOf(q)
    .updateTable('orders')
    .set({ refunded_at: at, updated_at: at })
    .where('id', '=', id)
    .where('status', '=', 'undeliverable')
    .where('refunded_at', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Records dispensing (batch/lot and expiry) on an order still awaiting fulfilment. */
export async function recordDispensingForPharmacy(q: Queryable, id: string, d: { batch: string; expiry: string; by: string; at: Date }): Promise<boolean> {
  const r = await sqlOf(q)
    .updateTable('orders')
    .set({ batch_number: d.batch, batch_expiry: d.expiry, dispensed_by: d.by, dispensed_at: d.at, updated_at: d.at })
    .where('id', '=', id)
    .where('status', '=', 'awaiting_fulfilment')
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}
