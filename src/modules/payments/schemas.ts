// The payment record (spec 2.4) and its serialisation, shared by the payments list, the
// consultation's `payments` and the back office.
import { z } from 'zod';
import type { PaymentsRow } from '../../db/schema.ts';
import { iso } from '../../lib/iso.ts';
import { RefundEntrySchema } from './refund-entries.ts';

const ts = z.iso.datetime({ offset: true });

export const RefundSchema = z
  .object({
    id: z.string().meta({ description: 'Provider id of the latest refund' }),
    amount_cents: z.number().int().meta({ description: 'Amount of the latest refund' }),
    total_refunded_cents: z.number().int(),
    currency: z.string(),
    status: z.string().meta({ description: 'succeeded | pending | failed' }),
    reason: z.string(),
    created_at: ts,
    refunds: z.array(RefundEntrySchema),
  })
  .meta({ id: 'Refund', description: 'The refunds of a payment: the latest one, the running total and every refund' });

export const PaymentSchema = z
  .object({
    id: z.uuid(),
    consultation_id: z.uuid().nullable(),
    patient_email: z.string(),
    patient_id: z.uuid(),
    provider: z.string(),
    provider_payment_id: z.string(),
    provider_checkout_id: z.string(),
    provider_order_id: z.string().nullable(),
    provider_order_name: z.string().nullable(),
    subscription_id: z.uuid().nullable(),
    is_recurring: z.boolean(),
    billing_reason: z.string().meta({ description: 'checkout | subscription_create | subscription_cycle | early_order | manual; empty for none' }),
    amount_cents: z.number().int(),
    refunded_amount_cents: z.number().int(),
    net_amount_cents: z.number().int(),
    currency: z.string(),
    status: z.string().meta({ description: 'succeeded | failed | partially_refunded | refunded' }),
    failure_code: z.string(),
    failed_at: ts.nullable(),
    description: z.string(),
    captured_at: ts.nullable(),
    invoice_url: z.string(),
    refund: RefundSchema.nullable(),
    created_at: ts,
    updated_at: ts,
  })
  .meta({ id: 'Payment' });

export type Payment = z.infer<typeof PaymentSchema>;

const isRefundRecord = (v: unknown): v is Payment['refund'] & object =>
  typeof v === 'object' && v !== null && 'refunds' in v && Array.isArray(v.refunds) && 'total_refunded_cents' in v;

/**
 * A payment as the drivers return its row (Date timestamps) or as the consultation list's one
 * statement hands it over (timestamps already ISO text, formatted in SQL): `iso` takes both.
 */
export type PaymentRecord = {
  [K in keyof PaymentsRow]: PaymentsRow[K] extends Date ? Date | string : PaymentsRow[K] extends Date | null ? Date | string | null : PaymentsRow[K];
};

// The consultation list's JSON carries only the columns read here, hence the Omit.
export function toPayment(row: Omit<PaymentRecord, 'checkout_session_id' | 'invoice_number' | 'period_start'>, email: string, baseUrl: string): Payment {
  const refunded = row.refunded_amount_cents;
  return {
    id: row.id,
    consultation_id: row.consultation_id,
    patient_email: email,
    patient_id: row.user_id,
    provider: row.provider,
    provider_payment_id: row.provider_payment_id,
    provider_checkout_id: row.provider_checkout_id,
    provider_order_id: row.provider_order_id,
    provider_order_name: row.provider_order_name,
    subscription_id: row.subscription_id,
    is_recurring: row.is_recurring,
    billing_reason: row.billing_reason,
    amount_cents: row.amount_cents,
    refunded_amount_cents: refunded,
    net_amount_cents: row.status === 'failed' ? 0 : row.amount_cents - refunded,
    currency: row.currency,
    status: row.status,
    failure_code: row.failure_code,
    failed_at: iso(row.failed_at),
    description: row.description,
    captured_at: iso(row.captured_at),
    invoice_url: `${baseUrl}/v1/users/payments/${row.id}/invoice/`,
    refund: isRefundRecord(row.refund) ? row.refund : null,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
