// Refunds in the ledger: a refund (already done at the provider) is applied to its payment row once
// per provider refund id, keeping the running total and every refund in payments.refund.
import type { Queryable } from '../../db/index.ts';
import type { PaymentsRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { fail, fieldErrors, notFound } from '../../http/errors.ts';
import { providerFor } from '../../payment-providers/index.ts';
import { queueRefundReceipt } from './receipts.ts';
import { lockPaymentForProvider, lockPaymentForBackoffice, lockRefundablePaymentsOfConsultation, updateRefund, type RefundRecord } from './repository.ts';
import { storedRefunds } from './refund-entries.ts';

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
  /**
   * Entries of the payment's stored refund list that did not parse (a row edited by hand): left out
   * of the list written back, while the total and the status stay right. The callers log it.
   */
  skippedRefunds: number;
}

/** Applies a refund to a payment row (locked by the caller); a refund id already applied changes nothing. */
export async function recordRefund(q: Queryable, payment: PaymentsRow, refund: RefundInput): Promise<RecordedRefund> {
  const { items: prev, skipped: skippedRefunds } = storedRefunds(payment.refund);
  if (prev.some((r) => r.id === refund.id)) return { payment, endsConsultationId: null, skippedRefunds };
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
  const updated = await updateRefund(q, payment.user_id, payment.id, total, status, record);
  const ends = status === 'refunded' && payment.consultation_id && !payment.is_recurring ? payment.consultation_id : null;
  return { payment: updated, endsConsultationId: ends, skippedRefunds };
}

/** A payment whose stored refund list had entries that do not parse (ids and counts only in the log). */
function warnSkippedRefunds(deps: Deps, paymentId: string, recorded: RecordedRefund): void {
  if (recorded.skippedRefunds > 0) deps.log.warn({ paymentId, skipped: recorded.skippedRefunds }, 'stored refund entries that do not parse were left out of the rewritten list');
}

/**
 * A back-office refund, full (amount omitted) or partial, inside the caller's transaction: the
 * provider refunds first, then the ledger and the receipt. The caller ends the review
 * (`endsConsultationId`) and writes the audit entry.
 */
export async function refundPaymentForBackoffice(
  deps: Deps,
  q: Queryable,
  paymentId: string,
  amountCents: number | undefined,
  reason: string,
): Promise<RecordedRefund & { amountCents: number; providerRefundId: string }> {
  const p = await lockPaymentForBackoffice(q, paymentId);
  if (!p) throw notFound();
  if (!['succeeded', 'partially_refunded'].includes(p.status)) throw fieldErrors({ amount_cents: ['This payment cannot be refunded.'] });
  const remaining = p.amount_cents - p.refunded_amount_cents;
  const amount = amountCents ?? remaining;
  if (amount <= 0 || amount > remaining) throw fieldErrors({ amount_cents: [`Enter an amount between 1 and ${remaining}.`] });
  const provider = providerFor(deps, p.provider);
  const r = await provider.refund({ providerPaymentId: p.provider_payment_id, amountCents: amount, idempotencyKey: `refund_${p.id}_${p.refunded_amount_cents}_${amount}` });
  if (r.status === 'failed') throw fail('refund_failed', { message: 'The payment provider refused the refund.' });
  const recorded = await recordRefund(q, p, { id: r.id, amountCents: amount, status: r.status, reason, at: deps.clock.now() });
  warnSkippedRefunds(deps, p.id, recorded);
  await queueRefundReceipt(deps, q, p.id, { id: r.id, amountCents: amount, at: deps.clock.now() });
  return { ...recorded, amountCents: amount, providerRefundId: r.id };
}

/**
 * A refund the provider reports (Stripe's charge.refunded): applied once, with its receipt. Null
 * when no payment matches or the provider's total is not above what is recorded.
 */
export async function recordProviderRefund(
  deps: Deps,
  q: Queryable,
  provider: string,
  e: { providerPaymentIds: string[]; amountRefundedCents: number | null; refundId: string | null; chargeId: string; reason: string },
): Promise<RecordedRefund | null> {
  const p = await lockPaymentForProvider(q, provider, e.providerPaymentIds);
  if (!p) return null;
  if (e.amountRefundedCents === null || e.amountRefundedCents <= p.refunded_amount_cents) return null;
  const id = e.refundId ?? `${e.chargeId}:${e.amountRefundedCents}`;
  const amount = e.amountRefundedCents - p.refunded_amount_cents;
  const recorded = await recordRefund(q, p, { id, amountCents: amount, totalRefundedCents: e.amountRefundedCents, status: 'succeeded', reason: e.reason, at: deps.clock.now() });
  warnSkippedRefunds(deps, p.id, recorded);
  await queueRefundReceipt(deps, q, p.id, { id, amountCents: amount, at: deps.clock.now() });
  return recorded;
}

/** One refund a consultation's outcome gave back. */
export interface ConsultationRefund {
  paymentId: string;
  amountCents: number;
  currency: string;
  providerRefundId: string;
}

/**
 * Gives back, in full, every charge of a consultation that still holds money (a rejected or expired
 * review: docs/consultations.md), inside the caller's transaction: the provider refunds first (its
 * idempotency key is per payment and outcome, so a retried decision never refunds twice), then the
 * ledger and the refund receipt. A provider that refuses answers 502 `refund_failed` and the whole
 * decision rolls back, so a consultation is never `rejected` while it keeps the money.
 */
export async function refundConsultationCharges(deps: Deps, q: Queryable, userId: string, consultationId: string, reason: string): Promise<ConsultationRefund[]> {
  const out: ConsultationRefund[] = [];
  for (const p of await lockRefundablePaymentsOfConsultation(q, userId, consultationId)) {
    const amount = p.amount_cents - p.refunded_amount_cents;
    if (amount <= 0) continue;
    const r = await providerFor(deps, p.provider).refund({ providerPaymentId: p.provider_payment_id, amountCents: amount, idempotencyKey: `outcome_${p.id}_${p.refunded_amount_cents}` });
    if (r.status === 'failed') throw fail('refund_failed', { message: 'The payment provider refused the refund.' });
    const at = deps.clock.now();
    const recorded = await recordRefund(q, p, { id: r.id, amountCents: amount, status: r.status, reason, at });
    warnSkippedRefunds(deps, p.id, recorded);
    await queueRefundReceipt(deps, q, p.id, { id: r.id, amountCents: amount, at });
    out.push({ paymentId: p.id, amountCents: amount, currency: p.currency, providerRefundId: r.id });
  }
  return out;
}
