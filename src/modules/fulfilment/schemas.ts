// The API shapes of prescriptions and orders, shared by the patient's lists, the consultation's
// `prescriptions`, the profile's `orders` and the connector. The order item shape is ours (spec 2.11
// leaves it open).
import { z } from 'zod';
import { iso } from '../../lib/iso.ts';
import { parseList } from '../../lib/json-list.ts';
import { PharmacyPublicSchema, toPharmacyPublic, type PharmacyPublicRow } from '../pharmacies/index.ts';
import type { CollectionColumns, OrderJson, OrderRow, PrescriptionWithDoctor } from './repository.ts';
import { ORDER_STATUSES, isOrderStatus } from './status.ts';

const ts = z.iso.datetime({ offset: true });

export const OrderItemSchema = z.object({
  treatment_id: z.string(),
  name: z.string(),
  dosage: z.string(),
  quantity: z.number().int(),
  supply_days: z.number().int().nullable(),
  instructions: z.string().default('').meta({ description: 'How to take it: the prescription’s instructions (the catalogue’s posology, interaction limits, the doctor’s note); empty on orders made before they were copied here' }),
});
/** One line of an order (orders.items, written by createOrder). */
export type OrderItem = z.infer<typeof OrderItemSchema>;

/** How an order reaches the patient: delivery (to `shipping_address`) or collection at a partner pharmacy. */
export const OrderFulfilmentSchema = z
  .object({
    method: z.enum(['delivery', 'collection']),
    pharmacy: PharmacyPublicSchema.nullable().meta({ description: 'Where to collect the order (collection), else null' }),
  })
  .meta({ id: 'OrderFulfilment' });
export type OrderFulfilment = z.infer<typeof OrderFulfilmentSchema>;

/** The fulfilment of an order row joined with its collection pharmacy's `ph_*` columns. */
export function fulfilmentOf(r: { collection_pharmacy_id: string | null } & CollectionColumns): OrderFulfilment {
  if (!r.collection_pharmacy_id || r.ph_name === null) return { method: 'delivery', pharmacy: null };
  const row: PharmacyPublicRow = {
    id: r.collection_pharmacy_id,
    name: r.ph_name,
    address_line: r.ph_address_line ?? '',
    postal_code: r.ph_postal_code ?? '',
    city: r.ph_city ?? '',
    country: r.ph_country ?? '',
    opening_hours: r.ph_opening_hours ?? [],
    click_and_collect: r.ph_click_and_collect ?? false,
    delivery: r.ph_delivery ?? false,
  };
  return { method: 'collection', pharmacy: toPharmacyPublic(row) };
}

export const OrderSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(ORDER_STATUSES),
    consultation_id: z.uuid().nullable(),
    prescription_id: z.uuid().nullable(),
    items: z.array(OrderItemSchema),
    shipping_address: z.record(z.string(), z.unknown()).nullable(),
    carrier: z.string().nullable(),
    tracking_number: z.string().nullable(),
    tracking_url: z.string().nullable(),
    shipped_at: ts.nullable(),
    delivered_at: ts.nullable(),
    fulfilment: OrderFulfilmentSchema,
    attempt: z.number().int().meta({ description: 'Delivery attempt: 1, then one more for each reship of an undeliverable order' }),
    created_at: ts,
    updated_at: ts,
  })
  .meta({ id: 'Order' });

export type Order = z.infer<typeof OrderSchema>;

export const PrescriptionSchema = z
  .object({
    id: z.uuid(),
    consultation_id: z.uuid(),
    category: z.string(),
    treatment_id: z.string(),
    treatment_name: z.string(),
    dosage: z.string(),
    instructions: z.string(),
    supply_days: z.number().int().nullable(),
    issued_at: ts,
    valid_until: ts.nullable(),
    reissued_from: z.uuid().nullable().meta({ description: 'The prescription this one reissues (an approved reissue request), or null' }),
    doctor: z.object({ id: z.uuid(), first_name: z.string(), last_name: z.string(), doctor_license_number: z.string().nullable() }),
    pdf_url: z.string().meta({ description: 'Absolute address of the prescription PDF' }),
  })
  .meta({ id: 'Prescription' });

export type Prescription = z.infer<typeof PrescriptionSchema>;

export const PrescriptionSignatureSchema = z
  .object({
    level: z.enum(['B-B', 'B-T']).meta({ description: 'PAdES baseline level: B-B (signature with signing-certificate-v2), B-T (plus an RFC 3161 timestamp)' }),
    signer: z.string().meta({ description: "The prescriber's name as signed" }),
    signed_at: ts,
    certificate_sha256: z.string().meta({ description: "SHA-256 of the signer's certificate (DER), lower-case hex" }),
  })
  .meta({ id: 'PrescriptionSignature' });
export type PrescriptionSignature = z.infer<typeof PrescriptionSignatureSchema>;

