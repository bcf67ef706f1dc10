// Prescriptions and orders (owner: fulfilment). Patient-scoped reads take the account id.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import type { OrdersRow, PrescriptionsRow } from '../../db/schema.ts';
import type { OrderItem } from './schemas.ts';

export interface PrescriptionInput {
  userId: string;
  consultationId: string;
  doctorId: string;
  category: string;
  treatmentId: string;
  treatmentName: string;
  dosage: string;
  instructions: string;
  supplyDays: number | null;
  issuedAt: Date;
  validUntil: Date | null;
  /** Dispensings after the first (default 0: dispensed once). */
  repeats?: number;
  /** The minimum days between two dispensings (required with repeats). */
  repeatIntervalDays?: number | null;
}

/** Records the prescription of an approved consultation. */
export async function issuePrescription(q: Queryable, input: PrescriptionInput): Promise<{ id: string }> {
  return sqlOf(q)
    .insertInto('prescriptions')
    .values({
      user_id: input.userId,
      consultation_id: input.consultationId,
      doctor_id: input.doctorId,
      category: input.category,
      treatment_id: input.treatmentId,
      treatment_name: input.treatmentName,
      dosage: input.dosage,
      instructions: input.instructions,
      supply_days: input.supplyDays,
      issued_at: input.issuedAt,
      valid_until: input.validUntil,
      repeats: input.repeats ?? 0,
      repeat_interval_days: input.repeatIntervalDays ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export interface OrderInput {
  userId: string;
  consultationId: string | null;
  prescriptionId: string | null;
  items: OrderItem[];
  /** The address the pharmacy ships to (the account's default address), or null. */
  shippingAddress: Record<string, unknown> | null;
  /** The partner pharmacy the patient collects at (chosen at checkout or renewal), or null for delivery. */
  collectionPharmacyId?: string | null;
  at: Date;
}

/** Opens the order the pharmacy ships (status awaiting_fulfilment). */
export async function createOrder(q: Queryable, input: OrderInput): Promise<{ id: string }> {
  return sqlOf(q)
    .insertInto('orders')
    .values({
      user_id: input.userId,
      consultation_id: input.consultationId,
      prescription_id: input.prescriptionId,
      status: 'awaiting_fulfilment',
      items: JSON.stringify(input.items),
      shipping_address: input.shippingAddress ? JSON.stringify(input.shippingAddress) : null,
      collection_pharmacy_id: input.collectionPharmacyId ?? null,
      created_at: input.at,
      updated_at: input.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** The collection pharmacy's columns an order shows (`ph_*`, null for delivery). */
export const COLLECTION_COLUMNS = [
  'ph.name as ph_name',
  'ph.address_line as ph_address_line',
  'ph.postal_code as ph_postal_code',
  'ph.city as ph_city',
  'ph.country as ph_country',
  'ph.opening_hours as ph_opening_hours',
  'ph.click_and_collect as ph_click_and_collect',
  'ph.delivery as ph_delivery',
] as const;

export type CollectionColumns = {
  ph_name: string | null;
  ph_address_line: string | null;
  ph_postal_code: string | null;
  ph_city: string | null;
  ph_country: string | null;
  ph_opening_hours: unknown;
  ph_click_and_collect: boolean | null;
  ph_delivery: boolean | null;
};

export type OrderRow = OrdersRow & CollectionColumns;

/** The account's orders, newest first, with the pharmacy an order is collected at. */
export async function ordersOf(q: Queryable, userId: string): Promise<OrderRow[]> {
  return forAccount(q, userId)
    .selectFrom('orders as o')
    .leftJoin('partner_pharmacies as ph', 'ph.id', 'o.collection_pharmacy_id')
    .selectAll('o')
    .select(COLLECTION_COLUMNS)
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .execute();
}

/** An order as `ordersJsonOf` aggregates it: the columns toOrder reads, timestamps as PostgreSQL's JSON text. */
export type OrderJson = Pick<
  OrderRow,
  'id' | 'status' | 'consultation_id' | 'prescription_id' | 'items' | 'shipping_address' | 'carrier' | 'tracking_number' | 'tracking_url' | 'collection_pharmacy_id' | 'attempt'
> &
  CollectionColumns & { shipped_at: string | null; delivered_at: string | null; created_at: string; updated_at: string };

// The columns of OrderJson (toOrder's), the collection pharmacy's under their `ph_*` names.
const ORDER_JSON = `json_build_object(
    'id', o.id, 'status', o.status, 'consultation_id', o.consultation_id, 'prescription_id', o.prescription_id,
    'items', o.items, 'shipping_address', o.shipping_address, 'carrier', o.carrier, 'tracking_number', o.tracking_number,
    'tracking_url', o.tracking_url, 'shipped_at', o.shipped_at, 'delivered_at', o.delivered_at,
    'collection_pharmacy_id', o.collection_pharmacy_id, 'attempt', o.attempt, 'created_at', o.created_at, 'updated_at', o.updated_at,
    'ph_name', ph.name, 'ph_address_line', ph.address_line, 'ph_postal_code', ph.postal_code, 'ph_city', ph.city,
    'ph_country', ph.country, 'ph_opening_hours', ph.opening_hours, 'ph_click_and_collect', ph.click_and_collect,
    'ph_delivery', ph.delivery)`;

/**
 * The account's orders as one JSON array (newest first, as ordersOf), for a caller that reads them in
 * its own statement: the profile answers its row and the orders in one round trip instead of two
 *. A scalar subquery; use it as a selected column.
 */
export function ordersJsonOf(q: Queryable, userId: string) {
  const orders = forAccount(q, userId)
    .selectFrom('orders as o')
    .leftJoin('partner_pharmacies as ph', 'ph.id', 'o.collection_pharmacy_id')
    .select(sql<OrderJson[]>`coalesce(json_agg(${sql.raw(ORDER_JSON)} order by o.created_at desc, o.id desc), '[]'::json)`.as('orders'));
  return sql<OrderJson[]>`(${orders})`;
}

/** A prescription with its prescriber's name and licence (the API shape needs them). */
export type PrescriptionWithDoctor = PrescriptionsRow & {
  doctor_first_name: string | null;
  doctor_last_name: string | null;
  doctor_license_number: string | null;
};

function prescriptionsWithDoctor(q: Queryable, userId: string) {
  return forAccount(q, userId)
    .selectFrom('prescriptions as r')
    .innerJoin('users as d', 'd.id', 'r.doctor_id')
    .selectAll('r')
    .select(['d.first_name as doctor_first_name', 'd.last_name as doctor_last_name', 'd.doctor_license_number']);
}

export async function countPrescriptions(q: Queryable, userId: string): Promise<number> {
  const r = await forAccount(q, userId)
    .selectFrom('prescriptions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The prescriptions list's `ordering` whitelist (default: latest issued first). */
export const PRESCRIPTION_ORDERING = listOrdering(['issued_at', 'valid_until'], '-issued_at');

export async function pagePrescriptions(
  q: Queryable,
  userId: string,
  limit: number,
  offset: number,
  order: Order<(typeof PRESCRIPTION_ORDERING.fields)[number]> = orderBy({}, PRESCRIPTION_ORDERING),
): Promise<PrescriptionWithDoctor[]> {
  return prescriptionsWithDoctor(q, userId)
    .orderBy(`r.${order.field}`, order.direction)
    .orderBy('r.id', order.direction)
    .limit(limit)
    .offset(offset)
    .execute();
}

/** One of the account's prescriptions with the prescriber's and the patient's details for its PDF. */
export async function prescriptionForPdf(q: Queryable, userId: string, id: string) {
  const row = await forAccount(q, userId)
    .selectFrom('prescriptions as r')
    .innerJoin('users as d', 'd.id', 'r.doctor_id')
    .innerJoin('users as pu', 'pu.id', 'r.user_id')
    .selectAll('r')
    .select([
      'd.first_name as doctor_first_name',
      'd.last_name as doctor_last_name',
      'd.doctor_license_number',
      'd.email as doctor_email',
      'd.prescriber_qualification',
      'd.prescriber_phone',
      'pu.first_name as patient_first_name',
      'pu.last_name as patient_last_name',
      'pu.date_of_birth',
      'pu.email as patient_email',
    ])
    .where('r.id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

// ---------------------------------------------------------------- the account's erasure

/**
 * Erasure: the orders stay (dispensing record) with their shipping address emptied; reissue requests
 * still pending are deleted (no doctor decides for an erased account), decided ones stay.
 */
export async function eraseAccountFulfilment(q: Queryable, userId: string): Promise<void> {
  await forAccount(q, userId).updateTable('orders').set({ shipping_address: sql`'{}'::jsonb`, updated_at: sql<Date>`now()` }).execute();
  await forAccount(q, userId).deleteFrom('prescription_reissue_requests').where('status', '=', 'pending').execute();
}
