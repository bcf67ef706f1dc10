// The pharmacy desk's order shape: only what dispensing and dispatch need (the prescription, the
// items, the shipping address and the patient's name), never questionnaire answers or notes.
import { z } from 'zod';
import { iso } from '../../lib/iso.ts';
import { parseList } from '../../lib/json-list.ts';
import type { DeskOrderRow } from './pharmacy.repository.ts';
import { OrderFulfilmentSchema, OrderItemSchema, PrescriptionSignatureSchema, fulfilmentOf, signatureOf } from './schemas.ts';
import { ORDER_STATUSES, isOrderStatus } from './status.ts';

const ts = z.iso.datetime({ offset: true });
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const PharmacyOrderSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(ORDER_STATUSES),
    patient: z.object({ first_name: z.string(), last_name: z.string() }),
    shipping_address: z.record(z.string(), z.unknown()).nullable(),
    items: z.array(OrderItemSchema),
    prescription: z
      .object({
        id: z.uuid(),
        treatment_id: z.string(),
        treatment_name: z.string(),
        dosage: z.string(),
        instructions: z.string(),
        supply_days: z.number().int().nullable(),
        issued_at: ts,
        valid_until: ts.nullable(),
        doctor: z.object({ first_name: z.string(), last_name: z.string(), doctor_license_number: z.string().nullable() }),
        status: z.enum(['active', 'cancelled']).meta({ description: 'cancelled: replaced by a reissue; do not dispense' }),
        signature: PrescriptionSignatureSchema.nullable().meta({ description: 'Who signed it (PAdES); null for a prescription issued before signing' }),
      })
      .nullable(),
    dispensing: z.object({ batch: z.string(), expiry: z.iso.date(), dispensed_at: ts }).nullable(),
    carrier: z.string().nullable(),
    tracking_number: z.string().nullable(),
    tracking_url: z.string().nullable(),
    shipped_at: ts.nullable(),
    delivered_at: ts.nullable(),
    undeliverable_reason: z.string().nullable(),
    undeliverable_at: ts.nullable(),
    fulfilment: OrderFulfilmentSchema.meta({ description: 'Delivery, or collection at the named partner pharmacy (do not ship: send to that pharmacy for collection)' }),
    attempt: z.number().int(),
    previous_attempts: z.array(z.record(z.string(), z.unknown())).meta({ description: 'Earlier attempts of a reshipped order: carrier, tracking, shipped and undeliverable times and reason' }),
    refunded_at: ts.nullable(),
    created_at: ts,
    updated_at: ts,
  })
  .meta({ id: 'PharmacyOrder' });
export type PharmacyOrder = z.infer<typeof PharmacyOrderSchema>;

const dateOnly = (v: unknown): string => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10));

export function toPharmacyOrder(r: DeskOrderRow): PharmacyOrder {
  if (!isOrderStatus(r.status)) throw new Error(`order ${r.id} has an unknown status`);
  return {
    id: r.id,
    status: r.status,
    patient: { first_name: r.patient_first_name, last_name: r.patient_last_name },
    shipping_address: isRecord(r.shipping_address) ? r.shipping_address : null,
    items: parseList(OrderItemSchema, r.items).items,
    prescription:
      r.prescription_id && r.rx_treatment_id
        ? {
            id: r.prescription_id,
            treatment_id: r.rx_treatment_id,
            treatment_name: r.rx_treatment_name ?? '',
            dosage: r.rx_dosage ?? '',
            instructions: r.rx_instructions ?? '',
            supply_days: r.rx_supply_days ?? null,
            issued_at: iso(r.rx_issued_at)!,
            valid_until: iso(r.rx_valid_until),
            doctor: { first_name: r.doctor_first_name ?? '', last_name: r.doctor_last_name ?? '', doctor_license_number: r.doctor_license_number ?? null },
            status: r.rx_status === 'cancelled' ? 'cancelled' : 'active',
            signature: signatureOf({ signature_level: r.rx_signature_level, signer_name: r.rx_signer_name, signed_at: r.rx_signed_at, certificate_sha256: r.rx_certificate_sha256 }),
          }
        : null,
    dispensing: r.batch_number && r.batch_expiry && r.dispensed_at ? { batch: r.batch_number, expiry: dateOnly(r.batch_expiry), dispensed_at: iso(r.dispensed_at)! } : null,
    carrier: r.carrier,
    tracking_number: r.tracking_number,
    tracking_url: r.tracking_url,
    shipped_at: iso(r.shipped_at),
    delivered_at: iso(r.delivered_at),
    undeliverable_reason: r.undeliverable_reason,
    undeliverable_at: iso(r.undeliverable_at),
    fulfilment: fulfilmentOf(r),
    attempt: r.attempt,
    previous_attempts: Array.isArray(r.previous_attempts) ? r.previous_attempts.filter(isRecord) : [],
    refunded_at: iso(r.refunded_at),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
