// Prescriptions and orders (owner: fulfilment). Patient-scoped reads take the account id.
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';

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
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export interface OrderItem {
  treatment_id: string;
  name: string;
  dosage: string;
  quantity: number;
  supply_days: number | null;
}

export interface OrderInput {
  userId: string;
  consultationId: string | null;
  prescriptionId: string | null;
  items: OrderItem[];
  /** The address the pharmacy ships to (the account's default address), or null. */
  shippingAddress: Record<string, unknown> | null;
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
      created_at: input.at,
      updated_at: input.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}
