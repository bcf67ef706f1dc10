// The ledger's SQL: payments and payment_receipts (owner: payments). Patient-scoped reads take the
// account id and put it in the SQL.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import type { PaymentsRow } from '../../db/schema.ts';

export type PaymentStatus = 'succeeded' | 'failed' | 'partially_refunded' | 'refunded';

/** One payment to record: a checkout's first charge, a plan's recurring charge (succeeded or failed). */
export interface PaymentInput {
  userId: string;
  consultationId?: string | null;
  subscriptionId?: string | null;
  provider: string;
  providerPaymentId: string;
  /** The provider's checkout id (our checkout_sessions.id) for a checkout's charge; '' otherwise. */
  providerCheckoutId?: string;
  checkoutSessionId?: string | null;
  isRecurring: boolean;
  billingReason: string;
  amountCents: number;
  currency: string;
  status: 'succeeded' | 'failed';
  /** For a failed charge: the provider's decline code. */
  failureCode?: string;
  description: string;
  /** When it happened: captured_at of a success, failed_at of a failure, and created_at. */
  at: Date;
  /** First day of the plan period the charge pays for (plan charges only). */
  periodStart?: Date | null;
  /**
   * Redeliveries and retries record nothing twice: with `ignoreDuplicate` a payment that the unique
   * indexes already hold ((provider, provider_payment_id), one success per plan period) is skipped
   * and null returned; without it the insert throws (a finalisation holds its session's lock).
   */
  ignoreDuplicate?: boolean;
}

/**
 * THE insert into payments. A successful charge takes the next invoice number (gapless enough for
 * invoices: a skipped duplicate consumes a number, as before).
 */
export async function recordPayment(q: Queryable, input: PaymentInput): Promise<{ id: string } | null> {
  const succeeded = input.status === 'succeeded';
  let insert = sqlOf(q)
    .insertInto('payments')
    .values({
      user_id: input.userId,
      consultation_id: input.consultationId ?? null,
      subscription_id: input.subscriptionId ?? null,
      provider: input.provider,
      provider_payment_id: input.providerPaymentId,
      provider_checkout_id: input.providerCheckoutId ?? '',
      checkout_session_id: input.checkoutSessionId ?? null,
      is_recurring: input.isRecurring,
      billing_reason: input.billingReason,
      amount_cents: input.amountCents,
      currency: input.currency,
      status: input.status,
      failure_code: succeeded ? '' : (input.failureCode ?? ''),
      failed_at: succeeded ? null : input.at,
      description: input.description,
      captured_at: succeeded ? input.at : null,
      invoice_number: succeeded ? sql<number>`nextval('invoice_number_seq')` : null,
      period_start: input.periodStart ?? null,
      created_at: input.at,
      updated_at: input.at,
    })
    .returning('id');
  if (input.ignoreDuplicate) insert = insert.onConflict((oc) => oc.doNothing());
  return (await insert.executeTakeFirst()) ?? null;
}

/** One refund of a payment, as kept in payments.refund (the latest one, the total and every refund). */
export interface RefundEntry {
  id: string;
  amount_cents: number;
  status: string;
  reason: string;
  created_at: string;
}
export interface RefundRecord extends RefundEntry {
  total_refunded_cents: number;
  currency: string;
  refunds: RefundEntry[];
}

/** Writes the refund state of a payment (the caller computed it under the payment's row lock). */
export async function updateRefund(q: Queryable, paymentId: string, total: number, status: PaymentStatus, refund: RefundRecord): Promise<PaymentsRow> {
  return sqlOf(q)
    .updateTable('payments')
    .set({ refunded_amount_cents: total, status, refund: JSON.stringify(refund), updated_at: sql<Date>`now()` })
    .where('id', '=', paymentId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
