// The back office's refund: the ledger refunds through the provider, and a fully refunded first
// payment of a consultation still waiting for a doctor ends that review, in one transaction.
import type { Deps } from '../../deps.ts';
import type { PaymentsRow } from '../../db/schema.ts';
import { recordAudit } from '../audit/index.ts';
import { transitionConsultationIfAllowed } from '../consultations/index.ts';
import { refundPaymentForBackoffice } from '../payments/index.ts';

/** Back-office refund, full (amount omitted) or partial; returns the updated payment. */
export async function refundPayment(deps: Deps, actorId: string, paymentId: string, amountCents: number | undefined, reason: string): Promise<PaymentsRow> {
  return deps.db.tx(async (q) => {
    const r = await refundPaymentForBackoffice(deps, q, paymentId, amountCents, reason);
    if (r.endsConsultationId) await transitionConsultationIfAllowed(q, r.payment.user_id, r.endsConsultationId, 'refunded');
    await recordAudit(q, { actorId, action: 'payment.refunded', subjectType: 'payment', subjectId: paymentId, details: { amount_cents: r.amountCents, provider_refund_id: r.providerRefundId } });
    return r.payment;
  });
}
