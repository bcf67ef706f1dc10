// Refunds in the ledger: a refund (already done at the provider) is applied to its payment row once
// per provider refund id, keeping the running total and every refund in payments.refund.
import type { Queryable } from '../../db/index.ts';
import type { PaymentsRow } from '../../db/schema.ts';
import { updateRefund, type RefundEntry, type RefundRecord } from './repository.ts';

export interface RefundInput {
  id: string;
  amountCents: number;
  status: string;
  reason: string;
  at: Date;
  /** The provider's running total when it reports one (Stripe's amount_refunded). */
  totalRefundedCents?: number;
}

export interface RecordedRefund {
  payment: PaymentsRow;
  /**
   * The consultation whose first payment is now fully refunded: a review still waiting for a
   * doctor ends as `refunded` (the caller moves it through the consultation's status machine).
   */
  endsConsultationId: string | null;
}

const entriesOf = (refund: unknown): RefundEntry[] => {
  if (!refund || typeof refund !== 'object' || !('refunds' in refund) || !Array.isArray(refund.refunds)) return [];
  return refund.refunds as RefundEntry[];
};

/** Applies a refund to a payment row (locked by the caller); a refund id already applied changes nothing. */
export async function recordRefund(q: Queryable, payment: PaymentsRow, refund: RefundInput): Promise<RecordedRefund> {
  const prev = entriesOf(payment.refund);
  if (prev.some((r) => r.id === refund.id)) return { payment, endsConsultationId: null };
  const total = refund.totalRefundedCents ?? payment.refunded_amount_cents + refund.amountCents;
  const at = refund.at.toISOString();
  const refunds = [...prev, { id: refund.id, amount_cents: refund.amountCents, status: refund.status, reason: refund.reason, created_at: at }];
  const record: RefundRecord = {
    id: refund.id,
    amount_cents: refund.amountCents,
    total_refunded_cents: total,
    currency: payment.currency,
    status: refund.status,
    reason: refund.reason,
    created_at: at,
    refunds,
  };
  const status = total >= payment.amount_cents ? 'refunded' : 'partially_refunded';
  const updated = await updateRefund(q, payment.id, total, status, record);
  const ends = status === 'refunded' && payment.consultation_id && !payment.is_recurring ? payment.consultation_id : null;
  return { payment: updated, endsConsultationId: ends };
}