/** The signature columns of a prescription in their API shape (null: issued before signing). */
export function signatureOf(r: { signature_level: string | null; signer_name: string | null; signed_at: Date | string | null; certificate_sha256: string | null }): PrescriptionSignature | null {
  if (!r.signed_at || !r.signer_name || !r.certificate_sha256) return null;
  return { level: r.signature_level === 'B-T' ? 'B-T' : 'B-B', signer: r.signer_name, signed_at: iso(r.signed_at)!, certificate_sha256: r.certificate_sha256 };
}

export const DispensingSchema = z
  .object({
    status: z.enum(['not_dispensed', 'partly_dispensed', 'dispensed']).meta({ description: 'dispensed: as often as the prescription allows (1 + repeats); partly_dispensed: repeats left' }),
    pharmacy: z.object({ id: z.uuid().nullable(), name: z.string() }).nullable().meta({ description: 'Where it was last dispensed (a partner pharmacy, or the service\'s pharmacy: id null)' }),
    dispensed_at: ts.nullable().meta({ description: 'When it was last dispensed' }),
    dispensings_allowed: z.number().int().meta({ description: '1 + the stated number of repeats' }),
    dispensed_count: z.number().int(),
    repeats_used: z.number().int().meta({ description: 'Repeats dispensed (dispensings after the first)' }),
    repeats_left: z.number().int().meta({ description: 'Repeats still allowed' }),
    repeat_interval_days: z.number().int().nullable().meta({ description: 'The minimum days between two dispensings the doctor stated (null: no repeats)' }),
    next_dispensing_from: ts.nullable().meta({ description: 'The earliest moment of the next dispensing (the stated interval after the last one, of this prescription or of the one a reissue replaced); null when none is left, or nothing holds it back (not dispensed yet, no interval)' }),
  })
  .meta({ id: 'PrescriptionDispensing' });
export type Dispensing = z.infer<typeof DispensingSchema>;

export const PrescriptionDetailSchema = PrescriptionSchema.extend({
  status: z.enum(['active', 'cancelled']).meta({ description: 'cancelled: replaced by a reissue (the new one names this one in `reissued_from`)' }),
  cancelled_at: ts.nullable(),
  repeats: z.number().int(),
  signature: PrescriptionSignatureSchema.nullable().meta({ description: 'The PAdES signature of the PDF; null for a prescription issued before signing' }),
  dispensing: DispensingSchema,
}).meta({ id: 'PrescriptionDetail' });
export type PrescriptionDetail = z.infer<typeof PrescriptionDetailSchema>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An order row (ordersOf) or its JSON (ordersJsonOf, timestamps as text, which `iso` formats alike) in its API shape. */
export function toOrder(row: OrderRow | OrderJson): Order {
  // The CHECK constraint of migration 0980 keeps the column within ORDER_STATUSES.
  if (!isOrderStatus(row.status)) throw new Error(`order ${row.id} has an unknown status`);
  return {
    id: row.id,
    status: row.status,
    consultation_id: row.consultation_id,
    prescription_id: row.prescription_id,
    // An item that does not parse (a row edited by hand) is left out: the order still lists.
    items: parseList(OrderItemSchema, row.items).items,
    shipping_address: isRecord(row.shipping_address) ? row.shipping_address : null,
    carrier: row.carrier,
    tracking_number: row.tracking_number,
    tracking_url: row.tracking_url,
    shipped_at: iso(row.shipped_at),
    delivered_at: iso(row.delivered_at),
    fulfilment: fulfilmentOf(row),
    attempt: row.attempt,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/**
 * The columns toPrescription reads: a row with its prescriber, or the consultation list's JSON of it
 * (timestamps already ISO text there, which `iso` returns as is).
 */
export type PrescriptionRecord = Pick<
  PrescriptionWithDoctor,
  'id' | 'consultation_id' | 'category' | 'treatment_id' | 'treatment_name' | 'dosage' | 'instructions' | 'supply_days' | 'doctor_id' | 'doctor_first_name' | 'doctor_last_name' | 'doctor_license_number'
> & {
  reissued_from?: string | null;
  issued_at: Date | string;
  valid_until: Date | string | null;
};

export function toPrescription(r: PrescriptionRecord, baseUrl: string): Prescription {
  return {
    id: r.id,
    consultation_id: r.consultation_id,
    category: r.category,
    treatment_id: r.treatment_id,
    treatment_name: r.treatment_name,
    dosage: r.dosage,
    instructions: r.instructions ?? '',
    supply_days: r.supply_days ?? null,
    issued_at: iso(r.issued_at)!,
    valid_until: iso(r.valid_until),
    reissued_from: r.reissued_from ?? null,
    doctor: { id: r.doctor_id, first_name: r.doctor_first_name ?? '', last_name: r.doctor_last_name ?? '', doctor_license_number: r.doctor_license_number ?? null },
    pdf_url: `${baseUrl}/v1/users/prescriptions/${r.id}/pdf/`,
  };
}
